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
                       or ``/usr/bin/python3`` under root); no site-packages, so no
                       ``course``, no nbgrader, no ``.pth`` files
one program            :mod:`course.sandbox.inside`, read-only
a private folder       an empty writable ``/work`` (deleted after the job), a private ``/tmp``
nothing else           no HOME, no course directory (``solutions/``, gradebook, other
                       submissions, exchange), no Jupyter runtime files; a clean environment
limits                 address space, file size, number of processes, CPU time (``setrlimit``)
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
           "limit_resources", "INSIDE", "SANDBOX_UID"]

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


def sandbox_command(workdir: str | os.PathLike, *, bwrap: str | None = None,
                    program: str | os.PathLike | None = None,
                    args: tuple[str, ...] = ("/grader/inside.py",)) -> list[str]:
    """The command that runs :mod:`course.sandbox.inside` (or Python with ``args``) in a sandbox.

    ``workdir`` (an empty folder of the grader's) becomes the sandbox's
    writable ``/work``; ``program`` (a folder holding a copy of ``inside.py``,
    readable by the sandbox's user) its read-only ``/grader``.
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
        "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
        "--bind", str(Path(workdir).resolve()), "/work",
        *(["--ro-bind", str(Path(program).resolve()), "/grader"] if program is not None else []),
        "--chdir", "/work", "--clearenv",
        "--setenv", "HOME", "/work", "--setenv", "PATH", "/usr/bin:/bin",
        "--setenv", "PYTHONHASHSEED", "0", "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
        "--setenv", "LANG", "C.UTF-8",
        exe, "-I", "-S", "-X", "utf8", *args,
    ]
    return command


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
    with tempfile.TemporaryDirectory(prefix="course-sandbox-check-") as work:
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
