"""The lessons: committed clean, well-formed, and each one runs top to bottom in a fresh kernel.

* Clean: no outputs and no execution counts in any committed notebook (fast, always run).
* Complete metadata: every notebook stores the kernelspec and the whole ``language_info`` that
  JupyterLab/ipykernel write on opening, so that opening and closing a lesson does not mark it
  modified (only ``{"name": "python"}`` made every tab ask to be saved).
* Well-formed: every numbered lesson states learning objectives, asks questions with answers
  revealed on demand, ends with a summary, and points to exercise folders that exist.
* Runs: every lesson executes with nbclient in a fresh kernel, in ``lessons/`` as working
  directory, without an error output and in under 60 seconds (marked ``notebooks``).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ROOT / "lessons"
NOTEBOOKS = sorted(LESSONS.glob("*.ipynb"))
NUMBERED = [nb for nb in NOTEBOOKS if re.match(r"0[1-5]_", nb.name)]
ASSIGNMENTS = sorted((ROOT / "solutions").glob("*/*.ipynb")) + sorted((ROOT / "exercises").glob("*/*.ipynb"))
TIME_LIMIT = 60  # seconds per lesson, kernel start-up included


def _ids(paths):
    return [p.stem for p in paths]


def _read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def _markdown(nb: nbformat.NotebookNode) -> str:
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def test_the_course_has_its_lessons():
    names = {p.name for p in NOTEBOOKS}
    for expected in ["00_how_to_use.ipynb", "01_minimax.ipynb", "02_alpha_beta.ipynb",
                     "03_heuristics_selective.ipynb", "04_chance.ipynb",
                     "05_bounded_suboptimal.ipynb"]:
        assert expected in names, f"lessons/{expected} is missing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_committed_without_outputs(path):
    nb = _read(path)
    nbformat.validate(nb)
    dirty = [i for i, c in enumerate(nb.cells)
             if c.cell_type == "code" and (c.outputs or c.execution_count is not None)]
    assert not dirty, (f"{path.name}: cells {dirty} have outputs or execution counts; "
                       "clear them before committing (e.g. jupyter nbconvert --clear-output --inplace)")


# What ipykernel reports in its kernel_info reply, and JupyterLab stores, for Python 3.
LANGUAGE_INFO = {
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
}


def _metadata_problems(path: Path) -> list[str]:
    meta = _read(path).metadata
    problems = []
    kernelspec = meta.get("kernelspec", {})
    if kernelspec.get("name") != "python3" or kernelspec.get("language") != "python":
        problems.append(f"kernelspec is {kernelspec!r}, expected the python3 kernel")
    info = meta.get("language_info", {})
    for key, expected in LANGUAGE_INFO.items():
        if info.get(key) != expected:
            problems.append(f"language_info[{key!r}] is {info.get(key)!r}, expected {expected!r}")
    if not re.fullmatch(r"3\.\d+\.\d+", str(info.get("version", ""))):
        problems.append(f"language_info['version'] is {info.get('version')!r}, expected e.g. '3.11.7'")
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_lesson_metadata_is_complete(path):
    problems = _metadata_problems(path)
    assert not problems, f"{path.name}: " + "; ".join(problems)


@pytest.mark.parametrize("path", ASSIGNMENTS, ids=[f"{p.parent.parent.name}/{p.parent.name}" for p in ASSIGNMENTS])
def test_assignment_metadata_is_complete(path, request):
    problems = _metadata_problems(path)
    if problems:
        # solutions/ and exercises/ belong to the assignments' owner; this worktree does not edit
        # them.  Known failure until they store the same metadata as the lessons (issue 11).
        request.applymarker(pytest.mark.xfail(
            reason="solutions/ and exercises/ still store incomplete language_info (owned by the "
                   "assignments' engineer; issue 11)"))
    assert not problems, f"{path.relative_to(ROOT)}: " + "; ".join(problems)


@pytest.mark.parametrize("path", NUMBERED, ids=_ids(NUMBERED))
def test_lesson_structure(path):
    nb = _read(path)
    text = _markdown(nb)
    assert nb.cells[0].cell_type == "markdown" and "you will be able to" in nb.cells[0].source, \
        f"{path.name}: the first cell must state the learning objectives"
    answers = text.count("<details><summary>Answer</summary>")
    assert answers >= 3, f"{path.name}: only {answers} check-your-understanding answers"
    assert text.count("<details>") == text.count("</details>"), f"{path.name}: unbalanced <details>"
    assert "## Summary" in text, f"{path.name}: no summary section"
    pointers = re.findall(r"\(`(exercises/[^`]+?)/?`\)", text)
    assert pointers, f"{path.name}: no pointer to a graded exercise (`exercises/...`)"
    for folder in pointers:
        assert (ROOT / folder).is_dir(), f"{path.name} points to {folder}, which does not exist"


@pytest.mark.parametrize("path", NUMBERED, ids=_ids(NUMBERED))
def test_code_cells_stay_short(path):
    """Logic lives in the ``course`` library; a lesson cell is a few lines."""
    nb = _read(path)
    long_cells = [(i, len(c.source.splitlines())) for i, c in enumerate(nb.cells)
                  if c.cell_type == "code" and len(c.source.splitlines()) > 16]
    assert not long_cells, f"{path.name}: code cells (index, lines) too long: {long_cells}"


@pytest.mark.notebooks
@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_lesson_runs_clean_and_fast(path):
    from nbclient import NotebookClient

    nb = _read(path)
    client = NotebookClient(nb, timeout=TIME_LIMIT, kernel_name="python3",
                            resources={"metadata": {"path": str(LESSONS)}})
    start = time.perf_counter()
    client.execute()
    elapsed = time.perf_counter() - start
    errors = [(i, out.get("ename"), out.get("evalue"))
              for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
              for out in cell.outputs if out.output_type == "error"]
    assert not errors, f"{path.name}: error outputs {errors}"
    stderr = [(i, out.text[:200]) for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
              for out in cell.outputs
              if out.output_type == "stream" and out.name == "stderr" and "Traceback" in out.text]
    assert not stderr, f"{path.name}: tracebacks on stderr {stderr}"
    assert elapsed < TIME_LIMIT, f"{path.name} took {elapsed:.1f} s, more than {TIME_LIMIT} s"
