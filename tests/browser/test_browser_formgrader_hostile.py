"""The formgrader opened on a class whose answers, outputs, ids and names carry script (issue 19).

Chromium is the judge: a payload that runs records its tag in ``top.PWN``
(:mod:`hostile_class`), and a local listener counts requests to it.  First the control: the
manual-grading page rendered as nbgrader 0.9 renders it runs the payloads (a dozen of them,
the student's id and names among them).  Then each layer of the defence alone stops them:
the cleaned rendering (:class:`~course.grading.term.results.safe_html.SafeHTMLExporter`) without
any policy, and nbgrader's own rendering under the Content-Security-Policy with nonces.  Then
the real thing: every formgrader page of the session's JupyterLab server (with the course's
guard enabled, as ``make lab`` does) on the hostile class runs nothing, still works (tables
fill, a score is saved), and its *Autograde* button refuses a configuration that is not the
approved one.
"""
from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import nbformat
import pytest

import hostile_class as hc

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
#: Payloads that run when the page is rendered as nbgrader renders it (measured: see the control).
EXPECTED_TO_RUN = {"md-img-onerror", "md-script", "md-svg-onload", "md-iframe-srcdoc",
                   "md-details-ontoggle", "md-javascript-link", "out-html", "out-javascript",
                   "out-markdown", "out-png-width", "first-name", "last-name", "md-form"}


class Listener:
    """An HTTP listener on 127.0.0.1 recording the paths asked for (exfiltration, beacons)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.sock.settimeout(0.3)
        self.port = self.sock.getsockname()[1]
        self.hits: list[str] = []
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            try:
                conn.settimeout(1)
                line = conn.recv(4096).decode(errors="replace").split("\r\n", 1)[0]
                self.hits.append(line)
                conn.sendall(b"HTTP/1.0 204 No Content\r\n\r\n")
            except OSError:
                pass
            finally:
                conn.close()

    def close(self) -> None:
        self.running = False
        self.thread.join()
        self.sock.close()


@pytest.fixture(scope="module")
def listener():
    found = Listener()
    yield found
    found.close()


@pytest.fixture(scope="module")
def hostile(lab_server, listener):
    """The session's JupyterLab course made a graded class with hostile students."""
    ids = hc.build_hostile_course(lab_server.root, REPO, listener.port)
    return lab_server, ids


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    context.set_default_timeout(30_000)
    page = context.new_page()
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    page.violations = violations
    yield page
    context.close()


def _show(page, html: str, headers: dict | None = None) -> list[str]:
    """Load ``html`` as a page of http://formgrader.test/ (with ``headers``), nbgrader's static files
    beside it as the formgrader serves them; return the payloads that ran."""
    from nbgrader.server_extensions.formgrader import handlers

    url = "http://formgrader.test/submission/"
    static = Path(handlers.static_path)

    def serve(route):
        address = route.request.url
        if address == url:
            return route.fulfill(status=200, body=html,
                                 headers={"Content-Type": "text/html; charset=utf-8", **(headers or {})})
        rest = address.split("/formgrader/static/", 1)
        file = static / rest[1].split("?")[0] if len(rest) == 2 else None
        if file is not None and file.is_file() and static in file.resolve().parents:
            kind = "text/css" if file.suffix == ".css" else "application/javascript"
            return route.fulfill(status=200, body=file.read_bytes(), headers={"Content-Type": kind})
        return route.fulfill(status=404, body="")

    page.route("http://formgrader.test/**", serve)
    page.goto(url)
    page.wait_for_load_state("load")
    _click_bait(page)
    return hc.pwned(page)


def _click_bait(page) -> None:
    """Click what a curious instructor would: the link and the button of the answer."""
    for selector in ("#pwn-link", "#pwn-button", "a:text-is('click me')"):
        found = page.locator(selector)
        if found.count():
            try:
                found.first.click(timeout=2000)
            except Exception:  # noqa: BLE001 - covered or inert: either way nothing may run
                pass
    time.sleep(0.3)


def _render(exporter_class, listener_port: int, student: str = "mallory", **kwargs) -> str:
    """The manual-grading page of a hostile student's notebook, as the formgrader renders it."""
    from nbgrader.server_extensions.formgrader import handlers

    nb = hc.hostile_notebook(REPO / "exercises" / hc.A1 / f"{hc.NB}.ipynb", listener_port)
    exporter = exporter_class(template_name="formgrade", extra_template_basedirs=[handlers.template_path],
                              **kwargs)
    resources = {"assignment_id": hc.A1, "notebook_id": hc.NB, "submission_id": "s1", "index": 0,
                 "total": 1, "base_url": "", "student": student,
                 "last_name": {s[0]: s[2] for s in hc.STUDENTS}[student],
                 "first_name": {s[0]: s[1] for s in hc.STUDENTS}[student],
                 "notebook_path": f"autograded/{student}/{hc.A1}/{hc.NB}.ipynb"}
    html, _ = exporter.from_notebook_node(nb, resources=resources)
    return html


# --- the attack, and each layer of the defence on its own --------------------------------------

def test_nbgrader_rendering_runs_the_payloads(page, listener):
    """Control: nbgrader's own rendering of the page, no policy -- the payloads run in Chromium."""
    from nbconvert.exporters import HTMLExporter

    ran = _show(page, _render(HTMLExporter, listener.port))
    assert EXPECTED_TO_RUN <= set(ran), f"these payloads did not run: {EXPECTED_TO_RUN - set(ran)}"
    page.unroute("http://formgrader.test/**")
    page.evaluate("() => { window.PWN = []; }")
    assert "student-id" in _show(page, _render(HTMLExporter, listener.port, hc.HOSTILE_ID))


def test_the_cleaned_rendering_alone_runs_nothing(page, listener):
    from course.grading.term.results.safe_html import SafeHTMLExporter

    for student in ("mallory", hc.HOSTILE_ID):
        html = _render(SafeHTMLExporter, listener.port, student, meta_csp=False)
        assert _show(page, html) == []
        assert "My answer, with some extras" in page.content()       # the answer is still shown
        page.unroute("http://formgrader.test/**")


def test_the_policy_alone_stops_all_but_what_the_templates_wrap_in_a_script(page, listener):
    """nbgrader's unclean rendering, its template scripts nonced, the policy sent: every payload is
    blocked except a JavaScript *output*, which nbconvert's template itself wraps in a ``<script>``
    tag (so it gets the nonce) -- the reason the exporter removes such outputs first."""
    from nbconvert.exporters import HTMLExporter

    from course.grading.term.results.safe_html import ScriptNonceLoader, content_security_policy

    class Nonced(HTMLExporter):
        def _create_environment(self):
            env = super()._create_environment()
            env.loader = ScriptNonceLoader(env.loader, "N" * 22)
            return env

    for student in ("mallory", hc.HOSTILE_ID):
        html = _render(Nonced, listener.port, student).replace("N" * 22, "fresh-nonce-0123456789")
        assert "<script>(top.PWN" in html                             # the payloads are in the page
        policy = content_security_policy("fresh-nonce-0123456789")
        assert _show(page, html, {"Content-Security-Policy": policy}) == ["out-javascript"]
        page.unroute("http://formgrader.test/**")
        page.evaluate("() => { window.PWN = []; }")
    assert page.violations, "the policy blocked nothing: were the payloads in the page?"


# --- the formgrader of the session's JupyterLab (guard enabled as make lab does) ------------------

FORMGRADER_PAGES = ["manage_assignments", f"manage_submissions/{hc.A1}", "manage_students",
                    "gradebook", f"gradebook/{hc.A1}", f"gradebook/{hc.A1}/{hc.NB}",
                    "manage_students/mallory", f"manage_students/mallory/{hc.A1}"]


def test_no_formgrader_page_runs_what_students_wrote(hostile, page, listener):
    server, ids = hostile
    listener.hits.clear()               # the control pages above did reach it
    page.goto(f"{server.base_url}formgrader?token={server.token}")
    seen = {}
    paths = [f"formgrader/{p}" for p in FORMGRADER_PAGES]
    paths += [f"formgrader/submissions/{nid}/" for nid in ids.values()]
    paths += [f"formgrader/submissions/{ids['mallory']}/notes.html"]
    for path in paths:
        response = page.goto(server.base_url + path)
        page.wait_for_load_state("networkidle")
        _click_bait(page)
        assert response.status == 200, (path, response.status)
        policy = response.headers.get("content-security-policy", "")
        assert "script-src 'nonce-" in policy and "'unsafe-inline'" not in policy.split("style-src")[0], policy
        seen[path] = hc.pwned(page)
    assert all(ran == [] for ran in seen.values()), json.dumps(seen, indent=1)
    assert [h for h in listener.hits if h] == [], listener.hits     # no request reached it
    # the hostile student is listed, as text
    page.goto(server.base_url + f"formgrader/manage_submissions/{hc.A1}")
    page.wait_for_load_state("networkidle")
    assert hc.HOSTILE_ID in page.locator("table").first.inner_text()


def test_the_formgrader_still_works_under_the_guard(hostile, page):
    server, ids = hostile
    page.goto(f"{server.base_url}formgrader?token={server.token}")
    page.goto(server.base_url + "formgrader/manage_assignments")
    page.wait_for_load_state("networkidle")
    assert hc.A1 in page.locator("table").first.inner_text()
    page.goto(server.base_url + f"formgrader/submissions/{ids['honest']}/")
    page.wait_for_load_state("networkidle")
    scores = page.locator("input.score")
    assert scores.count() >= 1
    scores.first.fill("1")
    scores.first.press("Tab")
    page.wait_for_timeout(1500)
    page.reload()
    page.wait_for_load_state("networkidle")
    assert page.locator("input.score").first.input_value() == "1"


def _api(server, path: str, method: str = "GET") -> dict:
    request = urllib.request.Request(server.base_url + path, method=method, data=b"" if method == "POST" else None,
                                     headers={"Authorization": f"token {server.token}"})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return {"status": exc.code, "body": exc.read().decode(errors="replace")}


def test_the_autograde_button_refuses_an_unapproved_configuration(hostile):
    server, _ = hostile
    config = server.root / "nbgrader_config.py"
    before = config.read_text()
    try:
        config.write_text(before + "\nc.SandboxedGrade.sandbox = False   # 'bubblewrap is slow'\n")
        result = _api(server, f"formgrader/api/submission/{hc.A1}/honest/autograde", "POST")
        assert result.get("success") is False, result
        assert "changed since it was approved" in result.get("error", ""), result
        result = _api(server, f"formgrader/api/assignment/{hc.A1}/honest/generate_feedback", "POST")
        assert result.get("success") is False and "approved" in result.get("error", ""), result
    finally:
        config.write_text(before)
    assert not (server.root / "autograded" / "honest" / hc.A1 / "timestamp.txt").exists()


# --- feedback pages ------------------------------------------------------------------------------

def _feedback(exporter_class, port: int) -> str:
    from nbgrader.server_extensions.formgrader import handlers

    nb = hc.hostile_notebook(REPO / "exercises" / hc.A1 / f"{hc.NB}.ipynb", port)
    for cell in nb.cells:                     # what nbgrader's GetGrades adds before rendering
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") or meta.get("solution") or meta.get("task"):
            meta["score"] = 0
    css = Path(handlers.static_path) / "node_modules" / "bootstrap" / "dist" / "css"   # as GenerateFeedback
    exporter = exporter_class(template_name="feedback", extra_template_basedirs=[handlers.template_path],
                              extra_template_paths=[str(css)])
    html, _ = exporter.from_notebook_node(nb, resources={"nbgrader": {
        "notebook": hc.NB, "student": "mallory", "score": 0, "max_score": 11, "late_penalty": 0}})
    return html


def test_feedback_pages_run_nothing_a_student_wrote(page, listener):
    from nbconvert.exporters import HTMLExporter

    from course.grading.term.results.safe_html import SafeHTMLExporter

    ran = _show(page, _feedback(HTMLExporter, listener.port))
    assert {"md-script", "md-img-onerror", "out-html", "out-png-width"} <= set(ran), ran   # nbgrader's
    page.unroute("http://formgrader.test/**")
    page.evaluate("() => { window.PWN = []; }")
    html = _feedback(SafeHTMLExporter, listener.port)
    assert html.count('http-equiv="Content-Security-Policy"') == 1
    assert _show(page, html) == []
    assert "My answer, with some extras" in page.content()


# --- covering the score boxes (issue 29, item 8) --------------------------------------------------

#: A 1x1 red PNG, drawn as large as the answer asks.
RED_PIXEL = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
OVERLAYS = {
    "image, negative margin-top": f'<img src="data:image/png;base64,{RED_PIXEL}" width="1200" height="700" '
                                  'style="margin-top:-400px">',
    "image in a block, margin shorthand": f'<div style="margin: -30em 0 0 -5em"><img src="data:image/png;base64,'
                                          f'{RED_PIXEL}" style="width:1400px;height:900px"></div>',
    "calc() margin": f'<p style="margin-top: calc(-1 * 400px)"><img src="data:image/png;base64,{RED_PIXEL}" '
                     'width="1000" height="600"></p>',
}

COVERED_JS = """() => [...document.querySelectorAll('input.score')].map(input => {
  const r = input.getBoundingClientRect();
  input.scrollIntoView({block: 'center'});
  const s = input.getBoundingClientRect();
  const top = document.elementFromPoint(s.left + s.width / 2, s.top + s.height / 2);
  return {id: input.id, covered: !(top === input || input.contains(top)), by: top ? top.tagName : null};
})"""


def _overlay_notebook(payload: str):
    nb = nbformat.read(REPO / "exercises" / hc.A1 / f"{hc.NB}.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "a1-answer":
            cell.source = "My answer.\n\n" + payload
    return nb


def _overlay_page(exporter_class, payload: str, **kwargs) -> str:
    from nbgrader.server_extensions.formgrader import handlers

    exporter = exporter_class(template_name="formgrade", extra_template_basedirs=[handlers.template_path], **kwargs)
    html, _ = exporter.from_notebook_node(_overlay_notebook(payload), resources={
        "assignment_id": hc.A1, "notebook_id": hc.NB, "submission_id": "s1", "index": 0, "total": 1,
        "base_url": "", "student": "mallory", "last_name": "M", "first_name": "M",
        "notebook_path": f"autograded/mallory/{hc.A1}/{hc.NB}.ipynb"})
    return html


def _covered(page, html: str) -> list[dict]:
    _show(page, html)
    page.unroute("http://formgrader.test/**")
    boxes = page.evaluate(COVERED_JS)
    assert boxes, "no score box on the page"
    return [box for box in boxes if box["covered"]]


@pytest.mark.parametrize("name", list(OVERLAYS))
def test_an_answer_cannot_cover_the_score_boxes(page, name):
    """Control: nbgrader's rendering lets the answer draw over the score boxes (the image or the text
    lies on top of the box in Chromium); the course's cleaned rendering keeps every box clear."""
    from nbconvert.exporters import HTMLExporter

    from course.grading.term.results.safe_html import SafeHTMLExporter

    assert _covered(page, _overlay_page(HTMLExporter, OVERLAYS[name])), "the control covers nothing"
    covered = _covered(page, _overlay_page(SafeHTMLExporter, OVERLAYS[name], meta_csp=False))
    assert covered == [], covered


# --- the guard's own pages: accessible, keyboard first ------------------------------------------------

def test_the_guards_own_pages_are_accessible(lab_server, browser, axe):
    """The warning before a student's link, a refusal, and the own-tab page of JupyterLab's
    Formgrader panel: no WCAG A/AA violation, and the first Tab reaches the page's action."""
    from course.formgrader_guard import guard_page, own_tab_body

    context = browser.new_context(bypass_csp=True, viewport={"width": 1000, "height": 700})
    try:
        page = context.new_page()
        pages = {"warning": lab_server.base_url + "formgrader/course-leave?to=/user/mallory/pwn",
                 "refusal": lab_server.base_url + "formgrader?path=/tmp"}
        for name, url in pages.items():
            page.goto(url)
            violations = axe.run_axe(page)
            assert not violations, (name, axe.describe_violations(violations))
        page.goto(pages["warning"])
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.textContent") == "Open it in a new tab"
        page.set_content(guard_page("The formgrader opens in its own tab",
                                    own_tab_body("/formgrader/manage_assignments", "n0nce")))
        violations = axe.run_axe(page)
        assert not violations, axe.describe_violations(violations)
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.id") == "open-formgrader"
    finally:
        context.close()
