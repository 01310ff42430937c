"""The grading queue: submissions graded by worker processes, several at once.

Each worker (:mod:`.worker`, a ``python -m course.grading.job.worker``
process) grades its jobs one after the other with nbgrader, whose execute step
is :class:`~.sandboxed.SandboxedGrade`: the student's code runs only in
:mod:`course.sandbox`.  This module starts the workers, waits for each job
with a wall-clock limit, kills a worker that hangs (with every process it
started) and hands the rest of its jobs to a new one.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ...sandbox.bwrap import descendants as _descendants
from ..term.course_dir import CourseLayout, gradebook, nbgrader_error
from ..term.results.report import GradeRecord, apply_scores, fill_scores, read_report

__all__ = ["run_jobs", "WORKER_STARTUP", "WORKER_MARGIN", "Interrupted", "time_limits_reached"]

#: Seconds a worker may take beyond the submission's own time limit (nbgrader's work around
#: it: reading and writing notebooks, the gradebook) before it is stopped.
WORKER_MARGIN = 60.0


class Interrupted(KeyboardInterrupt):
    """Grading was stopped (Ctrl-C, SIGTERM): every worker and sandbox it started is stopped."""


def _kill_tree(proc: subprocess.Popen) -> None:
    pids = _descendants(proc.pid)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in [proc.pid, *pids]:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        try:
            os.killpg(proc.pid, sig)
        except OSError:
            pass
        try:
            proc.wait(timeout=3)
            if sig == signal.SIGTERM:
                continue
        except subprocess.TimeoutExpired:
            pass


def _die_with_parent() -> None:
    """``preexec_fn``: the worker is killed when the grading process ends, however it ends
    (Linux ``PR_SET_PDEATHSIG``): no worker goes on, re-parented, after an interrupt."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)          # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


@contextlib.contextmanager
def _locked_submission(layout: CourseLayout, job: tuple[str, str], lock: Path):
    """The gradebook (under the workers' lock) and ``job``'s submission, or None if it has none."""
    from nbgrader.api import MissingEntry

    from ..term.course_dir import FileLock

    with FileLock(str(lock)), gradebook(layout) as gb:
        try:
            sub = gb.find_submission(job[1], job[0])
        except MissingEntry:
            sub = None
        yield gb, sub


def _hand_grades(layout: CourseLayout, job: tuple[str, str], lock: Path) -> dict:
    """``{(notebook, cell): manual score}`` of the answers already graded by hand."""
    with _locked_submission(layout, job, lock) as (_, sub):
        if sub is None:
            return {}
        return {(nb.name, grade.name): grade.manual_score for nb in sub.notebooks
                for grade in nb.grades
                if grade.manual_score is not None and not grade.needs_manual_grade}


def _keep_hand_grades(layout: CourseLayout, job: tuple[str, str], kept: dict, lock: Path) -> None:
    """After re-grading an unchanged submission, its hand-graded answers stay graded."""
    if not kept:
        return
    with _locked_submission(layout, job, lock) as (gb, sub):
        if sub is None:
            return
        for nb in sub.notebooks:
            for grade in nb.grades:
                if kept.get((nb.name, grade.name)) == grade.manual_score and grade.needs_manual_grade:
                    grade.needs_manual_grade = False
        gb.db.commit()


class _Worker:
    """A ``course.grading.job.worker`` process and a thread reading its JSON lines."""

    def __init__(self, layout: CourseLayout, staging: Path, cell_timeout: int, *, lock: Path,
                 sandbox: bool, submission_timeout: float, env: dict | None = None) -> None:
        import queue
        import threading

        command = [sys.executable, "-m", "course.grading.job.worker", "--root", str(layout.root),
                   "--submitted", str(staging), "--timeout", str(cell_timeout),
                   "--jobs-from-stdin",
                   "--lock", str(lock), "--submission-timeout", str(submission_timeout)]
        if not sandbox:
            command.append("--unsafe-no-sandbox")
        parent = os.getpid()

        def start() -> None:
            _die_with_parent()
            if os.getppid() != parent:                  # the grader ended while this started
                os._exit(1)

        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, start_new_session=True,
                                     cwd=str(layout.root), preexec_fn=start, env=env)
        self.lines: "queue.Queue[dict | None]" = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            if line.startswith("{"):
                try:
                    self.lines.put(json.loads(line))
                except ValueError:
                    pass
        self.lines.put(None)            # end of output: the worker exited

    def _read_err(self) -> None:
        for line in self.proc.stderr:
            self.stderr.append(line)
            del self.stderr[:-40]

    def send(self, student: str, assignment: str) -> None:
        """Give the worker its next job (it reads them from its standard input)."""
        try:
            self.proc.stdin.write(f"{student}/{assignment}\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass                          # the worker is gone; next() will say so

    def next(self, timeout: float) -> dict | None:
        """The next JSON line; None if the worker exited; raises TimeoutError after ``timeout``."""
        import queue

        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError from None

    def grade(self, student: str, assignment: str, limit: float) -> dict:
        """Give the worker a job and wait for its ``done`` line: that message, or
        a failure saying why there is none (the worker took longer than ``limit`` seconds and
        was stopped, or it ended)."""
        self.send(student, assignment)
        try:
            message = self.next(WORKER_STARTUP)
            while message is not None and message.get("event") != "done":
                message = self.next(limit)
        except TimeoutError:
            self.stop()
            return {"success": False,
                    "error": f"autograding took longer than {limit:.0f} seconds and was stopped"}
        if message is None:
            tail = "".join(self.stderr).strip().splitlines()
            return {"success": False, "error": "the grading process ended unexpectedly"
                    + (f" ({tail[-1]})" if tail else "")}
        return message

    def stop(self) -> None:
        if self.proc.poll() is None:
            _kill_tree(self.proc)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


#: Seconds a new worker may take to start (import nbgrader, load the config).
WORKER_STARTUP = 180


class _SharedJobs:
    """The jobs not yet started, shared by every worker's thread: each takes the next one when
    it is free, so a worker given the cheaper assignments does not wait for the other's."""

    def __init__(self, jobs: list[tuple[str, str]]) -> None:
        import threading

        self._jobs = list(jobs)
        self._lock = threading.Lock()

    def take(self) -> tuple[str, str] | None:
        with self._lock:
            return self._jobs.pop(0) if self._jobs else None


def _run_queue(layout: CourseLayout, staging: Path, records: dict[tuple[str, str], GradeRecord],
               pending: _SharedJobs, cell_timeout: int, submission_timeout: float,
               done: Any, *, lock: Path, sandbox: bool, watch: Any, stop: Any, begin: Any,
               workers: list, defer: Any = None, again: dict | None = None) -> None:
    """Grade jobs taken from ``pending`` one after the other in one worker, starting a new worker
    after one that hangs or dies.

    Whatever goes wrong with one job (in the worker, or here while recording it) ends as that
    job's record with the reason; the next job goes on.

    ``defer(job, kept, timed, seconds)``, if given, takes a job whose grading reached a time
    limit (:func:`time_limits_reached`) instead of recording it: it is neither recorded nor
    ``done`` (it stays "grading", in flight), to be graded again.  ``again`` (the second
    grading of such jobs) maps each job to ``(kept, timed, seconds)`` of its first grading:
    the hand grades read before it, the time limits it reached, its time.
    """
    from .integrity import IntegrityError

    previous = read_report(layout)
    limit = submission_timeout + WORKER_MARGIN
    job = pending.take()
    while job is not None and not stop.is_set():
        worker = _Worker(layout, staging, cell_timeout, lock=lock, sandbox=sandbox,
                         submission_timeout=submission_timeout)
        workers.append(worker)
        try:
            while job is not None and not stop.is_set():
                record = records[job]
                start = time.perf_counter()
                deferred = False
                first: list[str] = []
                before = 0.0
                try:
                    if again is not None:     # its second grading: the first one's hand grades
                        kept, first, before = again[job]
                    else:
                        unchanged = previous.get(f"{job[0]}/{job[1]}", {}).get("submission_sha") \
                            == record.submission_sha
                        kept = _hand_grades(layout, job, lock) if unchanged else {}
                        begin(record)         # the report says "grading" until it is done
                    message = worker.grade(*job, limit)
                    if stop.is_set():
                        return                # interrupted: the job stays "grading" (not graded)
                    seconds = time.perf_counter() - start
                    timed = time_limits_reached(message)
                    if defer is not None and timed:
                        defer(job, kept, timed, seconds)      # graded again at the end, alone
                        deferred = True
                    else:
                        record.seconds = round(before + seconds, 2)
                        record_outcome(layout, record, message, kept, lock)
                        if first:
                            note_graded_again(record, first, timed)
                except Exception as exc:  # noqa: BLE001 - one submission must never stop the class
                    record.status = "failed"
                    record.reason = "; ".join(r for r in (record.reason, f"could not be graded: "
                                                          f"{type(exc).__name__}: {exc}") if r)
                    record.seconds = round(time.perf_counter() - start, 2)
                try:
                    watch.check(f"{job[0]}/{job[1]}")
                except IntegrityError as exc:
                    stop.set()
                    stop.error = exc
                except Exception as exc:  # noqa: BLE001 - the tripwire could not look: stop too
                    stop.set()
                    stop.error = exc
                try:
                    if not deferred:
                        done(record)
                except Exception:  # noqa: BLE001 - run_jobs records it again if it was lost
                    pass
                job = pending.take() if not stop.is_set() else None
                if job is not None and worker.proc.poll() is not None:
                    break                 # start a new worker for the rest
        finally:
            worker.stop()


def time_limits_reached(message: dict) -> list[str]:
    """The time limits a worker's ``done`` message says the submission reached (a cell's, a
    test's search's, the grader's wait for an answer: ``"<notebook>.ipynb [<cell>]: <what>"``),
    or ``[]``: none, or it stopped at one of its caps or at its own time limit (``limit``), which
    fails the submission whatever the machine.

    Such a submission is graded again, alone, at the end of the run, and the second grading is
    its grade (docs/instructor/grading-limits.md): a wall-clock limit can be reached because the
    machine is busy, and a grade must not depend on that.
    """
    if message.get("limit") or not isinstance(message.get("timed"), list):
        return []
    return [str(item)[:300] for item in message["timed"] if isinstance(item, str)][:20]


def note_graded_again(record: GradeRecord, first: list[str], again: list[str]) -> None:
    """The record of a submission graded a second time says why, in the instructor's words."""
    line = ("graded again, alone, at the end of the run; this grade is from that second grading: "
            "the first grading reached a time limit, which a busy machine alone can cause ("
            + "; ".join(first) + ")")
    if again:
        line += ("; the second grading reached a time limit again (" + "; ".join(again)
                 + "), so the code itself is slow there")
    record.review.append(line[:2000])


def record_outcome(layout: CourseLayout, record: GradeRecord, message: dict, kept: dict,
                   lock: Path | None) -> None:
    """A worker's ``done`` message into ``record`` (status, reason, review flags), the hand grades
    ``kept`` kept, the scores read from the gradebook.  Shared by the local pool and the cluster
    (:mod:`course.grading.job.cluster`): the same message gives the same record."""
    job = (record.student, record.assignment)
    if message.get("limit"):
        record.reason = "; ".join(r for r in (record.reason, "stopped at a limit: "
                                              + str(message["limit"])) if r)
    elif message.get("success"):
        record.status = ("needs attention" if record.unreadable else
                         "graded (with problems)" if record.reason else "graded")
    else:
        why = f"nbgrader failed: {nbgrader_error(message)}"
        record.reason = "; ".join(r for r in (record.reason, why) if r)
    if message.get("success") and not message.get("limit"):
        _keep_hand_grades(layout, job, kept, lock)
        # the checks' own findings, recorded by the grader (never a line the
        # student's code printed: issue 29)
        record.review += [str(flag)[:500] for flag in message.get("review") or []
                          if isinstance(flag, str)][:50]
    # the worker read the scores while it held the gradebook lock; read them here only if it
    # could not, or if the gradebook changed since (hand grades kept, a notebook unreadable)
    if kept or record.status == "needs attention" or not apply_scores(record, message.get("scores")):
        fill_scores(layout, record, lock)
    if record.status == "needs attention":
        _needs_attention(layout, job, lock)


def _needs_attention(layout: CourseLayout, job: tuple[str, str], lock: Path, *,
                     autograded_only: bool = False) -> None:
    """A submission with a notebook that could not be read (or, ``autograded_only``, whose
    grading was interrupted): the formgrader shows it as needing a hand grade, not as graded
    (with an earlier run's scores), for the instructor to look at.  ``autograded_only`` leaves
    the written answers' hand grades as they are; the next run's autograding resets the rest."""
    with _locked_submission(layout, job, lock) as (gb, sub):
        if sub is None:
            return
        for nb in sub.notebooks:
            for grade in nb.grades:
                if not autograded_only or grade.cell.cell_type == "code":
                    grade.needs_manual_grade = True
        gb.db.commit()


def interrupted(layout: CourseLayout, in_flight: set[tuple[str, str]], lock: Path) -> None:
    """After Ctrl-C or SIGTERM: the jobs in flight are shown as needing attention (the gradebook
    may hold an earlier run's scores), and :class:`Interrupted` is raised."""
    for job in sorted(in_flight):
        try:
            _needs_attention(layout, job, lock, autograded_only=True)
        except Exception:  # noqa: BLE001 - the report already says "grading"
            pass
    raise Interrupted("grading was interrupted") from None


def not_graded(records: dict[tuple[str, str], GradeRecord], finished: set[tuple[str, str]],
               why: str, done: Any) -> None:
    """Every job of ``records`` not in ``finished`` ends as a failed record saying ``why``."""
    for job, record in records.items():
        if job in finished:
            continue
        record.status = "failed"
        record.reason = "; ".join(r for r in (record.reason, f"not graded: {why}") if r)
        try:
            done(record)
        except Exception:  # noqa: BLE001 - done keeps the record before it writes it
            pass


def run_jobs(layout: CourseLayout, staging: Path, records: dict[tuple[str, str], GradeRecord],
              cell_timeout: int, submission_timeout: float, done: Any, *, jobs: int = 1,
              sandbox: bool = True, begin: Any = None) -> None:
    """Grade every staged job on ``jobs`` parallel workers.

    After every job an :class:`~.integrity.IntegrityWatch` checks
    that the grader's own files are unchanged; if not, grading stops with
    :class:`~.integrity.IntegrityError` for the instructor to review.

    ``begin(record)`` is called as a job starts, ``done(record)`` once its results are
    written.  A job whose grading reached a time limit (:func:`time_limits_reached`) is graded
    again after all the others, by one worker alone, and that second grading is its grade
    (once: it is not graded a third time); ``begin`` and ``done`` are still called once.
    A ``KeyboardInterrupt`` (Ctrl-C, or SIGTERM turned into one by
    :func:`course.grading.job.autograde.autograde`) stops every worker -- and with it every
    sandbox -- and is raised again as :class:`Interrupted`; the jobs in flight stay "grading".
    """
    import threading

    from .integrity import IntegrityWatch
    from .worker import lighter_nbgrader

    lighter_nbgrader()       # this process reads the gradebook after every job too (fill_scores)
    watch = IntegrityWatch(layout.root)
    lock = staging / ".gradebook.lock"
    pending = _SharedJobs(list(records))
    stop = threading.Event()
    stop.error = None
    report_lock = threading.Lock()
    workers: list[_Worker] = []

    in_flight: set[tuple[str, str]] = set()

    def locked_begin(record: GradeRecord) -> None:
        with report_lock:
            in_flight.add((record.student, record.assignment))
            if begin is not None:
                begin(record)

    finished: set[tuple[str, str]] = set()
    failures: list[str] = []

    def locked_done(record: GradeRecord) -> None:
        with report_lock:
            in_flight.discard((record.student, record.assignment))
            finished.add((record.student, record.assignment))
            done(record)

    # jobs whose first grading reached a time limit: {job: (kept, timed, seconds)}
    again: dict[tuple[str, str], tuple[dict, list[str], float]] = {}

    def defer(job: tuple[str, str], kept: dict, timed: list[str], seconds: float) -> None:
        with report_lock:
            again[job] = (kept, timed, seconds)

    def run_queue(queue: _SharedJobs, **retry: Any) -> None:
        """One queue's thread: whatever kills it (a worker that cannot start, a full disk) is
        noted, and the jobs it did not finish are recorded as failed by run_jobs."""
        try:
            _run_queue(layout, staging, records, queue, cell_timeout, submission_timeout,
                       locked_done, lock=lock, sandbox=sandbox, watch=watch, stop=stop,
                       begin=locked_begin, workers=workers, **retry)
        except Exception as exc:  # noqa: BLE001 - said in the records of its jobs
            failures.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=run_queue, args=(pending,), kwargs={"defer": defer},
                                daemon=True)
               for _ in range(min(max(1, jobs), len(records)))]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            while thread.is_alive():
                thread.join(0.2)          # short waits: Ctrl-C and SIGTERM are seen at once
        if again and not stop.is_set():
            # the second grading of those, after every other job, by one worker: nothing else
            # of this run grades meanwhile (they stay "grading", in flight, until then)
            retry = threading.Thread(target=run_queue, args=(_SharedJobs(sorted(again)),),
                                     kwargs={"again": again}, daemon=True)
            threads.append(retry)
            retry.start()
            while retry.is_alive():
                retry.join(0.2)
    except KeyboardInterrupt:
        stop.set()
        for worker in list(workers):
            worker.stop()
        for thread in threads:
            thread.join(15)
        interrupted(layout, in_flight, lock)
    # every staged job ends as a record: those a queue did not finish (its thread died, grading
    # stopped at the tripwire) are recorded as failed, with why
    why = "; ".join(failures) or (f"grading stopped: {stop.error}" if stop.error is not None
                                  else "its grading queue stopped")
    not_graded(records, finished, why, locked_done)
    if stop.error is not None:
        raise stop.error
