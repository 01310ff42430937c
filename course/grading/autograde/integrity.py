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
        files: list[Path] = []
        for path in self.paths:
            if path.is_dir():
                files += sorted(p for p in path.rglob("*")
                                if p.is_file() and "__pycache__" not in p.parts
                                and ".ipynb_checkpoints" not in p.parts)
            else:
                files.append(path)
        for d in self.site:
            files += sorted(p for p in d.iterdir() if p.suffix == ".pth"
                            or p.stem in ("sitecustomize", "usercustomize"))
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
