"""``nbgrader release_assignment`` on a shared machine: an exchange nobody can take over.

nbgrader makes the exchange root world-writable (``0777``, not sticky): any
user may then rename the course's folder away and put their own ``outbound/``
(a released notebook of theirs for everyone) and ``inbound/`` (everyone's
submissions, readable by them) in its place.  :class:`ExchangeReleaseAssignment`
sets the sticky bit on the root and on ``inbound/`` (``1777`` and ``3733``:
users create entries, only their owner renames or removes them) and refuses to
release into a course folder that is a link or not the instructor's.
"""

from __future__ import annotations

import os
import stat

from nbgrader.exchange.default.release_assignment import \
    ExchangeReleaseAssignment as _NbgraderReleaseAssignment
from nbgrader.utils import self_owned

__all__ = ["ExchangeReleaseAssignment", "make_sticky"]


def make_sticky(path: str) -> None:
    """Add the sticky bit to a folder this account owns (nothing otherwise)."""
    info = os.lstat(path)
    if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & stat.S_ISVTX:
        os.chmod(path, stat.S_IMODE(info.st_mode) | stat.S_ISVTX)


class ExchangeReleaseAssignment(_NbgraderReleaseAssignment):
    """nbgrader's release, with a sticky exchange (see the module)."""

    def ensure_root(self):
        super().ensure_root()
        if not self.coursedir.groupshared:
            make_sticky(self.root)

    def init_dest(self):
        course_path = os.path.join(self.root, self.coursedir.course_id)
        for path in (course_path, os.path.join(course_path, "outbound"), os.path.join(course_path, "inbound")):
            if os.path.islink(path):
                self.fail(f"{path} is a symbolic link: someone else made it; remove it (as root)")
        super().init_dest()
        for path in (self.course_path, self.outbound_path, self.inbound_path):
            if not self.coursedir.groupshared and not self_owned(path):
                self.fail(f"You don't own the directory: {path}")
        make_sticky(self.inbound_path)
