"""JupyterLite offline: one line, not a traceback, for a cell that needs numpy or matplotlib.

In the browser edition numpy and matplotlib come from Pyodide's CDN.  Offline (or with the CDN out
of reach) a cell that needs them cannot run; :func:`install_offline_notices` makes IPython print
one line saying so instead of a traceback, and count the cell as run, so that *Run All* goes on to
the rest of the lesson.  A later cell that uses a name only such a cell would have defined (the
result of a skipped experiment) is skipped the same way, with a line naming it.

``import course`` installs it when running in Pyodide (``sys.platform == "emscripten"``) under
IPython; elsewhere nothing changes and a missing package raises as usual.

Examples
--------
>>> offline_notice("matplotlib").startswith("This plot needs matplotlib")
True
>>> sorted(assigned_names("a, b = run()\\nfor i in range(3): c = i\\ndef f(): d = 1"))
['a', 'b', 'c', 'f', 'i']
"""
from __future__ import annotations

import ast
import sys
from typing import Any

__all__ = ["NUMERIC_PACKAGES", "offline_notice", "missing_numeric_package", "assigned_names",
           "install_offline_notices"]

#: Packages the browser edition loads from Pyodide's CDN.
NUMERIC_PACKAGES = ("numpy", "matplotlib")


def offline_notice(package: str) -> str:
    """The line shown instead of the traceback of a cell that needs ``package``."""
    what = "This plot needs matplotlib" if package == "matplotlib" else \
        f"This numeric experiment needs {package}"
    return (f"{what}, which the browser edition loads from Pyodide's CDN; you are offline (or the "
            "CDN is out of reach), so this cell was skipped. Everything that needs neither numpy "
            "nor matplotlib still runs.")


def missing_numeric_package(error: BaseException | None) -> str | None:
    """numpy or matplotlib, if ``error`` (or an error it came from) is its failed import.

    >>> missing_numeric_package(ModuleNotFoundError("x", name="matplotlib.pyplot"))
    'matplotlib'
    >>> missing_numeric_package(ValueError()) is None
    True
    """
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, ModuleNotFoundError) and error.name:
            root = error.name.split(".")[0]
            if root in NUMERIC_PACKAGES:
                return root
        error = error.__cause__ or error.__context__
    return None


def assigned_names(code: str) -> set[str]:
    """Names a cell's top-level statements bind (assignments, loops, imports, definitions)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    names: set[str] = set()
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                             ast.GeneratorExp)):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return names


class _OfflineCells:
    """IPython's handler for ModuleNotFoundError and NameError (see the module's docstring)."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.cell = ""
        self.skipped: dict[str, str] = {}   # name -> the package its cell needed

    def pre_run_cell(self, info: Any) -> None:
        self.cell = info.raw_cell or ""

    def handle(self, shell: Any, etype: type, value: BaseException, tb: Any,
               tb_offset: int | None = None) -> None:
        package = missing_numeric_package(value)
        if package is not None:
            line = offline_notice(package)
        elif isinstance(value, NameError) and getattr(value, "name", None) in self.skipped:
            package = self.skipped[value.name]
            line = (f"Skipped: this cell uses {value.name!r}, which an earlier cell could not "
                    f"compute offline (it needs {package}, from Pyodide's CDN).")
        else:
            shell.showtraceback((etype, value, tb), tb_offset=tb_offset,
                                running_compiled_code=True)
            return None
        try:
            code = shell.transform_cell(self.cell)
        except Exception:  # noqa: BLE001 - a cell IPython cannot transform defines nothing
            code = ""
        self.skipped.update(dict.fromkeys(assigned_names(code), package))
        print(line)
        return None


def install_offline_notices(shell: Any) -> None:
    """Make ``shell`` (an IPython shell) print one line for cells that need numpy/matplotlib.

    Idempotent.  The cell then counts as run (no error status), as in the browser's kernel only
    a shown traceback marks a cell as failed.
    """
    if getattr(shell, "_course_offline_cells", None) is not None:
        return
    cells = _OfflineCells(shell)
    shell._course_offline_cells = cells
    shell.events.register("pre_run_cell", cells.pre_run_cell)
    shell.set_custom_exc((ModuleNotFoundError, NameError), cells.handle)


def install_in_browser() -> None:
    """:func:`install_offline_notices` on the running IPython, only in Pyodide."""
    if sys.platform != "emscripten":
        return
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None:
        install_offline_notices(shell)
