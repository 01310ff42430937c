"""A term's bookkeeping: a grade is a function of the rules alone.

A submission's grade is computed from

* its **code-run inputs** -- the submitted files, the assignment's tests (visible and hidden,
  as released from ``solutions/``) and points, the grading secret, the course's code, the
  approved ``nbgrader_config.py`` and the run's limits (:mod:`.inputs`): ``autograde`` runs the
  code once per set of inputs and keeps the result by them (:mod:`.store`, :mod:`.run`);
* the **term's rules** -- which version counts (:mod:`.versions`, :mod:`.policies`), the due
  date and the student's extension (:mod:`.dates`, :mod:`.extensions`), the late rule and its
  base (:mod:`.policies`), and the hand grades (:mod:`.store`): applied whenever grades,
  feedback or the console need a total (:mod:`.settle`), never frozen at grading time.

So anything that changes an input makes exactly the grades that depend on it out of date:
the next ``make autograde`` runs the code of those whose code-run inputs changed, and
recomputes the others' totals without running code; ``grades.csv`` is the same whatever the
order of the term's commands.

Modules: :mod:`.dates` (due dates), :mod:`.extensions`, :mod:`.policies` (late penalty,
resubmission policy, the definition of a total), :mod:`.versions` (every version kept),
:mod:`.inputs` (the grading key), :mod:`.store` (results and hand grades kept),
:mod:`.settle` (totals brought up to date), :mod:`.run` (``autograde``'s side),
:mod:`.students` (released assignments, a student who leaves).

Reads and writes only the instructor's files; runs no student code.
"""

from __future__ import annotations

import importlib
from typing import Any

from .dates import due_dates, parse_when, set_due_date
from .extensions import Extension, extensions, grant_extension, remove_extension
from .students import Removal, released_assignments, remove_student

#: Imported when first used (they import nbgrader), so that a process that needs none of them
#: (the copy audit's) does not import nbgrader.
_LATER = {"PercentPerDay": "policies", "TermPolicy": "policies",
          "settle_course": "settle", "Settled": "settle", "TermBook": "settle"}

__all__ = ["set_due_date", "due_dates", "parse_when", "PercentPerDay", "TermPolicy", "released_assignments",
           "remove_student", "Removal", "Extension", "grant_extension", "remove_extension", "extensions",
           "settle_course", "Settled", "TermBook"]


def __getattr__(name: str) -> Any:
    module = _LATER.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LATER))
