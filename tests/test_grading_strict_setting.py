"""An instructor chooses the pruning rule of Assignment 2 (issue 31): ``STRICT_RULE`` in its setup cell.

With ``STRICT_RULE = True`` (CS188's rule: never cut on equality) a student who cuts only on a
strict inequality passes Assignment 2 and one who cuts on equality fails, with a message quoting
the strict rule; with the default it is the other way round.  ``make release`` rewrites the rules
text to match the setting, and the setting is part of what a grade depends on: changing it and
releasing again regrades every submission (the released notebook is in each grade's key).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from course.grading import GradingFailure
from course.grading.term.rules import RULE_TEXTS, strict_setting, sync_rule_text
from test_grading_support import SOLUTIONS, copy_course, read_cells, run_notebook

A2, NB = "a2_alphabeta", "alphabeta.ipynb"


def _cells(path: Path) -> dict[str, str]:
    return {c.grade_id: c.source for c in read_cells(path)}


def _strict_code(source: str) -> str:
    strict = source.replace("if v >= beta:", "if v > beta:").replace("if v <= alpha:", "if v < alpha:")
    assert strict != source
    return strict


def _set(notebook: Path, strict: bool) -> str | None:
    """Choose the rule in a source notebook as the docs say: the setting, and the model solution."""
    text = notebook.read_text(encoding="utf-8")
    old, new = ("STRICT_RULE = False", "STRICT_RULE = True") if strict else \
        ("STRICT_RULE = True", "STRICT_RULE = False")
    assert old in text
    text = text.replace(old, new)
    pairs = [("if v >= beta:", "if v > beta:"), ("if v <= alpha:", "if v < alpha:")]
    for a, b in pairs:
        text = text.replace(a, b) if strict else text.replace(b, a)
    notebook.write_text(text, encoding="utf-8")
    return sync_rule_text(notebook)


def test_the_setting_is_read_from_the_setup_cell():
    assert strict_setting(_cells(SOLUTIONS / A2 / NB)["a2-setup"]) is False


def test_release_rewrites_the_rules_text_and_back(tmp_path):
    notebook = tmp_path / NB
    shutil.copy(SOLUTIONS / A2 / NB, notebook)
    original = notebook.read_bytes()
    said = _set(notebook, True)
    assert said and "now states the strict rule" in said
    rules = _cells(notebook)["a2-rules"]
    assert RULE_TEXTS[("alphabeta", True)] in rules and "never cuts on equality" in rules
    assert RULE_TEXTS[("alphabeta", False)] not in rules
    assert sync_rule_text(notebook) is None                 # nothing more to do
    _set(notebook, False)
    assert notebook.read_bytes() == original                # the committed text is the default's


def test_a_notebook_with_the_setting_but_no_rule_text_is_refused(tmp_path):
    notebook = tmp_path / NB
    text = (SOLUTIONS / A2 / NB).read_text(encoding="utf-8").replace("<!-- rule:alphabeta -->", "")
    notebook.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match="sets STRICT_RULE but states no rule"):
        sync_rule_text(notebook)


def _outcomes(notebook: Path, solution: str) -> dict:
    return run_notebook(notebook, replace={"a2-alphabeta": solution})


def test_a_strict_student_passes_with_the_setting_and_fails_without(tmp_path):
    notebook = tmp_path / NB
    shutil.copy(SOLUTIONS / A2 / NB, notebook)
    course_rule = _cells(SOLUTIONS / A2 / NB)["a2-alphabeta"]
    strict_rule = _strict_code(course_rule)

    # the default: the course's rule
    default = _outcomes(notebook, strict_rule)
    failure = default["a2-test-ties"]
    assert isinstance(failure, GradingFailure)
    assert "(on equality too)" in " ".join(str(failure).split())
    assert all(v is None for v in _outcomes(notebook, course_rule).values())

    # the instructor chooses the strict rule
    _set(notebook, True)
    assert all(v is None for v in _outcomes(notebook, strict_rule).values())
    assert all(v is None for v in run_notebook(notebook).values())     # the model solution
    chosen = _outcomes(notebook, course_rule)
    failure = chosen["a2-test-ties"]
    assert isinstance(failure, GradingFailure)
    text = " ".join(str(failure).split())
    assert "never on equality: CS188's rule" in text and "(on equality too)" not in text


@pytest.mark.nbgrader
def test_the_setting_grades_end_to_end_and_a_change_regrades(tmp_path):
    """Release with the strict rule, autograde a strict and a course-rule student in sandboxes;
    then switch back, release, autograde: both are regraded (the grade's key changed)."""
    from nbgrader.api import Gradebook

    from course.grading.job.autograde import autograde
    from course.grading.term.course_dir import course_layout
    from course.grading.term.release import release

    root = copy_course(tmp_path / "course")
    source = root / "solutions" / A2 / NB
    _set(source, True)
    release(root, assignment=A2)
    released = (root / "exercises" / A2 / NB).read_text(encoding="utf-8")
    assert "STRICT_RULE = True" in released and "never cuts on equality" in released
    course_rule = _cells(SOLUTIONS / A2 / NB)["a2-alphabeta"]
    for student, code in (("strict", _strict_code(course_rule)), ("course", course_rule)):
        target = root / "submitted" / student / A2
        target.mkdir(parents=True)
        nb = json.loads((SOLUTIONS / A2 / NB).read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            if cell["metadata"].get("nbgrader", {}).get("grade_id") == "a2-alphabeta":
                cell["source"] = code
        (target / NB).write_text(json.dumps(nb), encoding="utf-8")
    total = sum(c.points for c in read_cells(SOLUTIONS / A2 / NB) if c.kind == "test")
    ties = next(c.points for c in read_cells(SOLUTIONS / A2 / NB) if c.grade_id == "a2-test-ties")

    def scores():
        records = autograde(root, assignment=A2, jobs=1)
        layout = course_layout(root)
        out = {}
        with Gradebook(layout.db_url, layout.course_id) as gb:
            for record in records:
                sub = gb.find_submission(A2, record.student)
                out[record.student] = (sum(g.auto_score or 0 for nb in sub.notebooks
                                           for g in nb.grades if g.cell_type == "code"),
                                       record.status)
        return out

    first = scores()
    assert first["strict"] == (total, "graded"), first
    assert first["course"][0] <= total - ties, first
    graded = (root / "autograded" / "course" / A2 / NB).read_text(encoding="utf-8")
    assert "never on equality" in graded                  # the message quotes the chosen rule

    _set(source, False)
    release(root, assignment=A2)
    second = scores()                                     # a new release: both are regraded
    assert second["course"] == (total, "graded"), second
    assert second["strict"][0] <= total - ties, second
