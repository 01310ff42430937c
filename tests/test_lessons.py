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

import functools
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


@functools.lru_cache(maxsize=None)
def _executed(path: Path) -> tuple[nbformat.NotebookNode, float]:
    """The lesson run once in a fresh kernel (shared by the tests below), and its run time."""
    from nbclient import NotebookClient

    nb = _read(path)
    client = NotebookClient(nb, timeout=TIME_LIMIT, kernel_name="python3",
                            resources={"metadata": {"path": str(LESSONS)}})
    start = time.perf_counter()
    client.execute()
    return nb, time.perf_counter() - start


@pytest.mark.notebooks
@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_lesson_runs_clean_and_fast(path):
    nb, elapsed = _executed(path)
    errors = [(i, out.get("ename"), out.get("evalue"))
              for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
              for out in cell.outputs if out.output_type == "error"]
    assert not errors, f"{path.name}: error outputs {errors}"
    stderr = [(i, out.text[:200]) for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
              for out in cell.outputs
              if out.output_type == "stream" and out.name == "stderr" and "Traceback" in out.text]
    assert not stderr, f"{path.name}: tracebacks on stderr {stderr}"
    assert elapsed < TIME_LIMIT, f"{path.name} took {elapsed:.1f} s, more than {TIME_LIMIT} s"


# -- what a student reads: sources ------------------------------------------------------------

def _lesson(name: str) -> nbformat.NotebookNode:
    return _read(LESSONS / name)


def _code(nb: nbformat.NotebookNode) -> str:
    return "\n".join(c.source for c in nb.cells if c.cell_type == "code")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_no_literal_asterisks_in_markdown(path):
    """``***-minimax**`` renders as a stray asterisk; *-minimax must be written ``\\*-minimax``."""
    bad = [i for i, c in enumerate(_read(path).cells)
           if c.cell_type == "markdown"
           and re.search(r"(?<!\\)\*\*\*|(?<![\\$])\*-minimax", c.source)]
    assert not bad, f"{path.name}: cells {bad} contain '***' (escape the star of *-minimax: \\*)"


def test_lesson_0_explains_search_result_children():
    nb = _lesson("00_how_to_use.ipynb")
    text, code = _markdown(nb), _code(nb)
    assert "`children`" in text and "(index, lower, upper)" in text
    assert "result.children" in code, "lesson 0 needs a runnable example of SearchResult.children"


def test_lesson_4_shows_algorithm_1_and_derives_what_assignment_3_uses():
    nb = _lesson("04_chance.ipynb")
    text = _markdown(nb)
    assert "Algorithm 1, in our words" in text and "best_U = max(best_U, U_c)" in text
    # beta(c) is derived, not "symmetrically"
    assert "symmetrically" not in text
    assert r"\frac{\beta(n) - L(n)}{\pi} + v_{\min}" in text
    # the incremental C3 update and best_U are derived
    assert r"L \leftarrow L + \pi(c)\,\big(L(c) - v_{\min}\big)" in text
    assert "**`best_U` and `best_L`.**" in text
    # "at or below", not "must fall below"
    assert "must fall below" not in text and "at or below" in text


def test_lesson_4_defines_c5_before_question_4_uses_it():
    cells = [c.source for c in _lesson("04_chance.ipynb").cells if c.cell_type == "markdown"]
    defined = next(i for i, c in enumerate(cells) if "**C5**" in c)
    question = next(i for i, c in enumerate(cells) if "**4.**" in c)
    assert defined < question and r"\alpha(c) = \max(\alpha(n), L(c))" in cells[defined]


def test_lesson_3_table_checks_are_named_after_their_tables():
    """Chen's node counts of Table 2 (Table 4) are filed under the key of Table 1 (Table 3)."""
    code = _code(_lesson("03_heuristics_selective.ipynb"))
    uses = re.findall(r"(\w+)\s*=\s*CHEN_NODES\[\"table(\d)\"\]", code)
    assert sorted(uses) == [("printed_table_2", "1"), ("printed_table_4", "3")]
    assert code.count("CHEN_NODES[") == 2, "use the named tables, not CHEN_NODES[...] inline"
    assert "computed_table_2 == printed_table_2" in code and "computed_table_4 == printed_table_4" in code


def test_lesson_3_introduces_table_3_before_using_it():
    cells = [c.source for c in _lesson("03_heuristics_selective.ipynb").cells
             if c.cell_type == "markdown" and "Table 3" in c.source]
    first = cells[0]
    assert "**Table 3**" in first or "Table 3**" in first, first[:200]
    assert "branching 11" in first


def test_lesson_5_says_plainly_that_er_differs():
    text = _markdown(_lesson("05_bounded_suboptimal.ipynb"))
    assert "rough match" not in text
    assert "**ER does not match**" in text and "What is counted." in text
    assert "**What ER counts.**" in text and "Leaves\nare not counted" in text


# -- what a student reads: outputs ------------------------------------------------------------

RAW_FLOAT = re.compile(r"\d\.\d{7,}")            # repr of a float: 22.715759353337972


def _text_outputs(nb: nbformat.NotebookNode) -> list[tuple[int, str]]:
    """Printed text, results and tables; not pictures (course.draw), widget state or help()."""
    texts = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                text = out.text
            elif out.output_type in ("execute_result", "display_data"):
                data = out.get("data", {})
                if "application/vnd.jupyter.widget-view+json" in data or "image/svg+xml" in data:
                    continue
                text = data.get("text/plain", "") + data.get("text/html", "")
            else:
                continue
            if not text.startswith("Help on"):
                texts.append((i, text))
    return texts


@pytest.mark.notebooks
@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_outputs_print_numbers_as_the_text_writes_them(path):
    nb, _ = _executed(path)
    for i, text in _text_outputs(nb):
        assert "Fraction(" not in text, f"{path.name} cell {i} prints a raw Fraction: {text[:300]}"
        raw = RAW_FLOAT.findall(text)
        assert not raw, f"{path.name} cell {i} prints unformatted floats {raw}: {text[:300]}"


@pytest.mark.notebooks
def test_lesson_4_narration_calls_an_exact_value_exact():
    nb, _ = _executed(LESSONS / "04_chance.ipynb")
    text = "\n".join(t for _, t in _text_outputs(nb))
    assert "a1,c1 returns -1, only a bound" not in text
    assert "a1,c1 returns value -1: exact" in text
    assert "[-1, 0]" in text and "(-7/8, 1)" in text and "875/2187" in text


@pytest.mark.notebooks
def test_lesson_5_outputs_use_plain_words():
    nb, _ = _executed(LESSONS / "05_bounded_suboptimal.ipynb")
    text = "\n".join(t for _, t in _text_outputs(nb))
    for jargon in ("quantile xi", "-/", "/-"):
        assert jargon not in text, f"lesson 5 prints {jargon!r}"
    assert "inner nodes expanded: 32 of 32" in text and "leaves evaluated:     43 of 52" in text
