"""``nbgrader submit``: the student's entry readable by the instructor, writable only by the student.

nbgrader leaves each submitted entry ``0777`` ("so the instructor can delete
it"), so anyone who learns its name can put files in it or remove the
student's.  :class:`ExchangeSubmit` leaves it ``0755``.  The collector does
not rely on this (a hostile student uses whatever tool they like): it is for
honest students' entries.
"""

from __future__ import annotations

import os

from nbgrader.exchange.default.submit import ExchangeSubmit as _NbgraderSubmit

__all__ = ["ExchangeSubmit"]


class ExchangeSubmit(_NbgraderSubmit):
    """nbgrader's submit, the entry left ``0755`` (see the module)."""

    def copy_files(self):
        super().copy_files()
        entry = os.path.join(self.inbound_path, self.assignment_filename)
        if os.path.isdir(entry) and not os.path.islink(entry):
            os.chmod(entry, 0o755)
