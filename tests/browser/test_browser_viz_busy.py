"""Pictures draw while the kernel is busy (issue 21: "Run All leaves pictures that never draw").

A picture's widget used to ask the kernel for Viz.js after it appeared; during Run All the kernel
is busy with the next cells, so the answer came late or never ("Cannot draw this picture: the
kernel did not send the Graphviz module").  Now the module travels with the widget state of the
kernel's shared VizModule.  Two notebooks, each a picture followed by a cell that keeps the
kernel busy for BUSY seconds:

* with the shared module (the default), the picture is drawn while the second cell still runs;
* the control, ``viz=None`` (the old request route), is not drawn until the kernel is free again
  -- the attack that made pictures fail, kept so the test cannot pass vacuously.
"""
from __future__ import annotations

import time

import nbformat
import pytest

pytestmark = pytest.mark.browser

FOLDER = "_browser_viz_busy"
BUSY = 20           # seconds the second cell keeps the kernel busy
WITHIN = 12         # a picture must be drawn this soon after Run All starts

PICTURE = ("from course import alphabeta\nfrom course.draw import draw_tree\n"
           "from course.examples import aima_figure_5_2\nfrom course.widgets import TreeView\n"
           "game = aima_figure_5_2()\n"
           "TreeView(draw_tree(game, alphabeta(game, trace=True)){extra})")


@pytest.fixture(scope="module")
def notebooks(lab_server):
    folder = lab_server.root / FOLDER
    folder.mkdir(exist_ok=True)
    for name, extra in (("shared", ""), ("request", ", viz=None")):
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nb.cells = [nbformat.v4.new_code_cell(PICTURE.format(extra=extra)),
                    nbformat.v4.new_code_cell(f"import time\ntime.sleep({BUSY})\n'done'")]
        nbformat.write(nb, folder / f"{name}.ipynb")
    return folder


def _drawn_while_busy(lab, name):
    """(drawn before the kernel was free, seconds after Run All started)."""
    lab.open(f"{FOLDER}/{name}.ipynb")
    page = lab.page
    # the page keeps one Viz per page: forget it, as a freshly opened page would not have it
    page.evaluate("() => { globalThis.__courseViz = null; globalThis.__courseVizReady = null; }")
    start = time.monotonic()
    lab.menu("Run", "Run All Cells")
    drawn = False
    while time.monotonic() - start < WITHIN:
        if page.locator(".course-tree-view .ctv-port svg").count():
            drawn = True
            break
        page.wait_for_timeout(250)
    seconds = time.monotonic() - start
    busy = page.evaluate("() => document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) "
                         ".jp-InputPrompt')[1].textContent.includes('*')")
    lab.wait_run_finished(timeout=BUSY + 60)
    return drawn, busy, seconds


@pytest.mark.browser
def test_a_picture_draws_while_the_kernel_runs_the_next_cell(lab, notebooks):
    drawn, busy, seconds = _drawn_while_busy(lab, "shared")
    print(f"shared Viz.js: drawn {drawn} after {seconds:.1f} s, the next cell still running: {busy}")
    assert drawn and busy, (drawn, busy)
    assert lab.error_report() == []


@pytest.mark.browser
def test_the_old_request_route_waits_for_the_kernel(lab, notebooks):
    drawn, busy, seconds = _drawn_while_busy(lab, "request")
    print(f"asked of the kernel: drawn {drawn} within {seconds:.1f} s")
    assert not drawn
    # ... and draws once the kernel is free (the fallback still works)
    lab.page.wait_for_selector(".course-tree-view .ctv-port svg", timeout=30_000)
