"""The JupyterLite edition in a real browser: build the site, serve it statically, run a lesson
and an exercise's visible checks in the Pyodide kernel.

The site is built once per session with ``course.lite.build`` (about 20 s with warm caches; the
first build downloads Pyodide's core from npm and a few wheels from PyPI) into
``build/lite-test/``, or taken from ``$COURSE_LITE_SITE`` when that names a built site.  It is
served by Python's ``http.server`` on localhost.  Every request leaving localhost is refused by
the browser, as on a machine without Internet: the kernel must start from the site alone.  Only
numpy and matplotlib would come from Pyodide's CDN, so here, offline, lessons 1-5 run top to
bottom with every cell that needs them (a plot, a numeric experiment, or a cell using what one of
those computes) printing one line that says so, and no error anywhere; random trees, Chen's
trees, the drawings and the explorers work without them (an explorer's control redraws).

Skipped, with the reason, when the build's prerequisites are missing (the ``lite`` extra, npm).
"""
from __future__ import annotations

import functools
import json
import os
import re
import shutil
import statistics
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace

import pytest

from lab_driver import Lab

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]

MINIMAX_VALUE = '''\
def minimax_value(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    values = [minimax_value(game, game.result(state, m)) for m in game.moves(state)]
    return max(values) if game.turn(state) == Player.MAX else min(values)
'''


@pytest.fixture(scope="session")
def lite_site(tmp_path_factory) -> Path:
    given = os.environ.get("COURSE_LITE_SITE")
    if given:
        site = Path(given)
        if not (site / "jupyter-lite.json").exists():
            pytest.fail(f"COURSE_LITE_SITE={given!r} is not a built JupyterLite site")
        return site
    try:
        import jupyterlite_core  # noqa: F401
        import jupyterlite_pyodide_kernel  # noqa: F401
    except ImportError:
        pytest.skip("the JupyterLite build tools are not installed: pip install -e '.[lite]'")
    if shutil.which("npm") is None and not os.environ.get("PYODIDE_DIST"):
        pytest.skip("building the JupyterLite site needs npm (for Pyodide's core) or "
                    "PYODIDE_DIST (an official Pyodide release)")
    from course.lite.build import BuildError, build

    try:
        report = build(REPO / "build" / "lite-test", REPO / "build" / "lite-cache",
                       os.environ.get("PYODIDE_DIST") or None)
    except BuildError as exc:
        pytest.skip(f"the JupyterLite site could not be built here: {exc}")
    print(f"\n[lite] built in {report['seconds']} s, {report['megabytes']} MB")
    return Path(report["output"])


class _Handler(SimpleHTTPRequestHandler):
    """Static files, as any web host serves them; the test's only change is JupyterLite's
    ``exposeAppInBrowser`` (so the driver can observe the app) and every cell kept rendered."""

    extensions_map = {**SimpleHTTPRequestHandler.extensions_map,
                      ".mjs": "text/javascript", ".js": "text/javascript",
                      ".wasm": "application/wasm", ".json": "application/json"}

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if self.path.split("?")[0] == "/jupyter-lite.json":
            config = json.loads((Path(self.directory) / "jupyter-lite.json").read_text())
            data = config["jupyter-config-data"]
            data["exposeAppInBrowser"] = True
            data.setdefault("settingsOverrides", {}).setdefault(
                "@jupyterlab/notebook-extension:tracker", {})["windowingMode"] = "none"
            body = json.dumps(config).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()


@pytest.fixture(scope="session")
def lite_server(lite_site):
    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 functools.partial(_Handler, directory=str(lite_site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def lite(browser, lite_server, tmp_path_factory):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(60_000)
    outside: list[str] = []

    def offline(route) -> None:
        outside.append(route.request.url)
        route.abort()

    context.route(lambda url: not url.startswith(lite_server), offline)
    page = context.new_page()
    fake_server = SimpleNamespace(lab_url=lite_server + "lab/index.html",
                                  log_path=tmp_path_factory.mktemp("lite") / "none.log")
    lab = Lab(page, fake_server)
    lab.outside = outside
    # JupyterLab's warning when a notebook's kernel is matched by language, not by name
    lab.kernel_warnings = []
    page.on("console", lambda m: "No exact match" in m.text and lab.kernel_warnings.append(m.text))
    start = time.perf_counter()
    lab.load(timeout=120)
    lab.load_seconds = time.perf_counter() - start
    yield lab
    context.close()


def _outputs_text(cell: dict) -> str:
    parts = []
    for out in cell["outputs"]:
        if "text" in out:
            parts.append("".join(out["text"]))
        for mime, value in out.get("data", {}).items():
            if mime.startswith("text/"):
                parts.append("".join(value))
    return "\n".join(parts)


def _rendered_svgs(lab: Lab) -> int:
    return lab.page.evaluate(
        "() => document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) "
        ".jp-OutputArea-output svg g.node').length")


def test_lesson_0_runs_top_to_bottom(lite):
    start = time.perf_counter()
    lite.open("lessons/00_how_to_use.ipynb", timeout=180)
    kernel_ready = time.perf_counter() - start
    state = lite.run_all(timeout=240)
    total = time.perf_counter() - start
    assert lite.error_report() == [], lite.error_report()
    assert not lite.kernel_warnings, lite.kernel_warnings
    cells = state["cells"]
    assert "%pip install --no-deps course" in cells[0]["source"]
    assert all(c["prompt"].strip() not in ("[ ]:", "[*]:") for c in cells
               if c["type"] == "code" and c["source"].strip()), [c["prompt"] for c in cells]
    text = "\n".join(_outputs_text(c) for c in cells)
    assert "course library 0.1.0" in text, text[:2000]
    assert "%run -m course search alphabeta" in "\n".join(c["source"] for c in cells)
    assert "value" in text and "CourseError:" in text
    # the drawings are laid out in the browser by Viz.js (TreeView): their nodes are in the page
    lite.page.wait_for_function(
        "() => document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) "
        ".jp-OutputArea-output svg g.node').length >= 13", timeout=60_000)
    assert not [u for u in lite.outside if "pypi.org" in u or "files.pythonhosted" in u]
    print(f"\n[lite] app loaded in {lite.load_seconds:.1f} s; lesson 0: kernel ready after "
          f"{kernel_ready:.1f} s, all cells run after {total:.1f} s; "
          f"{_rendered_svgs(lite)} drawn nodes; requests refused outside localhost: "
          f"{sorted(set(u.split('/')[2] for u in lite.outside))}")


def test_exercise_visible_checks_run(lite):
    lite.close_all()
    path = "exercises/a1_minimax/minimax.ipynb"
    lite.open(path, timeout=180)
    target = lite.find_cell("def minimax_value(game, state):")
    lite.page.evaluate(
        """([i, src]) => window.jupyterapp.shell.currentWidget.content.widgets[i]
               .model.sharedModel.setSource(src)""", [target, MINIMAX_VALUE])
    check = lite.find_cell("check_minimax_value(minimax_value, exercise_cases(")
    start = time.perf_counter()
    state = lite.run_through(check, timeout=240)
    assert lite.error_report() == [], lite.error_report()
    checks = [c for c in state["cells"][:check + 1] if "check_minimax_value(" in c["source"]]
    assert len(checks) == 2
    for cell in checks:
        assert "match" in _outputs_text(cell) and "reference search" in _outputs_text(cell), \
            _outputs_text(cell)
    print(f"\n[lite] assignment 1: setup and {len(checks)} visible checks in "
          f"{time.perf_counter() - start:.1f} s")

    # a wrong answer is explained, as on the lab: a failure naming the first differing step
    wrong = MINIMAX_VALUE.replace("max(values) if", "min(values) if", 1)
    lite.page.evaluate(
        """([i, src]) => window.jupyterapp.shell.currentWidget.content.widgets[i]
               .model.sharedModel.setSource(src)""", [target, wrong])
    first = lite.find_cell('check_minimax_value(minimax_value, textbook_cases("minimax"))')
    state = lite.run_through(first, timeout=120)
    errors = [o for o in state["cells"][first]["outputs"] if o.get("output_type") == "error"]
    assert errors and "WrongValue" in errors[0]["ename"], state["cells"][first]["outputs"]


#: The one line a cell prints, offline, instead of a traceback (course._browser).
NOTICE = re.compile(r"^(This plot needs matplotlib, which the browser edition loads from Pyodide's "
                    r"CDN; you are offline|This numeric experiment needs numpy, which the browser "
                    r"edition loads|Skipped: this cell uses '\w+', which an earlier cell could "
                    r"not compute offline)", re.MULTILINE)
#: Code that genuinely needs numpy or matplotlib.
NEEDS_NUMERIC = re.compile(r"\bplot_\w+\(|course\.experiments\.(?!paper\b)|\bimport numpy|"
                           r"\bnp\.|selective_sweep")
LESSONS = ["01_minimax", "02_alpha_beta", "03_heuristics_selective", "04_chance",
           "05_bounded_suboptimal", "06_appendix_reference"]
#: The lessons that draw trees (the appendix draws none).
DRAWN = LESSONS[:5]


NEXT = re.compile(r"\bnext\b|forward|^\W*(>|▶|→|⏵)\W*$", re.IGNORECASE)  # the player's Next


def _step_through_moves(lite, view) -> str:
    """Click the step-through player's Next until the node drawn as current moves."""
    seen = [lite.current_nodes(view)]
    for _ in range(6):
        before = lite.snapshot(view)
        lite.click_button(view, NEXT)
        lite.wait_changed(view, before, timeout=20)
        seen.append(lite.current_nodes(view))
        marked = [ids for ids in seen if ids]
        if len(marked) >= 2 and marked[-1] != marked[0]:
            break
    marked = [ids for ids in seen if ids]
    assert len(marked) >= 2 and marked[-1] != marked[0], seen
    return f"step-through: current node after each Next: {seen}"


def _explore(lite, lesson: str, cells: list) -> str:
    """Work the lesson's step-through player, epsilon or ordering explorer; say what changed."""
    call = {"01_minimax": "step_through(aima", "02_alpha_beta": "ordering_explorer(",
            "05_bounded_suboptimal": "epsilon_explorer("}
    if lesson not in call:
        return ""
    calls = re.compile(rf"^[^#\n]*\b{re.escape(call[lesson])}", re.MULTILINE)
    index = next(i for i, c in enumerate(cells)
                 if c["type"] == "code" and calls.search(c["source"]))
    view = lite.output_locator(index)
    view.scroll_into_view_if_needed()
    view.locator(".jupyter-widgets").first.wait_for(state="visible")
    view.locator("svg g.node").first.wait_for(state="visible")
    if lesson == "01_minimax":
        return _step_through_moves(lite, view)
    before = lite.snapshot(view)
    if lesson == "05_bounded_suboptimal":
        slider = lite.slider(view, re.compile(r"ε|eps", re.IGNORECASE))
        lite.press_slider(slider, "End")
        what = "epsilon slider to its end"
    else:
        option = next(o for o in ("worst-first", "best-first") if o not in lite.chosen(view))
        lite.choose(view, option)
        what = f"ordering {option}"
    after, seconds = lite.wait_changed(view, before, timeout=20)
    assert re.search(r"\d", after["text"]) and "Cannot show" not in after["text"], after["text"]
    return f"{what}: redrawn in {seconds:.2f} s"


def _drill_and_play(lite, cells) -> str:
    """Issue 23 in the browser edition: a lesson's drill answers (Show answer is checked by the
    Pyodide kernel), and its game board is there to play on."""
    said = []
    sources = "\n".join(c["source"] for c in cells)
    page = lite.page
    if "drill(" in sources:
        drill = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .course-drill").last
        drill.wait_for(timeout=30_000)
        drill.scroll_into_view_if_needed()
        drill.get_by_role("button", name="Show answer").click()
        result = drill.locator(".cd-result")
        page.wait_for_function("el => el.textContent.trim() !== ''", arg=result.element_handle(),
                               timeout=30_000)
        said.append("drill answered: " + result.inner_text().strip().splitlines()[0][:60])
    if "play_" in sources:
        board = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .course-play").last
        board.wait_for(timeout=30_000)
        said.append("game board shown")
    return ("; " + "; ".join(said)) if said else ""


@pytest.mark.parametrize("lesson", LESSONS)
def test_lesson_runs_offline_top_to_bottom(lite, lesson):
    """With Pyodide's CDN out of reach, Run All goes through the whole lesson: no error output;
    the cells that need numpy/matplotlib (and only those, or cells using their results) print
    the one-line notice; the drawings appear; lesson 1's step-through player, lesson 2's
    ordering explorer and lesson 5's epsilon slider redraw."""
    lite.close_all()
    lite.kernel_warnings.clear()
    start = time.perf_counter()
    lite.open(f"lessons/{lesson}.ipynb", timeout=180)
    ready = time.perf_counter() - start
    assert not lite.kernel_warnings, lite.kernel_warnings
    state = lite.run_all(timeout=420)
    seconds = time.perf_counter() - start - ready
    assert lite.error_report() == [], lite.error_report()
    cells = state["cells"]
    code = {i: c for i, c in enumerate(cells) if c["type"] == "code" and c["source"].strip()}
    assert all(c["prompt"].strip() not in ("[ ]:", "[*]:") for c in code.values()), \
        [(i, c["prompt"]) for i, c in code.items()]
    loader = [i for i, c in code.items() if "%pip install numpy matplotlib" in c["source"]]
    offline = any("numpy/matplotlib could not be loaded" in _outputs_text(cells[i])
                  for i in loader)
    noticed = {i for i, c in code.items() if NOTICE.search(_outputs_text(c))}
    needing = {i for i, c in code.items()
               if i > 0 and i not in loader and NEEDS_NUMERIC.search(c["source"])}
    # numpy and matplotlib are loaded by one cell just before the first cell needing them
    assert len(loader) == (1 if needing else 0) and all(loader[0] < i for i in needing), \
        (loader, sorted(needing))
    if offline:
        assert needing <= noticed, sorted(needing - noticed)
        for i in noticed - needing:       # uses what a skipped cell would have computed
            assert "Skipped: this cell uses" in _outputs_text(code[i]), (i, code[i]["source"])
    else:
        assert not noticed, sorted(noticed)

    if lesson in DRAWN:
        assert _rendered_svgs(lite) > 0
    else:                             # the appendix: a student's search, and no OpenSpiel here
        text = "\n".join(_outputs_text(c) for c in code.values())
        assert "the same leaves in the same order: True" in text, text[-2000:]
        assert text.count("OpenSpiel is a C++ library with no build for the browser edition") == 2
    explored = _explore(lite, lesson, cells)
    explored += _drill_and_play(lite, cells)
    assert lite.error_report() == [], lite.error_report()
    print(f"\n[lite] {lesson}: kernel ready after {ready:.1f} s, Run All {seconds:.1f} s, "
          f"{len(code)} code cells, {len(noticed)} with the offline notice; {explored}")


# --- start-up: no kernel dialog, the first cell within 10 s of the page loading (issue 21) ----

#: The issue's target: a lesson's first cell has run within 10 s of the page starting to load,
#: on a 2-core machine.
FIRST_CELL_SECONDS = 10.0
#: At most this factor more when the machine running the test is loaded (see _start_budget).
LOADED_MARGIN = 1.5
START_LESSONS = ["01_minimax", "05_bounded_suboptimal"]
OPENS = 3

_JS_START_STATE = """() => {
  const dialog = document.querySelector('.jp-Dialog');
  const app = window.jupyterapp, w = app && app.shell.currentWidget;
  const out = {dialog: dialog ? dialog.textContent.replace(/\\s+/g, ' ').slice(0, 160) : null};
  if (!w || !w.sessionContext || !w.content || !w.content.widgets.length) return out;
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  out.notebook = w.context.path;
  out.kernel = k ? k.name : null;
  out.status = k ? k.status : null;
  out.code = w.content.widgets.map((c, i) => c.model.type === 'code' ? i : -1).filter(i => i >= 0);
  return out;
}"""
_JS_RUN_CELL = """i => { const w = window.jupyterapp.shell.currentWidget;
  w.content.activeCellIndex = i; w.content.deselectAll();
  return window.jupyterapp.commands.execute('notebook:run-cell'); }"""
_JS_CELL_DONE = """i => { const w = window.jupyterapp.shell.currentWidget, c = w.content.widgets[i];
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  return c.model.executionCount !== null && !!k && k.status === 'idle'; }"""
_JS_CELL_OUTPUT = """i => JSON.stringify(
  window.jupyterapp.shell.currentWidget.content.widgets[i].model.outputs.toJSON())"""


def _start_budget() -> tuple[float, str]:
    """Seconds allowed for the first cell, and why: 10 s; on a machine busier than one runnable
    process per core (a shared CI runner; this machine while the team works), 10 s times the
    1-minute load per core, at most LOADED_MARGIN times; ``COURSE_LITE_FIRST_CELL_SECONDS``
    overrides it."""
    given = os.environ.get("COURSE_LITE_FIRST_CELL_SECONDS")
    if given:
        return float(given), "COURSE_LITE_FIRST_CELL_SECONDS"
    per_core = os.getloadavg()[0] / (os.cpu_count() or 1) if hasattr(os, "getloadavg") else 1.0
    factor = min(LOADED_MARGIN, max(1.0, per_core))
    return FIRST_CELL_SECONDS * factor, f"load {per_core:.1f} per core: x{factor:.2f}"


def _open_cold(browser, base: str, lesson: str) -> dict:
    """Open a lesson by its address in a new browser context (nothing cached, as a student's
    first visit), run its first cell (the site's setup) and first course cell as soon as the
    kernel is ready; times in seconds from the start of the page load."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.route(lambda url: not url.startswith(base), lambda route: route.abort())
    page = context.new_page()
    warnings: list[str] = []
    page.on("console", lambda m: "match" in m.text and warnings.append(m.text))
    seen: dict = {"dialogs": [], "warnings": warnings}
    try:
        start = time.perf_counter()
        page.goto(f"{base}lab/index.html?path=lessons/{lesson}.ipynb")
        while True:
            state = page.evaluate(_JS_START_STATE)
            now = time.perf_counter() - start
            if state["dialog"]:
                seen["dialogs"].append(state["dialog"])
                page.locator(".jp-Dialog .jp-mod-accept").first.click()  # to measure on
            if state.get("notebook"):
                seen.setdefault("notebook", now)
                seen["kernel"] = state["kernel"]
            if state.get("status") == "idle":
                seen["idle"] = now
                break
            if now > 180:
                raise TimeoutError(f"{lesson}: kernel not ready after 180 s: {state}")
            time.sleep(0.05)
        for name, index in zip(("setup", "first"), state["code"][:2]):
            page.evaluate(_JS_RUN_CELL, index)
            page.wait_for_function(_JS_CELL_DONE, arg=index, timeout=180_000, polling=50)
            seen[name] = time.perf_counter() - start
            seen[name + "_output"] = page.evaluate(_JS_CELL_OUTPUT, index)
        if page.locator(".jp-Dialog").count():
            seen["dialogs"].append(page.locator(".jp-Dialog").first.inner_text()[:160])
    finally:
        context.close()
    return seen


def test_lessons_start_quickly_without_kernel_dialog(browser, lite_server):
    """Opened by its address in a fresh browser (nothing cached), lessons 1 and 5 start their
    kernel without a "Select Kernel" dialog (the site's notebooks name its kernel), and the first
    cell -- the site's setup cell -- has run within 10 s of the page starting to load: the median
    of 3 opens, with a documented margin on a loaded machine (:func:`_start_budget`)."""
    budget, why = _start_budget()
    report, problems = [], []
    for lesson in START_LESSONS:
        opens = [_open_cold(browser, lite_server, lesson) for _ in range(OPENS)]
        for seen in opens:
            problems += [f"{lesson}: dialog {d!r}" for d in seen["dialogs"]]
            problems += [f"{lesson}: {w!r}" for w in seen["warnings"]]  # "No exact match ..."
            if seen["kernel"] != "python":
                problems.append(f"{lesson}: kernel {seen['kernel']!r}")
            problems += [f"{lesson}: error in {cell} cell: {seen[cell + '_output'][:300]}"
                         for cell in ("setup", "first")
                         if '"output_type": "error"' in seen[cell + "_output"]]
        median = {k: statistics.median(s[k] for s in opens)
                  for k in ("notebook", "idle", "setup", "first")}
        report.append(f"{lesson}: " + ", ".join(
            f"{k} {v:.1f} s ({'/'.join(f'{s[k]:.1f}' for s in opens)})" for k, v in median.items()))
        if median["setup"] > budget:
            problems.append(f"{lesson}: first cell done {median['setup']:.1f} s after the page "
                            f"started loading (median), budget {budget:.1f} s ({why})")
    print(f"\n[lite] start-up, median of {OPENS} cold opens (notebook shown, kernel idle, setup "
          f"cell done, first course cell done), budget {budget:.1f} s ({why}):\n  "
          + "\n  ".join(report))
    assert not problems, "\n".join(problems + report)


def test_site_notebooks_name_the_lite_kernel(lite, lite_site):
    """Every notebook of the site names the one kernel the site has, exactly: JupyterLab starts
    it without the fallback by language (whose warning the lesson tests also refuse) or a
    "Select Kernel" dialog."""
    specs = lite.page.evaluate(
        "() => Object.keys(window.jupyterapp.serviceManager.kernelspecs.specs.kernelspecs)")
    assert specs == ["python"], specs
    notebooks = sorted((lite_site / "files").rglob("*.ipynb"))
    assert len(notebooks) >= 7
    for path in notebooks:
        spec = json.loads(path.read_text(encoding="utf-8"))["metadata"].get("kernelspec", {})
        assert spec.get("name") in specs and spec.get("language") == "python", (path, spec)
    settings = json.loads((lite_site / "jupyter-lite.json").read_text())["jupyter-config-data"]
    assert settings["settingsOverrides"]["@jupyterlab/notebook-extension:tracker"][
        "autoStartDefaultKernel"] is True
