"""Turning DOT text into SVG or PNG, without needing a system Graphviz.

The course draws with ``graphviz-pure``, a self-contained Graphviz port that
pip installs as a program beside the Python interpreter (the virtualenv's
``bin`` or ``Scripts`` folder).  A system ``dot`` is used only when
``graphviz-pure`` cannot be found.  Both are given the same DOT text, which
sets every layout attribute and font itself (see :mod:`course.draw.style`), so
a picture does not depend on which program drew it.

Nothing is cached between calls: the program is looked up every time (a few
file-system checks), so changing ``PATH`` or installing Graphviz takes effect
at once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

__all__ = ["RenderError", "find_engine", "run_engine", "FORMATS"]

FORMATS = ("svg", "png")
"""The output formats :func:`run_engine` produces."""

#: Seconds before a layout is abandoned (a runaway layout, never a normal tree).
TIMEOUT = 60

_PURE = "graphviz-pure"


class RenderError(RuntimeError):
    """No Graphviz program was found, or it failed on a picture."""


def _candidates() -> list[Path]:
    """Places where pip puts the ``graphviz-pure`` program, most specific first."""
    names = [_PURE + ".exe", _PURE] if os.name == "nt" else [_PURE]
    folders = [Path(sys.executable).parent]
    try:
        folders.append(Path(sysconfig.get_path("scripts")))
    except (KeyError, TypeError):  # pragma: no cover - exotic installs
        pass
    return [folder / name for folder in folders for name in names]


def find_engine() -> tuple[str, str]:
    """Locate the program that lays out pictures.

    Returns
    -------
    (kind, path) : tuple of str
        ``kind`` is ``"graphviz-pure"`` or ``"dot"``; ``path`` the program to run.
        ``graphviz-pure`` is looked for next to ``sys.executable`` (the
        virtualenv's ``bin``/``Scripts`` folder), then on ``PATH``; a system
        ``dot`` on ``PATH`` is the last resort.

    Raises
    ------
    RenderError
        If neither is installed; the message says how to fix it.

    Examples
    --------
    >>> kind, path = find_engine()
    >>> kind in ("graphviz-pure", "dot")
    True
    """
    for candidate in _candidates():
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return _PURE, str(candidate)
    found = shutil.which(_PURE)
    if found:
        return _PURE, found
    found = shutil.which("dot")
    if found:
        return "dot", found
    raise RenderError(
        "cannot draw: neither the graphviz-pure program nor a system Graphviz 'dot' was found; "
        "install the course's dependencies with `pip install -e .` (or `pip install graphviz-pure`); "
        "in JupyterLab, pictures are then laid out in the browser instead"
    )


def run_engine(source: str, fmt: str = "svg", *, dpi: float | None = None) -> bytes:
    """Lay out DOT ``source`` and return the picture in format ``fmt``.

    Parameters
    ----------
    source : str
        A complete DOT graph.
    fmt : {"svg", "png"}
        Output format.
    dpi : float, optional
        Resolution of a PNG (Graphviz's default is 96).  Ignored for SVG, whose
        sizes are in points.

    Returns
    -------
    bytes
        The picture (UTF-8 text for SVG).

    Raises
    ------
    ValueError
        For an unknown format.
    RenderError
        If no engine is installed or the engine fails; the message quotes its
        error output.

    Examples
    --------
    >>> svg = run_engine('digraph { a -> b }').decode()
    >>> svg.count('class="node"')
    2
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown picture format {fmt!r}; choose one of {', '.join(FORMATS)}")
    kind, program = find_engine()
    command = [program, f"-T{fmt}"]
    if dpi is not None and fmt == "png":
        command.append(f"-Gdpi={float(dpi):g}")
    try:
        done = subprocess.run(command, input=source.encode("utf-8"), capture_output=True,
                              timeout=TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RenderError(f"{kind} ({program}) could not draw the picture: {exc}") from None
    if done.returncode != 0 or not done.stdout:
        message = _errors(done.stderr) or f"exit status {done.returncode}"
        raise RenderError(f"{kind} ({program}) failed to draw the picture: {message}")
    return done.stdout


def _errors(stderr: bytes) -> str:
    """The engine's error lines, without the harmless font-metric warnings."""
    lines = stderr.decode("utf-8", "replace").splitlines()
    return "; ".join(line.strip() for line in lines if line.strip() and "Warning" not in line)
