"""Lay ``course/grading/`` out in the three parts of issue 32: ``checks/``, ``job/``, ``term/``.

Run from the repository's root on a clean checkout that still has the old layout::

    python tools/relayout_grading.py            # git mv + rewrite every reference; no commit

It is mechanical, so it can be re-run on a newer ``main``:

1. every module of ``course/grading`` is moved with ``git mv`` (:data:`MOVES`);
2. every text file the repository tracks is rewritten:

   * relative imports in ``course/`` (``from ..course_dir import ...``) are resolved against
     the file's old place, mapped, and made relative again from the file's new place;
   * ``from course.grading.autograde import queue`` (a module imported from its package) is
     rewritten to the module's new package;
   * every dotted name ``course.grading.X.Y`` (imports, ``python -m`` commands, nbgrader's
     class paths, ``mock.patch`` targets, docs) and every path ``course/grading/X/Y.py``
     is mapped by its longest module prefix;
   * the notebooks' ``from course.grading.cases import ...`` (and ``errorbounds``,
     ``evaluation``, ``instrument``) become ``from course.grading import ...``;
   * ``course/sandbox/session.py``'s ``import_module("..grading.instrument", ...)``;
   * the five paths a moved module computes from its own ``__file__`` (:data:`DEPTH_FIXUPS`).

After a merge that brings in code written against the old layout (a branch that added
``from ..course_dir import ...`` to ``autograde/queue.py``, or a new test importing
``course.grading.autograde``), ``python tools/relayout_grading.py --fixup`` rewrites only the
references that name an old module, in place (no ``git mv``, nothing staged).

Nothing else changes: what the modules say and do is untouched.  Then regenerate ``exercises/``
(``python -m course.grading release``: the locked cells' checksums) and commit.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

G = "course.grading"

#: old module (dotted) -> new module, by prefix; the longest prefix wins.
PREFIXES = {
    # 1. checks: what the exercises' test cells call (the student's kernel and the grader)
    f"{G}.checks": f"{G}.checks.searches",
    **{f"{G}.{m}": f"{G}.checks.{m}" for m in
       ("cases", "compare", "instrument", "evaluation", "errorbounds", "failures", "values",
        "diagnose")},
    # 2. job: the grading job, sandbox in, verdicts out (the local pool and the cluster)
    f"{G}.autograde": f"{G}.job.autograde",          # the package's __init__: the grading run
    **{f"{G}.autograde.{m}": f"{G}.job.{m}" for m in
       ("queue", "worker", "sandboxed", "approval", "integrity")},
    # 3. term: the instructor's files, the gradebook, the term's bookkeeping
    f"{G}.term.results": f"{G}.term.store",           # frees the name for results/
    f"{G}.intake": f"{G}.term.intake",
    f"{G}.results": f"{G}.term.results",
    **{f"{G}.{m}": f"{G}.term.{m}" for m in
       ("course_dir", "release", "release_check", "run_lock", "example_class", "safe_text",
        "rules")},
}
#: old packages that become a module
PACKAGE_TO_MODULE = {f"{G}.autograde"}
#: new packages that did not exist, with their docstring
NEW_PACKAGES = {
    f"{G}.checks": '"""The checks the exercises\' test cells call: run in the student\'s kernel '
                   '(Validate) and in the grader.\n\nSee :mod:`course.grading` for the parts of '
                   'the grading package.\n"""\n',
}
#: paths computed from a moved module's own file: one level deeper now (new path, old, new)
DEPTH_FIXUPS = [
    ("course/grading/checks/compare.py",
     "Path(__file__).resolve().parents[1])", "Path(__file__).resolve().parents[2])"),
    ("course/grading/checks/failures.py",
     "os.path.dirname(os.path.dirname(os.path.abspath(__file__)))",
     "os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))"),
    ("course/grading/checks/instrument.py",
     "os.path.dirname(os.path.dirname(os.path.abspath(__file__)))",
     "os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))"),
    ("course/grading/term/results/similarity.py",
     "Path(__file__).resolve().parents[3]", "Path(__file__).resolve().parents[4]"),
    ("course/grading/term/example_class.py",
     "Path(__file__).resolve().parents[2]", "Path(__file__).resolve().parents[3]"),
]
#: files that name the old paths on purpose (the aliases kept for released notebooks)
KEEP_OLD_PATHS = {"tools/relayout_grading.py", "course/grading/__init__.py",
                  "tests/test_grading_layout.py"}
#: the notebooks import these from course.grading itself
NOTEBOOK_MODULES = ("cases", "errorbounds", "evaluation", "instrument")


def module_of(path: str) -> str:
    """``course/grading/job/data.py`` -> ``course.grading.job.data`` (a package: its name)."""
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_of(path: str) -> str:
    """The package relative imports in ``path`` are resolved against."""
    module = module_of(path)
    return module if path.endswith("__init__.py") else module.rpartition(".")[0]


def path_of(module: str, package: bool) -> str:
    return module.replace(".", "/") + ("/__init__.py" if package else ".py")


def main(argv: list[str]) -> int:
    root = Path.cwd()
    fixup = argv == ["--fixup"]
    if fixup and not (root / "course/grading/checks/__init__.py").exists():
        print("relayout_grading --fixup: run from the repository root, on the new layout",
              file=sys.stderr)
        return 2
    if not fixup and not (root / "course/grading/autograde/__init__.py").exists():
        print("relayout_grading: run from the repository root, on the old layout", file=sys.stderr)
        return 2
    if not fixup and subprocess.run(["git", "status", "--porcelain"], capture_output=True, text=True,
                      check=True).stdout.strip():
        print("relayout_grading: the work tree has changes; commit or stash them", file=sys.stderr)
        return 2
    tracked = subprocess.run(["git", "ls-files"], capture_output=True, text=True,
                             check=True).stdout.split("\n")
    tracked = [p for p in tracked if p]
    modules = {module_of(p): p for p in tracked if p.startswith("course/") and p.endswith(".py")
               and (root / p).exists()}
    current: dict[str, str] = {}

    def old_module(new: str) -> str:
        return new
    if fixup:
        # the tree has the new layout: the old modules are the new ones mapped back
        current = modules
        back = {v: k for k, v in PREFIXES.items()}

        def old_module(new: str) -> str:
            best = max((k for k in back if new == k or new.startswith(k + ".")), key=len,
                       default=None)
            return new if best is None else back[best] + new[len(best):]

        modules = {old_module(m): p for m, p in current.items()}

    def defined(module: str) -> set[str]:
        """The names a module of the current tree defines at its top, and its submodules."""
        path = current.get(module, "")
        if not path:
            return set()
        names = {m.rpartition(".")[2] for m in current if m.rpartition(".")[0] == module}
        for node in ast.parse((root / path).read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        return names

    def bound_in_init(package: str) -> set[str]:
        """The names a package's ``__init__`` binds itself (they hide its submodules)."""
        path = modules.get(package, "")
        if not path.endswith("__init__.py"):
            return set()
        bound = set()
        for node in ast.walk(ast.parse((root / path).read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                bound.update(a.asname or a.name for a in node.names)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                bound.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                bound.add(node.id)
        return bound

    def new_module(old: str) -> str:
        best = max((k for k in PREFIXES if old == k or old.startswith(k + ".")), key=len,
                   default=None)
        return old if best is None else PREFIXES[best] + old[len(best):]

    def map_dotted(name: str) -> str:
        """Map ``course.grading.X.attr`` by its longest prefix that is an old module (with
        ``--fixup``: unless a module of the current tree is as long a prefix)."""
        parts = name.split(".")
        for n in range(len(parts), 1, -1):
            head = ".".join(parts[:n])
            if head in current:
                return name
            if head in modules:
                return ".".join([new_module(head)] + parts[n:])
        return name

    moves: dict[str, str] = {}
    for old_path in ([] if fixup else tracked):
        if not (old_path.startswith("course/grading/") and old_path.endswith(".py")):
            continue
        old = module_of(old_path)
        new = new_module(old)
        package = old_path.endswith("__init__.py") and old not in PACKAGE_TO_MODULE
        moves[old_path] = path_of(new, package)
    assert len(set(moves.values())) == len(moves), "two modules moved to one place"

    def new_path_of_file(path: str) -> str:
        return moves.get(path, path)

    def relative(target: str, package: str) -> str:
        t, p = target.split("."), package.split(".")
        common = 0
        while common < min(len(t), len(p)) and t[common] == p[common]:
            common += 1
        return "." * (len(p) - common + 1) + ".".join(t[common:])

    def rewrite_from(base: str, names: str, package_old: str | None, package_new: str | None
                     ) -> str:
        """``from BASE import NAMES`` with BASE absolute (or resolved), rewritten."""
        idents = [(m.group(1), m.group(2)) for m in
                  re.finditer(r"\b([A-Za-z_]\w*)(?:\s+as\s+([A-Za-z_]\w*))?", names)]
        new_base = map_dotted(base)
        if fixup and base in current and base in modules and new_module(base) != base:
            # a name both layouts have (term.results): the one that defines what is imported
            wanted = {n for n, _ in idents}
            if not wanted <= defined(base) and wanted <= defined(new_module(base)):
                new_base = new_module(base)
        # names that are modules moved elsewhere than under the mapped base
        hidden = bound_in_init(base)
        submodules = [(n, a) for n, a in idents if f"{base}.{n}" in modules and n not in hidden
                      and f"{base}.{n}" not in current
                      and new_module(f"{base}.{n}") != f"{new_base}.{n}"]
        if submodules:
            targets = [new_module(f"{base}.{n}") for n, _ in submodules]
            parents = {t.rpartition(".")[0] for t in targets}
            if len(submodules) != len(idents) or len(parents) != 1 or "(" in names:
                raise SystemExit(f"relayout_grading: cannot rewrite from {base} import {names}")
            new_base = parents.pop()
            items = []
            for (n, a), t in zip(submodules, targets):
                leaf = t.rpartition(".")[2]
                alias = a or (n if leaf != n else None)
                items.append(leaf + (f" as {alias}" if alias else ""))
            names = ", ".join(items) + re.match(r".*?(\s*)$", names, re.S).group(1)
        if package_new is not None:
            new_base = relative(new_base, package_new)
        return f"from {new_base} import {names}"

    dotted = r"\bcourse\.grading(?:\.[A-Za-z_]\w*)*"
    path = r"\bcourse/grading(?:/[A-Za-z_][\w]*)*(?:\.py|/)?"
    names = r"(\([^)]*\)|[\w ,]+)"
    pattern = re.compile(
        rf"(?P<rel>^[ \t]*from[ \t]+(?P<dots>\.+)(?P<relbase>[\w.]*)[ \t]+import[ \t]+{names})"
        rf"|(?P<abs>from[ \t]+(?P<absbase>{dotted})[ \t]+import[ \t]+{names.replace('(', '(?P<absnames>', 1)})"
        rf"|(?P<dotted>{dotted})|(?P<path>{path})", re.M)

    def map_path(text: str) -> str:
        trail = "/" if text.endswith("/") else ""
        if fixup and (root / text).exists():
            return text
        body = text.rstrip("/")
        is_file = body.endswith(".py")
        module = body[:-3].replace("/", ".") if is_file else body.replace("/", ".")
        if module.endswith(".__init__"):
            module = module[:-9]
            return path_of(new_module(module), module not in PACKAGE_TO_MODULE)
        if is_file:
            return path_of(new_module(module), False)
        if module in PACKAGE_TO_MODULE:
            return new_module(module).rpartition(".")[0].replace(".", "/") + trail
        return new_module(module).replace(".", "/") + trail

    def rewrite(text: str, file_path: str) -> str:
        py_in_course = file_path.startswith("course/") and file_path.endswith(".py")
        pkg_old = package_of(file_path) if py_in_course else None
        pkg_new = package_of(new_path_of_file(file_path)) if py_in_course else None
        if fixup and py_in_course and not (root / file_path).exists():
            return text

        def sub(m: re.Match) -> str:
            if m.group("rel") is not None:
                if not py_in_course:
                    return m.group(0)
                indent = re.match(r"[ \t]*", m.group(0)).group(0)
                def resolve(package: str) -> str:
                    up = package.split(".")
                    up = up[:len(up) - len(m.group("dots")) + 1]
                    return ".".join(up + ([m.group("relbase")] if m.group("relbase") else []))

                base = resolve(pkg_old)
                if fixup and base not in current and base not in modules:
                    # a line merged in from the old layout: relative to the file's old place
                    # (``from ..game import Player`` in checks/evaluation.py, was evaluation.py)
                    here = module_of(file_path)
                    old_here = old_module(here) if here != "course" else here
                    old_package = old_here if file_path.endswith("__init__.py") \
                        else old_here.rpartition(".")[0]
                    if resolve(old_package) in current or resolve(old_package) in modules:
                        base = resolve(old_package)
                tail = m.group(0)[m.group(0).index(" import ") + len(" import "):]
                # "from . import x": BASE is the package, x the module
                return indent + rewrite_from(base, tail, pkg_old, pkg_new)
            if m.group("abs") is not None:
                return rewrite_from(m.group("absbase"), m.group("absnames"), None, None)
            if m.group("dotted") is not None:
                return map_dotted(m.group("dotted"))
            return map_path(m.group("path"))

        if file_path.endswith(".ipynb"):
            text = re.sub(rf"from course\.grading\.(?:{'|'.join(NOTEBOOK_MODULES)}) import",
                          "from course.grading import", text)
        if file_path == "course/sandbox/session.py":
            text = text.replace('"..grading.instrument"', '"..grading.checks.instrument"')
        return pattern.sub(sub, text)

    if fixup:
        changed = []
        for p in tracked:
            if p in KEEP_OLD_PATHS or not (root / p).is_file():
                continue
            try:
                text = (root / p).read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            new = rewrite(text, p)
            if new != text:
                (root / p).write_text(new, encoding="utf-8")
                changed.append(p)
        print("relayout_grading --fixup: rewrote", len(changed), "files:", *changed)
        return 0

    texts: dict[str, str] = {}
    for p in tracked:
        if p == "tools/relayout_grading.py":
            continue
        try:
            text = (root / p).read_text(encoding="utf-8")
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue
        new = rewrite(text, p)
        if new != text or p in moves:
            texts[new_path_of_file(p)] = new

    # the moves: a file that a package of the same name replaces goes first
    order = sorted(moves, key=lambda p: (p not in ("course/grading/checks.py",
                                                   "course/grading/term/results.py"), p))
    for old_path in order:
        new_path = moves[old_path]
        if new_path == old_path:
            continue
        (root / new_path).parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "mv", old_path, new_path], check=True)
    for p, text in texts.items():
        (root / p).write_text(text, encoding="utf-8")
    for p, old, new in DEPTH_FIXUPS:
        text = (root / p).read_text(encoding="utf-8")
        if text.count(old) != 1:
            print(f"relayout_grading: {p} no longer holds {old!r} once: fix it by hand",
                  file=sys.stderr)
            return 1
        (root / p).write_text(text.replace(old, new), encoding="utf-8")
    for package, doc in NEW_PACKAGES.items():
        init = root / path_of(package, True)
        if not init.exists():
            init.write_text(doc, encoding="utf-8")
    subprocess.run(["git", "add", "-A", "course"], check=True)
    subprocess.run(["git", "add", "-u"], check=True)
    for old_dir in ("autograde", "intake", "results"):
        d = root / "course/grading" / old_dir
        if d.exists():
            leftovers = [str(x) for x in d.rglob("*") if x.is_file() and "__pycache__" not in x.parts]
            if leftovers:
                print("relayout_grading: left in", d, leftovers, file=sys.stderr)
                return 1
            subprocess.run(["rm", "-r", str(d)], check=True)
    print(f"relayout_grading: moved {sum(o != n for o, n in moves.items())} modules, "
          f"rewrote {len(texts)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
