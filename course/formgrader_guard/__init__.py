"""A Jupyter server extension that serves nbgrader's formgrader only behind the course's guard.

The formgrader (*Nbgrader > Formgrader* in JupyterLab) is served by the
instructor's own Jupyter server, on the same origin as JupyterLab: a script in
one of its pages can do whatever the instructor can -- read the solutions and
the hidden tests, set any grade, open a terminal.  Its pages show what students
wrote (answers, outputs, their ids and names), and nbgrader 0.9 puts some of it
into the page unescaped (the manual-grading page renders markdown and HTML
outputs as they are; its templates print the student's id and names raw).

**The formgrader is loaded by this extension, never on its own.**  The course's
Jupyter configuration (``zz-course-formgrader-guard.json``, see below) switches
nbgrader's ``nbgrader.server_extensions.formgrader`` off and this extension on;
this extension installs the guard and then loads nbgrader's formgrader.  If the
guard cannot be installed (a missing dependency, an error), the extension fails
and the formgrader is not loaded: the server runs without it (fail closed).
Wherever the formgrader is loaded some other way (nbgrader's own configuration
in an environment where the course's file is missing), the course's
``nbgrader_config.py`` -- which the formgrader runs when it starts and at each
request -- installs the guard through :func:`guard_this_formgrader`; if that
fails, every formgrader page answers 503.

The guard:

1. **Cleans what the pages are built from.**  The manual-grading page is
   rendered by :class:`course.grading.term.results.safe_html.SafeHTMLExporter`
   instead of nbconvert's ``HTMLExporter`` (nh3-cleaned HTML, only safe output
   kinds, plain metadata, escaped names, bounded styles, links that leave the
   formgrader only through a warning page), and nbgrader's other pages by its
   own templates with Jinja's auto-escaping switched on.
2. **Forbids every script the pages did not bring themselves.**  Each
   response under ``/formgrader`` gets a Content-Security-Policy whose
   ``script-src`` is a nonce, fresh per response, that only the templates'
   own ``<script>`` tags carry (their inline ``onclick`` handlers are allowed
   by hash); files a student submitted, served under
   ``/formgrader/submissions/<id>/...``, are additionally ``sandbox``\\ ed.
   Responses are not cached (a cached page would carry an old nonce).
3. **Grades only with the approved configuration.**  The *Autograde* and
   *Generate Feedback* buttons call nbgrader's API in this server; the guard
   has them refuse, with the reason, when ``nbgrader_config.py`` or the grading
   policy differ from what the instructor approved
   (:mod:`course.grading.job.approval`).
4. **Refuses what nbgrader would do on a mere GET.**  ``/formgrader?path=DIR``
   makes nbgrader run ``DIR/nbgrader_config.py`` in the instructor's server (a
   picture in a student's answer pointing there was enough); a submission file
   whose path climbs out of the submission (``..``) would be served from
   anywhere in the course directory (``solutions/``, the grading secret).
   Both are refused.
5. **Opens the formgrader in its own tab where it may not be framed.**  On the
   course's JupyterHub the instructor's server sends ``frame-ancestors
   'none'``; JupyterLab's *Formgrader* panel then shows a page with a link that
   opens the formgrader in a browser tab of its own.
6. **Hand grading only, for teaching assistants** (``c.FormgraderGuard.hand_grading_only
   = True``, the hub's shared graders' formgrader, :mod:`course.hub`): the server
   answers nothing but the formgrader's pages and its reading API, and accepts
   only scores, comments and review flags -- no release, collect, autograde,
   feedback, student edits, files, contents, kernels or terminals.
7. **Lists students by name**: the course's ``roster.csv`` is read into the
   gradebook when the formgrader first opens (nbgrader's autograde adds
   students by id only: the formgrader showed "None, None").

Enabled by ``course/jupyter_config/jupyter_server_config.d/zz-course-formgrader-guard.json``
(named to sort after nbgrader's own ``nbgrader.json``, whose setting it overrides):
``make lab`` puts ``course/jupyter_config`` on ``JUPYTER_CONFIG_PATH``, a
wheel install copies the file to ``<prefix>/etc/jupyter/``, and the hub's
configuration (:mod:`course.hub`) sets the same in Python.

Upstream: nbgrader's formgrader would need the same (auto-escaped templates, a
sanitising exporter, a CSP with nonces, no config loading from a URL); see
``docs/instructor/security.md``.
"""

from __future__ import annotations

import functools
import html
import json
import re
import secrets
import sys
import urllib.parse
from pathlib import Path
from typing import Any

from traitlets import Bool, Unicode
from traitlets.config import LoggingConfigurable

__all__ = ["guard_grading_api", "FormgraderGuard", "PLACEHOLDER_LENGTH", "install",
           "guard_this_formgrader", "same_site", "guard_page", "own_tab_body", "GUARD_SETTING", "LEAVE_PATH",
           "HAND_GRADING_WRITES"]

#: Nonces and their placeholder have the same length, so replacing one keeps Content-Length right.
PLACEHOLDER_LENGTH = 22
#: Where the guard keeps itself in the server's tornado settings.
GUARD_SETTING = "course_formgrader_guard"
#: The warning page a link in a submission goes through (under the server's base URL).
LEAVE_PATH = "formgrader/course-leave"
#: What a hand-grading-only formgrader accepts besides reading: (method, path pattern under /formgrader/).
HAND_GRADING_WRITES = (("PUT", re.compile(r"api/grade/[^/]+")),
                       ("PUT", re.compile(r"api/comment/[^/]+")),
                       ("POST", re.compile(r"api/submitted_notebook/[^/]+/flag")))
#: Paths outside /formgrader that a hand-grading-only server still answers (JupyterHub's login).
_HAND_GRADING_OTHER = re.compile(r"(oauth_callback|logout|login)/?")
_READ_METHODS = ("GET", "HEAD")


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "course.formgrader_guard"}]


def _refusal(exc: Exception) -> dict[str, Any]:
    return {"success": False, "error": f"{type(exc).__name__}: {exc}", "log": str(exc)}


def guard_grading_api() -> None:
    """Make nbgrader's ``NbGraderAPI.autograde`` and ``generate_feedback`` check the approval first
    and hold the course lock while they run.

    In this process only (the Jupyter server); ``make autograde`` checks on its own.  The
    formgrader's Autograde and Generate Feedback buttons then take the course lock
    exclusively, as ``make autograde`` and ``make feedback`` do
    (:mod:`course.grading.term.run_lock`): a click while a grading command runs is refused with
    that command's name, and no command starts while the button's work runs.  A submission
    whose grading by the Autograde button reached a time limit is graded again at once, as
    ``make autograde`` grades it again at the end of its run (:func:`_autograde_with_the_rule`).
    Calling it twice changes nothing.
    """
    from nbgrader.apps.api import NbGraderAPI

    from course.grading.job.approval import check_config_approved, check_policy_approved
    from course.grading.term.run_lock import course_lock
    from course.errors import CourseError

    for name in ("autograde", "generate_feedback"):
        original = getattr(NbGraderAPI, name)
        if getattr(original, "_course_guarded", False):
            continue

        @functools.wraps(original)
        def guarded(self, *args: Any, _original=original, **kwargs: Any):
            root = self.coursedir.root
            try:
                check_config_approved(root)
                check_policy_approved(self.config, root)
                with course_lock(root, f"the formgrader's {_original.__name__} button"):
                    if _original.__name__ == "autograde":
                        return _autograde_with_the_rule(self, _original, args, kwargs)
                    return _original(self, *args, **kwargs)
            except CourseError as exc:            # not approved, or the course is busy
                self.log.error("%s", exc)
                return _refusal(exc)

        guarded._course_guarded = True
        setattr(NbGraderAPI, name, guarded)


def _autograde_with_the_rule(api: Any, autograde: Any, args: tuple, kwargs: dict) -> dict:
    """nbgrader's ``autograde`` of one submission, graded again at once if it reached a time limit.

    The rule of ``make autograde`` (docs/instructor/grading-limits.md, "When a time limit is
    reached"): a wall-clock limit can be reached because the machine is busy, so such a grading
    is done a second time, with nothing else of the grading beside it (the button grades one
    submission and holds the course lock), and the second grading is the grade; there is no
    third.  What the first grading reached is said in the result's log.
    """
    from course.grading.job import sandboxed

    del sandboxed.TIME_LIMITS_HIT[:]
    result = autograde(api, *args, **kwargs)
    reached = sandboxed.TIME_LIMITS_HIT[:20]
    if not (isinstance(result, dict) and result.get("success") and reached):
        return result
    said = ("graded again, at once, by itself; this grade is from that second grading: the "
            "first grading reached a time limit, which a busy machine alone can cause ("
            + "; ".join(reached) + ")")
    api.log.warning("%s", said)
    del sandboxed.TIME_LIMITS_HIT[:]
    again = dict(kwargs, force=True) if len(args) < 3 else kwargs     # (force: grade it again)
    second = autograde(api, *args, **again)
    if sandboxed.TIME_LIMITS_HIT:
        said += ("; the second grading reached a time limit again ("
                 + "; ".join(sandboxed.TIME_LIMITS_HIT[:20]) + "), so the code itself is slow there")
        api.log.warning("%s", said)
    if isinstance(second, dict):
        second["log"] = f"{said}\n{second.get('log') or ''}"
    return second


class FormgraderGuard(LoggingConfigurable):
    """The guard of one Jupyter server's formgrader (see the module notes).

    Configurable as ``c.FormgraderGuard.<setting>`` in the server's configuration.
    """

    hand_grading_only = Bool(False, help=(
        "Serve nothing but the formgrader, and accept only scores, comments and review flags "
        "(no release, collect, autograde, feedback, student edits, files, kernels or terminals): "
        "the hub's shared formgrader for teaching assistants.")).tag(config=True)
    frame_ancestors = Unicode("", help=(
        "The formgrader pages' frame-ancestors (default: the server's own Content-Security-Policy's, "
        "else 'self').  With 'none', JupyterLab's Formgrader panel shows a link that opens the "
        "formgrader in its own browser tab.")).tag(config=True)

    def __init__(self, web_app: Any = None, base_url: str = "/", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.web_app = web_app
        self.base = "/" + base_url.strip("/") + "/" if base_url.strip("/") else "/"
        self.prefix = self.base + "formgrader"
        self.placeholder = secrets.token_urlsafe(16)
        assert len(self.placeholder) == PLACEHOLDER_LENGTH
        self.hashes: list[str] = []
        self.broken = "the guard is not installed yet"
        self._patched_env: Any = None
        self._roster_seen: Any = None

    # --- the pages' ingredients ------------------------------------------------------------------
    def check_ready(self) -> None:
        """Import everything the guard needs; raises if something is missing (then it refuses)."""
        import jinja2  # noqa: F401
        import nh3  # noqa: F401

        from course.grading.term.results.safe_html import (SafeHTMLExporter,  # noqa: F401
                                                      content_security_policy)
        guard_grading_api()
        self.broken = ""

    def patch_settings(self) -> None:
        """Replace the formgrader's template environment and exporter (each time nbgrader set new ones)."""
        settings = self.web_app.settings
        env = settings.get("nbgrader_jinja2_env")
        if env is None or env is self._patched_env:
            return
        from jinja2 import Environment, FileSystemLoader, select_autoescape
        from nbgrader.server_extensions.formgrader import handlers

        from course.grading.term.results.safe_html import (SafeHTMLExporter, ScriptNonceLoader,
                                                      inline_handler_hashes)

        loader = FileSystemLoader([handlers.template_path])
        new_env = Environment(loader=ScriptNonceLoader(loader, self.placeholder),
                              autoescape=select_autoescape(default=True, default_for_string=True))
        old = settings["nbgrader_exporter"]
        exporter = SafeHTMLExporter(config=old.config, meta_csp=False, nonce_placeholder=self.placeholder,
                                    leave_url=self.base + LEAVE_PATH)
        sources = [p.read_text(encoding="utf-8") for p in Path(handlers.template_path).rglob("*")
                   if p.is_file() and p.suffix in (".tpl", ".j2")]
        self.hashes = sorted(set(inline_handler_hashes(sources)) | set(exporter.handler_hashes()))
        settings["nbgrader_exporter"] = exporter
        settings["nbgrader_jinja2_env"] = new_env
        self._patched_env = new_env

    def roster_into_gradebook(self) -> None:
        """Names from the course's ``roster.csv`` into the gradebook (when the roster changed)."""
        formgrader = self.web_app.settings.get("nbgrader_formgrader")
        if formgrader is None:
            return
        try:
            from nbgrader.api import Gradebook

            from course.grading.term.intake.roster import ROSTER_FILE, course_roster, names_into_gradebook

            root = formgrader.coursedir.root
            path = Path(root) / ROSTER_FILE
            stamp = (str(path), path.stat().st_mtime_ns) if path.is_file() else None
            if stamp is None or stamp == self._roster_seen:
                return
            roster = course_roster(root)
            with Gradebook(formgrader.coursedir.db_url, formgrader.coursedir.course_id) as gb:
                changed = names_into_gradebook(roster, gb)
            self._roster_seen = stamp
            if changed:
                self.log.info("course.formgrader_guard: names of %d students from %s", len(changed), path)
        except Exception as exc:  # noqa: BLE001 - names are a convenience: never block grading
            self.log.warning("course.formgrader_guard: the roster's names were not read: %s", exc)

    def ancestors(self, old_policy: str) -> str:
        """The formgrader pages' frame-ancestors (setting, else the server's, else 'self')."""
        if self.frame_ancestors:
            return self.frame_ancestors
        return next((d.strip().split(None, 1)[1] for d in old_policy.split(";")
                     if d.strip().startswith("frame-ancestors") and " " in d.strip()), "'self'")

    def server_ancestors(self) -> str:
        headers = (self.web_app.settings.get("headers") or {}) if self.web_app is not None else {}
        return self.ancestors(headers.get("Content-Security-Policy", ""))

    # --- what is refused before nbgrader sees the request ---------------------------------------
    def refusal(self, request: Any) -> tuple[type, dict] | None:
        """``(handler class, its arguments)`` answering ``request`` instead of nbgrader, or None."""
        path = request.path or ""
        if not path.startswith(self.base) and path + "/" != self.base:
            return None
        rel = path[len(self.base):]
        in_formgrader = rel == "formgrader" or rel.startswith("formgrader/")
        if not in_formgrader:
            if self.hand_grading_only and not _HAND_GRADING_OTHER.fullmatch(rel):
                return _Refused, {"status": 403, "message": "This server is the graders' formgrader: "
                                                            "it serves nothing else."}
            return None
        if self.broken:
            return _Refused, {"status": 503, "message": "The formgrader is off: the course's guard "
                                                        f"could not be installed ({self.broken})."}
        try:
            self.patch_settings()
        except Exception as exc:  # noqa: BLE001 - whatever fails, the formgrader stays off
            self.broken = f"{type(exc).__name__}: {exc}"
            self.log.error("course.formgrader_guard: %s; the formgrader is off", self.broken)
            return _Refused, {"status": 503, "message": f"The formgrader is off: {self.broken}."}
        self.roster_into_gradebook()
        rest = rel[len("formgrader"):].strip("/")
        if rest == "":
            if "path" in request.query_arguments:
                return _Refused, {"status": 403, "message": "This formgrader serves its own course only "
                                                            "(a ?path= would run that folder's nbgrader_config.py)."}
            dest = request.headers.get("Sec-Fetch-Dest", "")
            if dest in ("iframe", "frame") and self.server_ancestors() == "'none'":
                return _OwnTab, {"target": self.prefix + "/manage_assignments"}
        if rel.rstrip("/") == LEAVE_PATH:
            return _Leave, {"guard": self}
        parts = rest.split("/")
        if len(parts) >= 3 and parts[0] == "submissions" and parts[1] != "components":
            inside = urllib.parse.unquote("/".join(parts[2:]))
            segments = inside.replace("\\", "/").split("/")
            if any(s in (".", "..") for s in segments) or inside.startswith("/") or "\x00" in inside:
                return _Refused, {"status": 404, "message": "No such file in this submission."}
        if self.hand_grading_only and request.method not in _READ_METHODS:
            if not any(request.method == method and pattern.fullmatch(rest)
                       for method, pattern in HAND_GRADING_WRITES):
                return _Refused, {"status": 403, "message": "Graders enter scores and comments here; "
                                                            "the instructor does the rest."}
        return None

    def transform(self):
        """A tornado output transform (class) that sets the policy on ``/formgrader`` responses."""
        guard = self

        class _Transform:
            def __init__(self, request: Any) -> None:
                path = request.path or ""
                self.active = path == guard.prefix or path.startswith(guard.prefix + "/")
                if not self.active:
                    return
                self.nonce = secrets.token_urlsafe(16)
                rest = path[len(guard.prefix):].strip("/").split("/")
                # /formgrader/submissions/<id>/<file...>: a file from the student's folder
                self.files = (len(rest) >= 3 and rest[0] == "submissions" and rest[1] != "components"
                              and rest[2] not in ("next", "prev", "next_incorrect", "prev_incorrect", ""))

            def _body(self, chunk: bytes) -> bytes:
                return chunk.replace(guard.placeholder.encode(), self.nonce.encode()) if chunk else chunk

            def transform_first_chunk(self, status_code, headers, chunk, finishing):
                if not self.active:
                    return status_code, headers, chunk
                if headers.get("X-Course-Guard-Page"):      # the guard's own pages set their policy
                    del headers["X-Course-Guard-Page"]
                    return status_code, headers, chunk
                from course.grading.term.results.safe_html import content_security_policy

                ancestors = guard.ancestors(headers.get("Content-Security-Policy", ""))
                headers["Content-Security-Policy"] = content_security_policy(
                    self.nonce, handler_hashes=guard.hashes, frame_ancestors=ancestors, files=self.files)
                headers["Cache-Control"] = "no-store"
                headers["X-Content-Type-Options"] = "nosniff"
                headers.pop("Etag", None)
                return status_code, headers, self._body(chunk)

            def transform_chunk(self, chunk, finishing):
                return self._body(chunk) if self.active else chunk

        return _Transform


# --- the guard's own pages ----------------------------------------------------------------------
def guard_page(title: str, body: str) -> str:
    """The HTML of one of the guard's pages (a refusal, the warning before a link, the own-tab button).

    >>> "<h1>Not here</h1>" in guard_page("Not here", "<p>No.</p>")
    True
    """
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{title}</title>'
            '<style>body{font:16px/1.5 sans-serif;max-width:40em;margin:2em auto;padding:0 1em}'
            'code{word-break:break-all}button{font:inherit;padding:.4em .8em}</style></head>'
            f'<body><main><h1>{title}</h1>{body}</main></body></html>\n')


def own_tab_body(target: str, nonce: str) -> str:
    """The body of the page JupyterLab's Formgrader panel shows when the formgrader may not be framed.

    The panel is nbgrader's iframe, sandboxed without ``allow-popups``: a link cannot open a tab
    from it.  The button asks JupyterLab (nbgrader's own message channel from this frame) to run
    its ``help:open`` command, which opens the address in a new browser tab.
    """
    shown = html.escape(target)
    return ("<p>The formgrader shows your students' work, so it is never shown inside another "
            "page (here: JupyterLab).</p>"
            '<p><button type="button" id="open-formgrader">Open the formgrader in a new tab</button></p>'
            f'<p>Or open <a href="{shown}" target="_blank" rel="noopener noreferrer">{shown}</a> '
            "yourself (for example with the link's context menu).</p>"
            f'<script nonce="{nonce}">\n'
            'document.getElementById("open-formgrader").addEventListener("click", () => {\n'
            f'  const url = new URL({json.dumps(target)}, location.href).href;\n'
            "  if (window.parent !== window) {\n"
            '    window.parent.postMessage(JSON.stringify({command: "help:open", arguments: '
            '{url: url, text: "Formgrader", newBrowserTab: true}}), location.origin);\n'
            '  } else { window.open(url, "_blank", "noopener"); }\n'
            "});\n</script>")


def _handler_base():
    from tornado.web import RequestHandler

    class _GuardPage(RequestHandler):
        policy = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"

        def page(self, status: int, title: str, body: str) -> None:
            self.set_status(status)
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.set_header("Content-Security-Policy", self.policy + "; base-uri 'none'; form-action 'none'")
            self.set_header("Cache-Control", "no-store")
            self.set_header("X-Content-Type-Options", "nosniff")
            self.set_header("Referrer-Policy", "no-referrer")
            self.set_header("X-Course-Guard-Page", "1")
            self.finish(guard_page(title, body))

        def check_xsrf_cookie(self) -> None:     # refusals answer every method as they are
            return None

    return _GuardPage


def _make_pages() -> tuple[type, type, type]:
    base = _handler_base()

    class Refused(base):
        def initialize(self, status: int, message: str) -> None:
            self.status, self.message = status, message

        def _answer(self, *args: Any, **kwargs: Any) -> None:
            self.page(self.status, "Not here", f"<p>{html.escape(self.message)}</p>")

        get = head = post = put = patch = delete = options = _answer

    class OwnTab(base):
        """What JupyterLab's Formgrader panel shows when the formgrader may not be framed."""

        def initialize(self, target: str) -> None:
            self.target = target

        def get(self, *args: Any, **kwargs: Any) -> None:
            nonce = secrets.token_urlsafe(16)
            self.policy = (f"default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-{nonce}'; "
                           "frame-ancestors 'self'")
            self.page(200, "The formgrader opens in its own tab", own_tab_body(self.target, nonce))

    class Leave(base):
        """The warning page every link in a student's work goes through."""

        def initialize(self, guard: FormgraderGuard) -> None:
            self.guard = guard

        def get(self, *args: Any, **kwargs: Any) -> None:
            target = self.get_argument("to", "")
            parsed = urllib.parse.urlsplit(target)
            if parsed.scheme.lower() not in ("http", "https", "mailto", ""):
                self.page(400, "Not a web link", "<p>This link does not lead to a web page.</p>")
                return
            inside = same_site(parsed.hostname or "", self.request.host_name or "")
            warning = ("<p><strong>It leads into this server or hub</strong>: a page there can act "
                       "with your login (read the course, change grades, run commands). Open it only "
                       "if you trust it.</p>" if inside else "<p>It leads to another site.</p>")
            self.page(200, "A link written by a student",
                      f"<p>The link you clicked is part of a student's submission:</p><p><code>"
                      f"{html.escape(target)}</code></p>{warning}"
                      f'<p><a href="{html.escape(target)}" rel="noopener noreferrer" target="_blank">'
                      "Open it in a new tab</a> &nbsp; or close this tab to stay in the formgrader.</p>")

    return Refused, OwnTab, Leave


def same_site(host: str, here: str) -> bool:
    """Whether a link to ``host`` stays on the server or hub at ``here`` (its host, or a peer subdomain).

    >>> same_site("", "alice.hub.example.org"), same_site("mallory.hub.example.org", "alice.hub.example.org")
    (True, True)
    >>> same_site("hub.example.org", "alice.hub.example.org"), same_site("example.com", "alice.hub.example.org")
    (True, False)
    >>> same_site("127.0.0.1", "127.0.0.1"), same_site("10.0.0.1", "127.0.0.1")
    (True, False)
    """
    host, here = host.lower().rstrip("."), here.lower().rstrip(".")
    if not host or host == here:
        return True
    if re.fullmatch(r"[\d.]+|\[?[0-9a-f:]+\]?", here):       # an IP address has no subdomains
        return False
    parent = here.split(".", 1)[1] if here.count(".") >= 2 else here
    return host == parent or host.endswith("." + parent)


class _Lazy:
    """The pages are tornado handlers, made on first use (tornado is imported only in a server)."""

    def __init__(self, index: int) -> None:
        self.index = index

    def resolve(self) -> type:
        global _PAGES
        if _PAGES is None:
            _PAGES = _make_pages()
        return _PAGES[self.index]


_PAGES: tuple[type, type, type] | None = None
_Refused, _OwnTab, _Leave = _Lazy(0), _Lazy(1), _Lazy(2)


def _gate(guard: FormgraderGuard):
    """A tornado router, first in the application's rules: the guard's refusals and pages."""
    from tornado.routing import Router

    class Gate(Router):
        def find_handler(self, request: Any, **kwargs: Any):
            answer = guard.refusal(request)
            if answer is None:
                return None              # on to the server's own rules (nbgrader's formgrader)
            handler, arguments = answer
            return guard.web_app.get_handler_delegate(request, handler.resolve(), arguments)

    return Gate()


# --- installing it ------------------------------------------------------------------------------
def install(serverapp: Any) -> FormgraderGuard:
    """Install the guard in a Jupyter server (once); raises if it cannot work.

    The gate comes first: from then on every ``/formgrader`` request passes it,
    and it answers 503 until the guard is ready (and for good if it fails).
    """
    from tornado.routing import AnyMatches, Rule

    import os

    web_app = serverapp.web_app
    guard = web_app.settings.get(GUARD_SETTING)
    # nbgrader makes a new gradebook with the `alembic` command installed beside it: a server
    # started as `.venv/bin/jupyter lab`, without the environment on PATH, could not (error 500)
    bindir = os.path.dirname(sys.executable)
    if bindir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = os.pathsep.join([bindir, *filter(None, [os.environ.get("PATH")])])
    if guard is not None:
        if guard.broken:
            raise RuntimeError(guard.broken)
        return guard
    guard = FormgraderGuard(web_app=web_app, base_url=serverapp.base_url, parent=serverapp)
    web_app.settings[GUARD_SETTING] = guard
    web_app.default_router.rules.insert(0, Rule(AnyMatches(), _gate(guard)))
    web_app.transforms.insert(0, guard.transform())
    try:
        guard.check_ready()
    except Exception as exc:
        guard.broken = f"{type(exc).__name__}: {exc}"
        serverapp.log.error("course.formgrader_guard cannot work (%s): the formgrader stays off", guard.broken)
        raise
    serverapp.log.info("course.formgrader_guard: the formgrader is served with a nonce Content-Security-"
                       "Policy and cleaned submissions, grades only with the approved configuration"
                       + (", hand grading only" if guard.hand_grading_only else ""))
    return guard


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Install the guard, then load nbgrader's formgrader behind it (see the module notes)."""
    install(serverapp)            # raises if the guard cannot work: then no formgrader at all
    if "nbgrader_formgrader" in serverapp.web_app.settings:
        return                    # nbgrader's own extension loaded it already (behind the gate)
    try:
        from nbgrader.server_extensions.formgrader import load_jupyter_server_extension
    except ImportError:           # nbgrader is not installed: there is no formgrader to serve
        return
    load_jupyter_server_extension(serverapp)


# the names older Jupyter servers look for
load_jupyter_server_extension = _load_jupyter_server_extension


def guard_this_formgrader() -> None:
    """Guard the formgrader that is loading this configuration file, if one is (else do nothing).

    The course's ``nbgrader_config.py`` calls it.  nbgrader's formgrader runs
    that file when it starts and at each request; when it does, this installs
    the guard in its Jupyter server (the ``FormgradeExtension`` being
    configured has the server as its parent).  Elsewhere -- ``nbgrader`` or the
    course's commands in a terminal, a student's Validate -- there is no such
    frame and nothing happens.  Never raises: a failure leaves the guard's gate
    answering 503 for every formgrader page.
    """
    module = sys.modules.get("nbgrader.server_extensions.formgrader.formgrader")
    if module is None:
        return
    extension = getattr(module, "FormgradeExtension", None)
    frame = sys._getframe(1)
    while frame is not None:
        candidate = frame.f_locals.get("self")
        if extension is not None and isinstance(candidate, extension):
            serverapp = getattr(candidate, "parent", None)
            if serverapp is None or not hasattr(serverapp, "web_app"):
                return
            try:
                install(serverapp)
            except Exception:  # noqa: BLE001 - logged by install; the gate keeps the formgrader off
                pass
            return
        frame = frame.f_back
