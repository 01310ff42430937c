"""Sphinx configuration of the course's documentation site (``make docs``).

Sphinx with MyST Markdown (the pages are plain Markdown files in ``docs/``) and the Furo theme;
the API reference is generated from the docstrings (autodoc + napoleon for numpydoc).  The
build needs no network: no intersphinx, no remote images, and the theme's assets are in its
wheel.  ``make docs`` builds with warnings as errors.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

project = "Game-tree search: from minimax to Bounded Alpha-Beta"
author = "The course's authors"
copyright = "the course's authors"

# course_lessons (docs/_ext/): the lessons as executed pages, the browser edition in lite/,
# MathJax served by the site (no CDN), the {course-legend} directive; course_research: the
# research pages' experiments, run (small, cached) when the site is built.
extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.mathjax",
              "course_lessons", "course_research"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "**/.ipynb_checkpoints"]

myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3

napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_ivar = True          # dataclass fields are documented once, as attributes
suppress_warnings = ["ref.python"]  # a parameter type such as "path" names several attributes
autodoc_member_order = "bysource"
autodoc_typehints = "none"
autodoc_mock_imports = ["pyspiel"]

html_theme = "furo"
html_title = "Game-tree search"
html_show_sourcelink = False
html_static_path = ["_static"]
html_css_files = ["course.css"]
html_js_files = ["course.js"]
html_theme_options = {"navigation_with_keys": True}
