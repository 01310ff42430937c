"""Who is in the class on the hub: the course's ``roster.csv``, its Unix accounts, the hub's settings.

The hub reads the class from the same roster the grading tools use
(:mod:`course.grading.term.intake.roster`: nbgrader's student CSV plus ``lms_names``), so one file
says who may log in and whose work is graded.  ``python -m course.hub setup --roster FILE``
checks it, creates the students' missing Unix accounts, and writes the hub's copy with the
class's settings into ``CONFIG_DIR/course-hub/`` (owned by root): the instructor may edit
the course's roster for grading, but only root changes who may log in.

On top of the course's student id pattern, an id on the hub must be a Unix account name that
JupyterHub keeps as it is (JupyterHub lowercases names): :data:`HUB_USERNAME_PATTERN`.  An id
that names a system account (``root``, ``www-data``: a uid below ``UID_MIN``) or the
instructor is refused: a roster line must never let anyone log in as, or start a server as,
an account that is not a student's.
"""

from __future__ import annotations

import csv
import json
import os
import pwd
import re
import secrets
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..errors import CourseError
from ..grading.term.intake.roster import Roster, RosterError, read_roster

__all__ = ["HUB_USERNAME_PATTERN", "HubRosterError", "HubSettings", "class_ids", "grader_ids", "uid_min",
           "ensure_accounts", "write_hub_settings", "read_hub_settings", "SETTINGS_DIR",
           "DEFAULT_IDLE_TIMEOUT"]

#: A student id that is also a Unix account name JupyterHub keeps unchanged: lowercase ASCII
#: letters, digits, ``_ . -``, starting with a letter, at most 32 characters (useradd's limit).
HUB_USERNAME_PATTERN = re.compile(r"[a-z][a-z0-9_.-]{0,30}[a-z0-9_]|[a-z]")
#: The folder of ``CONFIG_DIR`` with the hub's settings and its copy of the roster.
SETTINGS_DIR = "course-hub"
#: Servers idle this long (seconds) are stopped by jupyterhub-idle-culler.
DEFAULT_IDLE_TIMEOUT = 3600


class HubRosterError(CourseError):
    """The roster cannot be the hub's class (the message says which line or id, and why)."""


def uid_min(login_defs: str | os.PathLike = "/etc/login.defs") -> int:
    """The first uid of an ordinary account (``UID_MIN`` of ``/etc/login.defs``, else 1000).

    >>> uid_min("/nonexistent")
    1000
    """
    try:
        for line in Path(login_defs).read_text(encoding="utf-8", errors="replace").splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[0] == "UID_MIN" and parts[1].isdigit():
                return int(parts[1])
    except OSError:
        pass
    return 1000


def class_ids(roster: Roster, instructor: str, *, first_uid: int | None = None) -> list[str]:
    """The roster's ids as the hub's students, checked (see the module notes).

    Raises
    ------
    HubRosterError
        For an id that cannot be a hub account name, that names a system account, or that is
        the instructor.

    Examples
    --------
    >>> from course.grading.term.intake.roster import parse_roster
    >>> class_ids(parse_roster("id\\nada\\ngrace\\n"), "alice")
    ['ada', 'grace']
    >>> class_ids(parse_roster("id\\nada\\nAda.Lovelace\\n"), "alice")
    Traceback (most recent call last):
    ...
    course.hub.classlist.HubRosterError: roster.csv: 'Ada.Lovelace' cannot be a hub account (lowercase letters, digits, _ . -, starting with a letter, at most 32 characters; JupyterHub lowercases names)
    >>> class_ids(parse_roster("id\\nada\\nroot\\n"), "alice")
    Traceback (most recent call last):
    ...
    course.hub.classlist.HubRosterError: roster.csv: 'root' is a system account (uid 0 < 1000), not a student's
    """
    first_uid = uid_min() if first_uid is None else first_uid
    ids = []
    for sid in roster.ids:
        if HUB_USERNAME_PATTERN.fullmatch(sid) is None:
            raise HubRosterError(f"{roster.path}: {sid!r} cannot be a hub account (lowercase letters, "
                                 "digits, _ . -, starting with a letter, at most 32 characters; "
                                 "JupyterHub lowercases names)")
        if sid == instructor:
            raise HubRosterError(f"{roster.path}: {sid!r} is the instructor, not a student")
        try:
            uid = pwd.getpwnam(sid).pw_uid
        except KeyError:
            uid = None
        if uid is not None and uid < first_uid:
            raise HubRosterError(f"{roster.path}: {sid!r} is a system account (uid {uid} < {first_uid}), "
                                 "not a student's")
        ids.append(sid)
    return ids


def grader_ids(names: list[str], instructor: str, students: list[str], *,
               first_uid: int | None = None) -> list[str]:
    """The teaching assistants' accounts, checked like the students' (and not a student).

    >>> grader_ids(["tom"], "alice", ["ada"])
    ['tom']
    >>> grader_ids(["ada"], "alice", ["ada"])
    Traceback (most recent call last):
    ...
    course.hub.classlist.HubRosterError: grader 'ada' is a student on the roster
    """
    first_uid = uid_min() if first_uid is None else first_uid
    found = []
    for name in names:
        if HUB_USERNAME_PATTERN.fullmatch(name) is None:
            raise HubRosterError(f"grader {name!r} cannot be a hub account (lowercase letters, digits, "
                                 "_ . -, starting with a letter, at most 32 characters)")
        if name == instructor:
            raise HubRosterError(f"grader {name!r} is the instructor (who grades anyway)")
        if name in students:
            raise HubRosterError(f"grader {name!r} is a student on the roster")
        try:
            uid = pwd.getpwnam(name).pw_uid
        except KeyError:
            uid = None
        if uid is not None and uid < first_uid:
            raise HubRosterError(f"grader {name!r} is a system account (uid {uid} < {first_uid})")
        if name not in found:
            found.append(name)
    return found


def _tool(name: str) -> str:
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin:/usr/bin:/bin") or name


@dataclass(frozen=True)
class Accounts:
    """What :func:`ensure_accounts` did."""

    created: tuple[str, ...]
    existing: tuple[str, ...]
    passwords: Path | None


def ensure_accounts(ids: list[str], *, home_base: str | os.PathLike | None = None,
                    passwords: str | os.PathLike | None = None) -> Accounts:
    """Create the Unix accounts of ``ids`` that do not exist (run as root).

    Each new account gets its own group, a home folder of mode 700 (under ``home_base``, else
    useradd's default, ``/home``) and ``/bin/bash``.  With ``passwords``, each new account gets a
    random password (``chpasswd``), listed as ``id,password`` in that file (mode 600, root's),
    for handing out; without, new accounts have no password until you set one (``passwd ID``).
    Existing accounts are left as they are, and no account is ever removed.
    """
    created, existing, rows = [], [], []
    for sid in ids:
        try:
            pwd.getpwnam(sid)
            existing.append(sid)
            continue
        except KeyError:
            pass
        command = [_tool("useradd"), "--create-home", "--shell", "/bin/bash", "--user-group"]
        if home_base is not None:
            command += ["--base-dir", str(home_base)]
        done = subprocess.run([*command, sid], capture_output=True, text=True)
        if done.returncode != 0:
            raise HubRosterError(f"useradd {sid}: {done.stderr.strip() or done.returncode}")
        os.chmod(pwd.getpwnam(sid).pw_dir, 0o700)
        created.append(sid)
        if passwords is not None:
            password = secrets.token_urlsafe(9)
            done = subprocess.run([_tool("chpasswd")], input=f"{sid}:{password}\n", capture_output=True,
                                  text=True)
            if done.returncode != 0:
                raise HubRosterError(f"chpasswd {sid}: {done.stderr.strip() or done.returncode}")
            rows.append((sid, password))
    out = None
    if passwords is not None:
        out = Path(passwords)
        fresh = not out.exists()
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            if fresh:
                writer.writerow(("id", "password"))
            writer.writerows(rows)
    return Accounts(tuple(created), tuple(existing), out)


@dataclass(frozen=True)
class HubSettings:
    """The class's settings for ``jupyterhub_config.py`` (``CONFIG_DIR/course-hub/hub.json``)."""

    instructor: str
    roster: Path
    public_url: str = ""
    idle_timeout: int = DEFAULT_IDLE_TIMEOUT
    graders: tuple[str, ...] = ()
    """Teaching assistants: they grade by hand in the graders' formgrader, nothing else."""
    subdomains: bool = True
    """One subdomain per user (``USER.hub.example.org``): the only way JupyterHub keeps users' pages
    apart.  Off only for a class whose students are all trusted (``setup --no-subdomains``)."""

    def students(self) -> list[str]:
        """The roster's ids, read and checked now (so a restart picks up a changed roster)."""
        return class_ids(read_roster(self.roster), self.instructor)


def write_hub_settings(config_dir: str | os.PathLike, instructor: str, roster: Roster, *,
                       public_url: str = "", idle_timeout: int = DEFAULT_IDLE_TIMEOUT,
                       graders: tuple[str, ...] | list[str] = (), subdomains: bool = True) -> HubSettings:
    """Write the hub's copy of the roster and ``hub.json`` into ``config_dir/course-hub/`` (root's)."""
    folder = Path(config_dir) / SETTINGS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o755)
    copy = folder / "roster.csv"
    tmp = folder / f".roster.csv.{os.getpid()}"
    # names and e-mail addresses: only root (the hub) reads the copy, from its first byte on
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(Path(roster.path).read_bytes())
    os.replace(tmp, copy)
    settings = HubSettings(instructor, copy, public_url, int(idle_timeout), tuple(graders), bool(subdomains))
    (folder / "hub.json").write_text(json.dumps(
        {"instructor": instructor, "roster": str(copy), "public_url": public_url,
         "idle_timeout": int(idle_timeout), "graders": list(graders), "subdomains": bool(subdomains)},
        indent=2) + "\n", encoding="utf-8")
    os.chmod(folder / "hub.json", 0o644)
    return settings


def read_hub_settings(config_dir: str | os.PathLike) -> HubSettings:
    """The settings ``python -m course.hub setup`` wrote into ``config_dir/course-hub/hub.json``.

    Raises
    ------
    HubRosterError
        If there are none (setup has not been run with ``--roster``), or the roster is invalid.
    """
    path = Path(config_dir) / SETTINGS_DIR / "hub.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError:
        raise HubRosterError(f"{path} is missing: run `python -m course.hub setup --instructor NAME "
                             "--roster roster.csv` first") from None
    settings = HubSettings(data["instructor"], Path(data["roster"]), data.get("public_url", ""),
                           int(data.get("idle_timeout", DEFAULT_IDLE_TIMEOUT)),
                           tuple(data.get("graders", ())), bool(data.get("subdomains", False)))
    try:
        grader_ids(list(settings.graders), settings.instructor, settings.students())
    except RosterError as exc:
        raise HubRosterError(str(exc)) from None
    if settings.subdomains and not settings.public_url:
        raise HubRosterError(f"{path}: subdomains need the hub's public address: run setup with "
                             "--public-url https://hub.example.org/")
    return settings
