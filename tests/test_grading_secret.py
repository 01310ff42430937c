"""A grade does not depend on the class's grading secret (issue 20, item 6).

The hidden tests draw most of their cases from the class's secret (so the seeds in
``solutions/`` do not reveal them).  Measured before: the same wrong code earned different
points in different classes -- e.g. a depth-limited search that calls ``evaluate`` before its
terminal test scored 7/9 under two of five secrets and 6/9 under three, because the hidden
tic-tac-toe test caught it only on some draws.  Four of the 49 known rule mistakes varied.

Now each hidden test adds fixed cases (:func:`course.grading.checks.cases.fixed_cases`) that expose
every mistake its checks know.  Every mutant of ``test_grading_mutants.py`` is graded here under
eight secrets (none, and seven others; 61 further secrets were tried when the fixed cases were
chosen); the test cells it fails -- its points -- are the same under each.  The control removes the fixed cases and finds the old variation again.
"""
from __future__ import annotations

import contextlib
import io

import pytest

import course.grading
from course.grading.job.sandboxed import SALTED_BUILDERS, salted, split_hidden
from test_grading_mutants import MUTANTS, _mutated_source
from test_grading_support import SOLUTIONS, read_cells

SECRETS = (None, *(f"class-{i}" for i in range(7)))


def grade(path, replace, secret):
    """Failed test cells of a notebook, graded as the autograder does: the visible part with
    the seeds written, the hidden part with the salted builders (when there is a secret)."""
    namespace = {"__name__": "__exercise__"}
    failed = set()
    with contextlib.redirect_stdout(io.StringIO()):
        for cell in read_cells(path):
            if cell.kind in ("markdown", "answer", "scratch"):
                continue
            source = replace.get(cell.grade_id, cell.source)
            if cell.kind != "test":
                exec(compile(source, f"<{cell.grade_id}>", "exec"), namespace)
                continue
            visible, hidden = split_hidden(source)
            try:
                exec(compile(visible, f"<{cell.grade_id}>", "exec"), namespace)
                if hidden:
                    space = dict(namespace)
                    if secret:
                        for name in SALTED_BUILDERS:
                            if callable(space.get(name)):
                                space[name] = salted(space[name], secret)
                    exec(compile(hidden, f"<{cell.grade_id} hidden>", "exec"), space)
            except Exception:  # noqa: BLE001 - a failing test cell is what is measured
                failed.add(cell.grade_id)
    return frozenset(failed)


def points_by_secret(mutant):
    replace = {mutant.cell: _mutated_source(mutant)}
    return {secret: grade(SOLUTIONS / mutant.notebook, replace, secret) for secret in SECRETS}


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_a_mistake_loses_the_same_points_in_every_class(mutant):
    outcomes = points_by_secret(mutant)
    distinct = set(outcomes.values())
    assert len(distinct) == 1, "\n".join(f"{s}: {sorted(f)}" for s, f in outcomes.items())
    assert mutant.catches <= next(iter(distinct))


def test_without_the_fixed_cases_the_grade_depended_on_the_secret(monkeypatch):
    """The control: the random cases alone catch this mistake under some secrets only."""
    # the hidden tests take it from course.grading (``from course.grading import fixed_cases``)
    monkeypatch.setattr(course.grading, "fixed_cases", lambda *args, **kwargs: [])
    mutant = next(m for m in MUTANTS
                  if m.name.startswith("depth limit: EVAL before the terminal test"))
    outcomes = points_by_secret(mutant)
    caught = [s for s, failed in outcomes.items() if "a1-test-depth-limited-tictactoe" in failed]
    assert 0 < len(caught) < len(SECRETS), caught


def test_the_model_solutions_pass_under_every_secret():
    for path in sorted(SOLUTIONS.glob("*/*.ipynb")):
        for secret in SECRETS[:3]:
            assert grade(path, {}, secret) == frozenset(), (path.name, secret)
