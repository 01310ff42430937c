"""The documentation site (issue 22): it builds offline with warnings as errors, its internal links
resolve, every page is in the navigation, and the README is a front page that links into it.

The browser half (tests/browser/test_browser_docs_site.py) opens the built site in Chromium,
follows the navigation and runs axe-core on its pages.
"""
from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

pytest.importorskip("sphinx", reason="the docs extra (pip install -e '.[docs]')")


def build_site(out: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           str(DOCS), str(out)], capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("docs-site")
    done = build_site(out)
    assert done.returncode == 0, done.stderr[-4000:]
    return out


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        for key in ("href", "src"):
            if tag in ("a", "img", "link", "script") and attrs.get(key):
                self.links.append(attrs[key])


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_the_site_builds_with_warnings_as_errors(site):
    assert (site / "index.html").is_file()


def test_a_warning_fails_the_build(tmp_path):
    """The control: a page with a broken link does not build."""
    import shutil

    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    (docs / "student" / "setup.md").write_text("# Setup\n\nSee [nowhere](no-such-page.md).\n")
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(docs),
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=600,
                          cwd=ROOT)
    assert done.returncode != 0 and "no-such-page" in done.stderr


def test_every_internal_link_resolves(site):
    pages = sorted(site.rglob("*.html"))
    parsed = {p: _parse(p) for p in pages}
    broken = []
    for page, links in parsed.items():
        for link in links.links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith(("//", "mailto:")):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not target.exists():
                broken.append(f"{page.relative_to(site)} -> {link}")
                continue
            if parts.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parse(target).ids
                if parts.fragment not in ids:
                    broken.append(f"{page.relative_to(site)} -> {link} (no such anchor)")
    assert not broken, "\n".join(broken[:20])


def test_every_page_is_in_the_navigation(site):
    sources = {p.relative_to(DOCS).with_suffix("").as_posix() for p in DOCS.rglob("*.md")}
    index = (site / "index.html").read_text(encoding="utf-8")
    missing = [s for s in sorted(sources) if s != "index" and f'href="{s}.html"' not in index]
    assert not missing, missing


def test_the_readme_is_a_front_page_that_links_into_the_site():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    assert "make lab" in readme and "make test" in readme and "make docs" in readme
    targets = re.findall(r"\]\(((?:docs)/[^)#]+)", readme)
    assert len(targets) >= 10
    for target in targets:
        path = ROOT / target
        assert path.is_file() or path.with_suffix(".md").is_file(), target
