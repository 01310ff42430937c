"""Every version a student handed in, kept: ``versions/<student>/<assignment>/<version>/``.

nbgrader knows one submission per student and assignment, ``submitted/<student>/<assignment>/``,
and every way of filling it (the exchange's collect, an LMS zip, a copy by hand) replaces what
was there.  Here each distinct content that folder ever had (its files and ``timestamp.txt``)
is first copied to the course's **versions store**; ``submitted/<student>/<assignment>/`` then
holds the version the resubmission policy chooses (:func:`~.policies.choose_version`), so
nbgrader, the formgrader and feedback keep working on the folder they know.

A version's folder name is ``<number>-<time handed in, UTC>-<content hash>``
(``002-20261202T181500Z-3f9a0c1d2e4b``), the number counting the versions of that student's
assignment in the order the course first saw them; beside it, ``<name>.json`` records its
time and hashes.  Nothing here runs or trusts the files: they are copied without following
links (:func:`~course.grading.term.intake.exchange.files.copy_untrusted_tree`) and hashed.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Version", "VERSIONS_DIR", "versions", "keep_version", "materialise", "files_sha", "content_sha",
           "read_timestamp", "remove_versions"]

#: The versions store, relative to the course directory.
VERSIONS_DIR = "versions"
#: Files and folders that are never part of a submission (editor debris).
_IGNORED = (".ipynb_checkpoints", "__pycache__")
#: nbgrader's record of when a submission was handed in.
TIMESTAMP = "timestamp.txt"
#: The most a version may hold (a notebook with pictures is a few MiB).
_MAX_BYTES = 500 * 2**20


@dataclass(frozen=True)
class Version:
    """One version of a student's assignment in the versions store."""

    student: str
    assignment: str
    number: int
    """1 for the first version the course saw, 2 for the next, ..."""
    name: str
    """The folder name in the store."""
    path: Path
    """The folder (files and ``timestamp.txt``)."""
    timestamp: _dt.datetime | None
    """When it was handed in (naive UTC, nbgrader's ``timestamp.txt``); None without one."""
    files: str
    """SHA-256 of its files without ``timestamp.txt``: what grading runs (:mod:`.inputs`)."""
    content: str
    """SHA-256 of its files with ``timestamp.txt``: what makes it a version of its own."""
    kept_at: _dt.datetime | None = None
    """When the course kept it (naive UTC); None in a store older than that record."""

    def when(self) -> str:
        """``2026-12-02 18:15:00 UTC`` (or ``no time recorded``)."""
        if self.timestamp is None:
            return "no time recorded"
        return self.timestamp.isoformat(sep=" ", timespec="seconds") + " UTC"

    def sort_key(self) -> tuple:
        """Order of hand-in: by the time handed in, then by number.

        A version without a time (an LMS zip's undated file, which holds the LMS's latest
        submission when it was downloaded: docs/instructor/lms.md) stands at the time the
        course kept it: after every version handed in before it was collected, before any
        handed in later.  Without that record (an older store), first.
        """
        return (self.timestamp or self.kept_at or _dt.datetime.min, self.number)


def _entries(folder: Path) -> list[Path]:
    return sorted((p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()
                   and not any(part in _IGNORED for part in p.relative_to(folder).parts)),
                  key=lambda p: p.relative_to(folder).as_posix())


def _sha(folder: Path, *, with_timestamp: bool) -> str:
    digest = hashlib.sha256()
    for path in _entries(folder):
        rel = path.relative_to(folder).as_posix()
        if rel == TIMESTAMP and not with_timestamp:
            continue
        digest.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def files_sha(folder: str | os.PathLike) -> str:
    """SHA-256 of a submission's files, without ``timestamp.txt`` (what grading runs)."""
    return _sha(Path(folder), with_timestamp=False)


def content_sha(folder: str | os.PathLike) -> str:
    """SHA-256 of a submission's files with ``timestamp.txt`` (what identifies a version)."""
    return _sha(Path(folder), with_timestamp=True)


def read_timestamp(folder: str | os.PathLike) -> _dt.datetime | None:
    """The folder's ``timestamp.txt`` as nbgrader reads it (naive UTC), or None (none, unreadable)."""
    from nbgrader.utils import parse_utc

    try:
        text = (Path(folder) / TIMESTAMP).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not text:
        return None
    try:
        return parse_utc(text)
    except (ValueError, OverflowError, TypeError):
        return None


def _store(root: Path, student: str, assignment: str) -> Path:
    return root / VERSIONS_DIR / student / assignment


def versions(root: str | os.PathLike, student: str, assignment: str) -> list[Version]:
    """The versions of ``student``'s ``assignment``, in the order the course saw them."""
    store = _store(Path(root), student, assignment)
    found = []
    if not store.is_dir():
        return found
    for meta in sorted(store.glob("*.json")):
        folder = meta.with_suffix("")
        try:
            data = json.loads(meta.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not folder.is_dir():
            continue
        stamp = data.get("timestamp")
        found.append(Version(student, assignment, int(data["number"]), folder.name, folder,
                             _dt.datetime.fromisoformat(stamp) if stamp else None,
                             data["files"], data["content"], _kept_at(data.get("kept_at"))))
    return sorted(found, key=lambda v: v.number)


def _kept_at(text: object) -> _dt.datetime | None:
    """A version's ``kept_at`` record as naive UTC (None if absent or unreadable)."""
    if not isinstance(text, str):
        return None
    try:
        when = _dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    if when.tzinfo is not None:
        when = when.astimezone(_dt.timezone.utc).replace(tzinfo=None)
    return when


def keep_version(root: str | os.PathLike, student: str, assignment: str,
                 folder: str | os.PathLike, *, handed_in: bool = False) -> Version:
    """Keep ``folder`` (a submission of ``student``'s ``assignment``) as a version, if it is new.

    Idempotent: a folder whose content (files and ``timestamp.txt``) is a version already
    returns that version -- unless ``handed_in`` says the folder was just handed in again and
    that version is not the last one handed in: then it is a new version, the latest (an undated
    file of an LMS zip that is the same as an earlier one, after another: A, B, then A again).

    Raises
    ------
    UnsafeSubmission
        If the folder holds a link, a special file or too much (it is then not kept).
    """
    from .intake.exchange.files import copy_untrusted_tree

    root, folder = Path(root), Path(folder)
    content = content_sha(folder)
    known = versions(root, student, assignment)
    last = max(known, key=lambda v: v.sort_key(), default=None)
    for version in known:
        if version.content == content and not (handed_in and version is not last):
            return version
    store = _store(root, student, assignment)
    store.mkdir(parents=True, exist_ok=True)
    number = max((v.number for v in known), default=0) + 1
    stamp = read_timestamp(folder)
    name = f"{number:03d}-{stamp.strftime('%Y%m%dT%H%M%SZ') if stamp else 'undated'}-{content[:12]}"
    tmp = store / f".{name}.incoming"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        copy_untrusted_tree(folder, tmp, owner=None, ignore=_IGNORED, max_file=_MAX_BYTES,
                            max_total=_MAX_BYTES)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    os.replace(tmp, store / name)
    meta = {"number": number, "timestamp": stamp.isoformat() if stamp else None,
            "files": files_sha(store / name), "content": content,
            "kept_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
    (store / f"{name}.json.tmp").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    os.replace(store / f"{name}.json.tmp", store / f"{name}.json")
    return next(v for v in versions(root, student, assignment) if v.name == name)


def materialise(submitted: str | os.PathLike, version: Version) -> bool:
    """Make ``submitted/<student>/<assignment>/`` a copy of ``version``; True if it changed.

    The folder there must be kept already (:func:`keep_version`): it is replaced, not lost.
    """
    dest = Path(submitted) / version.student / version.assignment
    if dest.is_dir() and not dest.is_symlink() and content_sha(dest) == version.content:
        return False
    parent = dest.parent
    parent.mkdir(parents=True, exist_ok=True)
    incoming = parent / f".{version.assignment}.incoming"
    outgoing = parent / f".{version.assignment}.outgoing"
    for tmp in (incoming, outgoing):
        if tmp.is_symlink() or tmp.is_file():
            tmp.unlink()
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(version.path, incoming, symlinks=True)
    if dest.is_symlink() or dest.is_file():
        dest.unlink()
    elif dest.exists():
        os.replace(dest, outgoing)
    os.replace(incoming, dest)
    shutil.rmtree(outgoing, ignore_errors=True)
    return True


def remove_versions(root: str | os.PathLike, student: str) -> Path | None:
    """Remove every version of ``student`` (a student who left); the folder removed, if any."""
    folder = Path(root) / VERSIONS_DIR / student
    if folder.is_dir() and not folder.is_symlink():
        shutil.rmtree(folder)
        return folder
    return None
