"""The checks the exercises' test cells call: they run in the student's kernel and in the grader.

* :mod:`.searches` -- ``check``, ``check_alphabeta``, ``explain``, ...: a student's search run on
  cases and compared with the reference search;
* :mod:`.compare` -- the comparison itself (:data:`~.compare.TASKS`, :func:`~.compare.run_student`);
* :mod:`.cases` -- the cases (textbook trees, seeded exercise trees, tic-tac-toe, Pig);
* :mod:`.instrument` -- the recording game the searches run on;
* :mod:`.evaluation`, :mod:`.errorbounds` -- the open tasks and Assignment 6's intervals;
* :mod:`.diagnose` -- the mistake a wrong trace reproduces, and the drill offered;
* :mod:`.failures` -- what a failed check raises; :mod:`.values` -- numbers as messages show them.

In Validate they run in the student's own kernel; in autograde in the grader, where the
student's functions are proxies into the sandbox (:mod:`course.grading.job.sandboxed`).  So
they import nothing of :mod:`course.grading.job` or :mod:`course.grading.term`
(``tests/test_grading_layout.py``).  :mod:`course.grading` re-exports what the test cells call.
"""
