"""Sandboxed autograding: the student's code in a sandbox, every verdict in the grader.

This replaces nbgrader's execute step during ``make autograde`` (the
:class:`SandboxedGrade` preprocessor, set in ``nbgrader_config.py``).  For
each submission:

1. **The student's code runs in a sandbox** (:mod:`course.sandbox`): every code
   cell of the notebook except the test cells, in order, the locked cells with
   the instructor's source from the gradebook.  The sandbox has the standard
   library only: no course package, no reference searches, no grader, no
   files of the course, no network.  What each cell printed (or raised) becomes
   its output in the graded notebook.
2. **The tests run in the grader's process**, with the instructor's source of
   each test cell from the gradebook (hidden tests included), in a namespace
   built from the instructor's locked cells, in which every function the
   student defined is a :class:`~course.sandbox.RemoteFunction`.  The
   instrumented game, its record of calls, the reference search and the
   comparison all live here, where the student's code cannot reach them.  A
   test cell passes if its code raises nothing.
3. **The verdict becomes the cell's output**: nothing (a pass; nbgrader gives
   the points) or an error output with the check's message (no points).
   Hidden tests run only after the visible ones passed (after every visible test of the
   notebook), on cases derived from the course's secret (:func:`course_secret`), each test
   in its own copy of the student's process, printing nothing; their failures are reported
   without their cases, sources or expected values.

nbgrader then saves the grades as usual.  Nothing in the student's process
takes part in a verdict: no name it defines can replace a check, no hook it
installs runs in the grader, nothing it prints or raises is read as a result.
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import io
import os
import re
import secrets
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nbformat import NotebookNode
from nbformat.v4 import new_output
from traitlets import Float, Integer, Unicode

from nbgrader.preprocessors import OverwriteCells
from nbgrader.preprocessors.base import NbGraderPreprocessor

from ...errors import CourseError
from ...sandbox import StudentSession, check_sandbox
from ...sandbox.inside import plain_python
from ...sandbox.bwrap import Limits
from ...sandbox.session import SessionError, SubmissionLimitError

__all__ = ["SandboxedGrade", "ReleasedTestCells", "allow_grading_without_sandbox", "HideHiddenTests", "split_hidden", "course_secret", "salted", "grade_notebook",
           "GRADEBOOK_LOCK"]

SECRET_FILE = ".grading-secret"
SECRET_ENV = "COURSE_GRADING_SECRET"

_HIDDEN = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS[ \t]*\n(.*?)^[ \t]*### END HIDDEN TESTS[ \t]*\n?",
                     re.S | re.M)


class _NoLock:
    def acquire(self) -> None:
        pass

    def release(self) -> None:
        pass


GRADEBOOK_LOCK: Any = _NoLock()
"""Held by a grading worker while nbgrader works on the gradebook; :class:`SandboxedGrade`
releases it while the sandbox and the tests run, so parallel workers write one at a time."""


UNAVAILABLE = "is not available while your notebook is graded"
NOT_RUN_NOTE = ("(While grading, this cell stopped where it used one of the course's tools "
                "(explain, the reference searches, the examples), which grading does not provide: "
                "your functions are called by the tests directly. This does not cost points.)\n")


def split_hidden(source: str) -> tuple[str, str]:
    """``(visible, hidden)``: a test cell's code without and only inside its hidden blocks.

    >>> split_hidden("check(f, a)\\n### BEGIN HIDDEN TESTS\\ncheck(f, b)\\n### END HIDDEN TESTS\\n")
    ('check(f, a)\\n', 'check(f, b)\\n')
    """
    hidden = "".join(m.group(1) for m in _HIDDEN.finditer(source))
    return _HIDDEN.sub("", source), hidden


def course_secret(root: str | os.PathLike, *, create: bool = False) -> str | None:
    """The course's grading secret: ``$COURSE_GRADING_SECRET`` or ``<root>/.grading-secret``.

    It derives the hidden tests' cases, so that the seeds published in
    ``solutions/`` do not reveal them.  ``create=True`` writes a new random one
    (readable by the instructor only) if there is none.  Keep it out of the
    repository and out of the students' reach.
    """
    value = os.environ.get(SECRET_ENV)
    if value:
        return value
    path = Path(root) / SECRET_FILE
    if path.is_file():
        return path.read_text(encoding="utf-8").strip() or None
    if not create:
        return None
    value = secrets.token_hex(16)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(value + "\n")
    return value


def salted(builder: Callable, secret: str) -> Callable:
    """``builder`` with its seed (first argument or ``seed=``) replaced by one derived from ``secret``.

    >>> from course.grading import exercise_cases
    >>> a = salted(exercise_cases, "s1")(101, 1)[0].game.root
    >>> b = salted(exercise_cases, "s2")(101, 1)[0].game.root
    >>> a == exercise_cases(101, 1)[0].game.root, a == b
    (False, False)
    """
    def derive(seed: Any) -> Any:
        if not isinstance(seed, int) or isinstance(seed, bool):
            return seed
        digest = hashlib.sha256(f"{secret}:{builder.__name__}:{seed}".encode()).digest()
        return int.from_bytes(digest[:6], "big")

    def build(*args: Any, **kwargs: Any) -> Any:
        if args:
            args = (derive(args[0]),) + args[1:]
        elif "seed" in kwargs:
            kwargs["seed"] = derive(kwargs["seed"])
        return builder(*args, **kwargs)

    build.__name__ = builder.__name__
    build.__doc__ = builder.__doc__
    return build


#: Case builders whose seeds the hidden tests take from the course secret.
SALTED_BUILDERS = ("exercise_cases", "exercise_tree", "tictactoe_cases")

#: Case builders whose results are kept for the next submissions graded by the same worker
#: (every student is checked on the same cases; the reference results are kept with them).
MEMOISED_BUILDERS = ("exercise_cases", "textbook_cases", "tictactoe_cases", "pig_cases",
                     "chance_note_game")
_BUILT: dict[tuple, Any] = {}


def _memoised(builder: Callable) -> Callable:
    def build(*args: Any, **kwargs: Any) -> Any:
        try:
            key = (getattr(builder, "__module__", ""), builder.__name__, args,
                   tuple(sorted(kwargs.items())))
            hash(key)
        except TypeError:
            return builder(*args, **kwargs)
        if key not in _BUILT:
            if len(_BUILT) > 200:
                _BUILT.clear()
            _BUILT[key] = builder(*args, **kwargs)
        value = _BUILT[key]
        return list(value) if isinstance(value, list) else value

    build.__name__ = builder.__name__
    return build


_FAILURE_WORDS = {
    "WrongLeaves": "the leaves it evaluated differ from the reference search's",
    "WrongExpansions": "the nodes it expanded differ from the reference search's",
    "WrongValue": "the value it returned is wrong",
    "WrongBounds": "the bounds it returned are wrong",
    "WrongMove": "the move it returned is wrong",
    "WrongReturnType": "it returned something of the wrong kind",
    "SearchCrashed": "it raised an exception",
    "SearchTimeout": "it took too long",
    "ReferenceSearchUsed": "it used the course's reference search",
    "InstrumentationTampered": "it changed the game it was given",
    "CheckFailed": "a check of the result failed",
}


def _hidden_message(exc: BaseException) -> str:
    what = _FAILURE_WORDS.get(type(exc).__name__, "it failed")
    return (f"Your code passes the visible tests of this cell but fails hidden tests: on a case "
            f"you have not seen, {what}. The hidden cases are like the visible ones; check that "
            "your code follows every rule of the assignment, not just the visible examples.")


def _first_line(text: str) -> str:
    """The message's first paragraph as one line (the checks wrap their lines at 88 characters)."""
    lines = []
    for line in str(text).splitlines():
        if not line.strip():
            if lines:
                break
            continue
        lines.append(line.strip())
    return " ".join(lines)


def _error_output(ename: str, message: str) -> NotebookNode:
    lines = str(message).splitlines() or [""]
    return new_output("error", ename=ename, evalue=_first_line(message)[:500],
                      traceback=[f"{ename}: {lines[0]}"] + lines[1:])


def _run_code(code: str, namespace: dict, filename: str) -> tuple[str, BaseException | None]:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            exec(compile(code, filename, "exec"), namespace)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - a failed test (or a broken test cell)
        return out.getvalue(), exc
    return out.getvalue(), None


def grade_notebook(cells: list[dict], *, secret: str | None, sandbox: bool = True,
                   cell_timeout: float = 60.0, log: Any = None,
                   deadline: float | None = None, limits: Limits | None = None) -> list[dict]:
    """Grade one notebook's cells; the outputs each code cell gets.

    Parameters
    ----------
    cells : list of dict
        In notebook order: ``{"kind": "test" | "locked" | "student", "source":
        ..., "trusted_source": ...}``; ``trusted_source`` (the instructor's) is
        used for test and locked cells.
    secret : str or None
        The course secret for hidden cases (None: hidden tests use their seeds).
    deadline : float, optional
        ``time.monotonic()`` by which the notebook must be graded (the instructor's
        time limit for a submission, whatever its number of cells).
    limits : Limits, optional
        The sandbox's caps (memory, files, bytes read back, ...).

    Returns
    -------
    list of dict
        For each cell: ``{"outputs": [...], "passed": bool | None, "hidden_failed": bool,
        "review": [...], "timed": str}``; ``timed`` says which time limit the cell (or its
        test) reached (empty if none: see :func:`_timed`); ``review`` holds the review flags the checks of a test cell raised
        (:func:`course.grading.checks.evaluation.flag_for_review`), taken from the grader's own record,
        never from what was printed.

    Raises
    ------
    SubmissionLimitError
        If the submission reached one of its caps (the time limit, memory, the bytes the
        grader reads back): it is not graded, and the message says which.

    Each test cell runs in its own copy of the student's process (visible tests, then hidden
    tests, each apart): nothing the student's code stores while one runs reaches another, and
    nothing it prints during hidden tests is kept.  Every visible test runs before any hidden
    one, so nothing it writes to a file during a hidden test can reach a later report either.
    """
    from ..checks.evaluation import take_review_flags

    results: list[dict] = [{"outputs": [], "passed": None, "hidden_failed": False, "review": [],
                            "timed": ""} for _ in cells]
    to_sandbox = [(i, c["trusted_source"] if c["kind"] == "locked" else c["source"])
                  for i, c in enumerate(cells) if c["kind"] != "test"]
    session = StudentSession(sandbox=sandbox, cell_timeout=cell_timeout, deadline=deadline,
                             limits=limits or Limits())
    try:
        try:
            ran = session.load([source for _, source in to_sandbox])
        except SubmissionLimitError:
            raise
        except SessionError as exc:
            ran = []
            session.names = []
            if log:
                log(f"the student's code could not be run: {exc}")
        _stop_at_limit(session)
        # The grader's namespace: the instructor's locked cells (what they print is their
        # printout, where the sandbox lacks the course's tools), then the student's functions.
        namespace: dict[str, Any] = {"__name__": "__grader__"}
        locked_printout: dict[int, str] = {}
        for i, cell in enumerate(cells):
            if cell["kind"] == "locked":
                printed, exc = _run_code(plain_python(cell["trusted_source"]), namespace,
                                         f"<locked cell {i + 1}>")
                if exc is not None:
                    # the instructor's own cell, as released: nothing of the student's has run
                    # here, so a failure is the course's (a missing package, a renamed check),
                    # and grading must stop rather than fail every test of every student
                    raise GraderSetupError(
                        f"the instructor's read-only cell {i + 1} fails in the grader, so no test "
                        f"can run: {type(exc).__name__}: {exc}") from exc
                locked_printout[i] = printed
        for (i, _), result in zip(to_sandbox, ran):
            outputs = []
            unavailable = result.error is not None and UNAVAILABLE in str(result.error.get("message"))
            if unavailable and cells[i]["kind"] == "locked" and locked_printout.get(i):
                # a locked question cell: the course's printout, as the student saw it
                outputs.append(new_output("stream", name="stdout", text=locked_printout[i]))
            elif result.stdout:
                outputs.append(new_output("stream", name="stdout", text=result.stdout))
            if unavailable and cells[i]["kind"] == "locked" and locked_printout.get(i):
                pass
            elif unavailable:
                outputs.append(new_output("stream", name="stdout", text=NOT_RUN_NOTE))
            elif result.error is not None:
                trace = result.error.get("traceback") or result.error.get("message", "")
                outputs.append(new_output("error", ename=result.error.get("type", "Error"),
                                          evalue=result.error.get("message", "")[:500],
                                          traceback=str(trace).splitlines()))
            results[i]["outputs"] = outputs
            if result.timed_out:
                results[i]["timed"] = (f"the cell ran longer than its time limit "
                                       f"({cell_timeout:g} s)")

        for name in session.names:
            # only the student's own functions: a name the instructor's cells define (the checks,
            # the case builders) or a built-in is never replaced by the student's
            if name not in namespace and not hasattr(builtins, name):
                namespace[name] = session.function(name)
        hidden_namespace = dict(namespace)
        if secret:
            for name in SALTED_BUILDERS:
                if callable(hidden_namespace.get(name)):
                    hidden_namespace[name] = salted(hidden_namespace[name], secret)
        for space in (namespace, hidden_namespace):
            for name in MEMOISED_BUILDERS:
                if callable(space.get(name)) and name not in session.names:
                    space[name] = _memoised(space[name])

        # Every visible test first, then the hidden ones: nothing student code sees during a
        # hidden test (in memory, in a file it writes) can reach a later test's report.
        hidden_runs = []
        for i, cell in enumerate(cells):
            if cell["kind"] != "test":
                continue
            visible, hidden = split_hidden(cell["trusted_source"])
            take_review_flags()
            silent = session.timeouts
            with session.isolated():
                printed, exc = _run_code(plain_python(visible), namespace, f"<test cell {i + 1}>")
            results[i]["review"] += take_review_flags()
            results[i]["timed"] = _timed(exc, session.timeouts > silent, cell_timeout)
            _stop_at_limit(session)
            outputs = [new_output("stream", name="stdout", text=printed[:OUTPUT_CHARS])] \
                if printed else []
            if exc is not None:
                outputs.append(_error_output(type(exc).__name__, _message(exc)))
                results[i].update(outputs=outputs, passed=False)
                continue
            results[i].update(outputs=outputs, passed=True)
            if hidden.strip():
                hidden_runs.append((i, hidden, dict(namespace)))
        for i, hidden, seen in hidden_runs:
            hidden_namespace.update({k: v for k, v in seen.items() if k not in hidden_namespace})
            session.quiet = True             # nothing printed here reaches anyone
            take_review_flags()
            silent = session.timeouts
            try:
                with session.isolated():
                    _, exc = _run_code(plain_python(hidden), hidden_namespace,
                                       f"<hidden tests {i + 1}>")
            finally:
                session.quiet = False
                results[i]["review"] += take_review_flags()
            results[i]["timed"] = _timed(exc, session.timeouts > silent, cell_timeout, hidden=True)
            _stop_at_limit(session)
            if exc is not None:
                results[i]["outputs"].append(_error_output(type(exc).__name__,
                                                           _hidden_message(exc)))
                results[i].update(passed=False, hidden_failed=True)
    finally:
        session.close()
    return results


#: Seconds one notebook may take to grade, by default (``SandboxedGrade.submission_timeout``).
DEFAULT_SUBMISSION_TIMEOUT = 300.0

#: ``time.monotonic()`` by which the worker's current submission must be graded (all its
#: notebooks together), or None.
JOB_DEADLINE: float | None = None

#: The caps reached by the notebooks graded in this process (the worker reports and clears them).
LIMITS_HIT: list[str] = []

#: The review flags the checks raised on the notebooks graded in this process, as
#: ``"<notebook>.ipynb [<grade id>]: <flag>"`` (the worker reports and clears them).
REVIEW_FLAGS: list[str] = []

#: The time limits reached by the notebooks graded in this process (a cell's, a test's search's,
#: the grader's wait for an answer; not a cap, not the submission's own time limit), as
#: ``"<notebook>.ipynb [<grade id>]: <what>"`` (the worker reports and clears them): the grading
#: queue grades such a submission again, alone (docs/instructor/grading-limits.md).
TIME_LIMITS_HIT: list[str] = []

#: Characters of a test cell's printout kept in the graded notebook.
OUTPUT_CHARS = 20_000


def _timed(exc: BaseException | None, silent: bool, cell_timeout: float, *,
           hidden: bool = False) -> str:
    """What time limit a failed test reached, in the instructor's words, or ``""``.

    A time limit, not a wrong answer: the test failed with the checks' own
    :class:`~course.grading.checks.failures.SearchTimeout` (raised in the grader, by its clock;
    a class of that name the student's code raises is another class), or with anything after
    the student's process stopped answering within the grader's wait (``silent``).
    """
    if exc is None:
        return ""
    from ..checks.failures import SearchTimeout

    which = "its hidden tests" if hidden else "the test"
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, SearchTimeout):
            return f"{which} reached a search's time limit (SearchTimeout)"
        exc = exc.__cause__ or exc.__context__
    if silent:
        return (f"{which} stopped waiting for the student's code after its time limit "
                f"({cell_timeout:g} s per call)")
    return ""


def _stop_at_limit(session: StudentSession) -> None:
    """Raise :class:`SubmissionLimitError` if the submission reached one of its caps."""
    if session.limit_hit:
        raise SubmissionLimitError(session.limit_hit)


class GraderSetupError(CourseError):
    """An instructor's read-only cell fails in the grader: the submission is not graded."""


def _message(exc: BaseException) -> str:
    from ..checks.failures import GradingFailure

    if isinstance(exc, GradingFailure):
        return str(exc)
    if isinstance(exc, NameError):
        return (f"{exc}. Define this function in your notebook (its cell must run without "
                "errors) before the tests.")
    lines = traceback.format_exception_only(type(exc), exc)
    return "".join(lines).strip()


class HideHiddenTests(NbGraderPreprocessor):
    """nbgrader feedback preprocessor: test cells lose their hidden tests (source and all)."""

    def preprocess_cell(self, cell: NotebookNode, resources: dict, index: int):
        if cell.cell_type == "code" and "### BEGIN HIDDEN TESTS" in cell.source:
            visible, _ = split_hidden(cell.source)
            cell.source = visible.rstrip("\n") + "\n# (hidden tests run here: not shown)"
        return cell, resources


class ReleasedTestCells(OverwriteCells):
    """nbgrader's ``OverwriteCells`` that knows the release: a test cell handed in exactly as
    released (its hidden tests removed by the release) is the instructor's cell, unchanged.

    nbgrader's own step compares the checksum of the cell with hidden tests (the gradebook's)
    with the released cell's, so it warns "checksum ... has changed" for every untouched
    test cell -- in the formgrader's Autograde button as in ``make autograde``.  Here such
    a cell gets the gradebook's source first; any other change is still reported and undone.
    """

    def preprocess_cell(self, cell: NotebookNode, resources: dict, cell_index: int):
        from nbgrader.api import MissingEntry

        gradebook = self.gradebook
        cells = getattr(self, "_release_cells", None)
        if cells is None or cells.gradebook is not gradebook:
            # nbgrader's step opens a gradebook per notebook: the release's cells are read from
            # it once, at its first cell, instead of two or three queries per cell
            cells = self._release_cells = _ReleaseCells(gradebook, self.notebook_id,
                                                        self.assignment_id)
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id is not None and cell.cell_type == "code":
            try:
                source = cells.find_source_cell(grade_id, self.notebook_id, self.assignment_id)
            except MissingEntry:
                source = None
            if source is not None and source.locked and "### BEGIN HIDDEN TESTS" in source.source:
                visible, _ = split_hidden(source.source)
                if cell.source.strip() == visible.strip():
                    cell.source = source.source
        self.gradebook = cells
        try:
            return super().preprocess_cell(cell, resources, cell_index)
        finally:
            self.gradebook = gradebook


class _ReleaseCells:
    """A gradebook whose look-ups of one notebook's source and graded cells (what nbgrader's
    ``OverwriteCells`` asks for each cell) are answered from the notebook's cells, read once.

    A name the release has gets the gradebook's own object, the one ``find_source_cell`` and
    ``find_graded_cell`` return (names are unique in a notebook; a grade cell before a task cell).
    Anything else (a name the release does not have, not a string, or another notebook) is asked
    of the gradebook as before, so it answers or fails exactly as it did.
    """

    def __init__(self, gradebook, notebook_id: str, assignment_id: str) -> None:
        from nbgrader.api import MissingEntry

        self.gradebook = gradebook
        self._where = (notebook_id, assignment_id)
        self.source_cells: dict = {}
        self.graded_cells: dict = {}
        try:
            notebook = gradebook.find_notebook(notebook_id, assignment_id)
        except MissingEntry:
            return
        self.source_cells = {c.name: c for c in notebook.source_cells}
        self.graded_cells = {c.name: c for c in notebook.task_cells}
        self.graded_cells.update((c.name, c) for c in notebook.grade_cells)

    def find_source_cell(self, name, notebook: str, assignment: str):
        if type(name) is str and (notebook, assignment) == self._where and name in self.source_cells:
            return self.source_cells[name]
        return self.gradebook.find_source_cell(name, notebook, assignment)

    def find_graded_cell(self, name, notebook: str, assignment: str):
        if type(name) is str and (notebook, assignment) == self._where and name in self.graded_cells:
            return self.graded_cells[name]
        return self.gradebook.find_graded_cell(name, notebook, assignment)

    def __getattr__(self, name: str):
        return getattr(self.gradebook, name)


# --- the sandbox is switched off only from the command line (issue 19) -------------------------
_UNSANDBOXED_BY_COMMAND_LINE = False


def allow_grading_without_sandbox() -> None:
    """Grade without the sandbox in this process: called only by the grading worker when its
    command line says ``--unsafe-no-sandbox`` (never by a configuration file)."""
    global _UNSANDBOXED_BY_COMMAND_LINE
    _UNSANDBOXED_BY_COMMAND_LINE = True


class SandboxedGrade(NbGraderPreprocessor):
    """nbgrader preprocessor: grade a notebook with :func:`grade_notebook` (see the module).

    Before grading it checks (:mod:`.approval`) that the configuration is the
    one the instructor approved and grades in the sandbox; the sandbox itself
    is not a setting of this class: only ``--unsafe-no-sandbox`` on the
    command line of ``python -m course.grading autograde`` switches it off.
    """

    @property
    def sandbox(self) -> bool:
        """Whether students' code runs in the sandbox (always, unless the command line said not)."""
        return not _UNSANDBOXED_BY_COMMAND_LINE

    cell_timeout = Float(60.0, help="Seconds each of the student's cells may run.").tag(config=True)
    submission_timeout = Float(
        DEFAULT_SUBMISSION_TIMEOUT,
        help="Seconds one notebook of a submission may take to grade in all, whatever its number "
             "of cells (docs/instructor/grading-limits.md).").tag(config=True)
    memory_mb = Integer(Limits.memory_total_bytes // 2**20, help="MB of memory all the processes "
                        "of one submission may hold together.").tag(config=True)
    files_mb = Integer(Limits.work_bytes // 2**20, help="MB of files one submission may write in "
                       "its folder (and again in /tmp, and in /dev/shm).").tag(config=True)
    processes = Integer(Limits.processes, help="Processes and threads one submission may "
                        "run at once.").tag(config=True)
    read_mb = Integer(Limits.read_bytes // 2**20, help="MB the grader reads back from one "
                      "submission's sandbox in all.").tag(config=True)

    def limits(self) -> Limits:
        """The sandbox's caps as configured (docs/instructor/grading-limits.md)."""
        mb = 2**20
        return Limits(memory_total_bytes=self.memory_mb * mb, work_bytes=self.files_mb * mb,
                      tmp_bytes=self.files_mb * mb, processes=self.processes,
                      read_bytes=self.read_mb * mb,
                      memory_bytes=max(Limits.memory_bytes, self.memory_mb * mb))
    secret_root = Unicode("", help="Folder holding .grading-secret (default: the course "
                                   "directory).").tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        from nbgrader.api import Gradebook

        from .approval import check_config_approved, check_policy_approved

        info = resources["nbgrader"]
        course_root = (self.config.CourseDirectory.get("root") if "CourseDirectory" in self.config else None) \
            or os.path.dirname(os.path.abspath(info["db_url"].replace("sqlite:///", "")))
        check_config_approved(course_root)            # the file, as approved (issue 19)
        check_policy_approved(self.config, course_root)   # what it makes nbgrader run
        if self.sandbox:
            # the sandbox starts and offers the course environment's packages (once per process;
            # the formgrader's Autograde button comes here without make autograde's check)
            check_sandbox()
        sources: dict[str, Any] = {}
        tests: set[str] = set()
        with Gradebook(info["db_url"], info.get("course_id", "default_course")) as gb:
            notebook = gb.find_notebook(info["notebook"], info["assignment"])
            for cell in notebook.source_cells:
                sources[cell.name] = (cell.source, bool(cell.locked), cell.cell_type)
            for cell in notebook.grade_cells:
                if cell.cell_type == "code":
                    tests.add(cell.name)
            for cell in notebook.solution_cells:
                tests.discard(cell.name)
        cells, where = [], []
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            trusted = sources.get(grade_id)
            if grade_id in tests and trusted is not None:
                kind = "test"
            elif trusted is not None and trusted[1] and trusted[2] == "code":
                kind = "locked"
            else:
                kind = "student"
            cells.append({"kind": kind, "source": cell.source,
                          "trusted_source": trusted[0] if trusted is not None else cell.source})
            where.append(index)
        root = self.secret_root or os.path.dirname(os.path.abspath(info["db_url"].replace("sqlite:///", "")))
        secret = course_secret(root)
        GRADEBOOK_LOCK.release()
        try:
            results = grade_notebook(cells, secret=secret, sandbox=self.sandbox,
                                     cell_timeout=self.cell_timeout, log=self.log.warning,
                                     deadline=min(time.monotonic() + self.submission_timeout,
                                                  JOB_DEADLINE or float("inf")),
                                     limits=self.limits())
        except SubmissionLimitError as exc:
            LIMITS_HIT.append(f"{info['notebook']}.ipynb: {exc}")
            raise
        finally:
            GRADEBOOK_LOCK.acquire()
        for index, result in zip(where, results):
            nb.cells[index].outputs = result["outputs"]
            nb.cells[index].execution_count = None
            grade_id = nb.cells[index].metadata.get("nbgrader", {}).get("grade_id", "?")
            REVIEW_FLAGS.extend(f"{info['notebook']}.ipynb [{grade_id}]: {flag}"
                                for flag in result.get("review", ()))
            if result.get("timed"):
                # the release's name of the cell, never one the student's notebook made up
                where = grade_id if grade_id in sources else f"code cell {index + 1}"
                TIME_LIMITS_HIT.append(f"{info['notebook']}.ipynb [{where}]: {result['timed']}")
        resources.setdefault("course_grading", {})["results"] = results
        return nb, resources
