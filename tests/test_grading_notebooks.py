"""The exercise notebooks: their nbgrader structure, their rules, and (run in-process) that the
solutions pass every test cell and the untouched release passes none."""

from __future__ import annotations

import nbformat
import pytest

from course.grading import GradingFailure
from test_grading_support import EXERCISES, SOLUTIONS, notebooks, read_cells, run_notebook

SOURCES = notebooks(SOLUTIONS)
IDS = [p.parent.name for p in SOURCES]


def test_six_assignments_each_released():
    assert [p.parent.name for p in SOURCES] == [
        "a1_minimax", "a2_alphabeta", "a3_chance", "a4_bounded", "a5_ordering",
        "a6_selective"]
    assert [p.relative_to(EXERCISES) for p in notebooks(EXERCISES)] == [p.relative_to(SOLUTIONS) for p in SOURCES]


@pytest.mark.parametrize("path", SOURCES + notebooks(EXERCISES), ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, path


@pytest.mark.parametrize("path", SOURCES, ids=IDS)
def test_nbgrader_structure(path):
    cells = read_cells(path)
    ids = [c.grade_id for c in cells if c.grade_id]
    assert len(ids) == len(set(ids)), "duplicate grade ids"
    tests = [c for c in cells if c.kind == "test"]
    answers = [c for c in cells if c.kind == "answer"]
    solutions = [c for c in cells if c.kind == "solution"]
    assert len(tests) >= 3, "several graded cells per assignment, for partial credit"
    assert all(c.points > 0 for c in tests + answers)
    assert answers and all("Rubric" in c.source and "Model answer" in c.source for c in answers)
    assert all("### BEGIN SOLUTION" in c.source and "### END SOLUTION" in c.source for c in solutions)
    hidden = [c for c in tests if "### BEGIN HIDDEN TESTS" in c.source]
    assert len(hidden) >= 2, "hidden tests on random trees and real games"
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader")
        if meta and meta.get("grade") and not meta.get("solution"):
            assert meta.get("locked"), f"test cell {meta['grade_id']} must be locked"


@pytest.mark.parametrize("path", SOURCES, ids=IDS)
def test_rules_are_stated(path):
    text = " ".join(c.source for c in read_cells(path) if c.kind == "markdown").lower()
    if path.parent.name == "a6_selective":    # compares values and intervals, not visits
        words_needed = ("horizon", "true value", "narrowest", "in the order", "first")
    else:
        words_needed = ("expanded", "evaluated", "in the order", "first")
    for words in words_needed:
        assert words in text, f"the rules must mention {words!r}"
    if "alphabeta" in path.name or "bounded" in path.name or "chance" in path.name:
        assert "on equality" in text or "beta <= alpha" in text


@pytest.mark.parametrize("path", SOURCES, ids=IDS)
def test_release_hides_solutions_hidden_tests_and_rubrics(path):
    released = EXERCISES / path.parent.name / path.name
    text = "\n".join(c.source for c in read_cells(released))
    for secret in ("BEGIN SOLUTION", "HIDDEN TESTS", "Rubric", "Model answer"):
        assert secret not in text, f"{secret!r} leaked into {released}"
    for cell in read_cells(path):
        if cell.kind == "test" and "### BEGIN HIDDEN TESTS" in cell.source:
            block = cell.source.split("### BEGIN HIDDEN TESTS")[1].split("### END HIDDEN TESTS")[0]
            for line in (l for l in block.splitlines() if l.strip() and not l[0].isspace()):
                assert line not in text, f"hidden test {line!r} leaked into {released}"


@pytest.mark.parametrize("path", SOURCES, ids=IDS)
def test_solutions_pass_every_test_cell(path):
    outcomes = run_notebook(path)
    failed = {k: f"{type(v).__name__}: {v}"[:2000] for k, v in outcomes.items() if v is not None}
    assert not failed


@pytest.mark.parametrize("path", notebooks(EXERCISES), ids=IDS)
def test_untouched_release_passes_no_test_cell(path):
    outcomes = run_notebook(path)
    assert outcomes and all(isinstance(v, GradingFailure) for v in outcomes.values()), outcomes
