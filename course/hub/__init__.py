"""The course on a JupyterHub: one class, one instructor, graders, many students.

``python -m course.hub setup --instructor NAME --source CHECKOUT --roster roster.csv
--public-url https://hub.example.org/`` (as root, on the hub's machine) prepares what nbgrader's
hub set-up needs, the students' and graders' accounts (:mod:`.classlist`), and
:file:`jupyterhub_config.py` beside this file runs the hub behind nginx (:mod:`.proxy`:
``python -m course.hub nginx``, ``python -m course.hub systemd``).
``docs/instructor/jupyterhub.md`` is the guide, ``course/hub/README.md`` the details and the
path to Kubernetes.

**Who sees what.**  The hub's environment has the course installed from a wheel (``pip install
CHECKOUT``, never ``-e``): students import the ``course`` package, never the instructor's
checkout.  ``setup`` copies ``solutions/`` and ``exercises/`` from ``--source`` (a checkout only
root and the instructor can read) into the instructor's course directory (mode 700), and refuses
to run when the ``course`` package it runs from has a ``solutions/`` folder beside it that other
accounts can read.  Each user's server has its own subdomain (``hub.json``'s ``subdomains``).

What :func:`setup_class` writes (the defaults in brackets):

==========================================  ====================================================
the exchange [/srv/nbgrader/exchange]       a folder everyone may write to, mode 1777 (sticky:
                                            nobody deletes another user's files)
``CONFIG_DIR/nbgrader_config.py``            everyone's nbgrader settings: the course id and the
[/etc/jupyter]                              exchange (students fetch and submit with these)
``CONFIG_DIR/course-student/``               the students' (and graders' own servers') Jupyter
                                            settings: no formgrader, no course list, no "create
                                            assignment" (server and lab), kernels on Unix sockets
``CONFIG_DIR/course-instructor/``            the instructor's: the formgrader behind the course's
                                            guard, never framed (``frame-ancestors 'none'``)
``CONFIG_DIR/course-graders/``               the graders' formgrader (a hub service): nothing
                                            but the formgrader, hand grading only
``~INSTRUCTOR/game-tree-search/``            the course directory (mode 700): ``solutions/``,
                                            ``exercises/`` and the course's
                                            ``nbgrader_config.py`` (sandboxed autograding) with
                                            the exchange above
``~INSTRUCTOR/.jupyter/nbgrader_config.py``  points the formgrader at the course directory
``~INSTRUCTOR/.local/share/course-grading/``  the course's ``nbgrader_config.py`` approved for
                                            grading (``make approve-config`` after a change)
``CONFIG_DIR/course-hub/`` (with a roster)    the hub's copy of the roster (mode 600) and
                                            ``hub.json`` (instructor, graders, public URL,
                                            subdomains, idle timeout), read by the hub at every
                                            start; the roster is also copied to the course
                                            directory
==========================================  ====================================================

The hub's spawner sets ``JUPYTER_CONFIG_PATH`` to the user's role folder followed by
``CONFIG_DIR``, so the role's settings come first and everyone reads the shared nbgrader file
(also when ``CONFIG_DIR`` is not one of Jupyter's system folders, as in the tests).
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..errors import CourseError
from ..grading.term.intake.roster import ROSTER_FILE, RosterError, read_roster
from .classlist import (DEFAULT_IDLE_TIMEOUT, Accounts, HubRosterError, class_ids, ensure_accounts,
                        grader_ids, write_hub_settings)
from .proxy import HUB_LISTEN, nginx_site, systemd_unit

__all__ = ["HERE", "HUB_CONFIG", "COURSE_ID", "ClassLayout", "setup_class", "main", "nginx_site",
           "systemd_unit", "HUB_LISTEN", "HubSetupError", "readable_solutions",
           "STUDENT_SERVER_EXTENSIONS_OFF", "STUDENT_LAB_PLUGINS_OFF", "INSTRUCTOR_CSP",
           "GRADERS_SERVER_EXTENSIONS"]

HERE = Path(__file__).resolve().parent
#: The hub's configuration: ``jupyterhub -f $(python -c 'import course.hub as h; print(h.HUB_CONFIG)')``.
HUB_CONFIG = HERE / "jupyterhub_config.py"
#: nbgrader's course id (as in the repository's ``nbgrader_config.py``).
COURSE_ID = "game-tree-search"

#: nbgrader's server extensions a student does not need (the instructor's tools), and the course's
#: guard, which would load the formgrader (a wheel install enables it for every server).
STUDENT_SERVER_EXTENSIONS_OFF = (
    "nbgrader.server_extensions.formgrader",
    "nbgrader.server_extensions.course_list",
    "course.formgrader_guard",
)
#: The graders' formgrader: the course's guard (which loads nbgrader's formgrader), nothing else.
GRADERS_SERVER_EXTENSIONS = {
    "course.formgrader_guard": True,
    "nbgrader.server_extensions.formgrader": False,
    "nbgrader.server_extensions.assignment_list": False,
    "nbgrader.server_extensions.course_list": False,
    "nbgrader.server_extensions.validate_assignment": False,
    "nbgrader": False,
    "jupyterlab": False,
    "jupyter_lsp": False,
    "jupyter_server_terminals": False,
    "notebook": False,
    "notebook_shim": False,
    "nbclassic": False,
}
#: nbgrader's JupyterLab plugins a student does not need.
STUDENT_LAB_PLUGINS_OFF = (
    "@jupyter/nbgrader:formgrader",
    "@jupyter/nbgrader:course-list",
    "@jupyter/nbgrader:create-assignment",
)
#: The instructor's server is never framed, by anyone's page (JupyterHub's default, kept on
#: purpose): JupyterLab's Formgrader panel shows a link that opens the formgrader in a tab of its
#: own (course.formgrader_guard).  With ``'self'`` and one origin for the whole hub, a student's
#: page framed the instructor's JupyterLab and acted as her (tests/test_hub.py, the takeover).
INSTRUCTOR_CSP = "frame-ancestors 'none'"
#: Kernels talk to their server over Unix sockets in the user's runtime folder (mode 700), not over
#: TCP ports on 127.0.0.1 that every account on the machine can connect to and listen on
#: (JupyterHub's "Security Overview": KernelManager.transport).  A socket's path has at most 107
#: bytes: the spawner gives each server a short runtime folder (~/.jupyter-run), and a server
#: whose path would still be too long keeps TCP (and says so in its log).
KERNEL_SOCKETS = """\
# Kernels on Unix sockets in this user's runtime folder, not on TCP ports of 127.0.0.1 (which
# any account on the machine can connect to and listen on).
import os as _os
from jupyter_core.paths import jupyter_runtime_dir as _runtime

_longest = _os.path.join(_runtime(), "kernel-00000000-0000-0000-0000-000000000000-ipc-99")
if len(_longest.encode()) <= 104:
    c.KernelManager.transport = "ipc"
else:
    print(f"course.hub: kernels on TCP: {_longest} is too long for a Unix socket")
"""

_HUB_MARK = "# --- JupyterHub (written by python -m course.hub setup) ---"


@dataclass(frozen=True)
class ClassLayout:
    """Where :func:`setup_class` put things."""

    exchange: Path
    config_dir: Path
    course_dir: Path
    instructor: str
    students: tuple[str, ...] = ()
    accounts: Accounts | None = None
    graders: tuple[str, ...] = ()

    def role_config_path(self, role: str) -> str:
        """``JUPYTER_CONFIG_PATH`` for ``role`` (``student`` or ``instructor``)."""
        return os.pathsep.join([str(self.config_dir / f"course-{role}"), str(self.config_dir)])


class HubSetupError(CourseError):
    """The machine cannot host the class as asked (the message says why and what to do)."""


def _world_passes(path: Path) -> bool:
    """Whether every account can reach ``path`` (every folder on the way lets others through)."""
    for part in [path, *path.parents]:
        try:
            mode = os.stat(part).st_mode
        except OSError:
            return False
        if not mode & 0o001 or (part == path and not mode & 0o004):
            return False
    return True


def readable_solutions(package: Path = HERE.parent) -> Path | None:
    """The ``solutions/`` folder beside the ``course`` package, if every account can read it.

    That is the case when the hub's environment has the course installed *editable* from a
    checkout (``pip install -e``) that other accounts can read: every student's ``import course``
    then leads to the model answers and the hidden tests.  None otherwise (a wheel install has
    no ``solutions/`` beside the package).
    """
    folder = package.resolve().parent / "solutions"
    return folder if folder.is_dir() and _world_passes(folder) else None


def _source(source: str | os.PathLike | None) -> Path | None:
    """The checkout ``setup`` copies the course from: ``source``, else the one ``course`` runs from."""
    repo = Path(source) if source else HERE.parents[1]
    if (repo / "solutions").is_dir() and (repo / "nbgrader_config.py").is_file():
        return repo
    if source:
        raise HubSetupError(f"{repo} is not a checkout of the course (no solutions/ or nbgrader_config.py)")
    return None


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.chmod(path, mode)


def _chown_tree(path: Path, uid: int, gid: int) -> None:
    os.chown(path, uid, gid)
    for folder, dirs, files in os.walk(path):
        for name in dirs + files:
            os.chown(os.path.join(folder, name), uid, gid, follow_symlinks=False)


def global_nbgrader_config(exchange: Path, course_id: str = COURSE_ID) -> str:
    """Everyone's ``nbgrader_config.py``: the course and the exchange."""
    return (
        '"""nbgrader for everyone on this hub (written by python -m course.hub setup)."""\n'
        "c = get_config()  # noqa: F821\n"
        f"c.CourseDirectory.course_id = {course_id!r}\n"
        f"c.Exchange.root = {str(exchange)!r}\n"
        "# the course's exchange classes (course/grading/term/intake/exchange): entries 0755, collected by\n"
        "# their owner with the collector's time (the instructor's course config names them too)\n"
        'c.ExchangeFactory.release_assignment = "course.grading.term.intake.exchange.ExchangeReleaseAssignment"\n'
        'c.ExchangeFactory.submit = "course.grading.term.intake.exchange.ExchangeSubmit"\n'
        'c.ExchangeFactory.collect = "course.grading.term.intake.exchange.ExchangeCollect"\n'
    )


def student_server_config() -> str:
    """The students' ``jupyter_server_config.py``: nbgrader's instructor extensions off."""
    off = ",\n".join(f"    {name!r}: False" for name in STUDENT_SERVER_EXTENSIONS_OFF)
    return (
        '"""Students\' Jupyter server (written by python -m course.hub setup)."""\n'
        "c = get_config()  # noqa: F821\n"
        "# Only the instructor grades: these extensions are switched off for students.  (Set in\n"
        "# Python config, they win over the JSON files nbgrader installs, which switch them on.)\n"
        f"c.ServerApp.jpserver_extensions = {{\n{off},\n}}\n"
        + KERNEL_SOCKETS
    )


def instructor_server_config() -> str:
    """The instructor's ``jupyter_server_config.py``: never framed; the formgrader behind its guard."""
    return (
        '"""The instructor\'s Jupyter server (written by python -m course.hub setup)."""\n'
        "c = get_config()  # noqa: F821\n"
        "# Nobody's page may frame this server (JupyterHub's own default, kept on purpose): with a\n"
        "# frameable JupyterLab, a page a student's server serves could act as the instructor.\n"
        "# JupyterLab's Formgrader panel shows a link that opens the formgrader in its own tab.\n"
        "c.ServerApp.tornado_settings = {\n"
        f"    'headers': {{'Content-Security-Policy': {INSTRUCTOR_CSP!r}}},\n"
        "}\n"
        "# The formgrader's pages show students' work: the course's guard loads nbgrader's formgrader\n"
        "# and gives it a strict Content-Security-Policy, cleans what it renders, and lets its\n"
        "# Autograde button grade only with the approved nbgrader_config.py (course/formgrader_guard).\n"
        "c.ServerApp.jpserver_extensions = {'course.formgrader_guard': True,\n"
        "                                   'nbgrader.server_extensions.formgrader': False}\n"
        + KERNEL_SOCKETS
    )


def graders_server_config() -> str:
    """The graders' formgrader's ``jupyter_server_config.py`` (a hub service, the instructor's account)."""
    extensions = ",\n".join(f"    {name!r}: {on}" for name, on in GRADERS_SERVER_EXTENSIONS.items())
    return (
        '"""The graders\' formgrader (written by python -m course.hub setup).\n\n'
        "A hub service running as the instructor's account, for the group formgrade-COURSE: it\n"
        "serves the formgrader and nothing else (no JupyterLab, files, contents, kernels or\n"
        "terminals), and takes scores, comments and review flags only (course.formgrader_guard).\n"
        '"""\n'
        "c = get_config()  # noqa: F821\n"
        f"c.ServerApp.jpserver_extensions = {{\n{extensions},\n}}\n"
        "c.ServerApp.terminals_enabled = False\n"
        "c.ServerApp.default_url = '/formgrader'\n"
        "c.FormgraderGuard.hand_grading_only = True\n"
        "c.ServerApp.tornado_settings = {\n"
        f"    'headers': {{'Content-Security-Policy': {INSTRUCTOR_CSP!r}}},\n"
        "}\n"
    )


def _course_config(course: Path, exchange: Path, course_id: str, repo: Path | None) -> str:
    """The course directory's ``nbgrader_config.py``: the checkout's (or the one there), with the hub's part."""
    if repo is not None:
        text = (repo / "nbgrader_config.py").read_text(encoding="utf-8")
    else:
        text = (course / "nbgrader_config.py").read_text(encoding="utf-8")
        text = text.split(f"\n\n{_HUB_MARK}\n", 1)[0]
    return text + (f"\n\n{_HUB_MARK}\n"
                   "# The class's exchange (shared by every account on the hub) instead of a local one.\n"
                   f"c.Exchange.root = {str(exchange)!r}\n"
                   f"c.CourseDirectory.course_id = {course_id!r}\n")


def setup_class(instructor: str, *, exchange: str | os.PathLike = "/srv/nbgrader/exchange",
                config_dir: str | os.PathLike = "/etc/jupyter", course_dir: str | os.PathLike | None = None,
                source: str | os.PathLike | None = None, course_id: str = COURSE_ID,
                force: bool = False, roster: str | os.PathLike | None = None,
                home_base: str | os.PathLike | None = None, passwords: str | os.PathLike | None = None,
                public_url: str = "", idle_timeout: int = DEFAULT_IDLE_TIMEOUT,
                graders: Sequence[str] = (), subdomains: bool = True,
                allow_readable_solutions: bool = False) -> ClassLayout:
    """Prepare this machine for a class (run as root; the instructor's account must exist).

    ``course_dir`` defaults to ``~INSTRUCTOR/game-tree-search``; ``source`` is a checkout of the
    course's repository, which only root and the instructor should be able to read (default:
    the checkout this package runs from, if it is one; with the course installed from a wheel,
    as on a hub, there is none, and ``source`` is needed to create the course directory, not to
    update it).  An existing course directory is kept (its gradebook and submissions are the
    class's) unless ``force``; its ``nbgrader_config.py`` is brought up to date either way (from
    ``source`` when given, else its own course settings are kept).

    Refused (:class:`HubSetupError`) when the ``course`` package this runs from has a
    ``solutions/`` folder beside it that every account can read (an editable install from a
    readable checkout: every student could read the model answers), unless
    ``allow_readable_solutions``; and subdomains without ``public_url``.

    ``graders``: teaching assistants' accounts (created like students' if missing): they log in,
    and grade by hand in the graders' formgrader (scores and comments only).  ``subdomains``:
    one subdomain per user, the default (``public_url`` then names the hub's host, and DNS and
    the certificate must cover ``*.HOST``).

    With ``roster`` (the course's ``roster.csv``, :mod:`course.grading.term.intake.roster`), the
    students' missing Unix accounts are created (:func:`.classlist.ensure_accounts`, under
    ``home_base``, with random passwords listed in ``passwords`` if given), the roster becomes
    the course directory's ``roster.csv`` (the grading tools' list of students) and the hub's
    copy in ``CONFIG_DIR/course-hub/`` with ``hub.json`` (the instructor, ``public_url``, the
    idle servers' ``idle_timeout``), which ``jupyterhub_config.py`` reads at every start.
    The roster is checked before anything is written.
    """
    account = pwd.getpwnam(instructor)
    exchange, config_dir = Path(exchange), Path(config_dir)
    course = Path(course_dir) if course_dir else Path(account.pw_dir) / course_id
    class_roster = read_roster(roster) if roster is not None else None
    ids = class_ids(class_roster, instructor) if class_roster is not None else []
    if class_roster is not None and not ids:
        # at its next start the hub would delete every student from its database
        raise HubRosterError(f"{class_roster.path}: no students (an id column with one line per student)")
    grader_names = grader_ids(list(graders), instructor, ids)
    if grader_names and class_roster is None:
        raise HubRosterError("graders need the class's roster (--roster): the hub reads both from hub.json")
    if subdomains and class_roster is not None and not public_url:
        raise HubSetupError("one subdomain per user needs the hub's address: --public-url "
                            "https://hub.example.org/ (or --no-subdomains, for a class of trusted students)")
    readable = readable_solutions()
    if readable is not None and not allow_readable_solutions:
        raise HubSetupError(
            f"every account can read {readable}: the course is installed from a checkout that students "
            "can read (pip install -e), so their `import course` leads to the model answers and hidden "
            "tests.  Install it from a wheel into the hub's environment (pip install /path/to/checkout, "
            "without -e; keep the checkout private) and pass --source /path/to/checkout")
    repo = _source(source) if (source or not course.exists() or force) else None
    if repo is None and (force or not course.exists()):
        raise HubSetupError(f"{course} does not exist yet: pass --source /path/to/your/checkout of the "
                            "course (solutions/, exercises/, nbgrader_config.py are copied from it)")

    # 1. The exchange: everyone writes, nobody removes another's files.
    exchange.mkdir(parents=True, exist_ok=True)
    os.chmod(exchange, 0o1777)

    # 2. Everyone's nbgrader settings, and each role's Jupyter settings.
    config_dir.mkdir(parents=True, exist_ok=True)
    _write(config_dir / "nbgrader_config.py", global_nbgrader_config(exchange, course_id))
    _write(config_dir / "course-student" / "jupyter_server_config.py", student_server_config())
    _write(config_dir / "course-student" / "labconfig" / "page_config.json",
           json.dumps({"disabledExtensions": {name: True for name in STUDENT_LAB_PLUGINS_OFF}},
                      indent=2) + "\n")
    _write(config_dir / "course-instructor" / "jupyter_server_config.py", instructor_server_config())
    _write(config_dir / "course-graders" / "jupyter_server_config.py", graders_server_config())

    # 3. The course directory, owned by the instructor (nbgrader checks ownership).
    if force and course.exists():
        shutil.rmtree(course)
    if not course.exists():
        course.mkdir(parents=True)
        for name in ("solutions", "exercises"):
            shutil.copytree(repo / name, course / name,
                            ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    _write(course / "nbgrader_config.py", _course_config(course, exchange, course_id, repo))
    accounts = None
    if class_roster is not None:
        target = course / ROSTER_FILE
        if not (target.exists() and os.path.samefile(target, class_roster.path)):
            shutil.copyfile(class_roster.path, target)
        accounts = ensure_accounts(ids + grader_names, home_base=home_base, passwords=passwords)
        write_hub_settings(config_dir, instructor, class_roster, public_url=public_url,
                           idle_timeout=idle_timeout, graders=grader_names, subdomains=subdomains)
    _write(Path(account.pw_dir) / ".jupyter" / "nbgrader_config.py",
           '"""The formgrader\'s course (written by python -m course.hub setup)."""\n'
           "c = get_config()  # noqa: F821\n"
           f"c.CourseDirectory.root = {str(course)!r}\n"
           "# a formgrader that reads this file is served only behind the course's guard\n"
           "from course.formgrader_guard import guard_this_formgrader  # noqa: E402\n\n"
           "guard_this_formgrader()\n")
    _chown_tree(course, account.pw_uid, account.pw_gid)
    _chown_tree(Path(account.pw_dir) / ".jupyter", account.pw_uid, account.pw_gid)
    # the configuration written above is the one approved for grading (the instructor's approvals,
    # ~/.local/share/course-grading/approved; see course/grading/job/approval.py)
    from course.grading.job.approval import approve_config

    home = Path(account.pw_dir)
    folder = home
    for part in (".local", "share", "course-grading", "approved"):
        folder = folder / part
        if not folder.exists():
            folder.mkdir(mode=0o700)
            os.chown(folder, account.pw_uid, account.pw_gid)
    approve_config(course, store=folder)
    _chown_tree(folder, account.pw_uid, account.pw_gid)
    os.chmod(course, 0o700)
    return ClassLayout(exchange=exchange, config_dir=config_dir, course_dir=course,
                       instructor=instructor, students=tuple(ids), accounts=accounts,
                       graders=tuple(grader_names))


def sandbox_works_for(user: str) -> tuple[bool, str]:
    """Whether bubblewrap starts for ``user`` (autograding refuses without it)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return False, "bubblewrap is not installed (apt-get install bubblewrap)"
    runuser = shutil.which("runuser") or shutil.which("runuser", path="/usr/sbin:/sbin") or "runuser"
    command = [runuser, "-u", user, "--", bwrap, "--ro-bind", "/", "/", "--unshare-all",
               "--die-with-parent", "true"] if os.geteuid() == 0 else [bwrap, "--ro-bind", "/", "/",
                                                                         "--unshare-all", "true"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    return done.returncode == 0, done.stderr.strip()


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m course.hub`` (``setup``, ``config``, ``nginx``, ``systemd``)."""
    parser = argparse.ArgumentParser(prog="python -m course.hub",
                                     description="Prepare a machine for the course on JupyterHub.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("setup", help="exchange, shared configuration, the instructor's course, "
                                     "the students' accounts from the roster")
    p.add_argument("--instructor", required=True, help="the instructor's Unix account")
    p.add_argument("--roster", default=None,
                   help="the class's roster.csv (id column: the students' accounts); run setup "
                        "again after changing it, then restart the hub")
    p.add_argument("--passwords", default=None, metavar="FILE",
                   help="give each new account a random password, listed in FILE (mode 600)")
    p.add_argument("--home-base", default=None, help="where new accounts' homes go (default /home)")
    p.add_argument("--public-url", default="",
                   help="the hub's address as browsers see it, e.g. https://hub.example.org/ "
                        "(behind a TLS proxy: secure cookies whatever the proxy's headers)")
    p.add_argument("--idle-timeout", type=int, default=DEFAULT_IDLE_TIMEOUT, metavar="SECONDS",
                   help=f"stop servers idle this long (default {DEFAULT_IDLE_TIMEOUT})")
    p.add_argument("--exchange", default="/srv/nbgrader/exchange")
    p.add_argument("--config-dir", default="/etc/jupyter")
    p.add_argument("--course-dir", default=None, help="default: ~INSTRUCTOR/game-tree-search")
    p.add_argument("--source", default=None,
                   help="your checkout of the course's repository, private to root and the instructor "
                        "(needed to create the course directory; the hub's environment has the course "
                        "installed from a wheel, without solutions/)")
    p.add_argument("--grader", action="append", default=[], metavar="ACCOUNT",
                   help="a teaching assistant's account (repeat for several): grades by hand in the "
                        "graders' formgrader, nothing else; created like students' accounts if missing")
    p.add_argument("--no-subdomains", action="store_true",
                   help="every user on the hub's one origin (UNSAFE with untrusted students: a page a "
                        "student's server serves can act as whoever opens it); default: one subdomain "
                        "per user, which needs wildcard DNS and a wildcard certificate")
    p.add_argument("--force", action="store_true", help="replace an existing course directory")
    sub.add_parser("config", help="print the path of jupyterhub_config.py")
    n = sub.add_parser("nginx", help="print an nginx site: TLS, forwarding to the hub")
    n.add_argument("--server-name", required=True, help="the hub's host name, e.g. hub.example.org")
    n.add_argument("--certificate", required=True, help="the certificate chain (PEM)")
    n.add_argument("--key", required=True, help="its private key (PEM)")
    n.add_argument("--upstream", default=HUB_LISTEN, help=f"the hub's proxy (default {HUB_LISTEN})")
    n.add_argument("--no-subdomains", action="store_true",
                   help="answer the hub's name only (default: also every *.NAME, one per user)")
    s = sub.add_parser("systemd", help="print a systemd unit for the hub")
    s.add_argument("--memory-max", default="90%",
                   help="memory for the hub and all servers together (systemd MemoryMax)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m course.hub setup|config|nginx|systemd ...``: see :func:`setup_class`, :mod:`.proxy`."""
    args = build_parser().parse_args(argv)
    if args.command == "config":
        print(HUB_CONFIG)
        return 0
    if args.command == "nginx":
        print(nginx_site(args.server_name, args.certificate, args.key, upstream=args.upstream,
                         subdomains=not args.no_subdomains), end="")
        return 0
    if args.command == "systemd":
        print(systemd_unit(HUB_CONFIG, memory_max=args.memory_max), end="")
        return 0
    if os.geteuid() != 0:
        print("python -m course.hub setup: run as root (it writes the exchange and "
              "/etc/jupyter, creates accounts and gives the course to the instructor)", file=sys.stderr)
        return 2
    try:
        layout = setup_class(args.instructor, exchange=args.exchange, config_dir=args.config_dir,
                             course_dir=args.course_dir, source=args.source, force=args.force,
                             roster=args.roster, home_base=args.home_base, passwords=args.passwords,
                             public_url=args.public_url, idle_timeout=args.idle_timeout,
                             graders=args.grader, subdomains=not args.no_subdomains)
    except KeyError:
        print(f"python -m course.hub setup: no Unix account {args.instructor!r}", file=sys.stderr)
        return 2
    except (RosterError, HubRosterError, HubSetupError) as exc:
        print(f"python -m course.hub setup: {exc}", file=sys.stderr)
        return 2
    print(f"exchange      {layout.exchange} (mode 1777)")
    print(f"configuration {layout.config_dir}")
    print(f"course        {layout.course_dir} (owned by {layout.instructor})")
    if layout.accounts is not None:
        print(f"students      {len(layout.students)} on the roster: {len(layout.accounts.created)} "
              f"accounts created ({' '.join(layout.accounts.created) or '-'}), "
              f"{len(layout.accounts.existing)} existed")
        if layout.accounts.passwords is not None:
            print(f"passwords     of the new accounts in {layout.accounts.passwords} (mode 600)")
        if layout.graders:
            print(f"graders       {' '.join(layout.graders)}: the graders' formgrader, hand grading only")
        print(f"hub settings  {layout.config_dir / 'course-hub' / 'hub.json'} "
              "(restart the hub to apply a changed roster)")
        if args.no_subdomains:
            print("subdomains    OFF: every user shares one origin; safe only if every student is trusted")
        else:
            print(f"subdomains    each user at https://USER.{args.public_url.split('://', 1)[-1].split('/')[0]}/ "
                  "(wildcard DNS and certificate needed)")
    else:
        print("students      none: pass --roster roster.csv (the hub reads the class from it)")
    ok, why = sandbox_works_for(args.instructor)
    print("sandbox       " + ("bubblewrap works for the instructor" if ok else
                              f"NOT WORKING for the instructor: {why}; autograding will refuse"))
    print(f"start the hub: jupyterhub -f {HUB_CONFIG}")
    return 0
