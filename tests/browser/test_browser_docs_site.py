"""The documentation site in Chromium (issue 22): the home page's navigation reaches the
student, instructor and reference pages, and axe-core (WCAG 2.1 A/AA) finds no violation in the
course's own content on them, nor in the theme's page chrome around it.
Screenshots go to ``$COURSE_SCREENSHOTS`` when set (docs-home.png, docs-instructor.png)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
pytest.importorskip("sphinx", reason="the docs extra (pip install -e '.[docs]')")

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("index.html", "student/setup.html", "student/drills.html", "instructor/grading.html",
         "instructor/security.html", "reference/searches.html", "reference/api.html",
         "contributing/architecture.html")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("docs-site-browser")
    done = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(ROOT / "docs"),
                           str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


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
    sidebar.get_by_role("link", name=re.compile(r"^Graded exercises and the instructor.s workflow$")).click()
    page.wait_for_load_state()
    assert page.url.endswith("instructor/grading.html")
    assert page.locator("article h1").inner_text().startswith("Graded exercises")
    _shot(page, "docs-instructor.png")
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
