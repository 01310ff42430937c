"""The grading job: data in, verdicts out, runnable on any machine with the course's package.

Autograding a submission is a pure function of data (issue 32):

* **in** -- a :class:`GradingJob`: the submission's files (bytes, as staged and repaired by the
  instructor's process), and an :class:`AssignmentBundle` shared by every job of an assignment:
  the approved ``nbgrader_config.py`` and its approval (file digest and grading policy), a
  gradebook *template* holding only the assignment's cells (made once per run, shipped as bytes),
  the source's non-notebook files nbgrader copies next to the graded notebook, the grading secret
  and the time limits;
* **out** -- a :class:`JobResult`: the autograded folder (bytes), the scores and comments nbgrader
  wrote for each cell, the worker's verdict message (success, limits hit, review flags, log).

:func:`run_job` rebuilds a private course folder in a temporary directory from the job alone and
runs the course's own grading worker there (``python -m course.grading.job.worker``: the
same :class:`~course.grading.job.sandboxed.SandboxedGrade`, bubblewrap sandbox, time limits
and caps as the local pool) -- nothing of the course folder or its gradebook is read, nothing
outside the temporary folder is written.  The instructor's process alone writes the course's
gradebook from the results (:func:`write_result`), in batches.

:mod:`.cluster` runs the jobs on a Dask cluster (``autograde --cluster ADDRESS``); the local pool
(:mod:`course.grading.job.queue`) stays the default.
"""

from .data import AssignmentBundle, GradingJob, JobError, JobResult, build_bundle, make_job, run_job
from .writer import write_result

__all__ = ["AssignmentBundle", "GradingJob", "JobResult", "JobError", "build_bundle", "make_job",
           "run_job", "write_result"]
