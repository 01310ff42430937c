"""Fixtures for the real-browser tests: one JupyterLab server and one Chromium per session.

* ``lab_server`` -- ``jupyter lab`` on a temporary copy of ``lessons/``, ``exercises/`` and
  ``nbgrader_config.py`` (the repository is never modified), stopped at the end of the session.
* ``browser`` -- headless Chromium found on this machine (Playwright cannot download one here).
  Without one the tests are skipped with a message saying how to get one; with ``CI=true`` in
  the environment a missing browser (or Playwright) fails them instead.
* ``lab`` -- a :class:`lab_driver.Lab` on the session's single page; after each test every
  document is closed and every kernel shut down, so tests start from an empty JupyterLab.

When a test fails, a screenshot of the page is saved in the test's temporary folder and its path
is printed in the failure report.  Test modules here set ``pytestmark = pytest.mark.browser``, so
``-m "not browser"`` leaves them out.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from lab_driver import (CHROMIUM_ARGS, STDERR_MIME, Lab, LabServer, copy_course_tree,
                        find_chromium)

REPO = Path(__file__).resolve().parents[2]
IN_CI = os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def _unavailable(reason: str):
    """Skip on a student's machine; fail in CI, where the browser tests must run."""
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: the browser tests must run in CI)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def playwright_sync():
    """Playwright's synchronous API, started once per session."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("Playwright is not installed: pip install -e '.[test]'")
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session")
def chromium_path(playwright_sync) -> str:
    """Path of the Chromium used: ``$COURSE_CHROMIUM`` if set, else one installed on this
    machine, else a browser downloaded by ``python -m playwright install chromium``."""
    path = find_chromium()
    if path is None and not os.environ.get("COURSE_CHROMIUM"):
        bundled = playwright_sync.chromium.executable_path
        if bundled and os.path.isfile(bundled):
            path = bundled
    if path is None:
        where = (f"COURSE_CHROMIUM={os.environ['COURSE_CHROMIUM']!r} is not an executable"
                 if os.environ.get("COURSE_CHROMIUM") else "no Chromium found")
        _unavailable(f"browser tests need Chromium: {where}. Install one (Debian/Ubuntu: "
                     "apt install chromium; elsewhere: python -m playwright install chromium) "
                     "or set COURSE_CHROMIUM to its path")
    return path


@pytest.fixture(scope="session")
def browser(playwright_sync, chromium_path):
    """Headless Chromium (Playwright gives it a fresh temporary profile)."""
    browser = playwright_sync.chromium.launch(
        executable_path=chromium_path, headless=True, args=list(CHROMIUM_ARGS))
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def axe():
    """The shared axe-core helper module (tests/browser/axe.py), its script fetched once; skips
    (fails with ``CI=true``) when axe-core cannot be had."""
    import axe as helper
    try:
        helper.axe_source()
    except helper.AxeUnavailable as exc:
        _unavailable(f"accessibility tests need axe-core: {exc}")
    return helper


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory):
    """``jupyter lab`` serving a temporary copy of the course; stopped after the session."""
    root = copy_course_tree(REPO, tmp_path_factory.mktemp("lab-root"))
    server = LabServer.start(root, tmp_path_factory.mktemp("lab-home"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def _lab_page(browser, lab_server):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(30_000)
    page = context.new_page()
    lab = Lab(page, lab_server)
    lab.load()
    yield lab
    context.close()


@pytest.fixture
def lab(_lab_page, tmp_path):
    """JupyterLab in the browser, empty at the start of the test and tidied after it.

    (``tmp_path`` is requested so that a failure screenshot has a folder to go to.)
    """
    _lab_page.close_all()
    _lab_page.console_errors.clear()
    yield _lab_page
    _lab_page.close_all()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """On a failed test using ``lab``, save a screenshot in its temporary folder and say where."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed or "lab" not in item.funcargs:
        return
    lab, tmp_path = item.funcargs["lab"], item.funcargs.get("tmp_path")
    if tmp_path is None:
        return
    target = Path(tmp_path) / "failure.png"
    try:
        shown_error = lab.page.locator(f".jp-OutputArea-output[data-mime-type='{STDERR_MIME}']")
        if shown_error.count():  # show the student's view of the first error, if there is one
            shown_error.first.scroll_into_view_if_needed(timeout=2000)
        lab.page.screenshot(path=str(target), full_page=True)
        shutil.copy(lab.server.log_path, Path(tmp_path) / "jupyter-lab.log")
        message = (f"screenshot of the page: {target}\n"
                   f"server log: {Path(tmp_path) / 'jupyter-lab.log'}")
        if lab.console_errors:
            message += "\nlast errors in the browser console:\n  " + \
                "\n  ".join(e[:300] for e in lab.console_errors[-5:])
    except Exception as exc:  # noqa: BLE001 - the report must not hide the real failure
        message = f"could not save a screenshot: {exc}"
    report.sections.append(("browser", message))
    print(f"\n[browser] {message}")
