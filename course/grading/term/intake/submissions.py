"""The ``submitted/<student>/<assignment>/`` folders, checked before anything is graded or written.

Whatever filled ``submitted/`` -- the exchange's collect, a zip import, a copy
by hand -- autograde, feedback and grades use its folder names as student ids
and as parts of paths.  :func:`student_folders` accepts a folder only if its
name is a valid student id (and on the roster, when there is one), it is a
real folder (not a link), and no other folder has the same name but for case;
:func:`check_submission` refuses a submission holding links, FIFOs or devices
(:mod:`.exchange.files`).  Everything refused is named, with the reason.
"""

from __future__ import annotations

import os
from pathlib import Path

from .exchange.files import UnsafeSubmission, scan_untrusted_tree
from .roster import Roster
from .student_ids import casefold_clash, check_student_id, InvalidStudentId

__all__ = ["student_folders", "check_submission", "valid_ids"]


def student_folders(folder: str | os.PathLike, roster: Roster | None = None
                    ) -> tuple[list[str], list[tuple[Path, str]]]:
    """The student folders of ``folder`` that may be used, and those refused with the reason.

    Hidden entries (``.ipynb_checkpoints``, ``.course-grading``) are not students and are skipped.

    >>> import tempfile, pathlib
    >>> base = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("ada", "Ada", "grace", "<b onclick=x>", ".hidden"):
    ...     (base / name).mkdir()
    >>> ok, refused = student_folders(base)
    >>> ok, sorted(p.name for p, _ in refused)
    (['grace'], ['<b onclick=x>', 'Ada', 'ada'])
    """
    folder = Path(folder)
    ok: list[str] = []
    refused: list[tuple[Path, str]] = []
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        path = Path(entry.path)
        if entry.name.startswith("."):
            continue
        if entry.is_symlink():
            refused.append((path, "a symbolic link, not a folder of the course"))
            continue
        if not entry.is_dir(follow_symlinks=False):
            refused.append((path, "not a folder"))
            continue
        try:
            check_student_id(entry.name, roster=roster)
        except InvalidStudentId as exc:
            refused.append((path, str(exc)))
            continue
        ok.append(entry.name)
    for key, names in casefold_clash(ok).items():
        for name in names:
            ok.remove(name)
            refused.append((folder / name, f"{', '.join(names)} differ only in case: one folder on "
                                           "macOS and Windows, so neither is used"))
    return ok, sorted(refused, key=lambda r: r[0].name)


def check_submission(folder: str | os.PathLike) -> str | None:
    """Why the submission folder ``<student>/<assignment>`` must not be graded, or None.

    >>> import tempfile, pathlib, os
    >>> base = pathlib.Path(tempfile.mkdtemp())
    >>> (base / "minimax.ipynb").write_text("{}") and None
    >>> check_submission(base) is None
    True
    >>> os.symlink("/etc/passwd", base / "other.ipynb")
    >>> check_submission(base)
    'other.ipynb is a symbolic link'
    """
    folder = Path(folder)
    if folder.is_symlink():
        return f"{folder} is a symbolic link"
    try:
        scan_untrusted_tree(folder, owner=None, ignore=(".ipynb_checkpoints", "__pycache__"))
    except (UnsafeSubmission, OSError) as exc:
        return str(exc)
    return None


def valid_ids(names, roster: Roster | None = None) -> tuple[list[str], list[tuple[str, str]]]:
    """Split names used as student ids (report entries, gradebook rows) into valid and refused."""
    ok, refused = [], []
    for name in names:
        try:
            ok.append(check_student_id(name, roster=roster))
        except InvalidStudentId as exc:
            refused.append((name, str(exc)))
    return ok, refused
