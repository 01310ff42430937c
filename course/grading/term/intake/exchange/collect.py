"""``nbgrader collect`` on a shared machine: whose each entry is, and when, decided by the collector.

nbgrader's default collect reads the student and the time from the inbound
entry's *name* (``<student>+<assignment>+<timestamp>+<random>``), which the
student writes, warns when the owner differs and collects anyway, copies with
``shutil.copytree`` (links followed, a FIFO fails the whole class) and keeps
the student's ``timestamp.txt``.  :class:`ExchangeCollect` keeps nbgrader's
layout and options (``--update``, ``--before-duedate``, ``--student``) and
changes what is trusted:

* an entry is a real folder (not a link or a file) whose name's student id
  matches :data:`~course.grading.term.intake.student_ids.STUDENT_ID_PATTERN` and,
  where there is one, the roster;
* **its owner is the submitter**: an entry owned by another account than the
  student it names is refused (entries owned by the collecting account
  itself -- one account playing every role, as ``make lab`` on a laptop --
  are taken by their name);
* **the time is the collector's**: the latest *change time* (ctime, which no
  user can set) of the entry and its files, read while copying; it picks the
  newest entry of each student and is written to ``timestamp.txt`` (nbgrader's
  late penalty is computed from it); the student's own ``timestamp.txt`` is ignored;
* the copy refuses links and hard links, leaves out (and names) FIFOs,
  sockets and devices wherever they sit, without opening them, and files of
  other accounts, caps sizes (:mod:`.files`), goes to a temporary folder and
  replaces the previous copy only when complete; a refused entry falls back to
  that student's next newest one; an entry that is itself a special file is
  refused, named with its kind;
* **nothing is lost**: the copy it replaces, and the new one, are kept as versions
  (:mod:`course.grading.term.versions`), for the resubmission policy to choose from.

Every refusal is logged with the entry's name and the reason (names and reasons
with their control characters shown, never obeyed: :mod:`course.grading.term.safe_text`),
and the command fails (exit status 1) after collecting everything else when there is one.
"""

from __future__ import annotations

import datetime as _dt
import os
import shutil
import stat
import sys
import tempfile

from nbgrader.exchange.default.collect import ExchangeCollect as _NbgraderCollect
from nbgrader.utils import check_mode

from ...versions import keep_version
from ..roster import course_roster
from ..student_ids import describe_name, is_student_id
from ...safe_text import console_text
from .files import UnsafeSubmission, _kind, copy_untrusted_tree, scan_untrusted_tree

if sys.platform != "win32":
    import pwd
else:  # pragma: no cover - nbgrader's exchange does not run on Windows
    pwd = None

__all__ = ["ExchangeCollect", "IGNORED_FILES"]

#: Files of an entry that are never collected: the student's own claims and editor debris.
IGNORED_FILES = ("timestamp.txt", ".ipynb_checkpoints", "__pycache__")


def _utc(seconds: float) -> _dt.datetime:
    return _dt.datetime.fromtimestamp(seconds, _dt.timezone.utc)


class ExchangeCollect(_NbgraderCollect):
    """nbgrader's collect, with identity from the owner and time from the collector (see the module)."""

    def _owner_name(self, uid: int) -> str:
        if pwd is None:
            return ""
        try:
            return pwd.getpwuid(uid).pw_name
        except KeyError:
            return f"uid {uid}"

    def init_src(self):
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if os.path.islink(self.inbound_path) or not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found (or not a real folder): {self.inbound_path}")
        if not check_mode(self.inbound_path, read=True, execute=True):
            self.fail(f"You don't have read permissions for the directory: {self.inbound_path}")
        roster = course_roster(self.coursedir.root)
        self.refused: list[tuple[str, str]] = []
        wanted_student = self.coursedir.student_id if self.coursedir.student_id not in ("", "*") else None
        assignment = self.coursedir.assignment_id
        me = os.geteuid()
        candidates: dict[str, list[dict]] = {}
        for name in sorted(os.listdir(self.inbound_path)):
            parts = name.rsplit("+", 3)
            if len(parts) < 3 or parts[1] != assignment:
                continue
            student = parts[0]
            if wanted_student and student != wanted_student:
                continue
            path = os.path.join(self.inbound_path, name)
            try:
                info = os.lstat(path)
            except FileNotFoundError:
                continue                          # removed meanwhile
            why = None
            if not (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)):
                # a FIFO, socket or device: never opened, left out and named (not a submission)
                self.log.warning("Left out %s: %s, not a submission", describe_name(name, 200),
                                 _kind(info.st_mode))
                continue
            if not stat.S_ISDIR(info.st_mode):
                why = f"not a folder (it is {'a symbolic link' if stat.S_ISLNK(info.st_mode) else 'a file'})"
            elif not is_student_id(student):
                why = f"{describe_name(student)} is not a valid student id"
            elif roster is not None and student not in roster:
                why = f"{student!r} is not a student of the roster {roster.path}"
            elif info.st_uid != me and self._owner_name(info.st_uid) != student:
                why = (f"submitted in the name of {student!r} by the account "
                       f"{self._owner_name(info.st_uid)!r}")
            if why is None:
                try:
                    seen = scan_untrusted_tree(path, owner=info.st_uid, ignore=IGNORED_FILES,
                                               max_file=1000 * self.coursedir.max_file_size,
                                               max_total=1000 * self.coursedir.max_dir_size,
                                               skip_special=True)
                except (UnsafeSubmission, OSError) as exc:
                    why = str(exc)
            if why is not None:
                self.refused.append((name, why))
                self.log.warning("Refused %s: %s", describe_name(name, 200), console_text(why))
                continue
            candidates.setdefault(student, []).append(
                {"username": student, "filename": name, "timestamp": _utc(seen.latest_ctime),
                 "owner": info.st_uid})
        duedate = None
        from nbgrader.api import Gradebook, MissingEntry

        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            try:
                duedate = gb.find_assignment(assignment).duedate
            except MissingEntry:
                duedate = None
        self.duedate = duedate
        self.src_records = []
        self.fallbacks: dict[str, list[dict]] = {}
        for student, records in candidates.items():
            records.sort(key=lambda r: r["timestamp"], reverse=True)
            if duedate is not None and self.before_duedate:
                due = duedate if duedate.tzinfo else duedate.replace(tzinfo=_dt.timezone.utc)
                before = [r for r in records if r["timestamp"] <= due]
                records = before + [r for r in records if r not in before]
            self.src_records.append(records[0])
            self.fallbacks[student] = records[1:]

    def copy_files(self):
        if not self.src_records:
            self.log.warning("No submissions of '%s' for course '%s' to collect",
                             self.coursedir.assignment_id, self.coursedir.course_id)
        for record in self.src_records:
            for candidate in [record, *self.fallbacks.get(record["username"], [])]:
                if self._collect_one(candidate):
                    break
        if self.refused:
            self.log.error("%d inbound entr%s refused (see above); the other submissions were collected",
                           len(self.refused), "y was" if len(self.refused) == 1 else "ies were")
            self.fail("refused: " + "; ".join(f"{describe_name(name, 200)}: {console_text(why)}"
                                              for name, why in self.refused))

    def _collect_one(self, record: dict) -> bool:
        student, assignment = record["username"], self.coursedir.assignment_id
        src = os.path.join(self.inbound_path, record["filename"])
        dest = self.coursedir.format_path(self.coursedir.submitted_directory, student, assignment)
        parent = os.path.dirname(dest)
        os.makedirs(parent, exist_ok=True)
        if os.path.islink(parent) or os.path.islink(dest):
            self.refused.append((record["filename"], f"{dest} is a symbolic link"))
            return False
        if os.path.isdir(dest):
            stamp = os.path.join(dest, "timestamp.txt")
            if os.path.lexists(stamp) and not stat.S_ISREG(os.lstat(stamp).st_mode):
                os.unlink(stamp)          # never read a FIFO (it would wait for a writer forever)
            existing = self.coursedir.get_existing_timestamp(dest)
            if existing is not None and existing.tzinfo is None:
                existing = existing.replace(tzinfo=_dt.timezone.utc)
            newer = existing is None or record["timestamp"] > existing
            if not (self.update and newer) and not (self.before_duedate and existing != record["timestamp"]):
                self.log.info("No newer submission to collect: %s %s", student, assignment)
                return True
        tmp = tempfile.mkdtemp(prefix=".collect-", dir=parent)
        try:
            for _ in range(3):           # again if the student changed it while it was copied
                target = os.path.join(tmp, "copy")
                shutil.rmtree(target, ignore_errors=True)
                result = copy_untrusted_tree(src, target, owner=record["owner"], ignore=IGNORED_FILES,
                                             max_file=1000 * self.coursedir.max_file_size,
                                             max_total=1000 * self.coursedir.max_dir_size,
                                             skip_special=True)
                after = scan_untrusted_tree(src, owner=record["owner"], ignore=IGNORED_FILES,
                                            skip_special=True)
                if after.latest_ctime <= result.latest_ctime:
                    break
            else:
                raise UnsafeSubmission("it kept changing while it was collected")
        except (UnsafeSubmission, OSError) as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            self.refused.append((record["filename"], str(exc)))
            self.log.warning("Refused %s: %s", describe_name(record["filename"], 200), console_text(exc))
            return False
        for line in result.skipped:
            self.log.warning("%s: left out %s", describe_name(record["filename"], 200), console_text(line))
        when = _utc(result.latest_ctime)
        with open(os.path.join(target, "timestamp.txt"), "w", encoding="utf-8") as handle:
            handle.write(when.strftime("%Y-%m-%d %H:%M:%S.%f %Z"))
        if os.path.isdir(dest):
            # the submission collected before stays, as a version (course/grading/term/versions.py)
            try:
                keep_version(self.coursedir.root, student, assignment, dest)
            except Exception as exc:  # noqa: BLE001 - UnsafeSubmission, OSError
                shutil.rmtree(tmp, ignore_errors=True)
                self.refused.append((record["filename"], f"the submission collected before ({dest}) "
                                                         f"could not be kept as a version: {exc}"))
                return False
            self.log.info("Updating submission: %s %s (the one before is kept in versions/)", student, assignment)
            shutil.rmtree(dest)
        else:
            self.log.info("Collecting submission: %s %s", student, assignment)
        os.replace(target, dest)
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            keep_version(self.coursedir.root, student, assignment, dest)
        except Exception as exc:  # noqa: BLE001 - kept at the next autograde, or named there
            self.log.warning("%s %s: not kept as a version yet (%s)", student, assignment, exc)
        return True
