"""course.theory holds formulas only; the game, the whole-game walks and the text helpers that used
to share its file live where what they are says (issue 21), and data still flows one way.

The formulas themselves are checked by their doctests and by tests/test_examples.py.
"""
from __future__ import annotations

import ast
import importlib
import json
import warnings
from pathlib import Path

import pytest

import course.theory

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "course"


def course_imports(path: Path) -> set[str]:
    """The ``course.*`` modules a file imports (relative imports resolved), at any depth."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    package = package.rpartition(".")[0]          # a package's __init__: the package itself
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module == "course" or module.startswith("course."):
                found.add(module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("course")}
    return found


def test_course_imports_reads_relative_imports():
    """The control: the reader sees what a file of known imports takes in."""
    assert course_imports(COURSE / "widgets" / "ordering.py") >= {
        "course.draw", "course.search", "course.theory", "course.widgets._common"}


LAYERS = {
    # file (or folder): the only course modules it may import
    "theory": {"course.errors"},                      # plus its own submodules
    "text.py": {"course.errors", "course.search.result"},  # reads traces (their types); no search
    "analysis.py": {"course.errors", "course.game"},
    "games/pacman_corridor.py": {"course.errors", "course.game"},
}


@pytest.mark.parametrize("place", sorted(LAYERS))
def test_each_part_imports_only_what_is_below_it(place):
    target = COURSE / place
    files = sorted(target.glob("*.py")) if target.is_dir() else [target]
    assert files
    for path in files:
        imported = {m for m in course_imports(path) if not m.startswith("course.theory")}
        assert imported <= LAYERS[place], f"{path.relative_to(ROOT)} imports {imported - LAYERS[place]}"


def test_theory_exports_formulas_only():
    exported = {name: getattr(course.theory, name) for name in course.theory.__all__}
    assert all(callable(f) for f in exported.values())
    assert {f.__module__ for f in exported.values()} == {
        "course.theory.counts", "course.theory.selective", "course.theory.chance"}
    assert not set(course.theory.__all__) & set(course.theory.MOVED)


@pytest.mark.parametrize("name", sorted(course.theory.MOVED))
def test_an_old_name_still_works_and_says_where_it_lives_now(name):
    home = course.theory.MOVED[name]
    with pytest.warns(DeprecationWarning, match=f"course.theory.{name} has moved: import it from {home}"):
        old = getattr(course.theory, name)
    assert old is getattr(importlib.import_module(home), name)


def test_an_unknown_name_is_still_an_error():
    with pytest.raises(AttributeError, match="no attribute 'no_such_formula'"):
        course.theory.no_such_formula  # noqa: B018


def lesson_imports() -> list[tuple[str, str, str]]:
    """``(lesson, module, name)`` for every ``from course... import name`` in a lesson's code."""
    found = []
    for path in sorted((ROOT / "lessons").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            if cell["cell_type"] != "code":
                continue
            try:
                tree = ast.parse("".join(cell["source"]))
            except SyntaxError:          # cell magics
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("course"):
                    found += [(path.name, node.module, a.name) for a in node.names]
    return found


def test_the_lessons_import_each_name_from_its_home():
    imports = lesson_imports()
    assert ("01_minimax.ipynb", "course.games", "PacmanCorridor") in imports     # the control
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        for lesson, module, name in imports:
            assert hasattr(importlib.import_module(module), name), (lesson, module, name)
