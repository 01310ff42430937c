"""A Jupyter server extension that makes nbgrader's formgrader safe to open on students' work.

The formgrader (*Nbgrader > Formgrader* in JupyterLab) is served by the
instructor's own Jupyter server, on the same origin as JupyterLab: a script in
one of its pages can do whatever the instructor can -- read the solutions and
the hidden tests, set any grade, open a terminal.  Its pages show what students
wrote (answers, outputs, their ids and names), and nbgrader 0.9 puts some of it
into the page unescaped (the manual-grading page renders markdown and HTML
outputs as they are; its templates print the student's id and names raw).
This extension, enabled wherever the course is installed (``make lab``, the
hub), does three things:

1. **Cleans what the pages are built from.**  The manual-grading page is
   rendered by :class:`course.grading.results.safe_html.SafeHTMLExporter`
   instead of nbconvert's ``HTMLExporter`` (nh3-cleaned HTML, only safe output
   kinds, plain metadata, escaped names), and nbgrader's other pages by its own
   templates with Jinja's auto-escaping switched on.
2. **Forbids every script the pages did not bring themselves.**  Each
   response under ``/formgrader`` gets a Content-Security-Policy whose
   ``script-src`` is a nonce, fresh per response, that only the templates'
   own ``<script>`` tags carry (their inline ``onclick`` handlers are allowed
   by hash); files a student submitted, served under
   ``/formgrader/submissions/<id>/...``, are additionally ``sandbox``\\ ed.
   Responses are not cached (a cached page would carry an old nonce).
3. **Grades only with the approved configuration.**  The *Autograde* and
   *Generate Feedback* buttons call nbgrader's API in this server; the
   extension has them refuse, with the reason, when ``nbgrader_config.py`` or
   the grading policy differ from what the instructor approved
   (:mod:`course.grading.autograde.approval`).

Enabled by ``course/jupyter_config/jupyter_server_config.d/course-formgrader-guard.json``:
``make lab`` puts ``course/jupyter_config`` on ``JUPYTER_CONFIG_PATH``, a
wheel install copies the file to ``<prefix>/etc/jupyter/``, and the hub's
instructor configuration (:mod:`course.hub`) enables the extension by name.  Switch it off (not recommended) with
``--ServerApp.jpserver_extensions='{"course.formgrader_guard": false}'``.

Upstream: nbgrader's formgrader would need the same (auto-escaped templates, a
sanitising exporter, a CSP with nonces); see ``docs/instructor/security.md``.
"""

from __future__ import annotations

import functools
import secrets
from pathlib import Path
from typing import Any

__all__ = ["guard_grading_api", "FormgraderGuard", "PLACEHOLDER_LENGTH"]

#: Nonces and their placeholder have the same length, so replacing one keeps Content-Length right.
PLACEHOLDER_LENGTH = 22


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "course.formgrader_guard"}]


def _refusal(exc: Exception) -> dict[str, Any]:
    return {"success": False, "error": f"{type(exc).__name__}: {exc}", "log": str(exc)}


def guard_grading_api() -> None:
    """Make nbgrader's ``NbGraderAPI.autograde`` and ``generate_feedback`` check the approval first.

    In this process only (the Jupyter server); ``make autograde`` checks on its own.
    Calling it twice changes nothing.
    """
    from nbgrader.apps.api import NbGraderAPI

    from course.grading.autograde.approval import check_config_approved, check_policy_approved
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
            except CourseError as exc:
                self.log.error("%s", exc)
                return _refusal(exc)
            return _original(self, *args, **kwargs)

        guarded._course_guarded = True
        setattr(NbGraderAPI, name, guarded)


class FormgraderGuard:
    """The state of the guard in one server: the placeholder, the handler hashes, the patches."""

    def __init__(self, web_app: Any, base_url: str) -> None:
        self.web_app = web_app
        self.prefix = (base_url.rstrip("/") + "/formgrader").replace("//", "/")
        self.placeholder = secrets.token_urlsafe(16)
        assert len(self.placeholder) == PLACEHOLDER_LENGTH
        self.hashes: list[str] = []
        self.patched = False

    def patch_settings(self) -> None:
        """Replace the formgrader's template environment and exporter (once nbgrader set them)."""
        settings = self.web_app.settings
        if self.patched or "nbgrader_jinja2_env" not in settings:
            return
        from jinja2 import Environment, FileSystemLoader, select_autoescape
        from nbgrader.server_extensions.formgrader import handlers

        from course.grading.results.safe_html import (SafeHTMLExporter, ScriptNonceLoader,
                                                      inline_handler_hashes)

        loader = FileSystemLoader([handlers.template_path])
        settings["nbgrader_jinja2_env"] = Environment(
            loader=ScriptNonceLoader(loader, self.placeholder),
            autoescape=select_autoescape(default=True, default_for_string=True))
        old = settings["nbgrader_exporter"]
        exporter = SafeHTMLExporter(config=old.config, meta_csp=False, nonce_placeholder=self.placeholder)
        settings["nbgrader_exporter"] = exporter
        sources = [p.read_text(encoding="utf-8") for p in Path(handlers.template_path).rglob("*")
                   if p.is_file() and p.suffix in (".tpl", ".j2")]
        self.hashes = sorted(set(inline_handler_hashes(sources)) | set(exporter.handler_hashes()))
        self.patched = True

    def transform(self):
        """A tornado output transform (class) that sets the policy on ``/formgrader`` responses."""
        guard = self

        class _Transform:
            def __init__(self, request: Any) -> None:
                path = request.path or ""
                self.active = path == guard.prefix or path.startswith(guard.prefix + "/")
                if not self.active:
                    return
                guard.patch_settings()
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
                from course.grading.results.safe_html import content_security_policy

                old = headers.get("Content-Security-Policy", "")
                ancestors = next((d.strip().split(None, 1)[1] for d in old.split(";")
                                  if d.strip().startswith("frame-ancestors") and " " in d.strip()), "'self'")
                headers["Content-Security-Policy"] = content_security_policy(
                    self.nonce, handler_hashes=guard.hashes, frame_ancestors=ancestors, files=self.files)
                headers["Cache-Control"] = "no-store"
                headers["X-Content-Type-Options"] = "nosniff"
                headers.pop("Etag", None)
                return status_code, headers, self._body(chunk)

            def transform_chunk(self, chunk, finishing):
                return self._body(chunk) if self.active else chunk

        return _Transform


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Install the guard in a Jupyter server (see the module notes)."""
    guard = FormgraderGuard(serverapp.web_app, serverapp.base_url)
    serverapp.web_app.transforms.insert(0, guard.transform())
    try:
        guard_grading_api()
    except ImportError:        # nbgrader is not installed: there is no formgrader to guard
        pass
    serverapp.web_app.settings["course_formgrader_guard"] = guard
    serverapp.log.info("course.formgrader_guard: Content-Security-Policy with nonces on /formgrader, "
                       "cleaned submissions, grading only with the approved configuration")


# the names older Jupyter servers look for
load_jupyter_server_extension = _load_jupyter_server_extension
