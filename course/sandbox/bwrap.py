"""The sandbox itself: a bubblewrap command line and resource limits (trusted side).

Every submission's code runs in its own `bubblewrap <https://github.com/containers/bubblewrap>`_
sandbox (Debian/Ubuntu package ``bubblewrap``; it uses unprivileged user
namespaces and works for root and for ordinary users):

=====================  ======================================================================
what the code sees     how
=====================  ======================================================================
its own namespaces     ``--unshare-all``: user, PID (every process it starts dies with the
                       job: ``--die-with-parent``, and bwrap is PID 1 of the namespace),
                       network (no network at all: only its own empty loopback), IPC, UTS;
                       it can make no user namespace of its own (``--disable-userns``,
                       bubblewrap 0.8.0 and later: no capabilities over new namespaces)
no privileges          ``--cap-drop ALL``, an unprivileged uid, ``--new-session`` (no terminal);
                       a grader running as root starts it as ``nobody``
the Python runtime     ``/usr`` and the course environment's own Python (the one the
                       students' kernels run), read-only; the students' packages (the
                       course environment's site-packages: numpy, ...) read-only at
                       ``/packages/N``, with the ``course`` package hidden and no ``.pth``
                       file run.  Under root, folders ``nobody`` cannot enter (a venv in a
                       home of mode 700) are shown through a private mount namespace
                       (:func:`sandbox_reach`); if the packages cannot be offered, grading
                       stops (:class:`PackagesUnavailable`)
one program            :mod:`course.sandbox.inside`, read-only
a private folder       an empty writable ``/work``, a private ``/tmp`` and ``/dev/shm``: tmpfs
                       of a fixed size (:class:`Limits`); ``/`` and ``/dev`` read-only
nothing else           no HOME, no course directory (``solutions/``, gradebook, other
                       submissions, exchange), no Jupyter runtime files; a clean environment
limits                 address space, file size, number of processes, CPU time (``setrlimit``);
                       memory of all its processes, bytes read back (the grader's side)
=====================  ======================================================================
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Limits", "Layout", "sandbox_layout", "SandboxUnavailable", "PackagesUnavailable",
           "bwrap_path", "sandbox_command", "check_sandbox", "limit_resources", "sandbox_tmp",
           "sandbox_reach", "student_packages", "packages_problem", "reachable", "private_views",
           "descendants", "disables_userns", "INSIDE", "SANDBOX_UID"]

INSIDE = Path(__file__).with_name("inside.py")
"""The program run inside the sandbox."""


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot create a sandbox on this machine."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandbox (``setrlimit`` on the sandboxed process tree)."""

    memory_bytes: int = 1536 * 1024 * 1024
    """Address space of each process (RLIMIT_AS)."""
    file_bytes: int = 16 * 1024 * 1024
    """Largest file it may write (RLIMIT_FSIZE)."""
    processes: int = 32
    """Processes and threads of its user namespace (RLIMIT_NPROC)."""
    cpu_seconds: int = 600
    """CPU time of each process (RLIMIT_CPU); wall-clock limits are the grader's."""
    memory_total_bytes: int = 2048 * 1024 * 1024
    """Resident memory of all its processes together (measured by the grader every 0.2 s)."""
    work_bytes: int = 64 * 1024 * 1024
    """Size of its writable ``/work`` (a tmpfs: memory, never the grader's disk)."""
    tmp_bytes: int = 64 * 1024 * 1024
    """Size of its ``/tmp`` (and, the same again, of ``/dev/shm``), both tmpfs."""
    read_bytes: int = 256 * 1024 * 1024
    """Bytes the grader reads back from one sandbox in all."""
    message_bytes: int = 1024 * 1024
    """Bytes of one message (one value returned, one request) the grader reads back."""
    message_nodes: int = 50_000
    """Values (numbers, strings, list items...) in one message the grader reads back."""
    output_chars: int = 20_000
    """Characters of what one call of the student's function printed that reach a report."""


def bwrap_path() -> str | None:
    """Path of the ``bwrap`` executable, or None."""
    return shutil.which("bwrap") or next(
        (p for p in ("/usr/bin/bwrap", "/usr/local/bin/bwrap") if os.access(p, os.X_OK)), None)


def _python() -> tuple[str, str]:
    """(interpreter, prefix to bind): the base installation, not the virtual environment."""
    prefix = os.path.realpath(sys.base_prefix)
    exe = os.path.realpath(sys.executable)
    if not exe.startswith(prefix + os.sep):
        candidate = os.path.join(prefix, "bin", f"python{sys.version_info.major}.{sys.version_info.minor}")
        exe = candidate if os.path.exists(candidate) else exe
    return exe, prefix


SANDBOX_UID = 65534
"""When the grader runs as root, the sandbox runs as this host user (``nobody``)."""


def reachable(path: str | os.PathLike) -> bool:
    """Whether the sandbox's user can reach ``path``: enter it and every folder above it.

    Always true when the grader is not root (the sandbox then runs as the grader's own user);
    as root, the sandbox runs as ``nobody``, for whom a folder above ``path`` without
    ``o+x`` (a home folder of mode 700 or 750, ``/root``) closes the way.
    """
    import stat

    if os.geteuid() != 0:
        return True
    path = Path(os.path.realpath(path))
    try:
        return all(folder.stat().st_mode & stat.S_IXOTH for folder in [path, *path.parents])
    except OSError:
        return False


# Linux's unshare(2) and mount(2) flags (<sched.h>, <sys/mount.h>)
_CLONE_NEWNS, _MS_BIND, _MS_REC, _MS_PRIVATE = 0x00020000, 4096, 16384, 1 << 18


def _libc():
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _private_view(libc, reach: dict[str, str]) -> None:
    """In a new process, as root: a mount namespace of its own in which each folder of ``reach``
    (``{folder: mount point}``) is also seen at its mount point, a folder ``nobody`` can reach.

    The process then drops to ``nobody`` and starts bwrap, which binds the mount points into
    the sandbox; nothing changes on the host (the view dies with the process), and no
    permission of the instructor's folders is changed.
    """
    import ctypes

    def check(result: int, what: str) -> None:
        if result != 0:
            number = ctypes.get_errno()
            raise OSError(number, f"{what}: {os.strerror(number)}")

    check(libc.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    check(libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None), "mount --make-rprivate /")
    for folder, point in reach.items():
        check(libc.mount(os.fsencode(folder), os.fsencode(point), None, _MS_BIND | _MS_REC, None),
              f"mount --rbind {folder}")


#: :func:`_private_view` tried in a new process: ``python -c _VIEW_CHECK SOURCE POINT``.
_VIEW_CHECK = f"""import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
source, point = sys.argv[1], sys.argv[2]
if libc.unshare({_CLONE_NEWNS}) != 0 or libc.mount(b"none", b"/", None, {_MS_REC | _MS_PRIVATE}, None):
    sys.exit(1)
if libc.mount(os.fsencode(source), os.fsencode(point), None, {_MS_BIND | _MS_REC}, None) != 0:
    sys.exit(1)
sys.exit(0 if os.path.exists(os.path.join(point, "seen")) else 1)
"""


@functools.lru_cache(maxsize=None)
def private_views() -> bool:
    """Whether this process may give a sandbox a private view of folders ``nobody`` cannot reach
    (:func:`_private_view`; root, on Linux).  Tried once, in a new process."""
    import tempfile

    if os.geteuid() != 0 or not sys.platform.startswith("linux"):
        return False
    try:
        with tempfile.TemporaryDirectory(prefix="course-sandbox-check-") as tmp:
            source, point = os.path.join(tmp, "a"), os.path.join(tmp, "b")
            os.mkdir(source)
            os.mkdir(point)
            open(os.path.join(source, "seen"), "w").close()
            done = subprocess.run([sys.executable, "-I", "-S", "-c", _VIEW_CHECK, source, point],
                                  stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
            return done.returncode == 0 and not os.path.exists(os.path.join(point, "seen"))
    except (OSError, subprocess.SubprocessError):
        return False


def _sandbox_python() -> tuple[str, str]:
    """(interpreter, prefix) for the sandbox: the course environment's own Python.

    It is the Python the students' kernels run (Validate) and the one its packages were
    installed for.  As root the sandbox runs as ``nobody``, who may not be able to reach it
    (a pyenv or uv Python under ``/root``, a home folder of mode 700): it is then shown to the
    sandbox through a private view (:func:`private_views`).  Only where that is impossible, the
    system's ``/usr/bin/python3`` serves (and :func:`packages_problem` says what is missing).
    """
    exe, prefix = _python()
    if os.geteuid() == 0 and not (reachable(exe) and reachable(prefix)) and not private_views():
        for system in ("/usr/bin/python3", "/usr/local/bin/python3"):
            if os.access(system, os.X_OK):
                real = os.path.realpath(system)
                return real, os.path.dirname(os.path.dirname(real))
    return exe, prefix


def _environment_packages() -> list[str]:
    """The course environment's folders of third-party packages (``site-packages``)."""
    found, paths = [], sysconfig.get_paths()
    for key in ("purelib", "platlib"):
        path = os.path.realpath(paths[key])
        if os.path.isdir(path) and path not in found:
            found.append(path)
    return found


def _same_python(exe: str) -> bool:
    return os.path.basename(exe) == f"python{sys.version_info.major}.{sys.version_info.minor}"


def student_packages(python: str | None = None) -> list[str]:
    """The folders of third-party packages the students' environment offers (read-only inside).

    The course's own environment (the one ``make lab`` gives students): its ``site-packages``,
    so that an answer that imports numpy works when graded as it did under Validate, wherever
    the environment lives (folders ``nobody`` cannot reach are shown through a private view,
    :func:`sandbox_reach`).  The ``course`` package itself is hidden in them
    (:func:`sandbox_command`).  Empty only where :func:`packages_problem` says why.
    ``python``: the sandbox's interpreter if known (:func:`_sandbox_python`).
    """
    if not _same_python(python or _sandbox_python()[0]):
        return []                      # another Python than the packages were installed for
    return [path for path in _environment_packages() if reachable(path) or private_views()]


def packages_problem() -> str | None:
    """Why the sandbox cannot offer the course environment's packages, or None if it does.

    Grading is refused then (:func:`check_sandbox`): an answer that imports numpy would pass
    Validate and fail every test when graded.
    """
    packages = _environment_packages()
    if not packages:
        return None
    exe = _sandbox_python()[0]
    if not _same_python(exe):
        return (f"the sandbox's user (nobody) cannot reach this Python ({_python()[0]}), and the "
                f"system's ({exe}) is another version: the course environment's packages "
                f"({packages[0]}) cannot be used in the sandbox")
    missing = [path for path in packages if path not in student_packages()]
    if missing:
        return (f"the sandbox's user (nobody) cannot reach the course environment's packages at "
                f"{missing[0]} (a folder above it is not open to other users) and this machine "
                "does not allow a private view of it")
    return None


def sandbox_reach(stage: str | os.PathLike, layout: "Layout | None" = None) -> dict[str, str]:
    """``{folder: mount point}`` for the folders a sandbox binds that ``nobody`` cannot reach.

    The mount points are made in ``stage`` (a folder the sandbox's user can reach); pass the
    result to :func:`sandbox_command` and :func:`limit_resources`.  Empty when the grader is
    not root, or everything is reachable.  ``layout``: :func:`sandbox_layout`, if made already.
    """
    if os.geteuid() != 0 or not private_views():
        return {}
    layout = layout or sandbox_layout()
    folders = [folder for folder, _ in layout.python_binds] + list(layout.packages)
    reach = {}
    for folder in folders:
        if folder not in reach and not reachable(folder):
            point = os.path.join(stage, "reach", str(len(reach)))
            os.makedirs(point, mode=0o755)
            os.chmod(os.path.dirname(point), 0o755)
            reach[folder] = point
    return reach


def _python_binds(python: tuple[str, str] | None = None) -> list[tuple[str, str]]:
    """``(folder, where inside)`` of the sandbox's Python outside ``/usr``: its prefix, its
    standard library if apart (bound where the interpreter looks for them).  ``python``:
    :func:`_sandbox_python`'s answer, if known."""
    exe, prefix = python or _sandbox_python()
    stdlib = os.path.join(prefix, "lib", f"python{sys.version_info.major}.{sys.version_info.minor}")
    if exe == os.path.realpath(sys.executable) or prefix == os.path.realpath(sys.base_prefix):
        stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
    binds = []
    if not prefix.startswith("/usr/"):
        binds.append((prefix, prefix))
    if not stdlib.startswith((prefix + os.sep, "/usr/")):
        binds.append((stdlib, stdlib))
    return binds


@dataclass(frozen=True)
class Layout:
    """What a sandbox shows of this machine: its Python and the students' packages.

    Made once per sandbox started (:func:`sandbox_layout`) and handed to :func:`sandbox_reach`
    and :func:`sandbox_command`, which used to find each part again (the interpreter seven
    times, the packages three times per start: a third of the grader's CPU per start).  Not
    kept between starts: a folder's permissions may change between two submissions.
    """

    python: tuple[str, str]
    """(interpreter, prefix): :func:`_sandbox_python`."""
    python_binds: tuple[tuple[str, str], ...]
    """:func:`_python_binds`."""
    packages: tuple[str, ...]
    """:func:`student_packages`."""


def sandbox_layout() -> Layout:
    """The :class:`Layout` of a sandbox started now."""
    python = _sandbox_python()
    return Layout(python, tuple(_python_binds(python)), tuple(student_packages(python[0])))


@functools.lru_cache(maxsize=None)
def disables_userns(bwrap: str | None) -> bool:
    """Whether ``bwrap`` can forbid user namespaces inside the sandbox (``--disable-userns``,
    bubblewrap 0.8.0 and later; asked once per process with ``bwrap --help``)."""
    if bwrap is None:
        return False
    try:
        done = subprocess.run([bwrap, "--help"], stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return "--disable-userns" in done.stdout + done.stderr


@functools.lru_cache(maxsize=None)
def counts_own_processes(bwrap: str | None) -> bool:
    """Whether a sandbox's processes are counted apart from every other process of its host user.

    RLIMIT_NPROC counts the processes of a user; since Linux 5.14 it counts them per user
    namespace, and each sandbox has a user namespace of its own where ``bwrap`` makes one
    (``--unshare-user``, passed with ``--disable-userns``).  Then the sandbox's own Python sets its
    limit (``COURSE_PROCESS_LIMIT``) and counts only its own processes.  Elsewhere the limit
    counts every process of the host user (``nobody``, or the grader's user), those of another
    sandbox graded beside it too.
    """
    import platform

    try:
        version = tuple(int(part) for part in platform.release().split("-")[0].split(".")[:2])
    except ValueError:
        return False
    return version >= (5, 14) and disables_userns(bwrap)


#: Where each sandbox counts its own processes (:func:`counts_own_processes`), the limit of the
#: host user's processes is this many sandboxes' worth above its count at the start: a bound on
#: all of them together if a sandbox's own limit were not set, never reached by a few side by side.
SIDE_BY_SIDE = 64

#: Environment of the sandbox's Python besides the clean basics: one thread per numeric library.
SANDBOX_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "MPLBACKEND": "Agg", "MPLCONFIGDIR": "/tmp"}


def sandbox_command(workdir: str | os.PathLike | None = None, *, bwrap: str | None = None,
                    program: str | os.PathLike | None = None, limits: Limits = Limits(),
                    args: tuple[str, ...] = ("/grader/inside.py",),
                    reach: dict[str, str] | None = None,
                    layout: Layout | None = None) -> list[str]:
    """The command that runs :mod:`course.sandbox.inside` (or Python with ``args``) in a sandbox.

    The sandbox's writable ``/work``, ``/tmp`` and ``/dev/shm`` are tmpfs of the sizes
    ``limits`` gives; everything else is read-only (``/``, ``/dev``, ``/usr``, the students'
    packages).  ``program`` (a folder holding a copy of ``inside.py``, readable by the
    sandbox's user) is its read-only ``/grader``.  ``reach`` (:func:`sandbox_reach`) names the
    mount points of folders the sandbox's user cannot reach; the same mapping must go to
    :func:`limit_resources`.  ``layout``: :func:`sandbox_layout`, if made already (the same
    one as given to :func:`sandbox_reach`).  ``workdir`` is not used (kept for callers of
    earlier versions: nothing of the grader's disk is writable inside).
    """
    bwrap = bwrap or bwrap_path()
    if bwrap is None:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed")
    reach = reach or {}
    layout = layout or sandbox_layout()
    exe = layout.python[0]
    command = [
        bwrap,
        "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
        # no user namespace of its own inside (one would give its code every capability over
        # new network and mount namespaces: the kernel's most attacked code)
        *(["--unshare-user", "--disable-userns"] if disables_userns(bwrap) else []),
        "--uid", "65534", "--gid", "65534", "--hostname", "sandbox",
        "--ro-bind", "/usr", "/usr",
    ]
    for name in ("bin", "lib", "lib64", "lib32", "sbin"):
        path = Path("/") / name
        if path.is_symlink():
            command += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            command += ["--ro-bind", str(path), str(path)]
    for folder, inside in layout.python_binds:    # where the interpreter looks for them
        command += ["--ro-bind", reach.get(folder, folder), inside]
    command += [
        "--proc", "/proc", "--dev", "/dev",
        "--perms", "1777", "--size", str(limits.tmp_bytes), "--tmpfs", "/dev/shm",
        "--remount-ro", "/dev",
        "--perms", "1777", "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp",
        "--perms", "0777", "--size", str(limits.work_bytes), "--tmpfs", "/work",
    ]
    packages = []                      # at /packages/N: no path of the grader's shows inside
    for number, path in enumerate(layout.packages):
        inside = f"/packages/{number}"
        command += ["--ro-bind", reach.get(path, path), inside]
        if os.path.isdir(os.path.join(path, "course")):      # an installed course: not inside
            command += ["--tmpfs", f"{inside}/course", "--remount-ro", f"{inside}/course"]
        packages.append(inside)
    command += [
        *(["--ro-bind", str(Path(program).resolve()), "/grader"] if program is not None else []),
        "--remount-ro", "/",
        "--chdir", "/work", "--clearenv",
        "--setenv", "HOME", "/work", "--setenv", "PATH", "/usr/bin:/bin",
        "--setenv", "PYTHONHASHSEED", "0", "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
        "--setenv", "LANG", "C.UTF-8", "--setenv", "COURSE_STUDENT_PATH", os.pathsep.join(packages),
        "--setenv", "COURSE_IN_SANDBOX", "1",
        *(["--setenv", "COURSE_PROCESS_LIMIT", str(limits.processes)]
          if counts_own_processes(bwrap) else []),
    ]
    for key, value in SANDBOX_ENV.items():
        command += ["--setenv", key, value]
    command += [exe, "-I", "-S", "-X", "utf8", *args]
    return command


def sandbox_tmp() -> str:
    """Where a sandbox's folders are made: ``$TMPDIR``, if the sandbox's user can reach it.

    When the grader runs as root the sandbox runs as ``nobody``, who must be able to enter
    the folders bound into it; a private ``$TMPDIR`` (mode 700 somewhere) is then replaced by
    ``/tmp``.
    """
    import stat
    import tempfile

    base = tempfile.gettempdir()
    if os.geteuid() != 0:
        return base
    path = Path(base).resolve()
    for folder in [path, *path.parents]:
        try:
            if not folder.stat().st_mode & stat.S_IXOTH:
                return "/tmp"
        except OSError:
            return "/tmp"
    return base


def descendants(pid: int) -> list[int]:
    """Process ids below ``pid`` (Linux /proc; empty elsewhere)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as handle:
                ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _processes_of(uid: int) -> int:
    """How many processes the host user ``uid`` runs now."""
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += 1
            except OSError:
                pass
    return count


def limit_resources(limits: Limits, *, drop_root: bool = True,
                    reach: dict[str, str] | None = None, own_count: bool = False):
    """A ``preexec_fn``: drop root to ``nobody``, then apply ``limits`` to the sandbox's processes.

    RLIMIT_NPROC counts all processes of the host user, so the limit is that
    user's current count plus ``limits.processes`` (root is exempt from it,
    hence the switch to ``nobody``).  ``own_count`` (:func:`counts_own_processes`, the sandbox
    sets ``limits.processes`` on itself): the host user's limit is only a bound on all sandboxes
    together (:data:`SIDE_BY_SIDE`), so that no sandbox's processes count against another's.
    ``reach`` (:func:`sandbox_reach`): the folders shown at their mount points first, in a mount
    namespace of the new process's own.
    """
    root = drop_root and os.geteuid() == 0
    processes = _processes_of(SANDBOX_UID if root else os.geteuid()) \
        + limits.processes * (SIDE_BY_SIDE if own_count else 1)
    try:
        libc = _libc()
    except (OSError, AttributeError):
        libc = None
    if reach and (not root or libc is None):
        raise SandboxUnavailable("folders can be shown to the sandbox's user only by root on Linux")

    def apply() -> None:
        try:                           # dies with the grader's worker, however that ends
            libc.prctl(1, 9, 0, 0, 0)                                   # PR_SET_PDEATHSIG, SIGKILL
        except (OSError, AttributeError):
            pass
        if reach:
            _private_view(libc, reach)
        if root:
            os.setgroups([])
            os.setgid(SANDBOX_UID)
            os.setuid(SANDBOX_UID)
        for kind, value in ((resource.RLIMIT_AS, limits.memory_bytes),
                            (resource.RLIMIT_FSIZE, limits.file_bytes),
                            (resource.RLIMIT_NPROC, processes),
                            (resource.RLIMIT_CPU, limits.cpu_seconds),
                            (resource.RLIMIT_CORE, 0)):
            try:
                resource.setrlimit(kind, (value, value))
            except (ValueError, OSError):
                pass
    return apply


#: What :func:`check_sandbox` runs inside: who it is, and that each folder of packages reads.
_PROBE = """import os
print(os.getuid(), os.getpid())
for folder in filter(None, os.environ.get("COURSE_STUDENT_PATH", "").split(os.pathsep)):
    try:
        names = sorted(os.listdir(folder))
        meta = [os.path.join(folder, n, "METADATA") for n in names if n.endswith(".dist-info")]
        if meta:
            open(meta[0], "rb").close()
    except OSError as exc:
        print("unreadable", folder, type(exc).__name__)
"""


class PackagesUnavailable(SandboxUnavailable):
    """The sandbox starts, but cannot offer the course environment's packages (numpy, ...)."""


@functools.lru_cache(maxsize=None)
def check_sandbox(bwrap: str | None = None) -> str:
    """Start one sandbox and return its report; raise :class:`SandboxUnavailable` if none starts.

    Raises :class:`PackagesUnavailable` if a sandbox starts but the course environment's
    packages are missing or unreadable in it (:func:`packages_problem`): an answer that
    imports numpy would pass Validate and fail when graded, so grading is refused instead.
    The result is cached: the check costs one sandbox start (about 0.1 s).
    """
    import tempfile

    bwrap = bwrap or bwrap_path()
    if bwrap is None:
        raise SandboxUnavailable(
            "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)")
    with tempfile.TemporaryDirectory(prefix="course-sandbox-check-", dir=sandbox_tmp()) as work:
        os.chmod(work, 0o755)
        try:
            reach = sandbox_reach(work)
            command = sandbox_command(work, bwrap=bwrap, args=("-c", _PROBE), reach=reach)
            done = subprocess.run(command, capture_output=True, text=True, timeout=30,
                                  stdin=subprocess.DEVNULL,
                                  preexec_fn=limit_resources(Limits(), reach=reach))
        except (OSError, subprocess.SubprocessError) as exc:
            raise SandboxUnavailable(f"bubblewrap could not start: {exc}") from None
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        why = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SandboxUnavailable(
            f"bubblewrap cannot create a sandbox here ({why}); unprivileged user namespaces may "
            "be disabled (sysctl kernel.unprivileged_userns_clone=1 or "
            "kernel.apparmor_restrict_unprivileged_userns=0)")
    problem = packages_problem()
    if problem is None and any(line.startswith("unreadable ") for line in lines):
        problem = ("the sandbox's user (nobody) cannot read the course environment's packages "
                   f"at {', '.join(student_packages())} (files not readable by other users: "
                   "was the environment made with umask 077?)")
    if problem is not None:
        raise PackagesUnavailable(
            f"{problem}. An answer that imports them would pass Validate and fail when graded, so "
            "grading stops: make the environment readable by other users (chmod -R o+rX), or "
            "grade as the user who owns it (not root)")
    return f"{bwrap}: uid, pid inside = {lines[0]}"
