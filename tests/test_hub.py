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
    if not _world_readable_path(REPO / "course"):
        return f"{REPO} is not readable by other users: the class's accounts could not run the course"
    return None


def _usable_by_all(python: Path) -> bool:
    return all(_world_readable_path(Path(p)) for p in (python, os.path.realpath(python)))


def _class_bin() -> Path:
    """The ``bin`` folder of a Python environment with the course that every account can run."""
    own = Path(sys.executable)
    if _usable_by_all(own) and importlib.util.find_spec("jupyterhub") is not None:
        return own.parent
    system = next((Path(p) for p in ("/usr/bin/python3", "/usr/local/bin/python3")
                   if Path(p).exists() and _usable_by_all(Path(p))), None)
    if system is None:
        pytest.skip(f"{os.path.realpath(own)} is not usable by other users, and no system python3 is")
    import hashlib

    key = hashlib.sha1(str(REPO).encode() + (REPO / "pyproject.toml").read_bytes()).hexdigest()[:12]
    venv = SHARED_VENVS / f"venv-{key}"
    for old in SHARED_VENVS.glob("venv-*"):        # environments of checkouts that are gone
        with contextlib.suppress(OSError):
            if old != venv and not Path((old / ".installed").read_text().strip()).exists():
                shutil.rmtree(old, ignore_errors=True)
    if not (venv / ".installed").exists():
        shutil.rmtree(venv, ignore_errors=True)
        SHARED_VENVS.mkdir(parents=True, exist_ok=True)
        os.chmod(SHARED_VENVS, 0o755)
        for step in ([str(system), "-m", "venv", str(venv)],
                     [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "-e", f"{REPO}[hub]"]):
            done = subprocess.run(step, capture_output=True, text=True, timeout=900)
            if done.returncode != 0:
                pytest.skip(f"could not make the class's environment ({' '.join(step[-3:])}): "
                            + (done.stderr.strip().splitlines() or ["?"])[-1])
        (venv / ".installed").write_text(str(REPO))
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


# --- the class ---------------------------------------------------------------------------------

@dataclass
class Hub:
    base: Path
    url: str            # https, through nginx
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

    # the hub's REST API, as the test's service (admin of users and servers)
    def api(self, path: str, method: str = "GET", data: dict | None = None, *, base: str = "/hub/api",
            form: dict | None = None, timeout: float = 60) -> tuple[int, dict | str]:
        body, headers = None, {"Authorization": f"token {self.token}"}
        if data is not None:
            body, headers["Content-Type"] = json.dumps(data).encode(), "application/json"
        if form is not None:
            body = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        request = urllib.request.Request(self.url + base + path, data=body, method=method, headers=headers)
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
        request = urllib.request.Request(self.url + path, headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=60, context=self.tls) as response:
            return {k.lower(): v for k, v in response.headers.items()}

    def home(self, user: str) -> Path:
        import pwd

        return Path(pwd.getpwnam(user).pw_dir)

    def role(self, user: str) -> str:
        return "instructor" if user == self.instructor else "student"

    def run_as(self, user: str, *args: str, cwd: Path | None = None, check: bool = True,
               timeout: float = 300, input_text: str | None = None) -> subprocess.CompletedProcess:
        """A command in ``user``'s account, with the environment the hub gives their server."""
        env = ["env", "-i", f"HOME={self.home(user)}", f"USER={user}", f"LOGNAME={user}",
               f"PATH={BIN}:/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8",
               f"JUPYTER_CONFIG_PATH={self.layout.role_config_path(self.role(user))}"]
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

    from course.hub import HUB_CONFIG, sandbox_works_for, setup_class

    tag = secrets.token_hex(3)
    instructor = f"ch{tag}i"
    students = [f"ch{tag}s{i}" for i in (1, 2, 3)]
    base = Path(tempfile.mkdtemp(prefix="course-hub-", dir="/tmp"))
    os.chmod(base, 0o755)
    created: list[str] = []
    state: dict = {"proc": None, "nginx": None}
    hub = None
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
        # The class: a roster in the course's format; setup creates the students' accounts from it
        # (random passwords, real PAM logins) and writes the hub's copy.
        created.extend(students)
        roster = base / "roster.csv"
        roster.write_text("id,first_name,last_name,email\n" + "".join(
            f"{s},Student,{i},{s}@example.org\n" for i, s in enumerate(students, 1)), encoding="utf-8")
        port, tls_port = _free_port(), _free_port()
        public_url = f"https://127.0.0.1:{tls_port}/"
        setup_args = dict(exchange=base / "srv" / "nbgrader" / "exchange", config_dir=base / "etc" / "jupyter",
                          home_base=base / "home", passwords=base / "hub" / "passwords.csv",
                          public_url=public_url)
        layout = setup_class(instructor, roster=roster, **setup_args)
        assert layout.accounts.created == tuple(students), layout.accounts
        assert (base / "hub" / "passwords.csv").stat().st_mode & 0o777 == 0o600
        with (base / "hub" / "passwords.csv").open(encoding="utf-8") as handle:
            passwords.update({row["id"]: row["password"] for row in csv.DictReader(handle)})
        assert set(students) <= set(passwords)
        token = secrets.token_hex(32)
        (base / "hub" / "jupyterhub_config.py").write_text(HUB_TEST_CONFIG.format(
            config=str(HUB_CONFIG), port=port, hub_port=_free_port(), proxy_api_port=_free_port(),
            chp=str(chp), base=str(base), token=token))
        log = base / "hub" / "jupyterhub.log"
        env = {**os.environ, "COURSE_HUB_CONFIG_DIR": str(layout.config_dir),
               "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"}
        for name in ("JUPYTER_CONFIG_PATH", "JUPYTERHUB_API_TOKEN", "COURSE_HUB_INSTRUCTOR", "COURSE_HUB_STUDENTS"):
            env.pop(name, None)
        tls = _tls(base, tls_port)
        hub = Hub(base=base, url=f"https://127.0.0.1:{tls_port}", token=token, passwords=passwords,
                  instructor=instructor, students=students, layout=layout, tls=tls, cafile=str(base / "tls" / "cert.pem"),
                  log=log, created=created)
        hub.setup_args = {**setup_args, "roster": roster, "tag": tag}

        def start() -> None:
            started = time.monotonic()
            with log.open("a") as out:
                state["proc"] = hub.proc = subprocess.Popen(
                    [str(BIN / "jupyterhub"), "-f", str(base / "hub" / "jupyterhub_config.py")],
                    cwd=str(base / "hub"), env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
            if state["nginx"] is None:
                state["nginx"] = _start_nginx(base, tls_port, port)
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


def _tls(base: Path, port: int) -> ssl.SSLContext:
    """A self-signed certificate for 127.0.0.1 (openssl), and a client context trusting only it."""
    folder = base / "tls"
    folder.mkdir(mode=0o755)
    subprocess.run([_tool("openssl"), "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem"),
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
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


def _start_nginx(base: Path, tls_port: int, hub_port: int, edit=None) -> subprocess.Popen:
    """nginx in front of the hub: TLS on 127.0.0.1:tls_port, the hub's proxy on hub_port.

    ``edit`` changes the shipped site's text first (to show what a line defends against).
    """
    from course.hub import nginx_site

    folder = base / "nginx"
    (folder / "tmp").mkdir(parents=True)
    os.chmod(folder, 0o755)
    if os.geteuid() == 0:
        shutil.chown(folder / "tmp", "nobody")
    site = nginx_site("127.0.0.1", str(base / "tls" / "cert.pem"), str(base / "tls" / "key.pem"),
                      upstream=f"127.0.0.1:{hub_port}", listen=f"127.0.0.1:{tls_port}", redirect_http=False)
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


def _hostile(solution: Path, paths: list[str], gradebook: str):
    import nbformat

    nb = nbformat.read(str(solution), as_version=4)
    at = next(i for i, cell in enumerate(nb.cells)
              if cell.metadata.get("nbgrader", {}).get("grade_id") == "a1-minimax-value")
    nb.cells.insert(at + 1, nbformat.v4.new_code_cell(HOSTILE_CELL.format(paths=paths, gradebook=gradebook)))
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
                                             args=list(driver.CHROMIUM_ARGS))
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
    """The instructor opens the formgrader from JupyterLab's menu; the text of its iframe."""
    context, page = _log_in(browser, hub, hub.instructor, shots)
    try:
        _nbgrader_menu(page, "Formgrader")
        frame = page.frame_locator("iframe").first
        frame.locator("text=Manage Assignments").first.wait_for(timeout=60_000)
        frame.locator(f"text={ASSIGNMENT}").first.wait_for(timeout=60_000)
        return frame.locator("body").inner_text()
    except Exception:
        page.screenshot(path=str(shots / "formgrader.png"))
        raise
    finally:
        context.close()


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

    # The formgrader: the instructor's server may be framed by its own pages; students' may not,
    # and they have no formgrader at all.
    headers = hub.head(f"/user/{instructor}/formgrader")
    policy = headers.get("content-security-policy", "")
    assert "frame-ancestors 'self'" in policy, headers
    assert "script-src 'nonce-" in policy, headers      # the course's formgrader guard (issue 19)
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
    with wrong_session.open(f"{hub.url}/user/{wrong}/lab", timeout=120) as response:
        assert response.status == 200 and urllib.parse.urlparse(response.geturl()).path == f"/user/{wrong}/lab"
    names = {cookie.name: cookie for cookie in jar}
    for name in ("jupyterhub-hub-login", "jupyterhub-session-id", f"jupyterhub-user-{wrong}"):
        assert name in names and names[name].secure, (name, sorted(names))
    xsrf = next(cookie.value for cookie in jar if cookie.name == "_xsrf" and cookie.path.startswith(f"/user/{wrong}"))
    before = set(hub.server_pids(wrong))
    request = urllib.request.Request(f"{hub.url}/user/{wrong}/api/kernels", data=b'{"name": "python3"}', method="POST",
                                     headers={"Content-Type": "application/json", "X-XSRFToken": xsrf})
    with wrong_session.open(request, timeout=120) as response:
        kernel = json.loads(response.read())
    socket_url = f"wss://127.0.0.1:{urllib.parse.urlparse(hub.url).port}/user/{wrong}/api/kernels/{kernel['id']}/channels"
    printed = _run_async(_kernel_prints(socket_url, _cookie_header(jar), hub.url, hub.cafile,
                                         "import os, getpass; print(6 * 7, getpass.getuser())"))
    assert printed.split() == ["42", wrong], printed
    t["https: log in, start a kernel, run a cell over its websocket"] = time.monotonic() - t0
    t["kernel RSS MiB"] = round(_rss_kib(sorted(set(hub.server_pids(wrong)) - before)) / 1024, 1)
    from tornado.httpclient import HTTPClientError
    from tornado.websocket import WebSocketError

    with pytest.raises((HTTPClientError, WebSocketError)) as refused:   # cross-site websocket hijacking
        _run_async(_kernel_prints(socket_url, _cookie_header(jar), "https://evil.example.org", hub.cafile, "1"))
    assert "403" in str(refused.value), refused.value
    request = urllib.request.Request(f"{hub.url}/user/{wrong}/api/kernels/{kernel['id']}", method="DELETE",
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
         nb=_hostile(solution, targets, str(course / "gradebook.db")))
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

    # The instructor's formgrader shows the course, inside JupyterLab (the iframe loads).
    t1 = time.monotonic()
    text, no_browser = _in_browser(_formgrader_in_browser, hub, tmp_path)
    if not no_browser:
        assert ASSIGNMENT in text
        t["browser: formgrader in the instructor's JupyterLab"] = time.monotonic() - t1

    # What the instructor's gradebook says.
    from nbgrader.api import Gradebook

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
    done = subprocess.run([str(BIN / "python"), "-m", "course.hub", "setup", "--instructor", instructor,
                           "--roster", str(roster), "--home-base", str(args["home_base"]),
                           "--passwords", str(args["passwords"]), "--public-url", args["public_url"],
                           "--exchange", str(args["exchange"]), "--config-dir", str(args["config_dir"])],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and f"accounts created ({newcomer})" in done.stdout, done.stdout + done.stderr
    with Path(args["passwords"]).open(encoding="utf-8") as handle:
        hub.passwords.update({row["id"]: row["password"] for row in csv.DictReader(handle)})
    hub.restart()
    t["roster changed: setup, hub restarted"] = time.monotonic() - t0
    status, users = hub.api("/users")
    names = {u["name"] for u in users}
    assert newcomer in names and wrong not in names and solver in names, names
    _, _, status, landed = _form_login(hub, newcomer, hub.passwords[newcomer])
    assert status == 200 and urllib.parse.urlparse(landed).path == "/hub/home", (status, landed)
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
    from course.grading.intake.roster import read_roster
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
    assert [s["name"] for s in config.JupyterHub.services] == ["idle-culler"]
    assert "--timeout=3600" in config.JupyterHub.services[0]["command"]

    # zzalan leaves: the roster changes, setup writes the hub's copy, the hub restarts.
    from course.grading.intake.roster import read_roster
    from course.hub.classlist import write_hub_settings

    roster.write_text("id\nzzada\nzzgrace\n", encoding="utf-8")
    write_hub_settings(tmp_path / "etc", "zzinstructor", read_roster(roster))
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
