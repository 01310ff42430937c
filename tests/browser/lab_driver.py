"""Drive a real JupyterLab in a real Chromium, the way a student or instructor would.

Two pieces, kept apart so each can be tested and reused:

* :class:`LabServer` starts ``jupyter lab`` from this interpreter on a free localhost port, with
  a random token, a temporary root folder and Jupyter's per-user folders (config, data, runtime,
  lab settings and workspaces) isolated in a temporary directory.  The lab and server extensions
  installed in the environment (nbgrader's Validate button, ipywidgets' manager) stay active,
  because they live under ``sys.prefix``, which the isolation leaves alone.
* :class:`Lab` wraps one Playwright page showing that server.  User actions go through the user
  interface (menus, toolbar buttons, the keyboard); waits watch concrete conditions in the page
  (kernel status, execution prompts, dialogs), never a fixed delay.

The page is started with ``--LabApp.expose_app_in_browser``, which makes JupyterLab publish its
application object as ``window.jupyterapp``.  The tests use it to *observe* (which notebook is
current, its kernel's status, its cells' outputs) and to tidy up between tests, and use the
visible interface to *act*.

Vocabulary: a *prompt* is the ``[3]:`` left of a code cell, ``[*]:`` while it runs or waits; an
*error output* is a cell output of ``output_type`` ``error`` (an exception's traceback); a
*stderr output* is text the kernel wrote to standard error.  JupyterLab 4 renders both with the
MIME type ``application/vnd.jupyter.stderr``.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

#: Chromium flags for a headless, quiet browser in a container (no sandbox, no GPU, no
#: background traffic to Google, no first-run dialogs).
CHROMIUM_ARGS: tuple[str, ...] = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
)

#: Names under which Chromium or Chrome is commonly installed, tried on ``PATH`` in this order.
CHROMIUM_NAMES: tuple[str, ...] = (
    "chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome",
)

#: JupyterLab user settings written before the server starts: no news or update pop-ups, and
#: every cell kept in the page so outputs below the fold can be inspected.
LAB_SETTINGS: dict[str, dict[str, Any]] = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False,
    },
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}

STDERR_MIME = "application/vnd.jupyter.stderr"
_ERROR_TEXT = re.compile(r"Traceback|\b\w*(Error|Exception)\b: |Error displaying widget")


class LabStartError(RuntimeError):
    """``jupyter lab`` did not come up; the message carries the end of its log."""


def find_chromium(candidates: Sequence[str | None] = ()) -> str | None:
    """Return the path of an installed Chromium (or Chrome), or ``None`` when there is none.

    Parameters
    ----------
    candidates : sequence of str or None, optional
        Paths tried first, in order (``None`` entries are skipped).  If the environment variable
        ``COURSE_CHROMIUM`` is set, it is the only other candidate; otherwise the names in
        :data:`CHROMIUM_NAMES` are looked up on ``PATH``, then ``/usr/bin/chromium``.

    Returns
    -------
    str or None
        The first candidate that is an executable file.

    Examples
    --------
    >>> find_chromium(["/nonexistent/chromium"]) in (None, find_chromium())
    True
    """
    tried: list[str | None] = list(candidates)
    if os.environ.get("COURSE_CHROMIUM"):
        tried.append(os.environ["COURSE_CHROMIUM"])
    else:
        tried += [shutil.which(name) for name in CHROMIUM_NAMES]
        tried.append("/usr/bin/chromium")
    for path in tried:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that was free a moment ago.

    Examples
    --------
    >>> 1024 <= free_port() <= 65535
    True
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def copy_course_tree(repo: Path, dest: Path, *, folders: Sequence[str] = ("lessons", "exercises"),
                     files: Sequence[str] = ("nbgrader_config.py",)) -> Path:
    """Copy what a student's JupyterLab shows into ``dest``, so tests never touch the repository.

    Parameters
    ----------
    repo : Path
        The repository root.
    dest : Path
        Target folder (created); becomes the server's root directory.
    folders, files : sequence of str
        Folders and single files copied when they exist.  Checkpoints and caches are skipped.

    Returns
    -------
    Path
        ``dest``.
    """
    dest.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
    for name in folders:
        if (repo / name).is_dir():
            shutil.copytree(repo / name, dest / name, ignore=ignore, dirs_exist_ok=True)
    for name in files:
        if (repo / name).is_file():
            shutil.copy2(repo / name, dest / name)
    return dest


@dataclass
class LabServer:
    """A running ``jupyter lab`` process serving ``root`` on ``127.0.0.1:port``.

    Start one with :meth:`start`; stop it with :meth:`stop` (terminate, then kill).
    """

    root: Path
    """The server's root directory (what the file browser shows)."""
    home: Path
    """The temporary folder holding Jupyter's isolated per-user folders and the server log."""
    port: int
    """The TCP port on 127.0.0.1."""
    token: str
    """The random access token."""
    process: subprocess.Popen
    """The server process."""

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/``."""
        return f"http://127.0.0.1:{self.port}/"

    @property
    def lab_url(self) -> str:
        """The URL a browser opens: JupyterLab with the token in the query."""
        return f"{self.base_url}lab?token={self.token}"

    @property
    def log_path(self) -> Path:
        """The file collecting the server's stdout and stderr."""
        return self.home / "jupyter-lab.log"

    def log_tail(self, lines: int = 40) -> str:
        """Return the last ``lines`` lines of the server log."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def api(self, path: str, *, method: str = "GET", timeout: float = 5.0) -> Any:
        """Call the server's REST API at ``path`` (relative to the base URL) and return its JSON."""
        request = urllib.request.Request(
            self.base_url + path.lstrip("/"), method=method,
            headers={"Authorization": f"token {self.token}"},
        )
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
        return json.loads(body) if body else None

    @classmethod
    def start(cls, root: Path, home: Path, *, timeout: float = 90.0,
              extra_args: Sequence[str] = ()) -> "LabServer":
        """Start ``jupyter lab`` on ``root`` and wait until ``/api/status`` answers.

        Parameters
        ----------
        root : Path
            Folder served (a temporary copy of the course).  Also the server's working directory,
            so nbgrader's Validate finds ``nbgrader_config.py`` there.
        home : Path
            Empty temporary folder for Jupyter's config, data and runtime folders, the lab's
            settings and workspaces, IPython's profile and the server log.
        timeout : float
            Seconds to wait for the server to answer.
        extra_args : sequence of str
            More command-line options for ``jupyter lab``.

        Returns
        -------
        LabServer

        Raises
        ------
        LabStartError
            If the process exits or does not answer within ``timeout`` (the server is stopped and
            its log tail quoted).
        """
        home.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        for var, sub in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
                         ("JUPYTER_RUNTIME_DIR", "runtime"), ("JUPYTERLAB_SETTINGS_DIR", "settings"),
                         ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"), ("IPYTHONDIR", "ipython"),
                         ("MPLCONFIGDIR", "matplotlib")):
            (home / sub).mkdir(exist_ok=True)
            env[var] = str(home / sub)
        env.pop("JUPYTER_PREFER_ENV_PATH", None)
        env["PYTHONUNBUFFERED"] = "1"
        # as `make lab`: the course's Jupyter configuration first (the formgrader guard)
        shipped = str(Path(__file__).resolve().parents[2] / "course" / "jupyter_config")
        env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(p for p in (shipped, env.get("JUPYTER_CONFIG_PATH")) if p)
        for rel, values in LAB_SETTINGS.items():
            target = home / "settings" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(values))
        port, token = free_port(), secrets.token_hex(24)
        cmd = [
            sys.executable, "-m", "jupyterlab", "--no-browser",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
            "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=",
            # the same server shows Notebook 7 at /tree and /notebooks/...: there too the
            # application is published as window.jupyterapp (see Notebook7 below)
            "--JupyterNotebookApp.expose_app_in_browser=True",
            "--ServerApp.terminals_enabled=False",
            *extra_args,
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-root")  # containers and CI runners often run as root
        log = open(home / "jupyter-lab.log", "wb")
        try:
            process = subprocess.Popen(cmd, cwd=root, env=env, stdout=log,
                                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        finally:
            log.close()
        server = cls(root=root, home=home, port=port, token=token, process=process)
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                raise LabStartError(f"jupyter lab exited with status {process.returncode}:\n"
                                    f"{server.log_tail()}")
            try:
                server.api("api/status", timeout=2.0)
                return server
            except (urllib.error.URLError, ConnectionError, OSError, ValueError):
                pass
            if time.monotonic() > deadline:
                server.stop()
                raise LabStartError(f"jupyter lab did not answer on port {port} within "
                                    f"{timeout:.0f} s:\n{server.log_tail()}")
            time.sleep(0.2)

    def stop(self, grace: float = 10.0) -> None:
        """Stop the server: SIGTERM (which also shuts its kernels down), then SIGKILL."""
        if self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(grace)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(grace)


# --- the page ------------------------------------------------------------------------------

# JavaScript run in the page.  ``window.jupyterapp`` is the JupyterLab application.
_JS_CURRENT_STATE = """() => {
  const app = window.jupyterapp, w = app && app.shell.currentWidget;
  if (!w || !w.sessionContext || !w.content || !w.content.widgets) return null;
  const kernel = w.sessionContext.session && w.sessionContext.session.kernel;
  const cells = w.content.widgets.map(c => ({
    type: c.model.type,
    source: c.model.sharedModel.getSource(),
    prompt: c.model.type === 'code' ?
      (c.node.querySelector('.jp-InputPrompt') || {}).textContent || '' : '',
    outputs: c.model.type === 'code' ? c.model.outputs.toJSON() : [],
  }));
  return {path: w.context.path, kernel: kernel ? kernel.status : null,
          dirty: w.context.model.dirty, cells};
}"""

# True when the kernel is idle, no prompt shows "*", and every non-empty code cell among the
# first `upto` cells (all when upto < 0) has an execution count -- or an error stopped the run.
_JS_RUN_FINISHED = """upto => {
  const app = window.jupyterapp, w = app && app.shell.currentWidget;
  if (!w || !w.sessionContext) return false;
  const kernel = w.sessionContext.session && w.sessionContext.session.kernel;
  if (!kernel || kernel.status !== 'idle') return false;
  let failed = false, allDone = true;
  w.content.widgets.forEach((c, i) => {
    if (c.model.type !== 'code') return;
    const prompt = (c.node.querySelector('.jp-InputPrompt') || {}).textContent || '';
    if (prompt.includes('*')) allDone = failed = null;
    if (allDone === null) return;
    if (c.model.outputs.toJSON().some(o => o.output_type === 'error')) failed = true;
    if ((upto < 0 || i < upto) && c.model.sharedModel.getSource().trim() &&
        c.model.executionCount === null) allDone = false;
  });
  if (allDone === null) return false;
  return allDone || failed;
}"""

# The SVG documents shown in an element: inline <svg> elements, and <img> elements whose source is
# an SVG data URI (how JupyterLab 4 renders image/svg+xml outputs).
_JS_SVG_TEXTS = """el => {
  const texts = Array.from(el.querySelectorAll('svg')).filter(s => !s.closest('.jp-icon3, button'))
    .map(s => s.outerHTML);
  for (const img of el.querySelectorAll('img[src^="data:image/svg+xml"]')) {
    const src = img.getAttribute('src'), comma = src.indexOf(',');
    const body = src.slice(comma + 1);
    texts.push(src.slice(0, comma).endsWith(';base64') ? atob(body) : decodeURIComponent(body));
  }
  return texts;
}"""

_JS_SNAPSHOT = f"""el => {{
  const svg = ({_JS_SVG_TEXTS})(el).join('\\n');
  const copy = el.cloneNode(true);
  copy.querySelectorAll('svg, img, .widget-slider, .widget-dropdown, .widget-toggle-buttons, ' +
      '.widget-button, .widget-readout, .widget-label, select, input, button, style, ' +
      '.jp-OutputArea-prompt')
    .forEach(e => e.remove());
  return {{svg, text: copy.textContent.replace(/\\s+/g, ' ').trim()}};
}}"""

# Graphviz ids of the nodes drawn as the current one: course.draw gives each tree node the id
# "n" + "_i" per path step and a tooltip (<a xlink:title>) starting with its status.  Inline SVGs
# are read in place; SVG images are parsed from their data URI.
_JS_CURRENT_NODES = """el => {
  const roots = Array.from(el.querySelectorAll('svg'));
  for (const img of el.querySelectorAll('img[src^="data:image/svg+xml"]')) {
    const src = img.getAttribute('src'), comma = src.indexOf(',');
    const body = src.slice(comma + 1);
    const text = src.slice(0, comma).endsWith(';base64') ? atob(body) : decodeURIComponent(body);
    roots.push(new DOMParser().parseFromString(text, 'image/svg+xml'));
  }
  const ids = [];
  for (const root of roots) {
    for (const g of root.querySelectorAll('g.node')) {
      const a = g.querySelector('a');
      const tip = a && (a.getAttributeNS('http://www.w3.org/1999/xlink', 'title') ||
                        a.getAttribute('xlink:title') || a.getAttribute('title')) || '';
      if (tip.startsWith('current')) ids.push(g.getAttribute('id').replace(/^p[0-9a-f]{10}-/, ''));  // a figure's ids carry its prefix
    }
  }
  return ids;
}"""

_JS_CLOSE_ALL = """async () => {
  const app = window.jupyterapp;
  for (const w of Array.from(app.shell.widgets('main'))) {
    if (w.context && w.context.model) { w.context.model.dirty = false; }
    w.close();
  }
  await app.serviceManager.sessions.shutdownAll();
  return Array.from(app.shell.widgets('main')).length;
}"""


#: The folder JupyterLab's file browser shows, read from its model (``""`` is the root).
_JS_FILE_BROWSER_PATH = """() => {
  for (const w of window.jupyterapp.shell.widgets('left'))
    if (w.id === 'filebrowser' && w.model) return w.model.path;
  return null;
}"""


class Lab:
    """One browser page showing JupyterLab, with the actions the journeys need.

    Parameters
    ----------
    page : playwright.sync_api.Page
        A page of a running browser.
    server : LabServer
        The server the page talks to.
    """

    def __init__(self, page: Any, server: LabServer) -> None:
        self.page = page
        self.server = server
        self.console_errors: list[str] = []
        """JavaScript errors and console errors seen in the page (for failure reports)."""
        page.on("pageerror", lambda exc: self.console_errors.append(f"page error: {exc}"))
        page.on("console", lambda msg: msg.type == "error" and self.console_errors.append(
            f"console error: {msg.text}"))

    # -- the application ---------------------------------------------------------------------

    def load(self, timeout: float = 60.0) -> None:
        """Open JupyterLab and wait until its shell and file browser are shown."""
        self.page.goto(self.server.lab_url)
        self.page.wait_for_function(
            "() => window.jupyterapp && window.jupyterapp.shell && "
            "document.querySelector('.jp-DirListing-content') !== null",
            timeout=timeout * 1000)
        self.page.locator("#jp-main-dock-panel").wait_for(state="visible")

    def state(self) -> dict | None:
        """Return the current notebook's path, kernel status and cells (type, source, prompt,
        outputs as nbformat JSON), or ``None`` when the current widget is not a notebook."""
        return self.page.evaluate(_JS_CURRENT_STATE)

    def close_all(self) -> None:
        """Dismiss dialogs, close every document without saving and shut all kernels down.

        If the page no longer answers, reload JupyterLab instead.
        """
        try:
            self.dismiss_dialogs()
            self.page.evaluate(_JS_CLOSE_ALL)
            self.dismiss_dialogs()
        except Exception:  # noqa: BLE001 - a wedged page is replaced by a fresh load
            self.load()

    def dismiss_dialogs(self) -> None:
        """Close any open JupyterLab dialog with its default-reject button (or Escape)."""
        for _ in range(5):
            dialogs = self.page.locator(".jp-Dialog")
            if dialogs.count() == 0:
                return
            self.page.keyboard.press("Escape")
            try:
                dialogs.first.wait_for(state="detached", timeout=2000)
            except Exception:  # noqa: BLE001 - try again, then give up quietly
                pass

    # -- files -------------------------------------------------------------------------------

    def file_browser_path(self) -> str | None:
        """The folder the file browser shows (``""`` for the root), from JupyterLab's model."""
        return self.page.evaluate(_JS_FILE_BROWSER_PATH)

    def open_from_file_browser(self, path: str, timeout: float = 60.0) -> None:
        """Open ``path`` the way a student does: double-click folders, then the notebook.

        Each step is checked against the file browser's model, not assumed: the listing is
        re-rendered while JupyterLab refreshes it, so a double-click can land and still be
        reported as not done (the item it clicked is gone with the folder it opened).  A step is
        repeated, from the folder it started in, until the file browser shows its folder (or the
        notebook is the current document), within ``timeout`` seconds in all.
        """
        parts = path.strip("/").split("/")
        deadline = time.monotonic() + timeout
        self.page.locator(".jp-BreadCrumbs-home").click()
        self.page.wait_for_function(f"() => ({_JS_FILE_BROWSER_PATH})() === ''",
                                    timeout=timeout * 1000)
        for i, name in enumerate(parts):
            here, target = "/".join(parts[:i]), "/".join(parts[:i + 1])
            folder = i < len(parts) - 1
            while not self._step_done(target, folder):
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"could not open {target!r} from the file browser within {timeout} s; "
                        f"it shows {self.file_browser_path()!r} with items "
                        f"{self._listing()!r}")
                if self.file_browser_path() != here:
                    self.page.evaluate(
                        "path => window.jupyterapp.commands.execute('filebrowser:go-to-path', "
                        "{path: '/' + path, dontShowBrowser: true})", here)
                item = self.page.locator(".jp-DirListing-content .jp-DirListing-item").filter(
                    has=self.page.locator(".jp-DirListing-itemText",
                                          has_text=re.compile(rf"^\s*{re.escape(name)}\s*$"))
                ).first
                try:
                    item.dblclick(timeout=5000)
                    self.page.wait_for_function(
                        "([target, folder]) => folder ? "
                        f"({_JS_FILE_BROWSER_PATH})() === target : "
                        "!!(window.jupyterapp.shell.currentWidget && "
                        "window.jupyterapp.shell.currentWidget.context && "
                        "window.jupyterapp.shell.currentWidget.context.path === target)",
                        arg=[target, folder], timeout=5000)
                except Exception:  # noqa: BLE001 - checked by _step_done, then tried again
                    pass
        self._wait_notebook_ready(path, max(1.0, deadline - time.monotonic()) + 30)

    def _step_done(self, target: str, folder: bool) -> bool:
        if folder:
            return self.file_browser_path() == target
        return self.page.evaluate(
            "target => { const w = window.jupyterapp.shell.currentWidget;"
            " return !!(w && w.context && w.context.path === target); }", target)

    def _listing(self) -> list[str]:
        return self.page.locator(".jp-DirListing-content .jp-DirListing-itemText").all_inner_texts()

    def open(self, path: str, timeout: float = 60.0) -> None:
        """Open the notebook at ``path`` (relative to the root) with JupyterLab's open command,
        as the file browser's double-click does, and wait until its kernel is ready."""
        self.page.evaluate(
            "path => window.jupyterapp.commands.execute('docmanager:open', "
            "{path, factory: 'Notebook'})", path)
        self._wait_notebook_ready(path, timeout)

    def _wait_notebook_ready(self, path: str, timeout: float) -> None:
        self.page.wait_for_function(
            """path => { const w = window.jupyterapp.shell.currentWidget;
              if (!w || !w.context || w.context.path !== path || !w.context.isReady) return false;
              const k = w.sessionContext.session && w.sessionContext.session.kernel;
              return !!k && k.status === 'idle' &&
                     w.node.querySelectorAll('.jp-Cell').length === w.content.widgets.length; }""",
            arg=path, timeout=timeout * 1000)

    # -- running -------------------------------------------------------------------------------

    def menu(self, menu: str, item: str) -> None:
        """Click main-menu ``menu`` (e.g. ``"Run"``), then its entry labelled ``item``."""
        self.page.locator("#jp-menu-panel .lm-MenuBar-item", has_text=re.compile(
            rf"^{re.escape(menu)}$")).click()
        entry = self.page.locator(".lm-Menu .lm-Menu-item", has=self.page.locator(
            ".lm-Menu-itemLabel", has_text=re.compile(rf"^{re.escape(item)}$"))).first
        entry.wait_for(state="visible")
        entry.click()

    def run_all(self, timeout: float = 180.0) -> dict:
        """Run > Run All Cells, wait until no cell waits or runs and the kernel is idle.

        Returns
        -------
        dict
            :meth:`state` afterwards.
        """
        self.menu("Run", "Run All Cells")
        self.wait_run_finished(timeout)
        return self.state()

    def wait_run_finished(self, timeout: float = 180.0, upto: int = -1) -> None:
        """Wait until the kernel is idle, no prompt shows ``*`` and every non-empty code cell
        (among the first ``upto`` cells, if given) has an execution count -- or an error output
        appeared, which stops JupyterLab's queue."""
        self.page.wait_for_function(_JS_RUN_FINISHED, arg=upto, timeout=timeout * 1000,
                                    polling=200)

    def find_cell(self, needle: str) -> int:
        """Index of the first code cell whose source contains ``needle``.

        Raises
        ------
        LookupError
            If no code cell contains it.
        """
        for index, cell in enumerate((self.state() or {"cells": []})["cells"]):
            if cell["type"] == "code" and needle in cell["source"]:
                return index
        raise LookupError(f"no code cell of the current notebook contains {needle!r}")

    def select_cell(self, index: int) -> None:
        """Make cell ``index`` the active cell (command mode) by clicking its prompt."""
        prompt = self.cell_locator(index).locator(".jp-InputPrompt").first
        prompt.scroll_into_view_if_needed()
        prompt.click()
        self.page.wait_for_function(
            "i => window.jupyterapp.shell.currentWidget.content.activeCellIndex === i", arg=index)

    def run_through(self, index: int, timeout: float = 180.0) -> dict:
        """Run every cell up to and including ``index``, as a student does to reach one cell:
        select it, Run > Run All Above Selected Cell, then Run > Run Selected Cell and Do not
        Advance.  Returns :meth:`state` afterwards."""
        self.select_cell(index)
        if index > 0:
            self.menu("Run", "Run All Above Selected Cell")
            self.wait_run_finished(timeout, upto=index)
        self.menu("Run", "Run Selected Cell and Do not Advance")
        self.wait_run_finished(timeout, upto=index + 1)
        return self.state()

    def error_report(self) -> list[str]:
        """Describe every error shown in the current notebook; empty when there is none.

        Three sources: cell outputs of type ``error`` (model), text rendered as standard error
        that reads like an error (``Traceback``, ``...Error: ``), and widgets that failed to
        display (``Error displaying widget``) -- the last two read from the page, as the student
        sees them.
        """
        problems: list[str] = []
        state = self.state() or {"cells": []}
        for index, cell in enumerate(state["cells"]):
            for out in cell["outputs"]:
                if out.get("output_type") == "error":
                    problems.append(f"cell {index}: {out.get('ename')}: {out.get('evalue')}")
        shown = self.page.evaluate(
            """mime => Array.from(document.querySelectorAll(
                  '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output'))
                .filter(e => e.getAttribute('data-mime-type') === mime ||
                             e.textContent.includes('Error displaying widget'))
                .map(e => e.textContent)""", STDERR_MIME)
        for text in shown:
            if _ERROR_TEXT.search(text):
                problems.append("shown in the page: ..." + text.strip()[-300:])
        return problems

    # -- widgets -------------------------------------------------------------------------------

    def output_locator(self, index: int) -> Any:
        """The output area of code cell ``index`` (0-based over all cells) of the visible notebook."""
        return self.cell_locator(index).locator(".jp-OutputArea").first

    def snapshot(self, region: Any) -> dict[str, str]:
        """What ``region`` shows: ``svg`` (the markup of every SVG in it, joined) and ``text``
        (its text outside SVGs and outside the controls, so a slider's own readout or a
        dropdown's options do not count as "numbers shown")."""
        return region.evaluate(_JS_SNAPSHOT)

    def current_nodes(self, region: Any) -> list[str]:
        """Graphviz ids (``n_0_2`` for path (0, 2)) of the nodes drawn as *current* in the SVG
        pictures inside ``region`` (their tooltip starts with ``current``)."""
        return region.evaluate(_JS_CURRENT_NODES)

    def wait_current_nodes(self, region: Any, expected: list[str] | None = None,
                           timeout: float = 10.0) -> list[str]:
        """Wait until the pictures in ``region`` draw ``expected`` as *current* (or, without
        ``expected``, any node), and return what they draw then.

        The browser lays a picture out (viz.js) after the widget's text has changed, so a test
        that has just seen a verdict's text waits here for the picture that goes with it.
        """
        deadline = time.monotonic() + timeout
        current = self.current_nodes(region)
        while (current != expected if expected is not None else not current):
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
            current = self.current_nodes(region)
        return current

    def click_button(self, region: Any, label: str | re.Pattern) -> None:
        """Click the ipywidgets button in ``region`` whose text or tooltip matches ``label``
        (a string matches case-insensitively as a whole word).

        Raises
        ------
        LookupError
            If no button in ``region`` matches.
        """
        pattern = label if isinstance(label, re.Pattern) else re.compile(
            rf"\b{re.escape(label)}\b", re.IGNORECASE)
        buttons = region.locator("button")
        for i in range(buttons.count()):
            button = buttons.nth(i)
            if pattern.search(button.inner_text() or "") or \
                    pattern.search(button.get_attribute("title") or ""):
                button.scroll_into_view_if_needed()
                button.click()
                return
        raise LookupError(f"no button matching {pattern.pattern!r} in the region")

    def slider(self, region: Any, label: re.Pattern) -> Any:
        """The ipywidgets slider in ``region`` whose description matches ``label``.

        Raises
        ------
        LookupError
            If none matches (the message lists the descriptions found).
        """
        sliders = region.locator(".widget-slider")
        labels = []
        for i in range(sliders.count()):
            text = sliders.nth(i).locator(".widget-label").first.inner_text() \
                if sliders.nth(i).locator(".widget-label").count() else ""
            labels.append(text)
            if label.search(text):
                return sliders.nth(i)
        raise LookupError(f"no slider labelled {label.pattern!r}; sliders found: {labels}")

    def choose(self, region: Any, option: str) -> None:
        """Pick ``option`` in the dropdown (``<select>``) or toggle buttons of ``region`` that
        offer it, as a student does with the mouse.

        Raises
        ------
        LookupError
            If no dropdown or toggle button in ``region`` offers ``option``.
        """
        for select in region.locator(".widget-dropdown select").all():
            options = [o.strip() for o in select.locator("option").all_inner_texts()]
            if option in options:
                select.scroll_into_view_if_needed()
                select.select_option(label=option)
                return
        toggle = region.locator(".widget-toggle-buttons button", has_text=re.compile(
            rf"^\s*{re.escape(option)}\s*$"))
        if toggle.count():
            toggle.first.scroll_into_view_if_needed()
            toggle.first.click()
            return
        raise LookupError(f"no dropdown or toggle button offers {option!r}")

    def chosen(self, region: Any) -> list[str]:
        """The labels currently chosen in ``region``'s dropdowns and toggle buttons."""
        return region.evaluate("""el => [
            ...Array.from(el.querySelectorAll('.widget-dropdown select'))
                .map(s => s.options[s.selectedIndex] ? s.options[s.selectedIndex].text : ''),
            ...Array.from(el.querySelectorAll('.widget-toggle-buttons button.mod-active'))
                .map(b => b.textContent.trim())]""")

    def press_slider(self, slider: Any, key: str = "ArrowRight", times: int = 1) -> None:
        """Focus the handle of an ipywidgets slider (a noUiSlider) and press ``key``."""
        handle = slider.locator(".noUi-handle").first
        handle.scroll_into_view_if_needed()
        handle.focus()
        for _ in range(times):
            handle.press(key)

    def wait_changed(self, region: Any, before: dict[str, str], *, timeout: float = 1.0,
                     parts: Sequence[str] = ("svg", "text")) -> tuple[dict[str, str], float]:
        """Wait until every part in ``parts`` of ``region``'s :meth:`snapshot` differs from
        ``before``; return the new snapshot and the seconds waited.

        Raises
        ------
        playwright.sync_api.TimeoutError
            If that does not happen within ``timeout`` seconds.
        """
        start = time.monotonic()
        self.page.wait_for_function(
            f"""([el, before, parts]) => {{ const now = ({_JS_SNAPSHOT})(el);
                return parts.every(p => now[p] !== before[p]); }}""",
            arg=[region.element_handle(timeout=timeout * 1000), before, list(parts)], timeout=timeout * 1000,
            polling="raf")
        return self.snapshot(region), time.monotonic() - start

    # -- editing and validating ----------------------------------------------------------------

    def cell_locator(self, index: int) -> Any:
        """The ``index``-th cell (0-based) of the visible notebook."""
        return self.page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell").nth(index)

    def replace_cell_source(self, index: int, text: str) -> None:
        """Click into cell ``index``'s editor (double-clicking a rendered Markdown cell first),
        select everything and type ``text`` over it.

        The text is inserted as one input (like a paste), so the editor's auto-indent and bracket
        closing do not alter it.
        """
        cell = self.cell_locator(index)
        cell.scroll_into_view_if_needed()
        if "jp-mod-rendered" in (cell.get_attribute("class") or "").split():
            cell.locator(".jp-MarkdownOutput").dblclick()  # open a rendered Markdown cell
        editor = cell.locator(".cm-content")
        editor.wait_for(state="visible")
        editor.click()
        self.page.keyboard.press("ControlOrMeta+a")
        self.page.keyboard.insert_text(text)

    def validate(self, timeout: float = 120.0) -> tuple[str, str]:
        """Click nbgrader's Validate toolbar button and read the result dialog.

        Returns
        -------
        (str, str)
            The outcome -- ``"success"``, ``"failed"``, ``"changed"``, ``"type-changed"`` or
            ``"error"`` (from the CSS class nbgrader's dialog gives its message) -- and the
            dialog's text.  The dialog is closed.
        """
        button = self.page.locator(
            ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-NotebookPanel-toolbar .validate-button")
        button.locator("jp-button, button").first.click()
        message = self.page.locator(".jp-Dialog #validation-message")
        message.wait_for(state="visible", timeout=timeout * 1000)
        classes = message.get_attribute("class") or ""
        text = message.inner_text()
        outcome = "error"
        for name in ("validation-success", "validation-failed", "validation-changed",
                     "validation-type-changed", "validation-passed"):
            if name in classes.split():
                outcome = name.removeprefix("validation-")
        self.page.locator(".jp-Dialog .jp-mod-accept").click()
        self.page.locator(".jp-Dialog").wait_for(state="detached")
        return outcome, text


# --- Jupyter Notebook 7 --------------------------------------------------------------------

def notebook7_url(base_url: str, path: str, token: str = "") -> str:
    """The address of notebook ``path`` in Jupyter Notebook 7: ``/notebooks/<path>``.

    Parameters
    ----------
    base_url : str
        The server's base URL, ending in ``/`` (:attr:`LabServer.base_url`).
    path : str
        The notebook's path relative to the server's root (quoted for the URL).
    token : str, optional
        The access token, put in the query when given.

    Returns
    -------
    str

    Examples
    --------
    >>> notebook7_url("http://127.0.0.1:8888/", "lessons/02 alpha.ipynb", "t")
    'http://127.0.0.1:8888/notebooks/lessons/02%20alpha.ipynb?token=t'
    """
    from urllib.parse import quote
    url = f"{base_url}notebooks/{quote(path.strip('/'))}"
    return f"{url}?token={token}" if token else url


class Notebook7(Lab):
    """One browser page showing Jupyter Notebook 7 (the ``notebook`` package) on a
    :class:`LabServer`, which serves it at ``/tree`` and ``/notebooks/<path>``.

    Notebook 7 is built from JupyterLab's own pieces (the same notebook panel, cells, output
    areas and widget manager), so the observers of :class:`Lab` work unchanged; what differs is
    the shell around them: one document per browser page, opened by its URL, and its own menu
    bar.  The server publishes Notebook 7's application as ``window.jupyterapp`` too
    (``--JupyterNotebookApp.expose_app_in_browser``).

    Parameters
    ----------
    page : playwright.sync_api.Page
        A page of a running browser.
    server : LabServer
        The server the page talks to.
    """

    def notebook_url(self, path: str) -> str:
        """The address a student opens for ``path``: see :func:`notebook7_url`."""
        return notebook7_url(self.server.base_url, path, self.server.token)

    def load(self, timeout: float = 60.0) -> None:
        """Show Notebook 7's file listing (``/tree``) and wait until its application runs."""
        self.page.goto(f"{self.server.base_url}tree?token={self.server.token}")
        self.page.wait_for_function("() => !!(window.jupyterapp && window.jupyterapp.shell)",
                                    timeout=timeout * 1000)

    def open(self, path: str, timeout: float = 60.0) -> None:
        """Open the notebook at ``path`` (relative to the root) by its URL, as Notebook 7's file
        listing does, and wait until its kernel is idle and every cell is in the page.  The
        notebook shown before is left without saving and its kernel shut down."""
        self.close_all()
        self.page.goto(self.notebook_url(path))
        self.page.wait_for_function("() => !!(window.jupyterapp && window.jupyterapp.shell)",
                                    timeout=timeout * 1000)
        self._wait_notebook_ready(path, timeout)

    def open_from_file_browser(self, path: str, timeout: float = 60.0) -> None:
        """Notebook 7 opens a notebook in a page of its own: the same as :meth:`open`."""
        self.open(path, timeout)

    def menu(self, menu: str, item: str) -> None:
        """Click Notebook 7's menu ``menu`` (e.g. ``"Run"``), then its entry ``item``."""
        self.page.locator("#menu-panel .lm-MenuBar-item", has_text=re.compile(
            rf"^{re.escape(menu)}$")).click()
        entry = self.page.locator(".lm-Menu .lm-Menu-item", has=self.page.locator(
            ".lm-Menu-itemLabel", has_text=re.compile(rf"^{re.escape(item)}$"))).first
        entry.wait_for(state="visible")
        entry.click()

    def close_all(self) -> None:
        """Leave the notebook without saving, shut every kernel down, show an empty page."""
        try:
            self.dismiss_dialogs()
            self.page.evaluate("""async () => {
                const app = window.jupyterapp;
                if (!app) return;
                const w = app.shell.currentWidget;
                if (w && w.context && w.context.model) w.context.model.dirty = false;
                await app.serviceManager.sessions.shutdownAll();
            }""")
        except Exception:  # noqa: BLE001 - a wedged page is left anyway
            pass
        self.page.goto("about:blank")

