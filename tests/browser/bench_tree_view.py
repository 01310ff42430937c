"""Benchmark (not a test): slider change to new picture, in JupyterLab in Chromium.

    .venv/bin/python tests/browser/bench_tree_view.py [--changes 40]

Starts its own ``jupyter lab`` on a temporary folder and a headless Chromium (1400 x 900, the
issue's window), shows the ε explorer on the 341-node RT (b = 4, d = 4, seed 0) twice -- drawn
whole (``max_nodes=400``: all 341 nodes) and at the explorer's default (120 drawn nodes, the rest
summarised) -- and presses → on the ε slider ``--changes`` times.  A baseline first: a slider
that sets a two-node DOT, i.e. what the messages and JupyterLab cost without any search or layout
work to speak of.  For each change it records:

* **slider → picture**: from the key press until the picture's SVG in the page has changed (the
  kernel's search and DOT, both comm messages, the layout and the DOM update; Playwright's own
  polling adds a few ms);
* **layout**: what the widget itself measured for Graphviz-in-WASM plus the DOM swap.

It prints p50 / p95 / max of each in milliseconds.
"""
from __future__ import annotations

import argparse
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


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=40)
    args = parser.parse_args()
    chromium = find_chromium()
    if chromium is None:
        sys.exit("no Chromium found (set COURSE_CHROMIUM)")
    from playwright.sync_api import sync_playwright

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
                    slider = lab.slider(view, __import__("re").compile(r"^ε$"))
                    handle = slider.locator(".noUi-handle").first
                    handle.focus()
                    total, layout = [], []
                    for _ in range(args.changes):
                        before = view.evaluate(
                            "el => el.querySelector('.course-tree-view').dataset.renders")
                        start = time.perf_counter()
                        handle.press("ArrowRight")
                        page.wait_for_function(
                            """([el, n]) => el.querySelector('.course-tree-view')
                                 .dataset.renders !== n""",
                            arg=[view.element_handle(), before], polling="raf", timeout=10_000)
                        total.append((time.perf_counter() - start) * 1000)
                        layout.append(float(view.evaluate(
                            "el => el.querySelector('.course-tree-view').dataset.renderMs")))
                    nodes = view.evaluate("el => el.querySelectorAll('.ctv-port g.node').length")
                    for label, values in (("slider -> picture", total), ("layout (WASM + DOM)", layout)):
                        print(f"{name:>20} {nodes:4d} drawn nodes  {label:<20} "
                              f"p50 {statistics.median(values):6.1f} ms  "
                              f"p95 {percentile(values, 0.95):6.1f} ms  max {max(values):6.1f} ms")
                if lab.console_errors:
                    print("console errors:", *lab.console_errors, sep="\n  ")
                browser.close()
        finally:
            server.stop()


if __name__ == "__main__":
    main()
