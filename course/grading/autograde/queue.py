"""The grading queue: submissions graded by worker processes, several at once.

Each worker (:mod:`.worker`, a ``python -m course.grading.autograde.worker``
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

from ..course_dir import CourseLayout, gradebook, nbgrader_error
from ..results.report import GradeRecord, fill_scores, read_report
from ..results.summary import review_flags

__all__ = ["run_jobs", "SECONDS_PER_CELL_FACTOR", "WORKER_STARTUP"]

#: Wall-clock seconds for one submission: this much per code cell, plus a margin.
SECONDS_PER_CELL_FACTOR = 2.0


def _descendants(pid: int) -> list[int]:
    """Process ids below ``pid`` (Linux /proc; empty elsewhere)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as handle:
                ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


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


def _count_code_cells(directory: Path) -> int:
    total = 0
    for path in directory.glob("*.ipynb"):
        try:
            total += sum(1 for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
                         if c.get("cell_type") == "code")
        except (OSError, ValueError, KeyError, TypeError):
            pass
    return total


@contextlib.contextmanager
def _locked_submission(layout: CourseLayout, job: tuple[str, str], lock: Path):
    """The gradebook (under the workers' lock) and ``job``'s submission, or None if it has none."""
    from nbgrader.api import MissingEntry

    from ..course_dir import FileLock

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
    """A ``course.grading.autograde.worker`` process and a thread reading its JSON lines."""

    def __init__(self, layout: CourseLayout, staging: Path, jobs: list[tuple[str, str]],
                 cell_timeout: int, *, lock: Path, sandbox: bool) -> None:
        import queue
        import threading

        command = [sys.executable, "-m", "course.grading.autograde.worker", "--root", str(layout.root),
                   "--submitted", str(staging), "--timeout", str(cell_timeout), "--handshake",
                   "--lock", str(lock)]
        if not sandbox:
            command.append("--unsafe-no-sandbox")
        for student, assignment in jobs:
            command += ["--job", f"{student}/{assignment}"]
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, start_new_session=True,
                                     cwd=str(layout.root))
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

    def go(self) -> None:
        """Let the worker start its next job (it waits for this after each one)."""
        try:
            self.proc.stdin.write("go\n")
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

    def stop(self) -> None:
        if self.proc.poll() is None:
            _kill_tree(self.proc)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


#: Seconds a new worker may take to start (import nbgrader, load the config).
WORKER_STARTUP = 180


def _run_queue(layout: CourseLayout, staging: Path, records: dict[tuple[str, str], GradeRecord],
               pending: list[tuple[str, str]], cell_timeout: int, wall_limit: float | None,
               done: Any, *, lock: Path, sandbox: bool, watch: Any, stop: Any) -> None:
    """Grade ``pending`` jobs one after the other, restarting the worker after one that hangs."""
    from .integrity import IntegrityError

    previous = read_report(layout)
    while pending and not stop.is_set():
        worker = _Worker(layout, staging, pending, cell_timeout, lock=lock, sandbox=sandbox)
        try:
            while pending and not stop.is_set():
                job = pending[0]
                record = records[job]
                limit = wall_limit
                if limit is None:
                    cells = _count_code_cells(staging / job[0] / job[1])
                    limit = 120 + SECONDS_PER_CELL_FACTOR * cell_timeout * max(1, cells)
                unchanged = previous.get(f"{job[0]}/{job[1]}", {}).get("submission_sha") == \
                    record.submission_sha
                kept = _hand_grades(layout, job, lock) if unchanged else {}
                worker.go()
                start = time.perf_counter()
                try:
                    message = worker.next(WORKER_STARTUP)
                    while message is not None and message.get("event") != "done":
                        message = worker.next(limit)
                except TimeoutError:
                    message = {"success": False, "error":
                               f"autograding took longer than {limit:.0f} seconds and was stopped"}
                    worker.stop()
                pending.pop(0)
                if message is None:
                    tail = "".join(worker.stderr).strip().splitlines()
                    message = {"success": False, "error": "the grading process ended unexpectedly"
                               + (f" ({tail[-1]})" if tail else "")}
                record.seconds = round(time.perf_counter() - start, 2)
                if message.get("success"):
                    record.status = "graded (with problems)" if record.reason else "graded"
                else:
                    why = f"nbgrader failed: {nbgrader_error(message)}"
                    record.reason = "; ".join(r for r in (record.reason, why) if r)
                if message.get("success"):
                    _keep_hand_grades(layout, job, kept, lock)
                    record.review += review_flags(layout, *job)
                fill_scores(layout, record, lock)
                try:
                    watch.check(f"{job[0]}/{job[1]}")
                except IntegrityError as exc:
                    stop.set()
                    stop.error = exc
                done(record)
                if pending and worker.proc.poll() is not None:
                    break                 # start a new worker for the rest
        finally:
            worker.stop()


def run_jobs(layout: CourseLayout, staging: Path, records: dict[tuple[str, str], GradeRecord],
              cell_timeout: int, wall_limit: float | None, done: Any, *, jobs: int = 1,
              sandbox: bool = True) -> None:
    """Grade every staged job on ``jobs`` parallel workers.

    After every job an :class:`~.integrity.IntegrityWatch` checks
    that the grader's own files are unchanged; if not, grading stops with
    :class:`~.integrity.IntegrityError` for the instructor to review.
    """
    import threading

    from .integrity import IntegrityWatch

    watch = IntegrityWatch(layout.root)
    lock = staging / ".gradebook.lock"
    queues: list[list[tuple[str, str]]] = [[] for _ in range(max(1, jobs))]
    for i, job in enumerate(records):
        queues[i % len(queues)].append(job)
    stop = threading.Event()
    stop.error = None
    report_lock = threading.Lock()

    def locked_done(record: GradeRecord) -> None:
        with report_lock:
            done(record)

    threads = [threading.Thread(target=_run_queue, daemon=True,
                                args=(layout, staging, records, queue, cell_timeout, wall_limit,
                                      locked_done),
                                kwargs=dict(lock=lock, sandbox=sandbox, watch=watch, stop=stop))
               for queue in queues if queue]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if stop.error is not None:
        raise stop.error
