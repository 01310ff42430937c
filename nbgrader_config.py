"""nbgrader configuration of the course (the instructor's side).

The course directory is the folder of this file.  nbgrader reads it when run
from here (``nbgrader ...``, the formgrader in JupyterLab), and the course's own
commands (``python -m course.grading ...``, the ``make`` targets) load it too.

solutions/   nbgrader's *source*: the notebooks with solutions and hidden tests
exercises/   nbgrader's *release*: generated from solutions/ by ``make release``
submitted/, autograded/, feedback/, gradebook.db   nbgrader's working folders (not committed)
"""

import os

c = get_config()  # noqa: F821 - provided by nbgrader when it loads this file

# nbgrader's formgrader shows students' work in your browser: it is served only behind the course's
# guard (course/formgrader_guard), however JupyterLab was started.  The formgrader runs this file
# when it starts; this installs the guard there (and does nothing anywhere else).
try:
    from course.formgrader_guard import guard_this_formgrader
except ImportError:        # the course is not importable here: nothing of it runs, nor this
    pass
else:
    guard_this_formgrader()

_HERE = os.path.dirname(os.path.abspath(__file__)) if "__file__" in globals() else os.getcwd()

c.CourseDirectory.course_id = "game-tree-search"
c.CourseDirectory.root = _HERE
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "exercises"
c.CourseDirectory.submitted_directory = "submitted"
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"

# One machine, no JupyterHub: the exchange is a folder every user can write (mode 1777), by
# default beside the course; COURSE_EXCHANGE names another (e.g. /srv/nbgrader/exchange, shared
# with the students' accounts).  `make lab` creates it; `make student-bundle` writes it into the
# students' nbgrader_config.py.
c.Exchange.root = os.environ.get("COURSE_EXCHANGE") or os.path.join(_HERE, "nbgrader_exchange")
# nbgrader's exchange, made safe on a shared machine (course/grading/term/intake/exchange/): a sticky
# exchange, submissions collected by their owner and with the collector's time, no links, FIFOs
# or hard links followed.
c.ExchangeFactory.release_assignment = "course.grading.term.intake.exchange.ExchangeReleaseAssignment"
c.ExchangeFactory.submit = "course.grading.term.intake.exchange.ExchangeSubmit"
c.ExchangeFactory.collect = "course.grading.term.intake.exchange.ExchangeCollect"

# Executing notebooks (autograde, validate): a generous but finite time per cell.
# The graded searches finish in seconds; a cell still running after two minutes is stuck.
c.Execute.timeout = 120
c.Execute.startup_timeout = 120

# Validating (the students' Validate button and `nbgrader validate`): nbgrader cuts every line
# of a failed cell and of its error at `width - 3` characters (with a 4-space indent).  The test
# cells' lines are at most 100 characters and the checks' messages at most 88, so 110 cuts none.
c.Validator.width = 110

# Autograding: put back grade cells a student deleted, keep outputs small, and grade with
# the course's sandboxed step instead of a kernel: the student's code runs in a bubblewrap
# sandbox, every test runs in the grader (course/grading/job/sandboxed.py).
c.OverwriteCells.add_missing_cells = True
c.LimitOutput.max_lines = 300
c.LimitOutput.max_traceback = 100
c.SandboxedGrade.cell_timeout = 60
# nbgrader's sanitizing steps, with OverwriteCells taught that a released test cell lacks its
# hidden tests (no "checksum has changed" warning for untouched test cells, here or in the
# formgrader's Autograde button; any real change is still undone).
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "course.grading.job.sandboxed.ReleasedTestCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]
c.Autograde.autograde_preprocessors = [
    "course.grading.job.sandboxed.SandboxedGrade",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.CheckCellMetadata",
]
# No AssignLatePenalties step: the late penalty is not frozen when a submission is graded but
# computed whenever grades and feedback are written, from the score as it stands (hand grades
# included), the student's own due date (extensions) and the rule below (course/grading/term/):
# c.AssignLatePenalties.plugin_class = "course.grading.term.PercentPerDay"
# c.PercentPerDay.percent_per_day = 10
# c.TermPolicy.late_penalty_base = "all"          # or "autograded": hand-graded points never reduced
# c.TermPolicy.resubmission = "latest"            # or "latest-before-due", "best"

# Feedback never shows the hidden tests (their source, seeds or cases); failures of hidden
# tests are reported without their cases by the grader (course/grading/job/sandboxed.py).
# Feedback pages are rendered from what students wrote: the course's exporter cleans it (nh3) and
# lets no script of theirs run (course/grading/term/results/safe_html.py).
c.GenerateFeedback.exporter_class = "course.grading.term.results.safe_html.SafeHTMLExporter"
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "course.grading.job.sandboxed.HideHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
