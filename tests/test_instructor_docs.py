"""The instructor guide (docs/instructor/grading.md) names menus, commands and files that exist."""

from __future__ import annotations

import re
from pathlib import Path

import nbgrader
import pytest

from test_grading_support import ROOT

README = (ROOT / "docs" / "instructor" / "grading.md").read_text(encoding="utf-8")
SECTION = README[README.index("<!-- section:grading -->"):README.index("<!-- /section:grading -->")]
NBGRADER = Path(nbgrader.__file__).parent


def _labextension_labels() -> tuple[str, set[str]]:
    """The nbgrader menu's title and its commands' labels, from the installed labextension."""
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace")
                     for p in (NBGRADER / "labextension" / "static").glob("*.js"))
    title = re.search(r'title\.label="(\w+)",\(\w+\|\|\w+\)&&\(\w+\.addItem', text)
    labels = set(re.findall(r'addCommand\(\w+\.open\w+,\{label:"([^"]+)"', text))
    assert title and labels, "the nbgrader labextension changed: update this test"
    return title.group(1), labels


def test_menu_paths_are_the_labextensions():
    menu, labels = _labextension_labels()
    assert menu == "Nbgrader" and {"Formgrader", "Assignment List"} <= labels
    paths = re.findall(r"\*(\w+) → ([^*]+)\*", SECTION)
    assert paths, "the README names no menu path"
    for top, item in paths:
        assert top == menu, f"no menu {top!r} (nbgrader's is {menu!r})"
        assert item in labels, f"{top} → {item}: the nbgrader menu has {sorted(labels)}"


def test_the_formgrader_pages_named_exist():
    templates = "\n".join(p.read_text(encoding="utf-8") for p in
                          (NBGRADER / "server_extensions" / "formgrader" / "templates").glob("*.tpl"))
    for page in ("Manage Assignments", "Manual Grading"):
        if page in SECTION:
            assert f">{page}<" in templates, page


def test_make_targets_and_commands_named_exist():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([\w-]+):", makefile, re.MULTILINE))
    for target in set(re.findall(r"`make ([\w-]+)", SECTION)):
        assert target in targets, f"README names `make {target}`, the Makefile has no such target"
    from course.grading.__main__ import build_parser

    parser = build_parser()
    commands = set(parser._subparsers._group_actions[0].choices)
    for command in set(re.findall(r"python -m course\.grading ([a-z][\w-]*)", SECTION)):
        if command != "COMMAND":
            assert command in commands, command
    for path in set(re.findall(r"`(course/[\w/]+\.py)`", SECTION)):
        assert (ROOT / path).is_file(), f"README names {path}, which does not exist"
    assert "student-bundle" in targets and "make student-bundle" in SECTION


@pytest.mark.parametrize("page", sorted(p.name for p in (ROOT / "docs" / "instructor").glob("*.md")))
def test_every_instructor_page_names_only_commands_that_exist(page):
    text = (ROOT / "docs" / "instructor" / page).read_text(encoding="utf-8")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([\w-]+):", makefile, re.MULTILINE))
    for target in set(re.findall(r"`make ([a-z][\w-]*)", text)):
        assert target in targets, f"{page} names `make {target}`, the Makefile has no such target"
    from course.grading.__main__ import build_parser

    commands = set(build_parser()._subparsers._group_actions[0].choices)
    for command in set(re.findall(r"python -m course\.grading (?:--root \S+ )?([a-z][\w-]*)", text)):
        if command != "COMMAND":
            assert command in commands, f"{page} names python -m course.grading {command}"
    for dotted in set(re.findall(r"\"(course\.[\w.]+)\"", text)):
        module, _, name = dotted.rpartition(".")
        import importlib

        assert hasattr(importlib.import_module(module), name), f"{page} names {dotted}"
