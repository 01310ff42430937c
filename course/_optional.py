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
            try:
                self._module = importlib.import_module(self._name)
            except ModuleNotFoundError as exc:
                hint = ""
                if sys.platform == "emscripten":
                    hint = (" In JupyterLite, run the lesson's first cell (it loads numpy from "
                            "Pyodide's CDN, or from the site when it was built with a local "
                            "Pyodide distribution).")
                raise ModuleNotFoundError(
                    f"this part of the course needs {self._name!r}, which is not installed.{hint}",
                    name=exc.name) from exc
        return self._module

    def __getattr__(self, attr: str):
        return getattr(self._load(), attr)

    def __repr__(self) -> str:
        state = "loaded" if self._module is not None else "not imported yet"
        return f"<lazy module {self._name!r} ({state})>"


def lazy_module(name: str) -> _LazyModule:
    """A stand-in for ``import name`` that imports ``name`` when first used."""
    return _LazyModule(name)
