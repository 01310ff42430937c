"""A whole class on a real JupyterHub, end to end, on this machine (issue 14).

A JupyterHub (``course/hub/jupyterhub_config.py``, with a test password instead of PAM)
behind configurable-http-proxy spawns each user's JupyterLab as that user's own Unix account
(``LocalProcessSpawner``).  The accounts are real: an instructor and three students, created
for the test with random names and removed after it, so nbgrader's exchange works with real
owners and modes (``python -m course.hub setup`` prepared it: mode 1777, a shared
``nbgrader_config.py``, the instructor's course directory).

The journey: the instructor releases ``a1_minimax`` to the exchange; the students log in and
fetch it, one by the hub (the Assignment List's REST API of their own server, through the
proxy), one with nbgrader's commands in their account (``runuser``), and, when Chromium and
Playwright are here, one in the browser (login page, *Assignment List*, Fetch, Submit); one
solves it, one submits the release unchanged, one submits the solution plus a cell that tries
to read the exchange, the other homes and the course, and to write the gradebook.  The
instructor collects, autogrades with ``python -m course.grading autograde`` (sandboxed),
writes feedback and releases it; each student fetches their feedback and sees exactly their
score.  The instructor's formgrader is served with ``frame-ancestors 'self'``, the students'
servers keep JupyterHub's ``'none'`` and have no formgrader.

Skipped, with the reason, where it cannot run: not root, no ``useradd``/``runuser``, no
node/npm (or configurable-http-proxy cannot be installed), bubblewrap not working for an
unprivileged user, JupyterHub not installed (``pip install -e '.[hub]'``).  Everything the test
made (accounts, processes, files) is removed afterwards, also when it fails.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import csv
import http.cookiejar
import importlib.util
import json
import os
import re
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import uuid
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.hub, pytest.mark.nbgrader]

REPO = Path(__file__).resolve().parents[1]
ASSIGNMENT = "a1_minimax"
NOTEBOOK = "minimax"
COURSE_ID = "game-tree-search"
CHP_VERSION = "4"
BIN = Path(sys.executable).parent   # replaced by the class's environment (see _class_bin)
#: The class's Python environment (the course, nbgrader, JupyterHub), which every account runs:
#: this test's own if all users can read it, else one made with the system's Python in a shared
#: cache folder (once per checkout and pyproject.toml; about 2 minutes the first time).
SHARED_VENVS = Path(os.environ.get("COURSE_HUB_VENVS", "/var/cache/course-hub"))
CHP_HOME = Path(os.environ.get("COURSE_HUB_CHP_DIR")
                or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "course-hub" / "chp")


# --- can it run here? ----------------------------------------------------------------------------

def _world_readable_path(path: Path) -> bool:
    """Whether every folder on the way to ``path`` lets other users through."""
    for part in [path, *path.parents]:
        if part.exists() and not os.stat(part).st_mode & 0o001:
            return False
    return True


def _run_async(coroutine):
    """``asyncio.run`` in a thread of its own: in ``make test`` the browser tests' Playwright (its
    sync API) keeps an event loop running in the main thread, where ``asyncio.run`` refuses."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _tool(name: str) -> str | None:
    """A system command, also from the sbin folders (root's PATH may lack them)."""
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin:/usr/bin:/bin")


def _why_not() -> str | None:
    if sys.platform != "linux":
        return "the JupyterHub test needs Linux (real Unix accounts)"
    if os.geteuid() != 0:
        return "the JupyterHub test creates Unix accounts and runs a hub as root: run it as root"
    for tool in ("useradd", "userdel", "runuser"):
        if _tool(tool) is None:
            return f"the JupyterHub test needs {tool} (package passwd / util-linux)"
    if shutil.which("node") is None or shutil.which("npm") is None:
        return "the JupyterHub test needs node and npm (for configurable-http-proxy)"
    if shutil.which("bwrap") is None:
        return "the JupyterHub test needs bubblewrap for sandboxed autograding (apt-get install bubblewrap)"
    if _tool("nginx") is None:
        return "the JupyterHub test needs nginx, the TLS proxy in front of the hub (apt-get install nginx)"
    if _tool("openssl") is None:
        return "the JupyterHub test needs openssl for its self-signed certificate (apt-get install openssl)"
    return None


def _usable_by_all(python: Path) -> bool:
    return all(_world_readable_path(Path(p)) for p in (python, os.path.realpath(python)))


def _tree_digest(*parts: Path) -> str:
    """A digest of the files under ``parts`` (names and contents): when the course's code changed."""
    import hashlib

    digest = hashlib.sha1()
    for part in parts:
        files = sorted(part.rglob("*")) if part.is_dir() else [part]
        for file in files:
            if file.is_file() and "__pycache__" not in file.parts and file.suffix != ".pyc":
                digest.update(str(file.relative_to(REPO)).encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()[:16]


def _course_wheel(folder: Path) -> Path:
    """The course built as a wheel (what ``pip install CHECKOUT`` installs: the package, no solutions/)."""
    build = folder / "src"
    shutil.rmtree(build, ignore_errors=True)
    build.mkdir(parents=True)
    shutil.copytree(REPO / "course", build / "course", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, build / name)
    wheels = folder / "wheels"
    shutil.rmtree(wheels, ignore_errors=True)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels), str(build)],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        pytest.skip(f"cannot build the course's wheel: {(done.stderr.strip().splitlines() or ['?'])[-1]}")
    shutil.rmtree(build, ignore_errors=True)
    return next(wheels.glob("course-*.whl"))


def _class_bin() -> Path:
    """The ``bin`` folder of the class's environment: the course installed **from a wheel**, as the
    guide says (``pip install CHECKOUT``, never ``-e``), so that no account's ``import course`` leads
    to a checkout with ``solutions/``; with JupyterHub.  Made with the system's (or this) Python in a
    shared cache folder that every account can read, once per ``pyproject.toml`` (about 2 minutes);
    the course's wheel is reinstalled whenever its code changed (seconds)."""
    import hashlib

    base = next((Path(p) for p in (getattr(sys, "_base_executable", ""), "/usr/bin/python3", "/usr/local/bin/python3")
                 if p and Path(p).exists() and _usable_by_all(Path(p))), None)
    if base is None:
        pytest.skip("no Python that every account can run (the class's environment is made with it)")
    key = hashlib.sha1(str(REPO).encode() + (REPO / "pyproject.toml").read_bytes()).hexdigest()[:12]
    venv = SHARED_VENVS / f"venv-{key}"
    for old in SHARED_VENVS.glob("venv-*"):        # environments of checkouts that are gone
        with contextlib.suppress(OSError):
            if old != venv and not Path((old / ".installed").read_text().strip()).exists():
                shutil.rmtree(old, ignore_errors=True)
    code = _tree_digest(REPO / "course", REPO / "pyproject.toml")
    if (venv / ".installed").exists() and (venv / ".course-code").exists() \
            and (venv / ".course-code").read_text().strip() == code:
        return venv / "bin"
    SHARED_VENVS.mkdir(parents=True, exist_ok=True)
    os.chmod(SHARED_VENVS, 0o755)
    wheel = _course_wheel(SHARED_VENVS / f"build-{key}")
    if not (venv / ".installed").exists():
        shutil.rmtree(venv, ignore_errors=True)
        steps = [[str(base), "-m", "venv", str(venv)],
                 [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", f"{wheel}[hub]"]]
    else:
        steps = [[str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall",
                  str(wheel)]]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            pytest.skip(f"could not make the class's environment ({' '.join(step[-3:])}): "
                        + (done.stderr.strip().splitlines() or ["?"])[-1])
    shutil.rmtree(wheel.parent.parent, ignore_errors=True)
    (venv / ".installed").write_text(str(REPO))
    (venv / ".course-code").write_text(code)
    return venv / "bin"


def _chp() -> Path:
    """configurable-http-proxy, installed with npm into a cache folder (once)."""
    exe = CHP_HOME / "node_modules" / ".bin" / "configurable-http-proxy"
    if exe.exists():
        return exe
    CHP_HOME.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(CHP_HOME),
                           f"configurable-http-proxy@^{CHP_VERSION}"],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0 or not exe.exists():
        pytest.skip("could not install configurable-http-proxy with npm: "
                    + (done.stderr.strip().splitlines() or ["?"])[-1])
    return exe


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- names: the hub and one subdomain per user, all on this machine ---------------------------

#: The hub's host name in the test (``.test`` is reserved: it never resolves on the internet).
#: Each user's server is at ``https://NAME.hub.test:PORT/user/NAME/``; this process resolves
#: ``hub.test`` and every ``*.hub.test`` to 127.0.0.1 (:func:`_resolve_hub_names`), Chromium
#: with ``--host-resolver-rules``.
DOMAIN = "hub.test"
CHROMIUM_RESOLVER = f"--host-resolver-rules=MAP *.{DOMAIN} 127.0.0.1, MAP {DOMAIN} 127.0.0.1"


@contextlib.contextmanager
def _resolve_hub_names():
    """``hub.test`` and ``*.hub.test`` resolve to 127.0.0.1 in this process (urllib, tornado's
    websocket client), as wildcard DNS makes them for a real hub.  Other names are untouched."""
    original = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        if isinstance(host, bytes):
            host = host.decode()
        if isinstance(host, str) and (host == DOMAIN or host.endswith("." + DOMAIN)):
            host = "127.0.0.1"
        return original(host, *args, **kwargs)

    socket.getaddrinfo = getaddrinfo
    try:
        yield
    finally:
        socket.getaddrinfo = original


# --- the class ---------------------------------------------------------------------------------

@dataclass
class Hub:
    base: Path
    url: str            # https, through nginx: the hub's own host
    token: str
    passwords: dict[str, str]
    instructor: str
    students: list[str]
    layout: object
    tls: ssl.SSLContext | None = None     # trusts the test's self-signed certificate only
    cafile: str = ""
    proc: subprocess.Popen | None = None
    log: Path | None = None
    timings: dict[str, float] = field(default_factory=dict)
    created: list[str] = field(default_factory=list)     # accounts to remove afterwards
    restart: object = None
    graders: list[str] = field(default_factory=list)
    port: int = 0                                        # nginx's TLS port

    def origin(self, host: str) -> str:
        return f"https://{host}:{self.port}"

    def server_url(self, user: str) -> str:
        """Where ``user``'s server is: their own subdomain."""
        return f"{self.origin(f'{user}.{DOMAIN}')}/user/{user}"

    def service_url(self, name: str = COURSE_ID) -> str:
        """Where a hub service is (JupyterHub's subdomain for it: NAME--service)."""
        return f"{self.origin(f'{name}--service.{DOMAIN}')}/services/{name}"

    def _absolute(self, path: str) -> str:
        """``/user/NAME/...`` on NAME's subdomain, everything else on the hub's host."""
        found = re.match(r"/user/([^/]+)(/.*)?$", path)
        return self.server_url(found.group(1)) + (found.group(2) or "") if found else self.url + path

    # the hub's REST API, as the test's service (admin of users and servers)
    def api(self, path: str, method: str = "GET", data: dict | None = None, *, base: str = "/hub/api",
            form: dict | None = None, timeout: float = 60) -> tuple[int, dict | str]:
        body, headers = None, {"Authorization": f"token {self.token}"}
        if data is not None:
            body, headers["Content-Type"] = json.dumps(data).encode(), "application/json"
        if form is not None:
            body = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        request = urllib.request.Request(self._absolute(base + path), data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=timeout, context=self.tls) as response:
                text = response.read().decode()
                status = response.status
        except urllib.error.HTTPError as exc:
            text, status = exc.read().decode(errors="replace"), exc.code
        try:
            return status, json.loads(text) if text else {}
        except json.JSONDecodeError:
            return status, text

    def head(self, path: str) -> dict[str, str]:
        """The response headers of a page (names in lower case)."""
        request = urllib.request.Request(self._absolute(path), headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=60, context=self.tls) as response:
            return {k.lower(): v for k, v in response.headers.items()}

    def home(self, user: str) -> Path:
        import pwd

        return Path(pwd.getpwnam(user).pw_dir)

    def role(self, user: str) -> str:
        return "instructor" if user == self.instructor else "student"    # graders' servers: students'

    def get(self, url: str, session=None) -> tuple[int, dict, str]:
        """GET ``url`` (absolute) with a logged-in opener, or the test's token: status, headers, body."""
        if session is None:
            request = urllib.request.Request(url, headers={"Authorization": f"token {self.token}"})
            opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=self.tls))
        else:
            request, opener = urllib.request.Request(url), session
        try:
            with opener.open(request, timeout=120) as response:
                return response.status, {k.lower(): v for k, v in response.headers.items()}, \
                    response.read().decode(errors="replace")
        except urllib.error.HTTPError as exc:
            return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read().decode(errors="replace")

    def run_as(self, user: str, *args: str, cwd: Path | None = None, check: bool = True,
               timeout: float = 300, input_text: str | None = None) -> subprocess.CompletedProcess:
        """A command in ``user``'s account, with the environment the hub gives their server."""
        env = ["env", "-i", f"HOME={self.home(user)}", f"USER={user}", f"LOGNAME={user}",
               f"PATH={BIN}:/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8",
               f"JUPYTER_CONFIG_PATH={self.layout.role_config_path(self.role(user))}",
               f"JUPYTER_RUNTIME_DIR={self.home(user) / '.jupyter-run'}"]
        done = subprocess.run([_tool("runuser"), "-u", user, "--", *env, *args], cwd=str(cwd or self.home(user)),
                              capture_output=True, text=True, timeout=timeout, input=input_text)
        if check and done.returncode != 0:
            raise AssertionError(f"{user}: {' '.join(args)} failed ({done.returncode}):\n"
                                 f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        return done

    def start_server(self, user: str, timeout: float = 150) -> None:
        status, body = self.api(f"/users/{user}/server", "POST")
        assert status in (201, 202), (status, body, self.log_tail())
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status, model = self.api(f"/users/{user}")
            server = (model.get("servers") or {}).get("", {}) if isinstance(model, dict) else {}
            if server.get("ready"):
                return
            time.sleep(0.5)
        raise AssertionError(f"{user}'s server did not start in {timeout} s\n{self.log_tail()}")

    def server_pids(self, user: str) -> list[int]:
        import pwd

        uid = pwd.getpwnam(user).pw_uid
        return [pid for pid, owner in _processes() if owner == uid]

    def log_tail(self, lines: int = 60) -> str:
        if self.log is None or not self.log.exists():
            return ""
        return "hub log:\n" + "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


def _processes() -> list[tuple[int, int]]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                found.append((int(entry), os.stat(f"/proc/{entry}").st_uid))
    return found


def _rss_kib(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total


def _kill_users_processes(uids: set[int]) -> None:
    """End the processes the test's accounts still run (their servers, kernels), by pid."""
    for _ in range(3):
        left = [pid for pid, uid in _processes() if uid in uids]
        if not left:
            return
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.5)


HUB_TEST_CONFIG = """\
# The course's hub, as tests/test_hub.py runs it: the shipped configuration (PAM logins, the
# roster, the idle culler), then what differs: ports, the state's folder, the test's service.
load_subconfig({config!r})
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{hub_port}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_api_port}"
c.ConfigurableHTTPProxy.command = [{chp!r}]
c.ConfigurableHTTPProxy.pid_file = {base!r} + "/hub/proxy.pid"
c.JupyterHub.db_url = "sqlite:///" + {base!r} + "/hub/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = {base!r} + "/hub/cookie_secret"
for _service in c.JupyterHub.services:          # the graders' formgrader on a free port
    if _service["name"] == {course!r}:
        _service["url"] = "http://127.0.0.1:{graders_port}"
c.JupyterHub.services = c.JupyterHub.services + [{{"name": "course-test", "api_token": {token!r}}}]
c.JupyterHub.load_roles = c.JupyterHub.load_roles + [{{
    "name": "course-test",
    "scopes": ["admin:users", "admin:servers", "access:servers", "read:users", "list:services", "read:services"],
    "services": ["course-test"],
}}]
"""


@pytest.fixture(scope="module")
def hub():
    reason = _why_not()
    if reason:
        pytest.skip(reason)
    chp = _chp()
    global BIN
    BIN = _class_bin()
    import pwd

    from course.hub import HUB_CONFIG, ClassLayout, sandbox_works_for

    tag = secrets.token_hex(3)
    instructor = f"ch{tag}i"
    students = [f"ch{tag}s{i}" for i in (1, 2, 3)]
    grader = f"ch{tag}g"
    base = Path(tempfile.mkdtemp(prefix="course-hub-", dir="/tmp"))
    os.chmod(base, 0o755)
    created: list[str] = []
    state: dict = {"proc": None, "nginx": None}
    hub = None
    names = _resolve_hub_names()
    names.__enter__()
    try:
        (base / "home").mkdir(mode=0o755)
        (base / "hub").mkdir(mode=0o700)
        passwords = {instructor: secrets.token_urlsafe(12)}
        subprocess.run([_tool("useradd"), "--create-home", "--home-dir", str(base / "home" / instructor),
                        "--shell", "/bin/bash", "--user-group", instructor],
                       check=True, capture_output=True, text=True)
        created.append(instructor)
        os.chmod(base / "home" / instructor, 0o700)
        subprocess.run([_tool("chpasswd")], input=f"{instructor}:{passwords[instructor]}\n", check=True,
                       capture_output=True, text=True)
        ok, why = sandbox_works_for(instructor)
        if not ok:
            pytest.skip(f"bubblewrap does not start for an unprivileged user here: {why}")
        # The class: a roster in the course's format; setup creates the students' and the grader's
        # accounts from it (random passwords, real PAM logins) and writes the hub's copy.  It runs
        # as the guide says: root, the class's environment (the course from a wheel), the course
        # copied from a checkout only root can read.
        created.extend([*students, grader])
        roster = base / "roster.csv"
        roster.write_text("id,first_name,last_name,email\n" + "".join(
            f"{s},Student,{i},{s}@example.org\n" for i, s in enumerate(students, 1)), encoding="utf-8")
        checkout = base / "private" / "game-tree-search"          # root's checkout of the course
        checkout.mkdir(parents=True)
        os.chmod(base / "private", 0o700)
        for name in ("solutions", "exercises"):
            shutil.copytree(REPO / name, checkout / name, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        shutil.copy2(REPO / "nbgrader_config.py", checkout / "nbgrader_config.py")
        port, tls_port = _free_port(), _free_port()
        public_url = f"https://{DOMAIN}:{tls_port}/"
        setup_args = dict(exchange=base / "srv" / "nbgrader" / "exchange", config_dir=base / "etc" / "jupyter",
                          home_base=base / "home", passwords=base / "hub" / "passwords.csv",
                          public_url=public_url, grader=grader)
        done = _setup(instructor, roster, setup_args, source=checkout)
        assert f"accounts created ({' '.join(students)} {grader})" in done.stdout, done.stdout
        layout = ClassLayout(exchange=setup_args["exchange"], config_dir=setup_args["config_dir"],
                             course_dir=base / "home" / instructor / COURSE_ID, instructor=instructor,
                             students=tuple(students), graders=(grader,))
        assert (base / "hub" / "passwords.csv").stat().st_mode & 0o777 == 0o600
        with (base / "hub" / "passwords.csv").open(encoding="utf-8") as handle:
            passwords.update({row["id"]: row["password"] for row in csv.DictReader(handle)})
        assert set(students) <= set(passwords)
        token = secrets.token_hex(32)
        (base / "hub" / "jupyterhub_config.py").write_text(HUB_TEST_CONFIG.format(
            config=str(HUB_CONFIG), port=port, hub_port=_free_port(), proxy_api_port=_free_port(),
            chp=str(chp), base=str(base), token=token, course=COURSE_ID, graders_port=_free_port()))
        log = base / "hub" / "jupyterhub.log"
        env = {**os.environ, "COURSE_HUB_CONFIG_DIR": str(layout.config_dir),
               "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"}
        for name in ("JUPYTER_CONFIG_PATH", "JUPYTERHUB_API_TOKEN", "COURSE_HUB_INSTRUCTOR", "COURSE_HUB_STUDENTS"):
            env.pop(name, None)
        tls = _tls(base, tls_port, names=[DOMAIN, f"*.{DOMAIN}"])
        hub = Hub(base=base, url=f"https://{DOMAIN}:{tls_port}", token=token, passwords=passwords,
                  instructor=instructor, students=students, layout=layout, tls=tls, cafile=str(base / "tls" / "cert.pem"),
                  log=log, created=created, graders=[grader], port=tls_port)
        hub.setup_args = {**setup_args, "roster": roster, "tag": tag, "checkout": checkout}

        def start() -> None:
            started = time.monotonic()
            with log.open("a") as out:
                state["proc"] = hub.proc = subprocess.Popen(
                    [str(BIN / "jupyterhub"), "-f", str(base / "hub" / "jupyterhub_config.py")],
                    cwd=str(base / "hub"), env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
            if state["nginx"] is None:
                state["nginx"] = _start_nginx(base, tls_port, port, server_name=DOMAIN)
            deadline = time.monotonic() + 90
            while True:
                if state["proc"].poll() is not None:
                    raise AssertionError(f"jupyterhub exited ({state['proc'].returncode})\n{hub.log_tail()}")
                if state["nginx"].poll() is not None:
                    raise AssertionError("nginx exited:\n" + (base / "nginx" / "error.log").read_text(errors="replace"))
                with contextlib.suppress(OSError):
                    status, _ = hub.api("/users")
                    if status == 200:
                        break
                if time.monotonic() > deadline:
                    raise AssertionError(f"jupyterhub did not answer through nginx in 90 s\n{hub.log_tail()}")
                time.sleep(0.5)
            hub.timings.setdefault("hub start", time.monotonic() - started)

        def restart() -> None:
            _stop_hub(state["proc"], hub, [n for n in created if _exists(n)])
            start()

        hub.restart = restart
        start()
        yield hub
    finally:
        proc = state["proc"]
        if proc is not None and proc.poll() is None:
            _stop_hub(proc, hub, [n for n in created if _exists(n)])
        pid_file = base / "hub" / "proxy.pid"
        if pid_file.exists():
            with contextlib.suppress(OSError, ValueError):
                pid = int(pid_file.read_text().strip())
                if Path(f"/proc/{pid}/cmdline").read_bytes().find(b"configurable-http-proxy") >= 0:
                    os.kill(pid, signal.SIGKILL)
        if state["nginx"] is not None and state["nginx"].poll() is None:
            state["nginx"].terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                state["nginx"].wait(10)
            if state["nginx"].poll() is None:
                state["nginx"].kill()
        uids = set()
        for name in created:
            with contextlib.suppress(KeyError):
                uids.add(pwd.getpwnam(name).pw_uid)
        _kill_users_processes(uids)
        for name in created:
            if not _exists(name):
                continue
            subprocess.run([_tool("userdel"), "--remove", name], capture_output=True)
            if _tool("groupdel"):
                subprocess.run([_tool("groupdel"), name], capture_output=True)   # if userdel kept the group
        shutil.rmtree(base, ignore_errors=True)
        names.__exit__(None, None, None)


def _setup(instructor: str, roster: Path, args: dict, source: Path | None = None) -> subprocess.CompletedProcess:
    """``python -m course.hub setup`` as root in the class's environment, as the guide runs it."""
    command = [str(BIN / "python"), "-m", "course.hub", "setup", "--instructor", instructor, "--roster", str(roster),
               "--home-base", str(args["home_base"]), "--passwords", str(args["passwords"]),
               "--public-url", args["public_url"], "--exchange", str(args["exchange"]),
               "--config-dir", str(args["config_dir"]), "--grader", args["grader"]]
    if source is not None:
        command += ["--source", str(source)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd="/")
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def _exists(name: str) -> bool:
    import pwd

    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def _stop_hub(proc: subprocess.Popen, hub: Hub | None, users: list[str]) -> None:
    """Stop the users' servers, then the hub (SIGTERM; its proxy goes with it)."""
    if proc is None or proc.poll() is not None:
        return
    if hub is not None:
        with contextlib.suppress(Exception):
            for name in users:
                hub.api(f"/users/{name}/server", "DELETE", timeout=20)
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


def _tls(base: Path, port: int, names: list[str] | None = None) -> ssl.SSLContext:
    """A self-signed certificate (openssl) for 127.0.0.1 and ``names`` (a wildcard one for the hub:
    ``hub.test`` and ``*.hub.test``, as a real hub with subdomains needs), and a client context
    trusting only it."""
    folder = base / "tls"
    folder.mkdir(mode=0o755)
    alt = ",".join(["IP:127.0.0.1", "DNS:localhost", *(f"DNS:{name}" for name in names or ())])
    subject = (names or ["127.0.0.1"])[0]
    subprocess.run([_tool("openssl"), "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem"),
                    "-subj", f"/CN={subject}", "-addext", f"subjectAltName={alt}"],
                   check=True, capture_output=True, text=True)
    os.chmod(folder / "key.pem", 0o600)
    return ssl.create_default_context(cafile=str(folder / "cert.pem"))


NGINX_TEST_CONF = """\
# nginx for tests/test_hub.py: the shipped site (python -m course.hub nginx), with the test's
# certificate and ports, inside a main file whose state stays in the test's folder.
user nobody nogroup;
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log {folder}/access.log;
    client_body_temp_path {folder}/tmp/body;
    proxy_temp_path {folder}/tmp/proxy;
    fastcgi_temp_path {folder}/tmp/fastcgi;
    uwsgi_temp_path {folder}/tmp/uwsgi;
    scgi_temp_path {folder}/tmp/scgi;
    include {folder}/jupyterhub.conf;
}}
"""


def _start_nginx(base: Path, tls_port: int, hub_port: int, edit=None, server_name: str = "127.0.0.1") -> subprocess.Popen:
    """nginx in front of the hub: TLS on 127.0.0.1:tls_port, the hub's proxy on hub_port.

    ``edit`` changes the shipped site's text first (to show what a line defends against).
    """
    from course.hub import nginx_site

    folder = base / "nginx"
    (folder / "tmp").mkdir(parents=True)
    os.chmod(folder, 0o755)
    if os.geteuid() == 0:
        shutil.chown(folder / "tmp", "nobody")
    site = nginx_site(server_name, str(base / "tls" / "cert.pem"), str(base / "tls" / "key.pem"),
                      upstream=f"127.0.0.1:{hub_port}", listen=f"127.0.0.1:{tls_port}", redirect_http=False,
                      subdomains=server_name != "127.0.0.1")
    (folder / "jupyterhub.conf").write_text(edit(site) if edit else site)
    conf = NGINX_TEST_CONF.format(folder=folder)
    if os.geteuid() != 0:
        conf = conf.replace("user nobody nogroup;\n", "")
    (folder / "nginx.conf").write_text(conf)
    nginx = _tool("nginx")
    checked = subprocess.run([nginx, "-t", "-c", str(folder / "nginx.conf"), "-p", str(folder)],
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    return subprocess.Popen([nginx, "-c", str(folder / "nginx.conf"), "-p", str(folder), "-g", "daemon off;"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def _form_login(hub: Hub, user: str, password: str, nxt: str = "/hub/home"):
    """Log in on the hub's login page (through nginx), as a browser would: ``(opener, jar, status, url)``."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=hub.tls),
                                         urllib.request.HTTPCookieProcessor(jar))
    with opener.open(f"{hub.url}/hub/login", timeout=60) as response:
        page = response.read().decode()
    xsrf = re.search(r'name="_xsrf" value="([^"]+)"', page).group(1)
    form = urllib.parse.urlencode({"username": user, "password": password, "_xsrf": xsrf}).encode()
    try:
        with opener.open(f"{hub.url}/hub/login?next={urllib.parse.quote(nxt)}", data=form,
                         timeout=120) as response:
            return opener, jar, response.status, response.geturl()
    except urllib.error.HTTPError as exc:
        return opener, jar, exc.code, exc.geturl()


def _cookie_header(jar: http.cookiejar.CookieJar) -> str:
    return "; ".join(f"{cookie.name}={cookie.value}" for cookie in jar)


async def _kernel_prints(url: str, cookies: str, origin: str, cafile: str, code: str) -> str:
    """Run ``code`` in a kernel over its websocket (Jupyter's JSON protocol); what it printed."""
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    request = HTTPRequest(url, headers={"Cookie": cookies, "Origin": origin}, ca_certs=cafile,
                          request_timeout=60, connect_timeout=60)
    ws = await websocket_connect(request)
    msg_id, session = uuid.uuid4().hex, uuid.uuid4().hex
    ws.write_message(json.dumps({
        "header": {"msg_id": msg_id, "session": session, "username": "", "msg_type": "execute_request",
                   "version": "5.3", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
        "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
        "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                    "allow_stdin": False, "stop_on_error": True}}))
    printed = ""
    try:
        while True:
            raw = await asyncio.wait_for(ws.read_message(), 90)
            if raw is None:
                raise AssertionError(f"the kernel's websocket closed ({ws.close_code} {ws.close_reason})")
            msg = json.loads(raw)
            if msg.get("parent_header", {}).get("msg_id") != msg_id or msg.get("channel") != "iopub":
                continue
            if msg["msg_type"] == "stream":
                printed += msg["content"]["text"]
            elif msg["msg_type"] == "error":
                raise AssertionError(f"the kernel failed: {msg['content']}")
            elif msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                return printed
    finally:
        ws.close()


HOSTILE_CELL = """\
# An attack: read what a student must never see, and write the gradebook.
import os, sqlite3
for path in {paths!r}:
    try:
        print("READ", path, sorted(os.listdir(path))[:20])
    except OSError as exc:
        print("DENIED", path, type(exc).__name__)
try:
    con = sqlite3.connect({gradebook!r})
    con.execute("UPDATE grade SET manual_score = 100")
    con.commit()
    print("WROTE the gradebook")
except Exception as exc:
    print("DENIED gradebook", type(exc).__name__)
"""


def _hostile(solution: Path, paths: list[str], gradebook: str, link: str = ""):
    """The solution, a cell that tries to reach what a student must not, and in the written answer
    a link to ``link`` (the page her own server serves)."""
    import nbformat

    nb = nbformat.read(str(solution), as_version=4)
    at = next(i for i, cell in enumerate(nb.cells)
              if cell.metadata.get("nbgrader", {}).get("grade_id") == "a1-minimax-value")
    nb.cells.insert(at + 1, nbformat.v4.new_code_cell(HOSTILE_CELL.format(paths=paths, gradebook=gradebook)))
    if link:
        answer = next(cell for cell in nb.cells if cell.metadata.get("nbgrader", {}).get("grade_id") == "a1-answer")
        answer.source += f"\n\nMy working is [in my notes]({link})."
    return nb


def _feedback_score(html: str) -> tuple[float, float]:
    found = re.search(rf"{NOTEBOOK} \(Score: ([\d.]+) / ([\d.]+)\)", html)
    assert found, "no score in the feedback page"
    return float(found.group(1)), float(found.group(2))


def _auto_points(notebook: Path) -> float:
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    return sum(c["metadata"]["nbgrader"].get("points", 0) for c in nb["cells"]
               if c["cell_type"] == "code" and c["metadata"].get("nbgrader", {}).get("grade")
               and not c["metadata"]["nbgrader"].get("solution"))


def _put(hub: Hub, user: str, source: Path | None, target: Path, nb=None) -> None:
    """Write ``user``'s notebook as they would (owned by them)."""
    import nbformat

    tmp = hub.base / f"put-{secrets.token_hex(4)}.ipynb"
    if nb is not None:
        nbformat.write(nb, str(tmp))
    else:
        shutil.copy(source, tmp)
    os.chmod(tmp, 0o644)
    hub.run_as(user, "cp", str(tmp), str(target))
    tmp.unlink()



def _lab_driver():
    """tests/browser/lab_driver.py (Chromium lookup and flags), loaded by path."""
    import importlib.util as iu

    if "course_lab_driver" in sys.modules:
        return sys.modules["course_lab_driver"]
    spec = iu.spec_from_file_location("course_lab_driver", REPO / "tests" / "browser" / "lab_driver.py")
    module = iu.module_from_spec(spec)
    sys.modules[spec.name] = module     # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def _chromium():
    """A headless Chromium (Playwright), or ``None`` with the reason when there is none."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        yield None, "Playwright is not installed"
        return
    driver = _lab_driver()
    path = driver.find_chromium()
    if path is None:
        yield None, "no Chromium (apt install chromium, or set COURSE_CHROMIUM)"
        return
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, headless=True,
                                             args=[*driver.CHROMIUM_ARGS, CHROMIUM_RESOLVER])
        try:
            yield browser, ""
        finally:
            browser.close()


def _in_browser(action, *args):
    """``action(browser, *args)`` with a Chromium of its own, in a thread of its own.

    Playwright's synchronous API runs one instance per thread, and the browser tests keep theirs
    open for the whole session (``make test`` runs them first), so this one gets a new thread.
    Returns ``(result, "")``, or ``(None, reason)`` when there is no browser.
    """
    import concurrent.futures

    def run():
        with _chromium() as (browser, why):
            return (action(browser, *args), "") if browser is not None else (None, why)

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(run).result()


def _lab_settings(hub: Hub, user: str) -> None:
    """JupyterLab without news or update pop-ups (as the browser tests set it)."""
    for name, value in _lab_driver().LAB_SETTINGS.items():
        target = hub.home(user) / ".jupyter" / "lab" / "user-settings" / name
        hub.run_as(user, "mkdir", "-p", str(target.parent))
        hub.run_as(user, "sh", "-c", f"cat > '{target}'", check=True, input_text=json.dumps(value))


def _log_in(browser, hub: Hub, user: str, shots: Path):
    """A new browser session of ``user``: the hub's login page, then their JupyterLab."""
    # the hub's certificate is the test's own, self-signed: the browser takes it as it is
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, ignore_https_errors=True)
    context.set_default_timeout(60_000)
    page = context.new_page()
    page.goto(f"{hub.url}/hub/login?next=/user/{user}/lab")
    page.fill("#username_input", user)
    page.fill("#password_input", hub.passwords[user])
    page.click("#login_submit")
    try:
        page.wait_for_selector("#jp-main-dock-panel", timeout=120_000)
        page.wait_for_selector(".lm-MenuBar-itemLabel:text-is('Nbgrader')", timeout=60_000)
    except Exception:
        page.screenshot(path=str(shots / f"{user}-login.png"))
        raise
    return context, page


def _nbgrader_menu(page, item: str) -> None:
    page.click(".lm-MenuBar-itemLabel:text-is('Nbgrader')")
    page.click(f".lm-Menu-itemLabel:text-is('{item}')")


def _fetch_and_submit_in_browser(browser, hub: Hub, user: str, shots: Path) -> bool:
    """The Assignment List: Fetch the released assignment, then Submit it."""
    context, page = _log_in(browser, hub, user, shots)
    try:
        _nbgrader_menu(page, "Assignment List")
        released = page.locator("#released_assignments_list .list_item", has_text=ASSIGNMENT)
        released.get_by_role("button", name="Fetch").click()
        fetched = page.locator("#fetched_assignments_list .list_item", has_text=ASSIGNMENT).first
        fetched.get_by_role("button", name="Submit").click(timeout=60_000)
        page.locator("#submitted_assignments_list .list_item", has_text=ASSIGNMENT).first.wait_for(
            timeout=60_000)
        return True
    except Exception:
        page.screenshot(path=str(shots / f"{user}-assignment-list.png"))
        raise
    finally:
        context.close()


def _formgrader_in_browser(browser, hub: Hub, shots: Path) -> str:
    """The instructor opens the formgrader from JupyterLab's menu: the panel (an iframe) offers a link,
    which opens the formgrader in a tab of its own; the text of that tab."""
    context, page = _log_in(browser, hub, hub.instructor, shots)
    try:
        _nbgrader_menu(page, "Formgrader")
        frame = page.frame_locator("iframe").first
        button = frame.get_by_role("button", name="Open the formgrader in a new tab")
        with context.expect_page() as opened:
            button.click()
        tab = opened.value
        tab.locator("text=Manage Assignments").first.wait_for(timeout=60_000)
        tab.locator(f"text={ASSIGNMENT}").first.wait_for(timeout=60_000)
        assert "frame-ancestors 'none'" in (tab.evaluate("() => location.href") and
                                            hub.head(f"/user/{hub.instructor}/formgrader/manage_assignments")
                                            .get("content-security-policy", ""))
        return tab.locator("body").inner_text()
    except Exception:
        page.screenshot(path=str(shots / "formgrader.png"))
        raise
    finally:
        context.close()


# --- a student takes over the instructor's account (issue 29, item 1) -----------------------------

#: A student's own Jupyter configuration: a handler, added by the file itself, that answers
#: ``/user/<student>/pwn`` with ATTACK_PAGE and asks for no login.
PWN_CONFIG = """\
# ~/.jupyter/jupyter_server_config.py of a student: a page on her server that needs no login.
# (A configuration file is Python: it adds a handler to the server's web application.)
import jupyter_server.serverapp as _serverapp
from tornado import web

PAGE = {page!r}


class Pwn(web.RequestHandler):
    def get(self):
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.write(PAGE)


_init_webapp = _serverapp.ServerApp.init_webapp


def _with_pwn(self, *args, **kwargs):
    _init_webapp(self, *args, **kwargs)
    self.web_app.add_handlers(".*$", [(self.base_url + "pwn", Pwn)])


_serverapp.ServerApp.init_webapp = _with_pwn
"""

#: The student's page: frame (or pop up) the instructor's JupyterLab, read its XSRF token, write a
#: file as the instructor, list the solutions, run a command in a terminal.  Reports in PWN.
ATTACK_PAGE = """<!DOCTYPE html><html><head><title>my notes</title></head><body><h1>My notes</h1>
<script>
const T = %(target)s;
const PWN = window.PWN = {steps: [], done: false};
const say = s => PWN.steps.push(String(s));
function opened(how) {
  return new Promise(resolve => {
    let win = null, frame = null;
    if (how === "frame") {
      frame = document.createElement("iframe"); frame.src = T + "lab"; document.body.appendChild(frame);
    } else { win = window.open(T + "lab", "_blank"); }
    let tries = 0;
    const poll = setInterval(() => {
      tries += 1;
      try {
        const w = frame ? frame.contentWindow : win;
        if (w && w.document && w.document.cookie.indexOf("_xsrf=") >= 0) { clearInterval(poll); resolve(w); return; }
      } catch (e) { clearInterval(poll); say(how + ": " + e.name); resolve(null); return; }
      if (tries > 30) { clearInterval(poll); say(how + ": no access"); resolve(null); }
    }, 500);
  });
}
async function attack() {
  let w = await opened("frame");
  if (!w) w = await opened("popup");
  let xsrf = "";
  if (w) { xsrf = decodeURIComponent(w.document.cookie.match(/(?:^|; )_xsrf=([^;]+)/)[1]); say("read _xsrf"); }
  const f = w ? w.fetch.bind(w) : fetch;
  const headers = {"X-XSRFToken": xsrf, "Content-Type": "application/json"};
  try {
    const put = await f(T + "api/contents/pwned-by-student.txt", {method: "PUT", credentials: "include", headers,
      body: JSON.stringify({type: "file", format: "text", content: "written by a student"})});
    say("write " + put.status);
  } catch (e) { say("write: " + e.name); }
  try {
    const list = await f(T + "api/contents/%(course)s/solutions", {credentials: "include"});
    say("solutions " + list.status + " " + (list.ok ? (await list.json()).content.map(x => x.name).join(",") : ""));
  } catch (e) { say("solutions: " + e.name); }
  try {
    const made = await f(T + "api/terminals", {method: "POST", credentials: "include", headers});
    say("terminal " + made.status);
    const name = (await made.json()).name;
    const url = new URL(T + "terminals/websocket/" + name, location.href);
    url.protocol = url.protocol.replace("http", "ws");
    await new Promise(resolve => {
      const ws = new WebSocket(url.href);
      ws.onopen = () => { ws.send(JSON.stringify(["stdin", "id > ~/terminal-pwned.txt\\r"])); say("command sent");
                          setTimeout(resolve, 3000); };
      ws.onerror = () => { say("terminal socket refused"); resolve(); };
    });
  } catch (e) { say("terminal: " + e.name); }
  PWN.done = true;
}
attack();
</script></body></html>
"""


def _plant_takeover(hub: Hub, student: str, target: str) -> None:
    """The hostile student's ``~/.jupyter/jupyter_server_config.py``: her attack page, no login."""
    page = ATTACK_PAGE % {"target": json.dumps(target), "course": COURSE_ID}
    config = PWN_CONFIG.format(page=page)
    hub.run_as(student, "mkdir", "-p", str(hub.home(student) / ".jupyter"))
    hub.run_as(student, "sh", "-c", f"cat > '{hub.home(student) / '.jupyter' / 'jupyter_server_config.py'}'",
               input_text=config)


def _takeover_in_browser(browser, hub: Hub, student: str, page_url: str, shots: Path) -> list[str]:
    """The instructor, logged in, opens the student's page (a link in her answer); what it did."""
    context, page = _log_in(browser, hub, hub.instructor, shots)
    attack = None
    try:
        attack = context.new_page()
        response = attack.goto(page_url)
        assert response is not None and response.status == 200, (page_url, response and response.status)
        attack.wait_for_function("() => window.PWN && window.PWN.done", timeout=120_000)
        return attack.evaluate("() => window.PWN.steps")
    except Exception as exc:
        page.screenshot(path=str(shots / "takeover.png"))
        said = attack.evaluate("() => window.PWN ? window.PWN.steps : document.documentElement.outerHTML.slice(0, 500)") \
            if attack is not None else None
        raise AssertionError(f"the takeover page did not finish: {said}") from exc
    finally:
        context.close()


def _request(session, method: str, url: str, *, data: bytes | None = None, headers: dict | None = None):
    """``method url`` with a logged-in opener: status and body (errors included)."""
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with session.open(request, timeout=120) as response:
            return response.status, response.read().decode(errors="replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(errors="replace")


def _xsrf_for(jar, host: str) -> str:
    return next(cookie.value for cookie in jar if cookie.name.endswith("_xsrf") and cookie.domain == host)


#: What a student's account must never read (paths relative to the course directory).
COURSE_PRIVATE = ("solutions/a1_minimax/minimax.ipynb", ".grading-secret", "gradebook.db", "nbgrader_config.py")

STUDENT_LOOKS = r"""
import hashlib, json, os, sys
from pathlib import Path
import course
wanted, tops, private = (json.loads(arg) for arg in sys.argv[1:4])
package = Path(course.__file__).resolve().parent
report = {"package": str(package), "solutions beside the package": (package.parent / "solutions").exists(),
          "same content as solutions/": [], "readable": []}
for top in tops:
    for root, dirs, files in os.walk(top):
        for name in files:
            if not name.endswith(".ipynb"):
                continue
            try:
                with open(os.path.join(root, name), "rb") as handle:
                    if hashlib.sha256(handle.read()).hexdigest() in wanted:
                        report["same content as solutions/"].append(os.path.join(root, name))
            except OSError:
                pass
for path in private:
    try:
        with open(path, "rb") as handle:
            handle.read(1)
        report["readable"].append(path)
    except OSError:
        pass
print(json.dumps(report))
"""


def _what_a_student_can_read(hub: Hub, student: str) -> dict:
    """From ``student``'s account (what her server and kernels run as): where ``import course``
    leads, any readable notebook anywhere in the class's environment, the shared configuration,
    the exchange or her home with the content of a file of ``solutions/``, and which of the
    instructor's private files she can open."""
    import hashlib

    wanted = sorted(hashlib.sha256(path.read_bytes()).hexdigest() for path in (REPO / "solutions").rglob("*")
                    if path.is_file())
    tops = [str(BIN.parent), str(hub.layout.config_dir), str(hub.layout.exchange), str(hub.home(student))]
    course = hub.layout.course_dir
    private = [str(course / name) for name in COURSE_PRIVATE] + [
        str(hub.setup_args["checkout"] / "solutions" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"),
        str(hub.home(hub.instructor) / ".local" / "share" / "course-grading")]
    done = hub.run_as(student, str(BIN / "python"), "-c", STUDENT_LOOKS, json.dumps(wanted), json.dumps(tops),
                      json.dumps(private), cwd=hub.home(student))
    return json.loads(done.stdout)


def _grader_grades_by_hand(hub: Hub, submission: int, secret: str) -> tuple[list, float, str]:
    """The grader logs in and uses the graders' formgrader: refused everything but hand grading.

    Returns the refusals that did not happen (should be empty), and the score and comment entered.
    """
    grader = hub.graders[0]
    session, jar, status, landed = _form_login(hub, grader, hub.passwords[grader])
    assert status == 200, (status, landed)
    service = hub.service_url()
    status, headers, body = hub.get(service + "/formgrader/manage_students", session)
    assert status == 200 and "Manage Students" in body, (status, body[:300])
    assert "script-src 'nonce-" in headers.get("content-security-policy", ""), headers
    xsrf = _xsrf_for(jar, f"{COURSE_ID}--service.{DOMAIN}")
    write = {"X-XSRFToken": xsrf, "Content-Type": "application/json"}
    text = json.dumps({"type": "file", "format": "text", "content": "c.SandboxedGrade.sandbox = False"}).encode()
    climb = "..%2F..%2F..%2F"
    attempts = [
        ("GET", "/api/contents/game-tree-search/nbgrader_config.py", None),
        ("PUT", "/api/contents/game-tree-search/nbgrader_config.py", text),
        ("GET", "/files/game-tree-search/nbgrader_config.py", None),
        ("GET", "/api/contents/game-tree-search/solutions/a1_minimax", None),
        ("GET", "/files/game-tree-search/solutions/a1_minimax/minimax.ipynb", None),
        ("GET", "/files/game-tree-search/.grading-secret", None),
        ("POST", "/api/terminals", b"{}"),
        ("POST", "/api/kernels", b'{"name": "python3"}'),
        ("GET", "/lab", None),
        ("GET", "/formgrader?path=/tmp", None),
        ("GET", f"/formgrader/submissions/{submission}/{climb}.grading-secret", None),
        ("GET", f"/formgrader/submissions/{submission}/{climb}solutions%2Fa1_minimax%2Fminimax.ipynb", None),
        ("POST", f"/formgrader/api/assignment/{ASSIGNMENT}/release", b""),
        ("POST", f"/formgrader/api/assignment/{ASSIGNMENT}/collect", b""),
        ("POST", f"/formgrader/api/submission/{ASSIGNMENT}/{hub.students[0]}/autograde", b""),
        ("POST", f"/formgrader/api/assignment/{ASSIGNMENT}/generate_feedback", b""),
        ("PUT", f"/formgrader/api/student/{hub.students[0]}", json.dumps({"first_name": "X"}).encode()),
    ]
    allowed = []
    for method, path, data in attempts:
        status, body = _request(session, method, service + path, data=data, headers=write)
        leaked = secret in body or "BEGIN SOLUTION" in body or "SandboxedGrade" in body
        if status not in (403, 404) or leaked:
            allowed.append((method, path, status, body[:200]))
    # what the grader may do: a score and a comment on the written answer
    status, body = _request(session, "GET", service + f"/formgrader/api/grades?submission_id={submission}")
    assert status == 200, (status, body[:300])
    grade = next(g for g in json.loads(body) if g["name"] == "a1-answer")
    status, body = _request(session, "PUT", service + f"/formgrader/api/grade/{grade['id']}",
                            data=json.dumps({"manual_score": 1.5, "extra_credit": None}).encode(), headers=write)
    assert status == 200, (status, body[:300])
    status, body = _request(session, "GET", service + f"/formgrader/api/comments?submission_id={submission}")
    comment = next(c for c in json.loads(body) if c["name"] == "a1-answer")
    status, body = _request(session, "PUT", service + f"/formgrader/api/comment/{comment['id']}",
                            data=json.dumps({"manual_comment": "Clear argument; cite the figure."}).encode(),
                            headers=write)
    assert status == 200, (status, body[:300])
    # the gradebook lists the roster's names (not "None, None")
    status, body = _request(session, "GET", service + "/formgrader/api/students")
    named = {s["id"]: (s["first_name"], s["last_name"]) for s in json.loads(body)}
    assert all(named.get(s, ("", ""))[0] == "Student" for s in hub.students), named
    return allowed, 1.5, "Clear argument; cite the figure."


def test_a_class_on_jupyterhub(hub: Hub, tmp_path: Path):
    instructor, (solver, wrong, hostile) = hub.instructor, hub.students
    course = hub.layout.course_dir
    exchange = hub.layout.exchange
    solution = REPO / "solutions" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    auto_max = _auto_points(solution)
    t = hub.timings

    # The instructor releases the assignment to the exchange.
    t0 = time.monotonic()
    hub.run_as(instructor, "nbgrader", "release_assignment", ASSIGNMENT, cwd=course)
    outbound = exchange / COURSE_ID / "outbound" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    assert outbound.exists() and outbound.stat().st_uid == hub.home(instructor).stat().st_uid
    t["release"] = time.monotonic() - t0

    # The hostile student's own server configuration: a page that needs no login (the takeover).
    _plant_takeover(hub, hostile, hub.server_url(instructor) + "/")

    # Everyone logs in: their servers start, as themselves.
    for user in (instructor, wrong):
        _lab_settings(hub, user)
    t0 = time.monotonic()
    for user in (instructor, *hub.students):
        hub.start_server(user)
    t["4 servers started"] = time.monotonic() - t0
    import pwd

    for user in (instructor, *hub.students):
        pids = hub.server_pids(user)
        assert pids, f"no process runs as {user}"
    time.sleep(3)   # let the servers settle before measuring them
    t["idle server RSS MiB (mean of 3 students)"] = round(
        sum(_rss_kib(hub.server_pids(s)) for s in hub.students) / 3 / 1024, 1)
    t["hub RSS MiB"] = round(_rss_kib([hub.proc.pid]) / 1024, 1)
    with contextlib.suppress(OSError, ValueError):
        t["proxy RSS MiB"] = round(_rss_kib([int((hub.base / "hub" / "proxy.pid").read_text())]) / 1024, 1)

    # Nobody's server may be framed, the instructor's included (JupyterHub's default, kept); her
    # formgrader is served behind the course's guard; students have no formgrader at all.
    headers = hub.head(f"/user/{instructor}/formgrader/manage_assignments")
    policy = headers.get("content-security-policy", "")
    assert "frame-ancestors 'none'" in policy, headers
    assert "script-src 'nonce-" in policy, headers      # the course's formgrader guard (issue 19)
    assert "frame-ancestors 'none'" in hub.head(f"/user/{instructor}/lab").get("content-security-policy", "")
    headers = hub.head(f"/user/{solver}/lab")
    assert "frame-ancestors 'none'" in headers.get("content-security-policy", ""), headers
    status, _ = hub.api("/formgrader", base=f"/user/{solver}")
    assert status == 404, f"a student has a formgrader ({status})"

    # Over https through nginx: student 2 logs in on the hub's login page (PAM, the password setup
    # gave them); every cookie of the hub and of their server is Secure; a kernel runs over a
    # websocket through nginx, and a page of another origin cannot open one.
    t0 = time.monotonic()
    wrong_session, jar, status, landed = _form_login(hub, wrong, hub.passwords[wrong])
    assert status == 200 and urllib.parse.urlparse(landed).path == "/hub/home", (status, landed, hub.log_tail())
    _, _, status, landed = _form_login(hub, wrong, hub.passwords[solver])       # another's password
    assert status == 403 and "/hub/login" in landed, (status, landed)
    with wrong_session.open(hub.server_url(wrong) + "/lab", timeout=120) as response:   # her own subdomain
        landed = urllib.parse.urlparse(response.geturl())
        assert response.status == 200 and (landed.hostname, landed.path) == (f"{wrong}.{DOMAIN}", f"/user/{wrong}/lab")
    names = {cookie.name: cookie for cookie in jar}
    for name in ("jupyterhub-hub-login", "jupyterhub-session-id", f"jupyterhub-user-{wrong}"):
        # domain-locked cookies (__Host-: Secure, no Domain, path /) on the host that set them
        found = [cookie for cookie in jar if cookie.name in (name, "__Host-" + name)]
        assert found and all(cookie.secure for cookie in found), (name, sorted(names))
    assert all(cookie.secure for cookie in jar if cookie.name != "_xsrf"), \
        [(cookie.name, cookie.domain, cookie.secure) for cookie in jar]
    assert {cookie.domain for cookie in jar if "user" in cookie.name} == {f"{wrong}.{DOMAIN}"}, sorted(names)
    xsrf = next(cookie.value for cookie in jar if cookie.name.endswith("_xsrf") and cookie.domain == f"{wrong}.{DOMAIN}")
    before = set(hub.server_pids(wrong))
    request = urllib.request.Request(hub.server_url(wrong) + "/api/kernels", data=b'{"name": "python3"}', method="POST",
                                     headers={"Content-Type": "application/json", "X-XSRFToken": xsrf})
    try:
        with wrong_session.open(request, timeout=120) as response:
            kernel = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        raise AssertionError(f"no kernel ({exc.code}): {exc.read()[:500]!r}\n{hub.log_tail(80)}") from None
    own = hub.origin(f"{wrong}.{DOMAIN}")
    socket_url = own.replace("https://", "wss://") + f"/user/{wrong}/api/kernels/{kernel['id']}/channels"
    printed = _run_async(_kernel_prints(socket_url, _cookie_header(jar), own, hub.cafile,
                                         "import os, getpass; print(6 * 7, getpass.getuser())"))
    assert printed.split() == ["42", wrong], printed
    # the kernel talks to her server over Unix sockets in her runtime folder, not TCP ports on 127.0.0.1
    connection = hub.run_as(wrong, "sh", "-c", "cat ~/.jupyter-run/kernel-*.json").stdout
    assert '"transport": "ipc"' in connection, connection
    t["https: log in, start a kernel, run a cell over its websocket"] = time.monotonic() - t0
    t["kernel RSS MiB"] = round(_rss_kib(sorted(set(hub.server_pids(wrong)) - before)) / 1024, 1)
    from tornado.httpclient import HTTPClientError
    from tornado.websocket import WebSocketError

    # cross-site websocket hijacking: from another site, and from another student's subdomain
    for origin in ("https://evil.example.org", hub.origin(f"{solver}.{DOMAIN}")):
        with pytest.raises((HTTPClientError, WebSocketError)) as refused:
            _run_async(_kernel_prints(socket_url, _cookie_header(jar), origin, hub.cafile, "1"))
        assert "403" in str(refused.value), (origin, refused.value)
    request = urllib.request.Request(hub.server_url(wrong) + f"/api/kernels/{kernel['id']}", method="DELETE",
                                     headers={"X-XSRFToken": xsrf})
    with wrong_session.open(request, timeout=60) as response:
        assert response.status == 204

    # The idle culler runs as a hub service with its own token, and the hub answers it.
    status, services = hub.api("/services")
    assert status == 200 and "idle-culler" in services, services
    deadline = time.monotonic() + 60
    while not re.search(r"200 GET /hub/api/users\S* \(idle-culler@", hub.log.read_text(errors="replace")):
        assert time.monotonic() < deadline, "the idle culler never asked the hub for its users\n" + hub.log_tail()
        time.sleep(1)

    # Student 1 (the solver) through the hub: their own server's Assignment List API.
    t0 = time.monotonic()
    status, listing = hub.api("/assignments/fetch", "POST", base=f"/user/{solver}",
                              form={"course_id": COURSE_ID, "assignment_id": ASSIGNMENT})
    assert status == 200, (status, listing)
    fetched = hub.home(solver) / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    assert fetched.exists() and fetched.stat().st_uid == pwd.getpwnam(solver).pw_uid
    _put(hub, solver, solution, fetched)
    status, listing = hub.api("/assignments/submit", "POST", base=f"/user/{solver}",
                              form={"course_id": COURSE_ID, "assignment_id": ASSIGNMENT})
    assert status == 200 and isinstance(listing, dict) and listing.get("success", True), (status, listing)

    # Student 2 submits the release as fetched: in Chromium, through JupyterLab's Assignment List
    # (with nbgrader's commands in their account where there is no browser).
    t1 = time.monotonic()
    done, no_browser = _in_browser(_fetch_and_submit_in_browser, hub, wrong, tmp_path)
    if no_browser:
        print(f"\n[hub] no browser ({no_browser}): student 2 uses nbgrader's commands")
        hub.run_as(wrong, "nbgrader", "fetch_assignment", ASSIGNMENT)
        hub.run_as(wrong, "nbgrader", "submit", ASSIGNMENT)
    else:
        t["browser: log in, fetch, submit"] = time.monotonic() - t1
    fetched = hub.home(wrong) / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    assert fetched.exists() and fetched.stat().st_uid == pwd.getpwnam(wrong).pw_uid

    # Student 3: the solution plus an attack on everything a student must not reach.
    hub.run_as(hostile, "nbgrader", "fetch_assignment", ASSIGNMENT)
    targets = [str(exchange), str(exchange / COURSE_ID / "inbound"), str(hub.home(instructor)),
               str(course), str(hub.home(solver)), str(hub.base / "home"), "/srv/nbgrader"]
    _put(hub, hostile, None, hub.home(hostile) / ASSIGNMENT / f"{NOTEBOOK}.ipynb",
         nb=_hostile(solution, targets, str(course / "gradebook.db"), link=f"/user/{hostile}/pwn"))
    hub.run_as(hostile, "nbgrader", "submit", ASSIGNMENT)
    t["students fetch and submit"] = time.monotonic() - t0

    # The exchange keeps submissions apart: a student cannot list the inbound folder.
    peek = hub.run_as(wrong, "ls", str(exchange / COURSE_ID / "inbound"), check=False)
    assert peek.returncode != 0 and "Permission denied" in peek.stderr, peek

    # The instructor collects, autogrades in the sandbox, writes and releases feedback.
    t0 = time.monotonic()
    hub.run_as(instructor, "nbgrader", "collect", ASSIGNMENT, cwd=course)
    for student in hub.students:
        assert (course / "submitted" / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb").exists(), student
    graded = hub.run_as(instructor, str(BIN / "python"), "-m", "course.grading", "autograde",
                        "--assignment", ASSIGNMENT, "--jobs", "2", cwd=course, timeout=600)
    assert "unsafe" not in graded.stdout.lower() + graded.stderr.lower(), graded.stdout
    t["autograde 3 submissions"] = time.monotonic() - t0
    t0 = time.monotonic()
    hub.run_as(instructor, str(BIN / "python"), "-m", "course.grading", "feedback",
               "--assignment", ASSIGNMENT, cwd=course)
    hub.run_as(instructor, "nbgrader", "release_feedback", ASSIGNMENT, cwd=course)

    # The instructor's formgrader: JupyterLab's Formgrader panel offers it in a tab of its own.
    t1 = time.monotonic()
    text, no_browser = _in_browser(_formgrader_in_browser, hub, tmp_path)
    if not no_browser:
        assert ASSIGNMENT in text
        t["browser: formgrader in its own tab"] = time.monotonic() - t1

    # The link in the hostile answer leaves the formgrader only through the warning page.
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE_ID) as gb:
        ids = {s: gb.find_submission_notebook(NOTEBOOK, ASSIGNMENT, s).id for s in hub.students}
    status, _, page = hub.get(hub.server_url(instructor) + f"/formgrader/submissions/{ids[hostile]}/")
    assert status == 200 and "in my notes" in page, status
    assert f'href="/user/{hostile}/pwn"' not in page and "/formgrader/course-leave?to=/user/" in page, \
        re.findall(r'href="[^"]*pwn[^"]*"', page)
    status, _, warning = hub.get(hub.server_url(instructor) + f"/formgrader/course-leave?to=/user/{hostile}/pwn")
    assert status == 200 and "leads into this server or hub" in warning, warning[:500]

    # The takeover: the instructor opens the page the hostile student's server serves (past the
    # warning: she trusts her student).  On her own subdomain, the page cannot reach the
    # instructor's: no frame, no popup it can read, no XSRF token, no file written, no command.
    steps, no_browser = _in_browser(_takeover_in_browser, hub, hostile, hub.server_url(hostile) + "/pwn", tmp_path)
    if not no_browser:
        print(f"\n[hub] the student's page tried: {steps}")
        wrote = hub.home(instructor) / "pwned-by-student.txt"
        ran = hub.home(instructor) / "terminal-pwned.txt"
        assert not wrote.exists() and not ran.exists(), f"the student acted as the instructor: {steps}"
        assert "read _xsrf" not in steps and not any(step.startswith("solutions 200") for step in steps), steps

    # Students never receive the instructor's files: `import course` is the wheel's package, no
    # readable copy of a solutions/ file anywhere, and not the course's secret, gradebook, config.
    looked = _what_a_student_can_read(hub, hostile)
    assert str(BIN.parent) in looked["package"] and not looked["solutions beside the package"], looked
    assert looked["same content as solutions/"] == [] and looked["readable"] == [], looked

    # What the instructor's gradebook says.
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE_ID) as gb:
        scores = {s: gb.find_submission(ASSIGNMENT, s).score for s in hub.students}
        manual = [g.manual_score for s in hub.students for nb in gb.find_submission(ASSIGNMENT, s).notebooks
                  for g in nb.grades if g.manual_score is not None]
    assert scores == {solver: auto_max, wrong: 0.0, hostile: auto_max}, scores
    assert manual == [], f"a manual score appeared: {manual}"

    # The attack ran in the sandbox and reached nothing.
    graded_nb = json.loads((course / "autograded" / hostile / ASSIGNMENT / f"{NOTEBOOK}.ipynb").read_text())
    attack = next(cell for cell in graded_nb["cells"] if "An attack" in "".join(cell["source"]))
    said = "".join("".join(o.get("text", "")) for o in attack.get("outputs", []))
    assert "READ " not in said and "WROTE" not in said, f"the hostile cell reached something:\n{said}"
    assert said.count("DENIED") == len(targets) + 1, f"the hostile cell did not run:\n{said}"

    # Each student fetches their feedback and sees exactly their score.
    status, _ = hub.api("/assignments/fetch_feedback", "POST", base=f"/user/{solver}",
                        form={"course_id": COURSE_ID, "assignment_id": ASSIGNMENT})
    assert status == 200
    for student in (wrong, hostile):
        hub.run_as(student, "nbgrader", "fetch_feedback", ASSIGNMENT)
    t["feedback written, released, fetched"] = time.monotonic() - t0
    total = None
    for student, expected in ((solver, auto_max), (wrong, 0.0), (hostile, auto_max)):
        pages = hub.run_as(student, "find", str(hub.home(student) / ASSIGNMENT / "feedback"),
                           "-name", f"{NOTEBOOK}.html").stdout.splitlines()
        assert len(pages) == 1, (student, pages)
        html = hub.run_as(student, "cat", pages[0]).stdout
        score, total = _feedback_score(html)
        assert score == expected, (student, score, expected)
        assert "BEGIN HIDDEN TESTS" not in html
        # ... and only their own: another student's feedback is not readable.
        other = hub.home(solver if student != solver else wrong)
        assert hub.run_as(student, "ls", str(other), check=False).returncode != 0
    assert total is not None and total > auto_max   # the written answer is graded by hand

    # A teaching assistant grades by hand in the graders' formgrader: a score and a comment on the
    # solver's written answer reach the gradebook; the configuration, the solutions, the secret,
    # files, kernels, terminals and the instructor's buttons are refused.  Her own account cannot
    # read the course nor approve its configuration; a student cannot open the graders' formgrader.
    t0 = time.monotonic()
    secret = (course / ".grading-secret").read_text().strip()
    allowed, score, comment = _grader_grades_by_hand(hub, ids[solver], secret)
    assert allowed == [], f"the grader was allowed: {allowed}"
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE_ID) as gb:
        notebook = gb.find_submission_notebook(NOTEBOOK, ASSIGNMENT, solver)
        entered = ({g.name: g.manual_score for g in notebook.grades}["a1-answer"],
                   {c.name: c.manual_comment for c in notebook.comments}["a1-answer"])
    assert entered == (score, comment), entered
    grader = hub.graders[0]
    approve = hub.run_as(grader, str(BIN / "python"), "-m", "course.grading", "--root", str(course),
                         "approve-config", check=False)
    assert approve.returncode != 0 and "ermission denied" in approve.stdout + approve.stderr, approve
    assert hub.run_as(grader, "ls", str(course), check=False).returncode != 0
    student_session, _, _, _ = _form_login(hub, solver, hub.passwords[solver])
    status, _, body = hub.get(hub.service_url() + "/formgrader/manage_students", student_session)
    assert status == 403 or "Manage Students" not in body, status
    t["grader: hand grade, comment, 17 refusals"] = time.monotonic() - t0

    # Mid-term: a student joins and one leaves.  The instructor edits the roster; root runs setup
    # again (the newcomer's account, the hub's copy of the roster) and restarts the hub.
    with wrong_session.open(f"{hub.url}/hub/home", timeout=60) as response:   # still logged in
        assert urllib.parse.urlparse(response.geturl()).path == "/hub/home"
    newcomer = f"ch{hub.setup_args['tag']}s4"
    hub.created.append(newcomer)
    roster = hub.setup_args["roster"]
    rows = [line for line in roster.read_text(encoding="utf-8").splitlines() if not line.startswith(wrong + ",")]
    roster.write_text("\n".join(rows + [f"{newcomer},New,Student,"]) + "\n", encoding="utf-8")
    t0 = time.monotonic()
    args = hub.setup_args
    done = _setup(instructor, roster, args)          # no --source: the course directory exists
    assert f"accounts created ({newcomer})" in done.stdout, done.stdout + done.stderr
    with Path(args["passwords"]).open(encoding="utf-8") as handle:
        hub.passwords.update({row["id"]: row["password"] for row in csv.DictReader(handle)})
    hub.restart()
    t["roster changed: setup, hub restarted"] = time.monotonic() - t0
    status, users = hub.api("/users")
    names = {u["name"] for u in users}
    assert newcomer in names and wrong not in names and solver in names, names
    _, _, status, landed = _form_login(hub, newcomer, hub.passwords[newcomer])
    assert status == 200 and urllib.parse.urlparse(landed).path == "/hub/home", (status, landed)
    _, _, status, landed = _form_login(hub, grader, hub.passwords[grader])     # the grader stays
    assert status == 200, (status, landed)
    _, _, status, landed = _form_login(hub, wrong, hub.passwords[wrong])     # the right password, off the roster
    assert status == 403 and "/hub/login" in landed, (status, landed)
    with wrong_session.open(f"{hub.url}/hub/home", timeout=60) as response:   # their old session ended
        assert urllib.parse.urlparse(response.geturl()).path == "/hub/login", response.geturl()
    assert (hub.home(wrong) / ASSIGNMENT).is_dir()       # their account and work stay

    print("\n[hub] " + ", ".join(f"{k}: {v:.1f}" + ("" if "MiB" in k else " s") for k, v in t.items()))


# --- the hub's configuration, without a hub (no root needed) -------------------------------------

# course.hub manages Unix accounts (pwd): these tests run wherever that module exists.
unix_only = pytest.mark.skipif(sys.platform == "win32", reason="course.hub needs Unix accounts (no pwd on Windows)")

def _hub_config(monkeypatch, config_dir: Path):
    """``jupyterhub_config.py`` as JupyterHub loads it, for the class in ``config_dir``."""
    from traitlets.config.loader import PyFileConfigLoader

    from course.hub import HUB_CONFIG

    monkeypatch.setenv("COURSE_HUB_CONFIG_DIR", str(config_dir))
    for name in ("COURSE_HUB_INSTRUCTOR", "COURSE_HUB_STUDENTS", "COURSE_HUB_SUBDOMAIN_HOST"):
        monkeypatch.delenv(name, raising=False)
    return PyFileConfigLoader(HUB_CONFIG.name, path=str(HUB_CONFIG.parent)).load_config()


def _class(tmp_path: Path, ids: list[str], instructor: str = "zzinstructor") -> Path:
    from course.grading.term.intake.roster import read_roster
    from course.hub.classlist import write_hub_settings

    roster = tmp_path / "roster.csv"
    roster.write_text("id,first_name\n" + "".join(f"{i},X\n" for i in ids), encoding="utf-8")
    write_hub_settings(tmp_path / "etc", instructor, read_roster(roster), public_url="https://hub.example.org/")
    return roster


@unix_only
def test_the_roster_decides_who_may_log_in(tmp_path, monkeypatch):
    """A student taken off the roster is out at the next start, although the hub's database
    still knows them: JupyterHub's default (``allow_existing_users``) would let them back in."""
    from types import SimpleNamespace

    from jupyterhub.auth import Authenticator

    roster = _class(tmp_path, ["zzada", "zzgrace", "zzalan"])
    config = _hub_config(monkeypatch, tmp_path / "etc")
    assert config.Authenticator.allowed_users == {"zzinstructor", "zzada", "zzgrace", "zzalan"}
    assert config.JupyterHub.bind_url == "http://127.0.0.1:8000"
    assert config.JupyterHub.public_url == "https://hub.example.org/"
    assert [s["name"] for s in config.JupyterHub.services] == ["idle-culler", "game-tree-search"]
    graders = next(s for s in config.JupyterHub.services if s["name"] == "game-tree-search")
    assert graders["user"] == "zzinstructor" and graders["url"].startswith("http://127.0.0.1:")
    # one subdomain per user by default, with domain-locked cookies
    assert config.JupyterHub.subdomain_host == "https://hub.example.org"
    assert config.JupyterHub.cookie_host_prefix_enabled is True
    assert "--timeout=3600" in config.JupyterHub.services[0]["command"]

    # zzalan leaves: the roster changes, setup writes the hub's copy, the hub restarts.
    from course.grading.term.intake.roster import read_roster
    from course.hub.classlist import write_hub_settings

    roster.write_text("id\nzzada\nzzgrace\n", encoding="utf-8")
    write_hub_settings(tmp_path / "etc", "zzinstructor", read_roster(roster), public_url="https://hub.example.org/")
    config = _hub_config(monkeypatch, tmp_path / "etc")
    alan = SimpleNamespace(name="zzalan")           # still in the hub's database
    auth = Authenticator(config=config)
    with pytest.raises(ValueError):                 # the hub deletes them at start (delete_invalid_users)
        auth.add_user(alan)
    assert not auth.check_allowed("zzalan", None) and not auth.validate_username("zzalan")
    assert auth.check_allowed("zzada", None)

    # Without the defence (JupyterHub's defaults), the removed student is allowed again.
    del config.Authenticator["allow_existing_users"], config.Authenticator["username_pattern"]
    lax = Authenticator(config=config)
    lax.add_user(alan)
    assert lax.check_allowed("zzalan", None)


@unix_only
@pytest.mark.parametrize("ids, why", [
    (["zzada", "root"], "system account"),
    (["zzada", "Ada"], "cannot be a hub account"),
    (["zzada", "zzinstructor"], "is the instructor"),
])
def test_the_hub_refuses_a_roster_it_cannot_use(tmp_path, monkeypatch, ids, why):
    from course.hub.classlist import HubRosterError

    with pytest.raises(HubRosterError, match=why):
        _class(tmp_path, ids)
        _hub_config(monkeypatch, tmp_path / "etc")


@unix_only
def test_the_old_environment_variables_are_refused(tmp_path, monkeypatch):
    _class(tmp_path, ["zzada"])
    monkeypatch.setenv("COURSE_HUB_STUDENTS", "zzada zzgrace")
    from traitlets.config.loader import PyFileConfigLoader

    from course.hub import HUB_CONFIG

    monkeypatch.setenv("COURSE_HUB_CONFIG_DIR", str(tmp_path / "etc"))
    with pytest.raises(SystemExit, match="no longer read"):
        PyFileConfigLoader(HUB_CONFIG.name, path=str(HUB_CONFIG.parent)).load_config()


def _without_websocket_headers(site: str) -> str:
    return "\n".join(line for line in site.splitlines()
                     if not re.search(r"proxy_set_header (Upgrade|Connection)", line))


@unix_only
@pytest.mark.parametrize("edit", [None, _without_websocket_headers], ids=["shipped", "no-upgrade-headers"])
def test_the_nginx_site_carries_websockets_over_tls(tmp_path, edit):
    """The shipped nginx site, in front of a websocket server (no hub, no root): TLS with the
    certificate, the websocket upgrade, the browser's Host (with its port: Jupyter compares the
    Origin with it) and https as the scheme reach the server.  Without the site's Upgrade and
    Connection headers, nginx cannot carry a websocket (a kernel could not start in JupyterLab)."""
    if _tool("nginx") is None or _tool("openssl") is None:
        pytest.skip("needs nginx and openssl (apt-get install nginx openssl)")
    from tornado.httpclient import HTTPClientError, HTTPRequest
    from tornado.httpserver import HTTPServer
    from tornado.netutil import bind_sockets
    from tornado.web import Application
    from tornado.websocket import WebSocketError, WebSocketHandler, websocket_connect

    class Echo(WebSocketHandler):
        def check_origin(self, origin):      # as Jupyter's: the Origin's host:port is the Host
            return urllib.parse.urlparse(origin).netloc == self.request.headers.get("Host")

        def on_message(self, message):
            self.write_message(f"{self.request.protocol} {self.request.headers.get('Host')} {message}")

    tls_port = _free_port()
    _tls(tmp_path, tls_port)
    origin = f"https://127.0.0.1:{tls_port}"

    async def talk() -> str:
        sockets = bind_sockets(0, "127.0.0.1")
        server = HTTPServer(Application([("/ws", Echo)]), xheaders=True)
        server.add_sockets(sockets)
        nginx = _start_nginx(tmp_path, tls_port, sockets[0].getsockname()[1], edit=edit)
        try:
            for _ in range(100):
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", tls_port), timeout=1):
                    break
                await asyncio.sleep(0.1)
            request = HTTPRequest(f"wss://127.0.0.1:{tls_port}/ws", headers={"Origin": origin},
                                  ca_certs=str(tmp_path / "tls" / "cert.pem"), request_timeout=30)
            ws = await websocket_connect(request)
            ws.write_message("hello")
            said = await asyncio.wait_for(ws.read_message(), 30)
            ws.close()
            return said
        finally:
            nginx.terminate()
            nginx.wait(10)
            server.stop()

    if edit is None:
        assert _run_async(talk()) == f"https 127.0.0.1:{tls_port} hello"
    else:
        with pytest.raises((HTTPClientError, WebSocketError)):
            _run_async(talk())


@unix_only
def test_the_guide_runs_only_commands_that_exist():
    """Every ``python -m course.hub ...`` of the JupyterHub guide parses with its options."""
    import shlex

    from course.hub import build_parser

    text = (REPO / "docs" / "instructor" / "jupyterhub.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, re.DOTALL)
    lines = [line.split("#", 1)[0] for line in "\n".join(blocks).replace("\\\n", " ").splitlines()]
    found = 0
    for line in lines:
        words = shlex.split(line.split(">", 1)[0])
        if "course.hub" in words:
            args = words[words.index("course.hub") + 1:]
            build_parser().parse_args(args)     # an unknown option or command exits (SystemExit)
            found += 1
    assert found >= 4, found


@unix_only
@pytest.mark.parametrize("text, why", [("id,first_name\n", "no students"),
                                       ("id\nzzada\ndaemon\n", "system account")])
def test_setup_refuses_a_roster_before_writing_anything(tmp_path, text, why):
    """An empty roster would have the hub delete every student at its next start; a system account
    must never become a student.  Nothing is created or written when setup refuses."""
    from course.hub import setup_class
    from course.hub.classlist import HubRosterError

    (tmp_path / "roster.csv").write_text(text, encoding="utf-8")
    with pytest.raises(HubRosterError, match=why):
        setup_class("root", roster=tmp_path / "roster.csv", config_dir=tmp_path / "etc",
                    exchange=tmp_path / "exchange", course_dir=tmp_path / "course")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["roster.csv"]


@unix_only
def test_students_could_read_the_solutions_beside_an_editable_course(tmp_path):
    """An editable install from a checkout every account can read puts ``solutions/`` beside the
    ``course`` package each student imports; a private checkout (or a wheel) does not."""
    from course.hub import readable_solutions

    top = Path(tempfile.mkdtemp(prefix="course-checkout-", dir="/tmp"))
    try:
        os.chmod(top, 0o755)
        (top / "course").mkdir()
        (top / "solutions").mkdir(mode=0o755)
        assert readable_solutions(top / "course") == top / "solutions"
        os.chmod(top, 0o700)                    # the checkout kept private
        assert readable_solutions(top / "course") is None
        os.chmod(top, 0o755)
        (top / "solutions").rmdir()             # a wheel: nothing beside the package
        assert readable_solutions(top / "course") is None
    finally:
        shutil.rmtree(top, ignore_errors=True)


@unix_only
def test_setup_refuses_to_serve_readable_solutions_and_needs_a_source(tmp_path, monkeypatch):
    """Nothing is written when the hub's course has readable solutions beside it, or when the course
    directory must be made and there is no checkout to make it from."""
    import course.hub as hub_setup

    (tmp_path / "roster.csv").write_text("id\nzzada\n", encoding="utf-8")
    args = dict(roster=tmp_path / "roster.csv", config_dir=tmp_path / "etc", exchange=tmp_path / "exchange",
                course_dir=tmp_path / "course", public_url="https://hub.example.org/")
    monkeypatch.setattr(hub_setup, "readable_solutions", lambda: Path("/opt/course/solutions"))
    with pytest.raises(hub_setup.HubSetupError, match="every account can read /opt/course/solutions"):
        hub_setup.setup_class("root", **args)
    monkeypatch.setattr(hub_setup, "readable_solutions", lambda: None)
    monkeypatch.setattr(hub_setup, "HERE", tmp_path / "site-packages" / "course" / "hub")   # a wheel install
    with pytest.raises(hub_setup.HubSetupError, match="pass --source"):
        hub_setup.setup_class("root", **args)
    with pytest.raises(hub_setup.HubSetupError, match="needs the hub's address"):
        hub_setup.setup_class("root", **{**args, "public_url": ""})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["roster.csv"]
