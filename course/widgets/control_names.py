"""Names for an explorer's controls that assistive technology can read.

ipywidgets' sliders have no accessible name (axe-core: ``aria-input-field-name``), and the
notebook takes the arrow keys a slider or a dropdown needs.  :class:`ControlNames` is an
invisible widget an explorer holds among its children; its browser half (``control_names.js``)
names each slider handle after its description, gives it the readout as its value text, and
keeps the notebook's shortcuts out of the explorer.
"""

from __future__ import annotations

from ._esm import esm

import anywidget

__all__ = ["ControlNames"]


class ControlNames(anywidget.AnyWidget):
    """An invisible helper that names the controls of the explorer it is placed in.

    The explorer's box must carry the CSS class ``course-explorer``
    (:class:`course.widgets._common.Explorer` adds it).

    Examples
    --------
    >>> ControlNames().layout.display is None
    True
    """

    _esm = esm("control_names.js")
