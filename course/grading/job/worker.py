"""Autograde submissions in a separate process: ``python -m course.grading.job.worker``.

:func:`course.grading.job.autograde.autograde` runs the autograder here, not in
its own process, so that nothing that goes wrong with one submission can stop
the grading of the others.  The students' code itself never runs here: the
:class:`~course.grading.job.sandboxed.SandboxedGrade` step runs it in a sandbox.
Several workers may run at once (``--lock`` serialises their gradebook work).  The worker loads the
course's ``nbgrader_config.py`` once and grades the jobs it is given one
after the other, printing a JSON line when it starts a job
(``{"event": "start", ...}``) and when it finishes it
(``{"event": "done", "success": ..., "limit": ..., "review": [...], "timed": [...],
"error": ..., "log": ...}``; ``timed``: the time limits the submission reached, for which the
grading queue grades it again).  The parent
watches those lines: a job that does not finish in time gets the worker
killed, is recorded as failed, and a new worker takes the remaining jobs.

Usage::

    python -m course.grading.job.worker --root COURSE --submitted DIR [--timeout SECONDS] \\
        (--job STUDENT/ASSIGNMENT [--job ...] | --jobs-from-stdin)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Iterator, Sequence

from ..._optional import skip_unused_format_checks

skip_unused_format_checks()      # before nbgrader (and jsonschema) are imported: 0.8 s a worker

from ..term.course_dir import FileLock, load_course_config  # noqa: E402

__all__ = ["main", "lighter_nbgrader", "one_job"]

LOG_LIMIT = 20_000
_JOB = threading.local()      # in one_job: .engines (connections kept), .courses (rows checked)


def _emit(payload: dict) -> None:
    sys.stdout.write("\n" + json.dumps(payload) + "\n")
    sys.stdout.flush()


def lighter_nbgrader() -> None:
    """Take out of nbgrader's work on each submission what it repeats identically every time.

    Called once in a grading process (a worker, the queue); nothing nbgrader decides or writes
    changes:

    * **the gradebook's set-up**: nbgrader opens the gradebook about ten times per
      submission, each time making a new database engine, listing the tables and checking
      that every one exists (about 4 ms of CPU each; a new engine also compiles every query
      again).  Here a database's engine is made once per process, and its tables are checked
      with one query, the one nbgrader makes first to see whether the gradebook is new (it
      asked twice); each opening still gets its own session, and each closing still closes the
      engine's connections.
    * **the metadata check** (``CheckCellMetadata``, twice per notebook): for every cell,
      nbgrader reads its three JSON schema files and ``jsonschema.validate`` checks the schema
      itself before the cell.  Here each schema file is read and checked once; every cell is
      validated against it as before, with the same error.
    * **the saving of the grades** (``SaveAutoGrades``): nbgrader commits the gradebook after
      each grade and comment (about eleven SQLite transactions a submission, each written to
      disk while the gradebook's lock is held).  Here the same rows are written, each flushed
      where nbgrader committed it (a database error surfaces at the same cell), and committed
      once when the step closes its gradebook, also when a cell failed (what was saved before
      it stays saved, as with nbgrader); and the notebook's grades and comments are read with
      one query each instead of one or two per cell.
    * **the gradebook's connections and the course's row** within a job (:func:`one_job`): see
      there.

    If nbgrader's internals are not the ones this knows (another version), nothing is changed.
    """
    try:
        import jsonschema
        from jsonschema.exceptions import best_match
        from nbgrader import api
        from nbgrader.nbgraderformat import common
        from nbgrader.preprocessors import saveautogrades
    except ImportError:
        return
    if getattr(api, "_course_lighter", False) or not all(
            hasattr(mod, name) for mod, name in ((api, "create_engine"), (api, "inspect"),
                                                 (api, "Base"), (common, "jsonschema"),
                                                 (common, "BaseMetadataValidator"),
                                                 (saveautogrades, "Gradebook"),
                                                 (saveautogrades.SaveAutoGrades, "_add_score"),
                                                 (saveautogrades.SaveAutoGrades, "_add_comment"),
                                                 (api.Gradebook, "close"), (api, "Grade"),
                                                 (api.Gradebook, "check_course"),
                                                 (api, "Comment"), (api, "BaseCell"),
                                                 (api, "MissingEntry"),
                                                 (api.Gradebook, "find_submission_notebook"))):
        return
    engines: dict = {}
    real_create_engine, real_inspect = api.create_engine, api.inspect
    metadata = api.Base.metadata
    real_create_all = metadata.create_all

    def create_engine(url, *args, **kwargs):
        key = (str(url), args, tuple(sorted(kwargs.items())))
        if key not in engines:
            engines[key] = real_create_engine(url, *args, **kwargs)
        return engines[key]

    noted: dict = {}

    class _TableNames:
        """What ``Gradebook.__init__`` asks of ``inspect(engine)``: the tables' names, which it
        asks again (in ``create_all``) right after; noted here for that one next question."""

        def __init__(self, engine):
            self.engine = engine

        def get_table_names(self):
            names = noted[self.engine] = real_inspect(self.engine).get_table_names()
            return names

    def inspect(subject, *args, **kwargs):
        if not args and not kwargs and any(subject is engine for engine in engines.values()):
            return _TableNames(subject)
        return real_inspect(subject, *args, **kwargs)

    def create_all(bind=None, *args, **kwargs):
        # one query for the tables' names instead of one per table: nothing to make if all are
        # there (checked at each opening: a gradebook may be deleted and made again at the same
        # path; the names read by the opening's first question, just before, serve again)
        if bind is not None and not args and not kwargs and bind in engines.values():
            names = noted.pop(bind, None)
            if names is None:
                names = real_inspect(bind).get_table_names()
            if set(metadata.tables) <= set(names):
                return None
        return real_create_all(bind, *args, **kwargs)

    schemas: dict = {}
    validators: dict = {}
    real_init = common.BaseMetadataValidator.__init__

    def validator_init(self, *args, **kwargs):
        version = getattr(self, "schema_version", None)
        if args or kwargs or version not in schemas:
            real_init(self, *args, **kwargs)
            if not args and not kwargs:
                schemas[version] = self.schema
        else:
            self.schema = schemas[version]     # the same object: its validator is cached below

    class _Validate:
        """``jsonschema`` as nbgrader's validator calls it, with the schema checked once."""

        def __getattr__(self, name):
            return getattr(jsonschema, name)

        @staticmethod
        def validate(instance, schema, *args, **kwargs):
            if args or kwargs or not any(schema is s for s in schemas.values()):
                return jsonschema.validate(instance, schema, *args, **kwargs)
            validator = validators.get(id(schema))
            if validator is None:
                cls = jsonschema.validators.validator_for(schema)
                cls.check_schema(schema)
                validator = validators[id(schema)] = cls(schema)
            error = best_match(validator.iter_errors(instance))
            if error is not None:
                raise error

    class OneCommitGradebook(api.Gradebook):
        """The gradebook ``SaveAutoGrades`` opens: its commits are flushes, committed at close,
        and its look-ups of a grade or comment answered from the submitted notebook's rows,
        read once (the same objects; a name not among them is asked as before)."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._commit = self.db.commit
            self.db.commit = self.db.flush
            self._read: dict = {}

        def _rows(self, kind, notebook, assignment, student):
            """The submitted notebook's grades (``kind`` is ``Grade``) or comments (``Comment``)
            by cell name, read with one query the first time (empty if it has none)."""
            key = (kind, notebook, assignment, student)
            rows = self._read.get(key)
            if rows is None:
                try:
                    submitted = self.find_submission_notebook(notebook, assignment, student)
                except api.MissingEntry:
                    rows = {}
                else:
                    found = (self.db.query(kind, api.BaseCell.name, api.BaseCell.type)
                             .join(api.BaseCell, api.BaseCell.id == kind.cell_id)
                             .filter(kind.notebook_id == submitted.id).all())
                    # nbgrader looks for a grade cell's grade (a solution cell's comment) first,
                    # then a task cell's: the same order here
                    first = "GradeCell" if kind is api.Grade else "SolutionCell"
                    rows = {name: row for row, name, type_ in found if type_ == "TaskCell"}
                    rows.update((name, row) for row, name, type_ in found if type_ == first)
                self._read[key] = rows
            return rows

        def find_grade(self, grade_cell, notebook, assignment, student):
            rows = self._rows(api.Grade, notebook, assignment, student)
            if type(grade_cell) is str and grade_cell in rows:
                return rows[grade_cell]
            return super().find_grade(grade_cell, notebook, assignment, student)

        def find_comment(self, solution_cell, notebook, assignment, student):
            rows = self._rows(api.Comment, notebook, assignment, student)
            if type(solution_cell) is str and solution_cell in rows:
                return rows[solution_cell]
            return super().find_comment(solution_cell, notebook, assignment, student)

        def __exit__(self, exc_type, exc_value, traceback):
            try:
                self._commit()
            except Exception:
                self.db.rollback()
                if exc_type is None:
                    raise
            finally:
                self.close()

    real_check_course = api.Gradebook.check_course

    def check_course(self, course_id="default_course", **kwargs):
        # nbgrader checks (and commits) that the course's row exists at every opening; in a
        # job (one_job) the first opening of each gradebook checks it, the others rely on it
        checked = getattr(_JOB, "courses", None)
        if checked is None or kwargs or not any(self.engine is e for e in engines.values()):
            return real_check_course(self, course_id=course_id, **kwargs)
        if (self.engine, course_id) in checked:
            return None             # (Gradebook.__init__, its only caller, ignores it)
        course = real_check_course(self, course_id=course_id)
        checked.add((self.engine, course_id))
        return course

    real_close = api.Gradebook.close

    def close(self):
        kept = getattr(_JOB, "engines", None)
        if kept is not None and any(self.engine is engine for engine in engines.values()):
            self.db.remove()            # the session closed; its connection back in the pool
            kept.add(self.engine)       # closed when the job ends (one_job)
        else:
            real_close(self)

    api.create_engine, api.inspect, metadata.create_all = create_engine, inspect, create_all
    api.Gradebook.close, api.Gradebook.check_course = close, check_course
    if saveautogrades.Gradebook is api.Gradebook:
        saveautogrades.Gradebook = OneCommitGradebook
    common.BaseMetadataValidator.__init__ = validator_init
    common.jsonschema = _Validate()
    api._course_lighter = True


@contextlib.contextmanager
def one_job() -> Iterator[None]:
    """The gradebook's connections opened in this thread are kept until the block ends.

    nbgrader opens and closes the gradebook about ten times per submission, and each closing
    closes the database's connections, so each opening connects to SQLite again and reads its
    schema again.  In this block (one job, with :func:`lighter_nbgrader`) a closing still ends
    its session (its transaction rolled back, nothing held in the database), but the idle
    connection stays in the engine's pool for the next opening; at the end of the block every
    one is closed, so no connection outlives the job (a gradebook deleted and made again
    between jobs is opened anew).  Likewise nbgrader's check that the course has its row in the
    gradebook (a query and a commit at every opening) is made at the first opening of the job.
    """
    kept: set = set()
    _JOB.engines, _JOB.courses = kept, set()
    try:
        yield
    finally:
        _JOB.engines = _JOB.courses = None
        for engine in kept:
            engine.dispose()


def _settle_memory() -> None:
    """Keep the objects alive now (the modules of nbgrader, SQLAlchemy, nbconvert, the course, the
    memoised cases: some 350,000) out of the garbage collector's sight for the rest of the process.

    They live as long as the worker anyway; but each full collection, which the objects a
    submission makes and drops set off every few submissions, walked all of them: measured,
    40 % of a worker's CPU went to that.  (:func:`gc.freeze` after a collection: only live objects
    are frozen, and reference counting still frees them; what each submission makes is collected
    as before.)
    """
    import gc

    gc.collect()
    gc.freeze()


def _scores(api, assignment: str, student: str) -> dict | None:
    """The submission's scores as the gradebook holds them now (the lock is held): sent with the
    result, so the grading process need not wait for the lock to read them again."""
    from ..term.results.report import submission_scores

    try:
        with api.gradebook as gb:
            return submission_scores(gb, assignment, student)
    except Exception:  # noqa: BLE001 - then the grading process reads them itself
        return None


def main(argv: Sequence[str] | None = None) -> int:
    """Autograde the jobs one by one, printing a JSON line per start and per result."""
    parser = argparse.ArgumentParser(prog="python -m course.grading.job.worker",
                                     description="Autograde submissions (used by python -m course.grading).")
    parser.add_argument("--root", required=True, help="the course directory")
    parser.add_argument("--config", default=None, help="nbgrader_config.py (default: ROOT/nbgrader_config.py)")
    parser.add_argument("--submitted", required=True, help="folder holding <student>/<assignment>/")
    parser.add_argument("--timeout", type=int, default=None, help="seconds per cell")
    parser.add_argument("--submission-timeout", type=float, default=None,
                        help="seconds a whole submission may take to grade (default: the config's "
                             "SandboxedGrade.submission_timeout)")
    parser.add_argument("--job", action="append", default=[], help="STUDENT/ASSIGNMENT")
    parser.add_argument("--jobs-from-stdin", action="store_true",
                        help="read the jobs from standard input, one STUDENT/ASSIGNMENT a line, "
                             "until it ends (how the grading queue and a cluster's job feed it)")
    parser.add_argument("--lock", default=None,
                        help="a lock file shared by parallel workers: nbgrader's gradebook work is "
                             "done holding it, the sandboxed grading without")
    parser.add_argument("--unsafe-no-sandbox", action="store_true",
                        help="run students' code without a sandbox (isolates nothing)")
    args = parser.parse_args(argv)
    if not args.job and not args.jobs_from_stdin:
        parser.error("give --job or --jobs-from-stdin")

    from .approval import check_config_approved, check_policy_approved

    if args.config is None:
        check_config_approved(args.root)          # before the file runs (issue 19)
    config = load_course_config(args.root, args.config)
    check_policy_approved(config, args.root)
    config.CourseDirectory.submitted_directory = args.submitted
    if args.timeout is not None:
        config.Execute.timeout = args.timeout
        config.SandboxedGrade.cell_timeout = float(args.timeout)
    config.SandboxedGrade.secret_root = os.path.abspath(args.root)
    if args.submission_timeout is not None:
        config.SandboxedGrade.submission_timeout = args.submission_timeout
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    from . import sandboxed

    if args.unsafe_no_sandbox:
        sandboxed.allow_grading_without_sandbox()     # the command line's flag, never the config

    if args.lock:
        sandboxed.GRADEBOOK_LOCK = FileLock(args.lock)
    lock = sandboxed.GRADEBOOK_LOCK
    lighter_nbgrader()
    _settle_memory()

    status = 0

    def given():
        yield from args.job
        while args.jobs_from_stdin:
            line = sys.stdin.readline()
            if not line.strip():
                return                  # the parent went away (or said so)
            yield line.strip()

    first = True
    for job in given():
        student, _, assignment = job.partition("/")
        _emit({"event": "start", "student": student, "assignment": assignment})
        del sandboxed.LIMITS_HIT[:]
        del sandboxed.REVIEW_FLAGS[:]
        del sandboxed.TIME_LIMITS_HIT[:]
        timeout = args.submission_timeout or sandboxed.SandboxedGrade(config=config).submission_timeout
        sandboxed.JOB_DEADLINE = time.monotonic() + timeout     # for all its notebooks together
        lock.acquire()
        scores = None
        try:
            with one_job():
                api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
                result = api.autograde(assignment, student, force=True, create=True)
                if result.get("success"):
                    scores = _scores(api, assignment, student)
        except Exception as exc:  # noqa: BLE001 - reported to the parent, which goes on
            result = {"success": False, "error": f"{type(exc).__name__}: {exc}"}
        finally:
            lock.release()
        ok = bool(result.get("success"))
        status = status or (0 if ok else 1)
        _emit({"event": "done", "student": student, "assignment": assignment, "success": ok,
               "limit": "; ".join(sandboxed.LIMITS_HIT),
               "review": sandboxed.REVIEW_FLAGS[:50], "timed": sandboxed.TIME_LIMITS_HIT[:20],
               "scores": scores,
               "error": (result.get("error") or "")[-LOG_LIMIT:],
               "log": (result.get("log") or "")[-LOG_LIMIT:]})
        if first:
            _settle_memory()            # and what the first submission imported and memoised
            first = False
    return status


if __name__ == "__main__":
    sys.exit(main())
