"""A grading job as data: :class:`AssignmentBundle` and :class:`GradingJob` in, :class:`JobResult` out.

See :mod:`course.grading.job`.  Everything here is plain data (``str``, ``bytes``, ``dict``,
``float``), so a job can be pickled to another machine and its result pickled back.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import shutil
import socket
import tempfile
import threading
import time
import types
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ...errors import CourseError

__all__ = ["AssignmentBundle", "GradingJob", "JobResult", "JobError", "build_bundle", "make_job",
           "run_job", "gradebook_template"]

#: Where the job's course folder keeps its (nbgrader's default) folders and gradebook.
SOURCE, SUBMITTED, AUTOGRADED, GRADEBOOK = "source", "submitted", "autograded", "gradebook.db"


class JobError(CourseError):
    """A job cannot be made or run as asked (the reason says why); no student code ran."""


@dataclass(frozen=True)
class AssignmentBundle:
    """What every job of one assignment needs, made once per run by the instructor's process."""

    assignment: str
    course_id: str
    config_text: bytes
    """The approved ``nbgrader_config.py`` (its bytes; it runs on the worker, as it runs locally)."""
    approval: dict
    """The instructor's approval of that file: ``sha256``, ``policy``, ``approved_at``, ``approved_by``."""
    gradebook: bytes
    """A gradebook holding only this assignment and its cells (tests, points, locked sources)."""
    source_files: dict
    """``{relative path: bytes}``: the source's non-notebook files nbgrader copies beside the graded
    notebooks."""
    secret: str | None
    """The grading secret (derives the hidden tests' cases)."""
    cell_timeout: int
    submission_timeout: float
    sandboxed: bool
    """False only for ``--unsafe-no-sandbox`` (from the instructor's command line)."""
    course_code: str
    """:func:`course.grading.term.inputs.course_code` of the instructor's package: a worker with
    other code refuses the job (a grade is kept by its inputs, the code among them)."""
    source_directory: str = "solutions"
    """The name of the source folder in ``config_text`` (relative to the course directory)."""
    autograded_directory: str = "autograded"


@dataclass(frozen=True)
class GradingJob:
    """One submission to grade: its files as staged (and repaired) by the instructor's process."""

    student: str
    assignment: str
    files: dict
    """``{relative path: bytes}`` of ``submitted/<student>/<assignment>/``."""


@dataclass
class JobResult:
    """What grading one submission gave (see :func:`run_job`)."""

    student: str
    assignment: str
    message: dict
    """The grading worker's verdict: ``success``, ``limit``, ``review``, ``timed``, ``error``,
    ``log``."""
    submission: dict | None = None
    """What nbgrader wrote to the (private) gradebook, or None if it wrote nothing:
    ``{"timestamp": datetime | None, "notebooks": {name: {"grades": {grade id: [auto_score,
    needs_manual_grade]}, "comments": {comment id: auto_comment}}}}``."""
    missing_notebooks: list = field(default_factory=list)
    """The assignment's notebooks the submission does not hold (nbgrader scores them 0)."""
    files: dict | None = None
    """``{relative path: [mode, bytes]}`` of ``autograded/<student>/<assignment>/``, or None if
    nbgrader left no such folder."""
    seconds: float = 0.0
    host: str = ""
    stderr: str = ""


# ------------------------------------------------------------------ the instructor's side
def _plain_name(name: str, what: str) -> str:
    if not isinstance(name, str) or not name or name in (".", "..") or "/" in name or "\\" in name \
            or any(ord(ch) < 32 for ch in name):
        raise JobError(f"{what} {name!r} is not a plain folder name")
    return name


def _relative(path: str) -> PurePosixPath:
    """A file's path inside a folder, refused if it could leave it."""
    rel = PurePosixPath(path)
    if not path or rel.is_absolute() or any(p in ("", ".", "..") for p in rel.parts) or "\0" in path \
            or "\\" in path:
        raise JobError(f"the file name {path!r} could leave its folder")
    return rel


def _stamp(db_url: str, path: Path) -> None:
    """Give the new gradebook ``path`` the database version of the course's (nbgrader runs the
    ``alembic`` command in a new process to find it for a new file: seconds on a busy machine)."""
    import sqlite3

    if not db_url.startswith("sqlite:///"):
        return
    try:
        with contextlib.closing(sqlite3.connect(f"file:{db_url[len('sqlite:///'):]}?mode=ro", uri=True)) as src:
            row = src.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.Error:
        return
    if row is None:
        return
    with contextlib.closing(sqlite3.connect(path)) as dst:
        dst.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)")
        dst.execute("INSERT INTO alembic_version (version_num) VALUES (?)", (row[0],))
        dst.commit()


def gradebook_template(db_url: str, course_id: str, assignment: str) -> bytes:
    """A new gradebook holding only ``assignment``: its notebooks and cells (with their points,
    locked sources and tests), no student, no other assignment; as bytes."""
    from nbgrader.api import Gradebook

    with tempfile.TemporaryDirectory(prefix="course-template-") as tmp:
        path = Path(tmp) / GRADEBOOK
        _stamp(db_url, path)
        with Gradebook(db_url, course_id) as src, Gradebook(f"sqlite:///{path}", course_id) as dst:
            a = src.find_assignment(assignment)
            dst.update_or_create_assignment(assignment, duedate=a.duedate)
            for nb in a.notebooks:
                dst.update_or_create_notebook(nb.name, assignment)
                for cell in nb.grade_cells:
                    dst.update_or_create_grade_cell(cell.name, nb.name, assignment,
                                                    max_score=cell.max_score, cell_type=cell.cell_type)
                for cell in nb.solution_cells:
                    dst.update_or_create_solution_cell(cell.name, nb.name, assignment)
                for cell in nb.task_cells:
                    dst.update_or_create_task_cell(cell.name, nb.name, assignment,
                                                   max_score=cell.max_score, cell_type=cell.cell_type)
                for cell in nb.source_cells:
                    dst.update_or_create_source_cell(cell.name, nb.name, assignment,
                                                     cell_type=cell.cell_type, locked=cell.locked,
                                                     source=cell.source, checksum=cell.checksum)
        return path.read_bytes()


def build_bundle(layout: Any, assignment: str, *, cell_timeout: int, submission_timeout: float,
                 sandboxed: bool) -> AssignmentBundle:
    """The :class:`AssignmentBundle` of ``assignment`` (the config as approved, its template, ...).

    Raises
    ------
    ConfigNotApproved
        If ``nbgrader_config.py`` is not the approved file.
    JobError
        If the course keeps its gradebook or folders where a job cannot rebuild them.
    """
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.utils import find_all_files

    from .approval import check_config_approved, config_path
    from .sandboxed import course_secret
    from ..term.course_dir import course_config
    from ..term.inputs import course_code

    root = Path(layout.root)
    approval = check_config_approved(root)
    text = config_path(root).read_bytes()
    if hashlib.sha256(text).hexdigest() != approval.sha256:
        raise JobError(f"{config_path(root)} changed while the jobs were made: run autograde again")
    default_db = f"sqlite:///{os.path.abspath(root / GRADEBOOK)}"
    if layout.db_url != default_db:
        raise JobError(f"the gradebook is not {root / GRADEBOOK} ({layout.db_url}): grading on a "
                       "cluster needs nbgrader's default gradebook")
    names = {}
    for name, folder in (("source", layout.source), ("autograded", layout.autograded)):
        try:
            names[name] = str(Path(folder).relative_to(root))
        except ValueError:
            raise JobError(f"the {name} folder {folder} is not inside the course directory "
                           f"{root}: grading on a cluster needs it there") from None
    coursedir = CourseDirectory(config=course_config(root))
    source = Path(layout.source) / assignment
    files = {}
    for path in find_all_files(str(source), list(coursedir.ignore) + ["*.ipynb"]):
        rel = Path(path).relative_to(source).as_posix()
        files[rel] = Path(path).read_bytes()
    return AssignmentBundle(
        assignment=assignment, course_id=layout.course_id, config_text=text,
        approval={"sha256": approval.sha256, "policy": approval.policy,
                  "approved_at": approval.approved_at, "approved_by": approval.approved_by},
        gradebook=gradebook_template(layout.db_url, layout.course_id, assignment),
        source_files=files, secret=course_secret(root), cell_timeout=int(cell_timeout),
        submission_timeout=float(submission_timeout), sandboxed=bool(sandboxed),
        course_code=course_code(), source_directory=names["source"],
        autograded_directory=names["autograded"])


def make_job(student: str, assignment: str, folder: str | os.PathLike) -> GradingJob:
    """The job of the staged submission in ``folder`` (regular files only; links are refused)."""
    folder = Path(folder)
    files = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink() or not (path.is_file() or path.is_dir()):
            raise JobError(f"{path} is not a regular file")
        if path.is_file():
            files[path.relative_to(folder).as_posix()] = path.read_bytes()
    return GradingJob(_plain_name(student, "student"), _plain_name(assignment, "assignment"), files)


# ------------------------------------------------------------------ the worker's side
_CODE: list = []


def _code_here(course_code: Any) -> str:
    """This process's course code digest, computed once (its grading workers import it once)."""
    if not _CODE:
        _CODE.append(course_code())
    return _CODE[0]


def _check(bundle: AssignmentBundle, job: GradingJob) -> None:
    from .approval import check_policy_is_sandboxed
    from ..term.inputs import course_code

    _plain_name(job.student, "student")
    _plain_name(job.assignment, "assignment")
    if job.assignment != bundle.assignment:
        raise JobError(f"the job is for {job.assignment!r}, its bundle for {bundle.assignment!r}")
    if hashlib.sha256(bundle.config_text).hexdigest() != bundle.approval.get("sha256"):
        raise JobError("the job's nbgrader_config.py is not the approved file")
    # the configuration must grade in the sandbox, whatever the run: --unsafe-no-sandbox switches
    # the sandbox off for one run from the instructor's command line, never a configuration
    check_policy_is_sandboxed(bundle.approval.get("policy") or {})
    here = _code_here(course_code)
    if here != bundle.course_code:
        raise JobError(f"this worker's course package ({here[:12]}) is not the instructor's "
                       f"({bundle.course_code[:12]}): install the same version on the workers")
    for path in [*job.files, *bundle.source_files]:
        _relative(path)


def _write(folder: Path, files: dict) -> None:
    for path, data in files.items():
        target = folder / _relative(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "xb") as handle:
            handle.write(data)


def _read_results(root: Path, bundle: AssignmentBundle, job: GradingJob) -> tuple[dict | None, dict | None]:
    from nbgrader.api import Gradebook, MissingEntry

    submission = None
    with Gradebook(f"sqlite:///{root / GRADEBOOK}", bundle.course_id) as gb:
        try:
            sub = gb.find_submission(job.assignment, job.student)
        except MissingEntry:
            sub = None
        if sub is not None:
            # nbgrader sets the timestamp only from a timestamp.txt; without one, the course's
            # gradebook keeps the one it has (a new row gets nbgrader's default there)
            stamped = (job.files.get("timestamp.txt") or b"").strip()
            submission = {"timestamp": sub.timestamp if stamped else None, "notebooks": {}}
            for nb in sub.notebooks:
                submission["notebooks"][nb.name] = {
                    "grades": {g.name: [g.auto_score, bool(g.needs_manual_grade)] for g in nb.grades},
                    "comments": {c.name: c.auto_comment for c in nb.comments}}
    out = root / bundle.autograded_directory / job.student / job.assignment
    files = None
    if out.is_dir():
        files = {}
        for path in sorted(out.rglob("*")):
            if path.is_file() and not path.is_symlink():
                files[path.relative_to(out).as_posix()] = [path.stat().st_mode & 0o777, path.read_bytes()]
    return submission, files


class _Slot:
    """A private course folder made from one bundle, and a grading worker kept in it for the
    next jobs of that bundle (its Python, nbgrader and the sandbox's program started once)."""

    def __init__(self, bundle: AssignmentBundle, digest: str) -> None:
        from .approval import APPROVALS_ENV, _record_path
        from .queue import _Worker
        from .sandboxed import SECRET_ENV, SECRET_FILE

        self.digest = digest
        if bundle.sandboxed:
            from ...sandbox import SandboxUnavailable, check_sandbox

            try:
                check_sandbox()
            except SandboxUnavailable as exc:
                raise JobError(f"the sandbox cannot start on {socket.gethostname()}: {exc} "
                               "(docs/instructor/cluster.md: what every worker needs)") from None
        self.tmp = Path(tempfile.mkdtemp(prefix="course-job-"))
        self.worker = None
        try:
            os.chmod(self.tmp, 0o711)
            root = self.root = self.tmp / "course"
            root.mkdir(mode=0o700)
            (root / "nbgrader_config.py").write_bytes(bundle.config_text)
            (root / GRADEBOOK).write_bytes(bundle.gradebook)
            (root / bundle.source_directory / bundle.assignment).mkdir(parents=True)
            _write(root / bundle.source_directory / bundle.assignment, bundle.source_files)
            (root / SUBMITTED).mkdir()
            if bundle.secret:
                fd = os.open(root / SECRET_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(bundle.secret + "\n")
            approvals = self.tmp / "approvals"
            approvals.mkdir(mode=0o700)
            record = dict(bundle.approval, course=str(root.resolve()),
                          text=bundle.config_text.decode("utf-8", errors="replace"))
            (approvals / _record_path(root).name).write_text(json.dumps(record), encoding="utf-8")
            sandboxes = self.tmp / "sandboxes"        # the sandboxes' folders, as the local pool's
            sandboxes.mkdir()
            os.chmod(sandboxes, 0o755)
            env = {k: v for k, v in os.environ.items() if k != SECRET_ENV}
            env.update({APPROVALS_ENV: str(approvals), "TMPDIR": str(sandboxes)})
            self.worker = _Worker(types.SimpleNamespace(root=root), root / SUBMITTED,
                                  bundle.cell_timeout, lock=self.tmp / "lock",
                                  sandbox=bundle.sandboxed,
                                  submission_timeout=bundle.submission_timeout, env=env)
        except BaseException:
            self.close()
            raise

    def alive(self) -> bool:
        return self.worker is not None and self.worker.proc.poll() is None

    def close(self) -> None:
        if self.worker is not None:
            self.worker.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)


#: Slots kept by this process (a Dask worker): idle ones by bundle digest.
_IDLE: dict[str, list[_Slot]] = {}
_IDLE_LOCK = threading.Lock()
#: Bundles whose slots are kept at most (the others' are closed).
KEEP_BUNDLES = 8


def _bundle_digest(bundle: AssignmentBundle) -> str:
    digest = hashlib.sha256()
    for part in (bundle.assignment, bundle.course_id, bundle.config_text, json.dumps(bundle.approval, sort_keys=True),
                 bundle.gradebook, json.dumps(sorted((k, hashlib.sha256(v).hexdigest())
                                                     for k, v in bundle.source_files.items())),
                 bundle.secret or "", repr((bundle.cell_timeout, bundle.submission_timeout,
                                            bundle.sandboxed, bundle.course_code,
                                            bundle.source_directory, bundle.autograded_directory))):
        digest.update(part if isinstance(part, bytes) else str(part).encode())
        digest.update(b"\0")
    return digest.hexdigest()


def _take(bundle: AssignmentBundle) -> _Slot:
    digest = _bundle_digest(bundle)
    with _IDLE_LOCK:
        idle = _IDLE.get(digest, [])
        while idle:
            slot = idle.pop()
            if slot.alive():
                return slot
            slot.close()
    return _Slot(bundle, digest)


def _give_back(slot: _Slot) -> None:
    if not slot.alive():
        slot.close()
        return
    with _IDLE_LOCK:
        _IDLE.setdefault(slot.digest, []).append(slot)
        while len(_IDLE) > KEEP_BUNDLES:
            for old in _IDLE.pop(next(iter(_IDLE))):
                old.close()


@atexit.register
def close_slots() -> None:
    """Stop the kept workers and remove their folders (at exit, or when a run is over)."""
    with _IDLE_LOCK:
        slots = [slot for idle in _IDLE.values() for slot in idle]
        _IDLE.clear()
    for slot in slots:
        slot.close()


def _clean(slot: _Slot, bundle: AssignmentBundle, job: GradingJob) -> None:
    """Back to the bundle's state: the student gone from the gradebook, the folders removed."""
    from nbgrader.api import Gradebook, MissingEntry

    for folder in (slot.root / SUBMITTED / job.student, slot.root / bundle.autograded_directory / job.student):
        shutil.rmtree(folder, ignore_errors=True)
    with Gradebook(f"sqlite:///{slot.root / GRADEBOOK}", bundle.course_id) as gb:
        try:
            gb.remove_student(job.student)
        except MissingEntry:
            pass


def run_job(bundle: AssignmentBundle, job: GradingJob) -> JobResult:
    """Grade one submission from data alone; the result as data (see :mod:`course.grading.job`).

    A private course folder is made in a new temporary directory from the bundle (the approved
    configuration and its approval, the gradebook template, the source's files, the secret), the
    submission is put in it, and the course's grading worker grades it there -- its code in the
    bubblewrap sandbox, within the job's time limits and caps.  The folder and its worker are
    kept for the next job of the same bundle in this process, after the job's traces are removed
    (the student's rows of the gradebook, the submission, the graded folder); a worker that was
    stopped (a time limit) is not kept.  Running a job twice gives the same result and changes
    nothing outside its folder (a job whose machine dies is simply run again elsewhere).

    Returns
    -------
    JobResult
        Never raises for what a submission does: a failure (a limit reached, the worker killed
        at the job's time limit) is in ``message`` as the local pool reports it.

    Raises
    ------
    JobError, SandboxPolicyError
        If the job is malformed, its configuration is not the approved one or would grade
        outside the sandbox, or this machine runs other course code: nothing ran.
    """
    from .queue import WORKER_MARGIN

    _check(bundle, job)
    start = time.perf_counter()
    slot = _take(bundle)
    keep = False
    try:
        staged = slot.root / SUBMITTED / job.student / job.assignment
        _clean(slot, bundle, job)
        staged.mkdir(parents=True)
        _write(staged, job.files)
        worker = slot.worker
        message = worker.grade(job.student, job.assignment, bundle.submission_timeout + WORKER_MARGIN)
        submission, files = _read_results(slot.root, bundle, job)
        notebooks = sorted(p[:-len(".ipynb")] for p in job.files
                           if "/" not in p and p.endswith(".ipynb"))
        missing = sorted(set((submission or {}).get("notebooks", {})) - set(notebooks))
        result = JobResult(job.student, job.assignment,
                           {k: message.get(k) for k in ("success", "limit", "review", "timed",
                                                        "error", "log")},
                           submission, missing, files, round(time.perf_counter() - start, 3),
                           socket.gethostname(), "".join(worker.stderr)[-4000:])
        _clean(slot, bundle, job)
        keep = slot.alive()
        return result
    finally:
        if keep:
            _give_back(slot)
        else:
            slot.close()
