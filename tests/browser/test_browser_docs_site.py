"""The documentation site in Chromium (issue 22): the home page's navigation reaches the
student, lesson, instructor and reference pages; axe-core (WCAG 2.1 A/AA) finds no violation in
the course's own content on them, nor in the theme's page chrome around it; a lesson page shows
its pictures with their names, and its launch button opens the lesson in the browser edition
(JupyterLite, built into the site's lite/ folder), served from localhost with every request that
leaves it refused.

The site is the one tests/test_docs_site.py builds (once per session, :func:`shared_site`).
Screenshots go to ``$COURSE_SCREENSHOTS`` when set (docs-home.png, docs-lesson.png,
docs-instructor.png)."""
from __future__ import annotations

import functools
import json
import os
import re
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
pytest.importorskip("sphinx", reason="the docs extra (pip install -e '.[docs]')")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from test_docs_site import shared_site  # noqa: E402 - one build of the site per session

LESSON = "lessons/02_alpha_beta.html"
PAGES = ("index.html", "student/setup.html", "student/validate.html", "student/pictures.html",
         "student/drills.html", "lessons/00_how_to_use.html", "lessons/04_chance.html",
         "instructor/grading.html", "instructor/adopt.html", "instructor/security.html",
         "reference/searches.html", "reference/api.html", "contributing/architecture.html",
         "research/experiments.html", "research/benchmarks-games.html")


@pytest.fixture(scope="module")
def site():
    return shared_site()[0]


class _Static(SimpleHTTPRequestHandler):
    """The site's files, as any static host serves them."""

    extensions_map = {**SimpleHTTPRequestHandler.extensions_map,
                      ".mjs": "text/javascript", ".js": "text/javascript",
                      ".wasm": "application/wasm", ".json": "application/json"}

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def served(site):
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Static, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def _shot(page, name):
    folder = os.environ.get("COURSE_SCREENSHOTS")
    if folder:
        page.screenshot(path=str(Path(folder) / name), full_page=False)


def test_the_navigation_reaches_every_part(browser, site):
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    page.goto((site / "index.html").as_uri())
    assert "Game-tree search" in page.title()
    _shot(page, "docs-home.png")
    sidebar = page.locator(".sidebar-tree")
    for caption in ("Students", "Instructors", "Reference", "Research", "Contributing"):
        assert sidebar.get_by_text(caption, exact=True).count() == 1, caption
    for caption in ("Lessons",):
        assert sidebar.get_by_text(caption, exact=True).count() == 1, caption
    sidebar.get_by_role("link", name=re.compile(r"^Lesson 2 ")).click()
    page.wait_for_load_state()
    assert page.url.endswith(LESSON)
    assert page.locator("article h1").inner_text().startswith("Lesson 2")
    sidebar.get_by_role("link", name=re.compile(r"^Adopt the course")).click()
    page.wait_for_load_state()
    assert page.url.endswith("instructor/adopt.html")
    _shot(page, "docs-instructor.png")
    sidebar.get_by_role("link", name=re.compile(r"^Graded exercises and the instructor.s workflow$")).click()
    page.wait_for_load_state()
    assert page.url.endswith("instructor/grading.html")
    assert page.locator("article h1").inner_text().startswith("Graded exercises")
    sidebar.get_by_role("link", name="The searches and their exact rules").click()
    page.wait_for_load_state()
    assert page.url.endswith("reference/searches.html")
    page.close()


def test_the_pages_content_passes_axe(browser, site, axe):
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    theme = {}
    for name in PAGES:
        page.goto((site / name).as_uri())
        violations = axe.run_axe(page, include=["article"])
        assert not violations, f"{name}: " + axe.describe_violations(violations)
        for v in axe.run_axe(page, exclude=["article"]):
            theme.setdefault(v["id"], set()).add(name)
    # the theme's page chrome too (docs/_static/course.js gives the sidebar captions a level)
    assert not theme, {rule: sorted(pages) for rule, pages in theme.items()}
    page.close()


def test_a_lesson_page_shows_its_pictures_and_opens_in_the_browser_edition(browser, site, served,
                                                                          axe):
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    context.set_default_timeout(90_000)
    outside: list[str] = []

    def offline(route) -> None:
        outside.append(route.request.url)
        route.abort()

    context.route(re.compile(r"^(?!http://127\.0\.0\.1[:/]).*"), offline)
    page = context.new_page()
    page.goto(served + LESSON)
    page.wait_for_load_state("networkidle")
    _shot(page, "docs-lesson.png")
    pictures = page.locator('article [role="img"]')
    assert pictures.count() >= 5
    names = [pictures.nth(i).get_attribute("aria-label") for i in range(pictures.count())]
    assert all(n and n.strip() for n in names), names
    assert page.locator("article details.course-picture-text").count() >= 4
    assert page.locator("article mjx-container").count() > 20       # MathJax, from the site
    static = page.locator(".course-widget-static")
    assert static.count() >= 3 and "Interactive in JupyterLab" in static.first.inner_text()
    violations = axe.run_axe(page, include=["article"])    # lesson 2: pictures, explorers, math
    assert not violations, axe.describe_violations(violations)

    report = json.loads((site / ".course-lessons.json").read_text())
    launch = page.get_by_role("link", name="Open in the browser edition")
    if not report["lite"]:
        assert launch.count() == 0
        pytest.skip(f"the browser edition was not built with the site: {report['lite_missing']}")
    with page.expect_navigation():
        launch.click()
    assert "/lite/lab/index.html?path=lessons/02_alpha_beta.ipynb" in page.url
    heading = page.locator(".jp-NotebookPanel .jp-RenderedMarkdown h1").first
    heading.wait_for(state="visible", timeout=120_000)
    assert heading.inner_text().startswith("Lesson 2")
    tab = page.locator("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current .lm-TabBar-tabLabel")
    assert tab.first.inner_text().strip() == "02_alpha_beta.ipynb"
    assert not [u for u in outside if "jsdelivr" not in u], outside[:5]
    context.close()
