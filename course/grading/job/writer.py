"""The instructor's process writes a job's result into the course: the gradebook and ``autograded/``.

What nbgrader's autograde writes in the course when it grades a submission in place (the local
pool), :func:`write_result` writes from a :class:`~.data.JobResult`, with nbgrader's own rules:

* the student (``update_or_create_student``) and the submission with the timestamp of its
  ``timestamp.txt`` (``update_or_create_submission``);
* a notebook the submission lacks: every grade 0, none waiting for a hand grade;
* every grade nbgrader's ``SaveAutoGrades`` scored: its ``auto_score``, and "needs a hand grade"
  if a hand grade was given before (in the course's gradebook) or there is no automatic score;
  a grade it did not reach (the job stopped before) keeps what it had, as in place;
* the comments of the notebooks it scored (``auto_comment``: "No response." or none);
* ``autograded/<student>/<assignment>/`` replaced by the job's folder (or removed, as nbgrader
  removes it when grading fails).

Only this process opens the course's gradebook; one session writes a whole batch of results.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from .data import JobResult, _plain_name, _relative

__all__ = ["write_result", "write_files"]


def write_result(gb: Any, result: JobResult) -> None:
    """Write ``result``'s scores and comments with the open nbgrader ``Gradebook`` ``gb``
    (committed; see the module)."""
    if result.submission is None:
        return                      # nbgrader stopped before it wrote anything
    student, assignment = result.student, result.assignment
    gb.update_or_create_student(student)
    timestamp = result.submission.get("timestamp")
    if timestamp is not None:
        gb.update_or_create_submission(assignment, student, timestamp=timestamp)
    else:
        gb.update_or_create_submission(assignment, student)
    missing = set(result.missing_notebooks)
    for name, notebook in result.submission.get("notebooks", {}).items():
        scored = False
        for grade_id, (auto_score, needs_manual) in notebook.get("grades", {}).items():
            if auto_score is None and not needs_manual:
                continue                # never reached by SaveAutoGrades (a new row's values)
            grade = gb.find_grade(grade_id, name, assignment, student)
            grade.auto_score = auto_score
            if name in missing:
                grade.needs_manual_grade = False
            else:
                scored = True
                grade.needs_manual_grade = grade.manual_score is not None or auto_score is None
        if scored:
            for comment_id, text in notebook.get("comments", {}).items():
                gb.find_comment(comment_id, name, assignment, student).auto_comment = text
    gb.db.commit()


def write_files(autograded: str | os.PathLike, result: JobResult) -> None:
    """Replace ``autograded/<student>/<assignment>/`` with the job's graded folder."""
    dest = Path(autograded) / _plain_name(result.student, "student") / _plain_name(result.assignment, "assignment")
    if dest.is_symlink() or dest.is_file():
        dest.unlink()
    elif dest.exists():
        shutil.rmtree(dest)
    if result.files is None:
        return
    dest.mkdir(parents=True)
    for path, (mode, data) in result.files.items():
        target = dest / _relative(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(target, int(mode) & 0o777)
