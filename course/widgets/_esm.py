"""The widgets' ES modules as anywidget receives them: ``keys.js`` (the key handling every course
widget shares) in front of the widget's own module."""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).parent


def esm(name: str) -> str:
    """The text of the ES module ``name`` (a file beside this one), with ``keys.js`` in front.

    Examples
    --------
    >>> text = esm("drill.js")
    >>> text.count("function keepKeys(") == 1 and text.rstrip().endswith("export default { render };")
    True
    """
    return ((_HERE / "keys.js").read_text(encoding="utf-8") + "\n"
            + (_HERE / name).read_text(encoding="utf-8"))
