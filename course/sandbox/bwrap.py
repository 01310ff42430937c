"""The sandbox itself: a bubblewrap command line and resource limits (trusted side).

Every submission's code runs in its own `bubblewrap <https://github.com/containers/bubblewrap>`_
sandbox (Debian/Ubuntu package ``bubblewrap``; it uses unprivileged user
namespaces and works for root and for ordinary users):

=====================  ======================================================================
what the code sees     how
=====================  ======================================================================
its own namespaces     ``--unshare-all``: user, PID (every process it starts dies with the
                       job: ``--die-with-parent``, and bwrap is PID 1 of the namespace),
                       network (no network at all: only its own empty loopback), IPC, UTS
no privileges          ``--cap-drop ALL``, an unprivileged uid, ``--new-session`` (no terminal);
                       a grader running as root starts it as ``nobody``
the Python runtime     the standard library and ``/usr``, read-only (the grader's own Python,
                       or ``/usr/bin/python3`` under root); the students' packages (the
                       course environment's site-packages: numpy, ...) read-only at
                       ``/packages/N``, with the ``course`` package hidden and no ``.pth``
                       file run
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

__all__ = ["Limits", "SandboxUnavailable", "bwrap_path", "sandbox_command", "check_sandbox",
           "limit_resources", "sandbox_tmp", "student_packages", "descendants", "INSIDE", "SANDBOX_UID"]

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


def _sandbox_python() -> tuple[str, str]:
    """(interpreter, prefix) for the sandbox: the grader's own, or the system's when run as root.

    As root the sandbox is started as ``nobody``, who may not be able to reach the grader's
    interpreter (for example under ``/root``); the system's ``/usr/bin/python3`` serves
    (the sandbox needs the standard library only).
    """
    if os.geteuid() == 0:
        for exe in ("/usr/bin/python3", "/usr/local/bin/python3"):
            if os.access(exe, os.X_OK):
                real = os.path.realpath(exe)
                return real, os.path.dirname(os.path.dirname(real))
    return _python()


def student_packages() -> list[str]:
    """The folders of third-party packages the students' environment offers (read-only inside).

    The course's own environment (the one ``make lab`` gives students): its ``site-packages``,
    so that an answer that imports numpy works when graded as it did under Validate.  Only
    when the sandbox runs the grader's own interpreter (packages are built for it); the
    ``course`` package itself is hidden in them (:func:`sandbox_command`).
    """
    import stat

    exe = os.path.basename(_sandbox_python()[0])
    if exe != f"python{sys.version_info.major}.{sys.version_info.minor}":
        return []                      # another Python than the packages were installed for
    found = []
    for key in ("purelib", "platlib"):
        path = os.path.realpath(sysconfig.get_paths()[key])
        if not os.path.isdir(path) or path in found:
            continue
        if os.geteuid() == 0:          # the sandbox runs as nobody: it must be able to enter
            try:
                if not all(Path(folder).stat().st_mode & stat.S_IXOTH
                           for folder in [path, *map(str, Path(path).parents)]):
                    continue
            except OSError:
                continue
        found.append(path)
    return found


#: Environment of the sandbox's Python besides the clean basics: one thread per numeric library.
SANDBOX_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "MPLBACKEND": "Agg", "MPLCONFIGDIR": "/tmp"}


def sandbox_command(workdir: str | os.PathLike | None = None, *, bwrap: str | None = None,
                    program: str | os.PathLike | None = None, limits: Limits = Limits(),
                    args: tuple[str, ...] = ("/grader/inside.py",)) -> list[str]:
    """The command that runs :mod:`course.sandbox.inside` (or Python with ``args``) in a sandbox.

    The sandbox's writable ``/work``, ``/tmp`` and ``/dev/shm`` are tmpfs of the sizes
    ``limits`` gives; everything else is read-only (``/``, ``/dev``, ``/usr``, the students'
    packages).  ``program`` (a folder holding a copy of ``inside.py``, readable by the
    sandbox's user) is its read-only ``/grader``.  ``workdir`` is not used (kept for callers
    of earlier versions: nothing of the grader's disk is writable inside).
    """
    bwrap = bwrap or bwrap_path()
    if bwrap is None:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed")
    exe, prefix = _sandbox_python()
    stdlib = os.path.join(prefix, "lib", f"python{sys.version_info.major}.{sys.version_info.minor}")
    if exe == os.path.realpath(sys.executable) or prefix == os.path.realpath(sys.base_prefix):
        stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
    command = [
        bwrap,
        "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
        "--uid", "65534", "--gid", "65534", "--hostname", "sandbox",
        "--ro-bind", "/usr", "/usr",
    ]
    for name in ("bin", "lib", "lib64", "lib32", "sbin"):
        path = Path("/") / name
        if path.is_symlink():
            command += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            command += ["--ro-bind", str(path), str(path)]
    if not prefix.startswith("/usr/"):
        command += ["--ro-bind", prefix, prefix]
    if not stdlib.startswith((prefix + os.sep, "/usr/")):
        command += ["--ro-bind", stdlib, stdlib]
    command += [
        "--proc", "/proc", "--dev", "/dev",
        "--perms", "1777", "--size", str(limits.tmp_bytes), "--tmpfs", "/dev/shm",
        "--remount-ro", "/dev",
        "--perms", "1777", "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp",
        "--perms", "0777", "--size", str(limits.work_bytes), "--tmpfs", "/work",
    ]
    packages = []                      # at /packages/N: no path of the grader's shows inside
    for number, path in enumerate(student_packages()):
        inside = f"/packages/{number}"
        command += ["--ro-bind", path, inside]
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


def limit_resources(limits: Limits, *, drop_root: bool = True):
    """A ``preexec_fn``: drop root to ``nobody``, then apply ``limits`` to the sandbox's processes.

    RLIMIT_NPROC counts all processes of the host user, so the limit is that
    user's current count plus ``limits.processes`` (root is exempt from it,
    hence the switch to ``nobody``).
    """
    root = drop_root and os.geteuid() == 0
    processes = _processes_of(SANDBOX_UID if root else os.geteuid()) + limits.processes

    def apply() -> None:
        try:                           # dies with the grader's worker, however that ends
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, 9, 0, 0, 0)    # PR_SET_PDEATHSIG, SIGKILL
        except (OSError, AttributeError):
            pass
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


@functools.lru_cache(maxsize=None)
def check_sandbox(bwrap: str | None = None) -> str:
    """Start one sandbox and return its report; raise :class:`SandboxUnavailable` if none starts.

    The result is cached: the check costs one sandbox start (about 0.1 s).
    """
    import tempfile

    bwrap = bwrap or bwrap_path()
    if bwrap is None:
        raise SandboxUnavailable(
            "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)")
    with tempfile.TemporaryDirectory(prefix="course-sandbox-check-", dir=sandbox_tmp()) as work:
        os.chmod(work, 0o777)
        command = sandbox_command(work, bwrap=bwrap,
                                  args=("-c", "import os; print(os.getuid(), os.getpid())"))
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=30,
                                  stdin=subprocess.DEVNULL, preexec_fn=limit_resources(Limits()))
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SandboxUnavailable(f"bubblewrap could not start: {exc}") from None
    if done.returncode != 0 or not done.stdout.strip():
        why = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SandboxUnavailable(
            f"bubblewrap cannot create a sandbox here ({why}); unprivileged user namespaces may "
            "be disabled (sysctl kernel.unprivileged_userns_clone=1 or "
            "kernel.apparmor_restrict_unprivileged_userns=0)")
    return f"{bwrap}: uid, pid inside = {done.stdout.strip()}"
