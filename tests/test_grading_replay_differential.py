"""Every search check grades the same with the tree replayed as with the live protocol.

The replay (course.sandbox.session.REPLAY_TREES) changes where a student's search of an explicit
tree meets the game: in the sandbox, against a copy of the tree, its record of calls replayed by
the grader.  It must change nothing a student or an instructor sees: each notebook of the course,
with its model answer and with each wrong answer of the mutant tests (tests/test_grading_mutants.py),
is graded as the autograder grades it (in a sandbox, visible then hidden tests, with a secret)
with the replay and without it, and every cell's outputs (verdicts, diagnoses, messages), pass
or fail, review flags and time limits must be the same.
"""

from __future__ import annotations

import json

import pytest

from course.grading.job.sandboxed import grade_notebook
from course.sandbox import sandbox_available
from course.sandbox import session as session_module
from test_grading_mutants import MUTANTS, _mutated_source
from test_grading_support import SOLUTIONS, notebooks, read_cells

pytestmark = pytest.mark.skipif(not sandbox_available(),
                                reason="bubblewrap cannot start a sandbox here (apt-get install bubblewrap)")

KINDS = {"setup": "locked", "solution": "student", "scratch": "student", "test": "test"}


def _cells(notebook, replace=None):
    replace = replace or {}
    return [{"kind": KINDS[c.kind], "source": replace.get(c.grade_id, c.source),
             "trusted_source": c.source}
            for c in read_cells(notebook) if c.kind in KINDS]


def _graded(cells, replay, monkeypatch):
    monkeypatch.setattr(session_module, "REPLAY_TREES", replay)
    results = grade_notebook(cells, secret="replay-differential")
    return json.loads(json.dumps(results, default=str))


def _same(name, cells, monkeypatch):
    replayed = _graded(cells, True, monkeypatch)
    live = _graded(cells, False, monkeypatch)
    assert len(replayed) == len(live)
    for i, (a, b) in enumerate(zip(replayed, live)):
        assert a == b, f"{name}, cell {i + 1}: replayed {a!r}\nlive {b!r}"
    return replayed


@pytest.mark.parametrize("notebook", notebooks(), ids=lambda p: p.parent.name)
def test_the_model_answer_grades_the_same_replayed(notebook, monkeypatch):
    results = _same(notebook.parent.name, _cells(notebook), monkeypatch)
    assert all(r["passed"] is not False for r in results), "the model answer fails a test"


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_a_wrong_answer_grades_the_same_replayed(mutant, monkeypatch):
    notebook = SOLUTIONS / mutant.notebook
    results = _same(mutant.name, _cells(notebook, {mutant.cell: _mutated_source(mutant)}),
                    monkeypatch)
    assert any(r["passed"] is False for r in results), "the mutant passes every test"
