"""A class whose answers, outputs, ids and names carry script, for the formgrader's pages.

:func:`build_hostile_course` turns a course directory into one the formgrader can show: the
assignment in the gradebook, honest and hostile students with graded submissions (gradebook rows
and ``autograded/`` notebooks), and a ``submitted/`` folder named like an HTML tag.  Every
payload, if it runs, records itself in ``top.PWN`` (a list of tags) in the page, and some also
ask a local listener for a URL; :func:`pwned` reads what ran.

The payloads are the ways a notebook can carry script into a page (each one known to run when
the page is rendered as nbgrader renders it: ``test_nbgrader_rendering_runs_the_payloads``):
raw HTML in a markdown answer (``<script>``, ``onerror``, ``<svg onload>``, ``<iframe srcdoc>``,
``<details ontoggle>``, a ``javascript:`` link, ``<meta refresh>``, ``<base>``), outputs
(``text/html``, ``application/javascript``, ``text/markdown``, ``image/svg+xml``, a widget, an
"isolated" HTML output), metadata the templates print (cell tags, an image's width, a stream's
name), and the student's id, first and last name.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat

A1, NB = "a1_minimax", "minimax"


def hit(tag: str) -> str:
    """JavaScript that records ``tag`` as run, in the top page (also from a same-origin frame)."""
    return f"(top.PWN=top.PWN||[]).push('{tag}')"


def markdown_payloads(port: int) -> str:
    """A markdown answer made of payloads (raw HTML passes through markdown)."""
    beacon = f"http://127.0.0.1:{port}"
    return "\n\n".join([
        "My answer, with some extras:",
        f'<img src="x-missing" onerror="{hit("md-img-onerror")}">',
        f"<script>{hit('md-script')}</script>",
        f'<svg onload="{hit("md-svg-onload")}"><circle r="1"></circle></svg>',
        f'<iframe srcdoc="<script>{hit("md-iframe-srcdoc")}</script>"></iframe>',
        f'<details open ontoggle="{hit("md-details-ontoggle")}"><summary>s</summary>d</details>',
        f'<a id="pwn-link" href="javascript:{hit("md-javascript-link")}">click me</a>',
        f'<object data="javascript:{hit("md-object")}"></object>',
        f'<math><mi xlink:href="javascript:{hit("md-math")}">m</mi></math>',
        f'<img src="{beacon}/md-image">',
        f"<style>@import url({beacon}/md-style);</style>",
        f'<form action="javascript:{hit("md-form")}"><button id="pwn-button">Save</button></form>',
        f'<meta http-equiv="refresh" content="0;url=javascript:{hit("md-meta-refresh")}">',
    ])


def output_payloads(port: int) -> list[dict]:
    """Outputs of a code cell that would each run script in nbconvert's HTML."""
    bad_png = "iVBORw0KGgo="           # not a whole PNG: the image fails, onerror would fire
    return [
        {"output_type": "display_data", "metadata": {},
         "data": {"text/html": f'<img src="x-missing" onerror="{hit("out-html")}">'}},
        {"output_type": "display_data", "metadata": {},
         "data": {"application/javascript": hit("out-javascript"), "text/plain": "js"}},
        {"output_type": "display_data", "metadata": {},
         "data": {"text/markdown": f"<script>{hit('out-markdown')}</script>"}},
        {"output_type": "display_data", "metadata": {},
         "data": {"image/svg+xml": f'<svg xmlns="http://www.w3.org/2000/svg" onload="{hit("out-svg")}"/>'}},
        {"output_type": "display_data",
         "metadata": {"image/png": {"width": f"1 onerror={hit('out-png-width')}"}},
         "data": {"image/png": bad_png}},
        {"output_type": "display_data", "metadata": {"text/html": {"isolated": True}},
         "data": {"text/html": f"<script>{hit('out-isolated')}</script>"}},
        {"output_type": "display_data", "metadata": {},
         "data": {"application/vnd.jupyter.widget-view+json": {"model_id": "x", "version_major": 2,
                                                               "version_minor": 0},
                  "text/plain": "widget"}},
        {"output_type": "stream", "name": f'stdout"><img src="x-missing" onerror="{hit("out-stream-name")}">',
         "text": "printed\n"},
    ]


def hostile_notebook(release: Path, port: int):
    """The released notebook with the payloads in the answer, an output and the metadata."""
    nb = nbformat.read(release, as_version=4)
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid == "a1-answer":
            cell.source = markdown_payloads(port)
            cell.metadata["tags"] = [f'x"><img src="x-missing" onerror="{hit("cell-tags")}">']
        if gid == "a1-minimax-value":
            cell.outputs = [nbformat.from_dict(o) for o in output_payloads(port)]
            cell.execution_count = 1
    return nb


#: Students: (id, first name, last name, hostile?).  The first id is a tag itself.
HOSTILE_ID = f'<img src=x onerror="{hit("student-id")}">'
STUDENTS = [
    ("honest", "Ada", "Lovelace", False),
    ("mallory", f"<script>{hit('first-name')}</script>", f'<img src=x onerror="{hit("last-name")}">', True),
    (HOSTILE_ID, "", "", True),
]


def build_hostile_course(root: Path, repo: Path, port: int) -> dict[str, str]:
    """Make ``root`` (holding ``nbgrader_config.py`` and ``exercises/``) a graded class.

    Returns ``{student id: submission notebook id}`` of the gradebook.
    """
    from nbgrader.api import Gradebook

    from course.grading.job.approval import approve_config
    from course.grading.term.release import release

    if not (root / "solutions").exists():
        shutil.copytree(repo / "solutions", root / "solutions")
    approve_config(root)
    release(root, assignment=A1, release_directory=root / ".release-check")   # the gradebook knows A1
    shutil.rmtree(root / ".release-check", ignore_errors=True)
    ids = {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "game-tree-search") as gb:
        for sid, first, last, hostile in STUDENTS:
            gb.update_or_create_student(sid, first_name=first or None, last_name=last or None)
            sub = gb.update_or_create_submission(A1, sid)
            for notebook in sub.notebooks:
                ids[sid] = notebook.id
            folder = root / "autograded" / sid / A1
            folder.mkdir(parents=True, exist_ok=True)
            release_nb = root / "exercises" / A1 / f"{NB}.ipynb"
            nb = hostile_notebook(release_nb, port) if hostile else nbformat.read(release_nb, as_version=4)
            nbformat.write(nb, str(folder / f"{NB}.ipynb"))
            (root / "submitted" / sid / A1).mkdir(parents=True, exist_ok=True)
            shutil.copy(folder / f"{NB}.ipynb", root / "submitted" / sid / A1 / f"{NB}.ipynb")
            # a file the student submitted beside the notebook, served by the formgrader as it is
            (folder / "notes.html").write_text(f"<script>{hit('submitted-file')}</script>notes")
    return ids


PWNED_JS = "() => { const seen = (window.PWN || []).slice(); return seen; }"


def pwned(page) -> list[str]:
    """The payload tags that ran in ``page`` (its top frame collects every frame's)."""
    return sorted(set(page.evaluate(PWNED_JS)))


def dump(value) -> str:
    return json.dumps(value, indent=1)
