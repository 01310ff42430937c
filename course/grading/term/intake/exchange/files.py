"""Copying a folder a student wrote, without following anything they could point elsewhere.

The exchange's inbound entries and the ``submitted/`` folders are written by
students (or by a manual unzip).  :func:`copy_untrusted_tree` copies one with
file descriptors opened ``O_NOFOLLOW | O_NONBLOCK`` relative to their parent
folder's descriptor, and checks each with ``fstat`` *after* opening it, so a
name swapped for a link between the check and the copy is never followed:

* symbolic links refuse the whole folder (a link would make the instructor
  copy a file the student may not read); FIFOs, sockets and devices too, or,
  with ``skip_special`` (the exchange's collect), are left out and named --
  never opened either way (a FIFO would stop a plain copy for the whole class);
* a regular file with more than one hard link refuses it too;
* files and folders owned by anyone but ``owner`` are left out and reported
  (another user planted them);
* sizes are capped (per file and in all).

It returns the latest *ctime* it saw: when the content last changed, a time a
student cannot set (``utime`` sets the others), which the collector uses
instead of the student's ``timestamp.txt``.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["UnsafeSubmission", "CopyResult", "copy_untrusted_tree", "scan_untrusted_tree"]


class UnsafeSubmission(Exception):
    """A folder holds something that must not be collected (the message says what and where)."""


@dataclass
class CopyResult:
    """What :func:`copy_untrusted_tree` saw."""

    latest_ctime: float = 0.0
    """The latest change time of the folder and everything copied (seconds since the epoch)."""
    skipped: list[str] = field(default_factory=list)
    """Relative paths left out, with why (owned by another user)."""
    files: int = 0
    bytes: int = 0


_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "a special file"


def _walk(dir_fd: int, rel: str, dest: Path | None, owner: int | None, result: CopyResult,
          max_file: int, max_total: int, ignore: tuple[str, ...], skip_special: bool = False) -> None:
    for name in sorted(os.listdir(dir_fd)):
        path = f"{rel}/{name}" if rel else name
        if name in ignore:
            continue
        try:
            info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            continue
        if owner is not None and info.st_uid != owner and info.st_uid != os.geteuid():
            result.skipped.append(f"{path}: owned by another user (uid {info.st_uid})")
            continue
        if stat.S_ISDIR(info.st_mode):
            fd = os.open(name, _FLAGS | os.O_DIRECTORY, dir_fd=dir_fd)
            try:
                opened = os.fstat(fd)
                if not stat.S_ISDIR(opened.st_mode) or opened.st_ino != info.st_ino:
                    raise UnsafeSubmission(f"{path}: changed while it was read")
                result.latest_ctime = max(result.latest_ctime, opened.st_ctime)
                sub = None
                if dest is not None:
                    sub = dest / name
                    sub.mkdir(mode=0o755)
                _walk(fd, path, sub, owner, result, max_file, max_total, ignore, skip_special)
            finally:
                os.close(fd)
            continue
        if skip_special and not stat.S_ISREG(info.st_mode) and not stat.S_ISLNK(info.st_mode):
            # a FIFO, socket or device: never opened, left out and named
            result.skipped.append(f"{path}: {_kind(info.st_mode)}, not a file")
            continue
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeSubmission(f"{path} is {_kind(info.st_mode)}")
        try:
            fd = os.open(name, _FLAGS, dir_fd=dir_fd)
        except OSError as exc:
            raise UnsafeSubmission(f"{path} cannot be opened safely ({exc.strerror})") from None
        try:
            opened = os.fstat(fd)
            if not stat.S_ISREG(opened.st_mode):
                raise UnsafeSubmission(f"{path} is {_kind(opened.st_mode)}")
            if opened.st_nlink > 1:
                raise UnsafeSubmission(f"{path} has {opened.st_nlink} hard links (a link to another file)")
            if opened.st_size > max_file:
                raise UnsafeSubmission(f"{path} is larger than {max_file // 1000} kB")
            result.bytes += opened.st_size
            if result.bytes > max_total:
                raise UnsafeSubmission(f"the folder is larger than {max_total // 1000} kB")
            result.files += 1
            result.latest_ctime = max(result.latest_ctime, opened.st_ctime)
            if dest is not None:
                out = os.open(dest / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                with os.fdopen(out, "wb") as target:
                    left = max_file + 1
                    while left > 0:
                        chunk = os.read(fd, min(1 << 20, left))
                        if not chunk:
                            break
                        left -= len(chunk)
                        target.write(chunk)
                    if left <= 0:
                        raise UnsafeSubmission(f"{path} grew larger than {max_file // 1000} kB while read")
        finally:
            os.close(fd)


def _open_root(src: Path) -> int:
    try:
        fd = os.open(src, _FLAGS | os.O_DIRECTORY)
    except OSError as exc:
        raise UnsafeSubmission(f"{src} is not a folder that can be opened safely ({exc.strerror})") from None
    return fd


def copy_untrusted_tree(src: str | os.PathLike, dest: str | os.PathLike, *, owner: int | None,
                        max_file: int = 100_000_000, max_total: int = 100_000_000,
                        ignore: tuple[str, ...] = (), skip_special: bool = False) -> CopyResult:
    """Copy the folder ``src`` (written by a student) to the new folder ``dest``.

    Parameters
    ----------
    src : path
        The student's folder (itself not a link: it is opened ``O_NOFOLLOW``).
    dest : path
        Created; must not exist.
    owner : int or None
        The uid whose files are copied (files of other users are left out);
        None: anyone's.
    max_file, max_total : int
        Byte limits.
    ignore : tuple of str
        Names left out anywhere (``.ipynb_checkpoints``...).
    skip_special : bool
        Leave FIFOs, sockets and devices out (named in ``skipped``) instead of refusing the
        folder; either way they are never opened.

    Raises
    ------
    UnsafeSubmission
        On a link, special file (unless ``skip_special``), hard link or size over a limit;
        ``dest`` is then left partly written (copy into a temporary folder).
    """
    fd = _open_root(Path(src))
    result = CopyResult()
    try:
        result.latest_ctime = os.fstat(fd).st_ctime
        Path(dest).mkdir(mode=0o755)
        _walk(fd, "", Path(dest), owner, result, max_file, max_total, ignore, skip_special)
    finally:
        os.close(fd)
    return result


def scan_untrusted_tree(src: str | os.PathLike, *, owner: int | None = None, max_file: int = 100_000_000,
                        max_total: int = 100_000_000, ignore: tuple[str, ...] = (),
                        skip_special: bool = False) -> CopyResult:
    """:func:`copy_untrusted_tree` without copying: the same checks, the latest change time."""
    fd = _open_root(Path(src))
    result = CopyResult()
    try:
        result.latest_ctime = os.fstat(fd).st_ctime
        _walk(fd, "", None, owner, result, max_file, max_total, ignore, skip_special)
    finally:
        os.close(fd)
    return result
