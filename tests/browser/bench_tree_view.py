"""Benchmark (not a test): slider change to new picture, in JupyterLab in Chromium.

    .venv/bin/python tests/browser/bench_tree_view.py [--changes 40] [--pause 0]

Starts its own ``jupyter lab`` on a temporary folder and a headless Chromium (1400 x 900, the
issue's window), shows the ε explorer on the 341-node RT (b = 4, d = 4, seed 0) twice -- drawn
whole (``max_nodes=400``: all 341 nodes) and at the explorer's default (120 drawn nodes, the rest
summarised) -- and presses → on the ε slider ``--changes`` times (the next press as soon as the
new picture is shown, after ``--pause`` seconds).  A baseline first: a slider that sets a
two-node DOT, i.e. what the messages and JupyterLab cost without any search or layout work to
speak of.  For each change it records, on the page's own clock (``performance.now()``):

* **key → painted**: from the ``keydown`` event reaching the page until the first frame showing
  the new picture has been painted (the widget marks the moment from a task queued by that
  frame's animation callback, which runs after the frame's paint).  This covers the slider's
  message to the kernel, the kernel's search and DOT, the message back, the layout (Graphviz in
  WebAssembly) or the in-place restyle, the DOM update, style, layout and paint.  Animations
  (nodes gliding, 300 ms) run on after it: the new state is shown when they start;
* **kernel + messages**: key → the new DOT reaching the widget;
* **widget**: the new DOT → the new SVG in the DOM (layout or restyle);
* **wall clock**: as Playwright sees it, from before its key press until its polling (every
  animation frame) sees the new picture -- this adds Playwright's own round trips to Chromium.

It prints p50 / p95 / max of each in milliseconds, how many changes were restyled in place
rather than laid out by Graphviz, and the machine's load average before and after.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from lab_driver import CHROMIUM_ARGS, Lab, LabServer, find_chromium  # noqa: E402

CELLS = {
    "baseline (2 nodes)": "import ipywidgets as w\nfrom course.widgets import TreeView\n"
                          "s = w.FloatSlider(description='ε', max=100, continuous_update=False)\n"
                          "v = TreeView('digraph { a -> b }')\n"
                          "s.observe(lambda c: setattr(v, 'dot', f'digraph {{ a -> \"{c.new}\" }}'), 'value')\n"
                          "w.VBox([s, v])",
    "whole (341 nodes)": "from course.widgets import epsilon_explorer\n"
                         "epsilon_explorer(branching=4, depth=4, seed=0, max_nodes=400)",
    "default (120 drawn)": "from course.widgets import epsilon_explorer\n"
                           "epsilon_explorer(branching=4, depth=4, seed=0)",
}

# The key press time, on the page's clock (a capturing listener sees it first).
_JS_LISTEN = """() => { if (!window.__benchKeys) { window.__benchKeys = true;
  document.addEventListener('keydown', () => { window.__benchKeyAt = performance.now(); }, true); } }"""
_JS_DATASET = "el => Object.assign({}, el.querySelector('.course-tree-view').dataset)"
_JS_PAINTED = """([el, n]) => { const d = el.querySelector('.course-tree-view').dataset;
  return d.renders !== n && d.paintedAt !== undefined &&
         parseFloat(d.paintedAt) >= parseFloat(d.shownAt); }"""


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def load() -> str:
    """The 1, 5 and 15 minute load averages."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def measure(lab: Lab, view, changes: int, pause: float) -> dict[str, list[float]]:
    """Press → on the view's ε slider ``changes`` times; the times of each change (ms)."""
    page = lab.page
    slider = lab.slider(view, re.compile(r"^ε$"))
    handle = slider.locator(".noUi-handle").first
    handle.focus()
    page.evaluate(_JS_LISTEN)
    element = view.element_handle()
    times: dict[str, list[float]] = {"key → painted": [], "kernel + messages": [], "widget": [],
                                     "wall clock": [], "restyled": []}
    for _ in range(changes):
        time.sleep(pause)
        before = view.evaluate(_JS_DATASET)
        start = time.perf_counter()
        handle.press("ArrowRight")
        page.wait_for_function(_JS_PAINTED, arg=[element, before.get("renders")], polling="raf",
                               timeout=10_000)
        times["wall clock"].append((time.perf_counter() - start) * 1000)
        after = view.evaluate(_JS_DATASET)
        key = page.evaluate("() => window.__benchKeyAt")
        times["key → painted"].append(float(after["paintedAt"]) - key)
        times["kernel + messages"].append(float(after["dotAt"]) - key)
        times["widget"].append(float(after["shownAt"]) - float(after["dotAt"]))
        times["restyled"].append(float(after.get("restyled", "0")))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=40)
    parser.add_argument("--pause", type=float, default=0.0,
                        help="seconds between a new picture and the next key press")
    args = parser.parse_args()
    chromium = find_chromium()
    if chromium is None:
        sys.exit("no Chromium found (set COURSE_CHROMIUM)")
    from playwright.sync_api import sync_playwright

    print(f"load average before: {load()}  ({os.cpu_count()} CPUs)")
    with tempfile.TemporaryDirectory() as tmp:
        root, home = Path(tmp, "root"), Path(tmp, "home")
        root.mkdir()
        for i, code in enumerate(CELLS.values()):
            nb = nbformat.v4.new_notebook()
            nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                         "language": "python"}
            nb.cells = [nbformat.v4.new_code_cell(code)]
            nbformat.write(nb, root / f"bench{i}.ipynb")
        server = LabServer.start(root, home)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=chromium, headless=True,
                                                     args=list(CHROMIUM_ARGS))
                page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
                lab = Lab(page, server)
                lab.load()
                for i, name in enumerate(CELLS):
                    lab.close_all()
                    lab.open(f"bench{i}.ipynb")
                    lab.run_all()
                    view = lab.output_locator(0)
                    view.locator(".ctv-port svg g.node").first.wait_for(state="attached",
                                                                         timeout=60_000)
                    times = measure(lab, view, args.changes, args.pause)
                    nodes = view.evaluate("el => el.querySelectorAll('.ctv-port g.node').length")
                    restyled = int(sum(times.pop("restyled")))
                    print(f"{name}: {nodes} drawn nodes, {restyled} of {args.changes} changes "
                          f"restyled in place, load {load()}")
                    for label, values in times.items():
                        print(f"    {label:<18} p50 {statistics.median(values):6.1f} ms  "
                              f"p95 {percentile(values, 0.95):6.1f} ms  max {max(values):6.1f} ms")
                if lab.console_errors:
                    print("console errors:", *lab.console_errors, sep="\n  ")
                browser.close()
        finally:
            server.stop()
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
