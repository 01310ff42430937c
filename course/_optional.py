"""Heavy optional packages (numpy), imported on first use rather than with the course.

The course's core -- games, trees, searches, DOT drawing, widgets and the exercises' checks -- runs
without numpy, as in the JupyterLite edition, where Pyodide loads numpy from its CDN only when a
numeric experiment asks for it.  A module that needs numpy in a few functions writes

    np = lazy_module("numpy")

and uses ``np.…`` as usual: the real import happens at the first attribute access, and a missing
package is reported then, naming what needed it.
"""
from __future__ import annotations

import importlib
import sys
from types import ModuleType


class _LazyModule:
    """Stands in for a module until an attribute is first read."""

    __slots__ = ("_name", "_module")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def _load(self) -> ModuleType:
        if self._module is None:
            self._module = require(self._name)
        return self._module

    def __getattr__(self, attr: str):
        return getattr(self._load(), attr)

    def __repr__(self) -> str:
        state = "loaded" if self._module is not None else "not imported yet"
        return f"<lazy module {self._name!r} ({state})>"


def lazy_module(name: str) -> _LazyModule:
    """A stand-in for ``import name`` that imports ``name`` when first used."""
    return _LazyModule(name)


def require(name: str, what: str = "this part of the course") -> ModuleType:
    """``import name``, or a :class:`ModuleNotFoundError` saying that ``what`` needs it.

    In the browser edition (Pyodide) the message adds that the package comes from Pyodide's CDN.

    >>> require("math").pi > 3
    True
    """
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        package = name.split(".")[0]
        hint = ""
        if sys.platform == "emscripten":
            hint = (f" The browser edition loads {package} from Pyodide's CDN when the lesson's "
                    "first cell runs (or from the site, when it was built with a local Pyodide "
                    "distribution); offline, it cannot.")
        raise ModuleNotFoundError(f"{what} needs {package!r}, which is not installed.{hint}",
                                  name=exc.name) from exc


def optional_import(name: str) -> ModuleType | None:
    """The module ``name`` if it can be imported, else None (for a pure-Python fallback).

    >>> optional_import("math").sqrt(4.0)
    2.0
    >>> optional_import("no_such_module_here") is None
    True
    """
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


class Values(tuple):
    """Read-only numbers standing in for a 1-d numpy array where numpy is missing.

    A tuple, with numpy's ``tolist`` so that code written for the array keeps working.

    >>> Values([1.5, 2.0]).tolist()
    [1.5, 2.0]
    """

    __slots__ = ()

    def tolist(self) -> list:
        """The numbers as a new list."""
        return list(self)


#: What :func:`skip_unused_format_checks` keeps from being imported: jsonschema's checker of the
#: ``iri`` string format (rfc3987-syntax, installed with Jupyter by ``jsonschema[format-nongpl]``)
#: builds a Lark grammar when it is imported, about 0.8 s of CPU.
UNUSED_FORMAT_CHECKERS = ("rfc3987_syntax",)


def skip_unused_format_checks() -> bool:
    """Keep jsonschema from importing checkers of string formats the grading never validates.

    jsonschema (imported by nbformat and nbgrader) imports, when it is installed, a checker for
    each string format it knows.  The ``iri`` checker's module builds a parser grammar on import:
    about 0.8 s of every grading command's and every grading worker's start, to check a format
    that no schema the grading uses has (nbformat's and nbgrader's have no ``format``).  Called
    first thing by ``python -m course.grading`` and by a grading worker; a process that imported
    jsonschema already (a Jupyter server) is left as it is.  Returns True if it took effect
    (``tests/test_startup_imports.py``).
    """
    if "jsonschema" in sys.modules:
        return False
    for name in UNUSED_FORMAT_CHECKERS:
        sys.modules.setdefault(name, None)      # ``import name`` then raises ImportError
    return True
