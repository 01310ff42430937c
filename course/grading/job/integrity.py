"""A tripwire around autograding: the files that must never change while a class is graded.

The students' code runs in a sandbox that cannot see the course directory
(:mod:`course.sandbox`), so nothing it does should be able to change the
grader.  :class:`IntegrityWatch` checks that independently: it fingerprints
the course's code (the ``course`` package as Python imports it), the nbgrader
configuration, the source and release notebooks, the grading secret and
everything Python runs at start-up (``*.pth`` files, ``sitecustomize``,
``usercustomize`` in every site-packages folder), and compares after every
submission.  Any difference stops the grading with the list of what changed,
for the instructor to review: it never guesses whom to blame or zeroes anyone.
"""

from __future__ import annotations

import hashlib
import os
import site
import sys
import time
from pathlib import Path

from ...errors import CourseError

__all__ = ["IntegrityWatch", "IntegrityError"]


RACY_NS = 2_000_000_000
"""A file changed this recently (ns) before it was hashed is not trusted by its ``stat`` alone."""


class IntegrityError(CourseError):
    """Files of the grader changed while a class was being graded."""


def _site_dirs() -> list[Path]:
    dirs = set()
    for d in list(getattr(site, "getsitepackages", lambda: [])()) + [site.getusersitepackages()]:
        dirs.add(Path(d))
    for d in sys.path:
        if d.endswith("site-packages"):
            dirs.add(Path(d))
    return sorted(d for d in dirs if d.is_dir())


def _walk(folder: str, found: list[str]) -> None:
    """The files under ``folder`` as :meth:`pathlib.Path.rglob` lists them (folders reached by a
    symbolic link are not entered; a link to a file counts), without ``__pycache__`` or
    ``.ipynb_checkpoints`` folders."""
    try:
        with os.scandir(folder) as it:
            entries = list(it)
    except OSError:
        return
    for entry in entries:
        if entry.name in ("__pycache__", ".ipynb_checkpoints"):
            continue                    # neither the folder nor a file of that name is watched
        try:
            is_dir = entry.is_dir()
            if is_dir and not entry.is_symlink():
                _walk(entry.path, found)
            elif not is_dir and entry.is_file():
                found.append(entry.path)
        except OSError:
            continue


class IntegrityWatch:
    """Fingerprints of the grader's files; :meth:`check` raises if any changed.

    Parameters
    ----------
    root : path
        The course directory.
    extra : paths, optional
        More files or folders to watch.
    """

    def __init__(self, root: str | os.PathLike, extra: tuple = ()) -> None:
        import course

        root = Path(root)
        self.paths: list[Path] = [Path(course.__file__).resolve().parent,
                                  root / "nbgrader_config.py", root / ".grading-secret"]
        for name in ("solutions", "exercises"):
            self.paths.append(root / name)
        self.paths += [Path(p) for p in extra]
        self.site = _site_dirs()
        self._hashed: dict[str, tuple[tuple, str]] = {}
        self.before = self.fingerprint()

    def _files(self) -> list[Path]:
        """Every watched file: each watched folder's files at any depth (symbolic links to files
        included; linked folders not entered; ``__pycache__`` and ``.ipynb_checkpoints`` left
        out), sorted per folder, then the site folders' start-up files.

        The same list as ``sorted(p for p in folder.rglob("*") if p.is_file() and ...)``
        (``tests/test_grading_integrity.py`` compares them), made with :func:`os.scandir`: it
        runs after every graded submission, and pathlib's walk cost several milliseconds."""
        files: list[Path] = []
        for path in self.paths:
            if path.is_dir():
                skip = "__pycache__" in path.parts or ".ipynb_checkpoints" in path.parts
                if not skip:
                    found: list[str] = []
                    _walk(str(path), found)
                    files += [Path(name) for name in sorted(found, key=lambda n: n.split(os.sep))]
            else:
                files.append(path)
        for d in self.site:
            try:
                with os.scandir(d) as entries:
                    names = sorted(e.name for e in entries)
            except OSError:
                continue
            for name in names:
                i = name.rfind(".")             # Path.suffix and Path.stem, as pathlib makes them
                suffix = name[i:] if 0 < i < len(name) - 1 else ""
                stem = name[:i] if suffix else name
                if suffix == ".pth" or stem in ("sitecustomize", "usercustomize"):
                    files.append(d / name)
        return files

    def fingerprint(self) -> dict[str, str]:
        """``{path: sha256 or "missing"}`` of every watched file.

        A file is read and hashed again only if its ``stat`` changed (device, inode, size,
        modification and change times) since it was last hashed: any write to a file changes
        its change time (``st_ctime``), which no unprivileged process can set back.  A file
        changed less than :data:`RACY_NS` before it was hashed is hashed every time.
        """
        found: dict[str, str] = {}
        for path in self._files():
            name = str(path)
            try:
                st = path.stat()
                stamp = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
                known = self._hashed.get(name)
                if known is not None and known[0] == stamp:
                    found[name] = known[1]
                    continue
                hashed_at = time.time_ns()
                found[name] = hashlib.sha256(path.read_bytes()).hexdigest()
                # "racy" files (changed within the clock's granularity of the hash: a second
                # write could keep every field of stat) are hashed again next time, as git does
                if st.st_ctime_ns < hashed_at - RACY_NS and st.st_mtime_ns < hashed_at - RACY_NS:
                    self._hashed[name] = (stamp, found[name])
            except FileNotFoundError:
                found[name] = "missing"
            except OSError as exc:
                found[name] = f"unreadable: {exc}"
        return found

    def changes(self) -> list[str]:
        """What differs from the first fingerprint, one line per file."""
        now = self.fingerprint()
        lines = []
        for path in sorted(set(self.before) | set(now)):
            a, b = self.before.get(path), now.get(path)
            if a == b:
                continue
            if a is None or a == "missing":
                lines.append(f"{path}: created")
            elif b is None or b == "missing":
                lines.append(f"{path}: deleted")
            else:
                lines.append(f"{path}: modified")
        return lines

    def check(self, after: str) -> None:
        """Raise :class:`IntegrityError` if anything changed (``after``: which job ran last)."""
        found = self.changes()
        if found:
            shown = "; ".join(found[:10]) + (f"; and {len(found) - 10} more" if len(found) > 10 else "")
            raise IntegrityError(
                f"grading stopped after {after}: files of the grader changed ({shown}). Nothing was "
                "zeroed; review these files (and that submission) before grading again")
