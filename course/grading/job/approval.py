"""Grading only with the configuration the instructor approved.

``nbgrader_config.py`` is Python that nbgrader runs, and it decides how
students' code is run: one line (a different preprocessor list, nbgrader's own
``Execute``) would grade every submission in a kernel with the instructor's
rights.  So autograding refuses to start when the configuration differs from
what the instructor last approved, and says what changed:

* the **file**: the SHA-256 of the course's ``nbgrader_config.py``, checked
  *before* it is run (``make autograde``, ``make feedback``, every grading
  worker);
* the **grading policy**: what the configuration makes nbgrader run --
  autograde's preprocessors, feedback's preprocessors and exporter, the
  exchange's classes, the sandboxed step's settings -- checked where grading
  happens, on the configuration actually loaded there: in
  :class:`~.sandboxed.SandboxedGrade` and, for the formgrader's *Autograde*
  button, in the server extension :mod:`course.formgrader_guard`.  nbgrader
  also reads ``~/.jupyter/nbgrader_config.py`` and ``/etc/jupyter/...``: a
  grading setting there that differs from the approved one stops grading too.

``python -m course.grading approve-config`` (``make approve-config``) shows
the difference with the last approved file and the policy it gives, and
approves them.  A policy that does not grade in the sandbox cannot be
approved: the sandbox is switched off only by ``--unsafe-no-sandbox`` on the
command line, for one run, and the grading report records it.

The approval is kept outside the course directory and outside what the
Jupyter server serves: ``$COURSE_GRADING_APPROVALS`` or
``~/.local/share/course-grading/approved/`` (``$XDG_DATA_HOME`` is honoured),
one JSON file per course directory with a copy of the approved file.

What this does not do: a configuration file *is* code, and whoever can write it
can run code as the instructor in every tool that reads it (nbgrader's
formgrader runs it again at each request).  The approval makes a changed
grading policy visible and stops grading with it; it is not a sandbox for the
configuration itself.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import getpass
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import CourseError

__all__ = ["ConfigNotApproved", "SandboxPolicyError", "Approval", "approvals_dir", "config_path",
           "grading_policy", "check_policy_is_sandboxed", "read_approval", "check_config_approved",
           "check_policy_approved", "approve_config", "config_diff", "APPROVALS_ENV", "SANDBOXED_STEP"]

#: Environment variable naming the folder that keeps the approvals.
APPROVALS_ENV = "COURSE_GRADING_APPROVALS"
#: The preprocessor that runs students' code in the sandbox.
SANDBOXED_STEP = "course.grading.job.sandboxed.SandboxedGrade"
#: nbgrader's and nbconvert's steps that would run a notebook in a kernel, outside the sandbox.
KERNEL_STEPS = ("nbgrader.preprocessors.Execute", "nbgrader.preprocessors.execute.Execute",
                "nbconvert.preprocessors.ExecutePreprocessor",
                "nbconvert.preprocessors.execute.ExecutePreprocessor")
#: Settings of the sandboxed step that a run sets itself (not part of the policy).
RUN_SETTINGS = ("cell_timeout", "secret_root", "submission_timeout")
#: What the policy holds: configuration section -> traits (None: every trait of the section).
POLICY_TRAITS: dict[str, tuple[str, ...] | None] = {
    "Autograde": ("autograde_preprocessors", "sanitize_preprocessors"),
    "GenerateFeedback": ("preprocessors", "exporter_class"),
    "ExchangeFactory": None,
    "SandboxedGrade": None,
}
APPROVE_COMMAND = "python -m course.grading approve-config (make approve-config)"


class ConfigNotApproved(CourseError):
    """The nbgrader configuration differs from what the instructor approved.

    ``summary`` says what is wrong in one clause (``"... has not been approved for grading
    yet"``), for a warning that gives its own advice.
    """

    def __init__(self, message: str, summary: str = "") -> None:
        super().__init__(message)
        self.summary = summary or message.splitlines()[0]


class SandboxPolicyError(CourseError):
    """A configuration would grade students' code outside the sandbox."""


def approvals_dir() -> Path:
    """Where approvals are kept (see the module notes)."""
    value = os.environ.get(APPROVALS_ENV)
    if value:
        return Path(value)
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return Path(data) / "course-grading" / "approved"


def config_path(root: str | os.PathLike) -> Path:
    """The course's ``nbgrader_config.py``."""
    return Path(root).resolve() / "nbgrader_config.py"


def _record_path(root: str | os.PathLike) -> Path:
    key = hashlib.sha256(str(Path(root).resolve()).encode()).hexdigest()[:20]
    return approvals_dir() / f"{key}.json"


def _name(value: Any) -> Any:
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    if isinstance(value, (list, tuple)):
        return [_name(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _name(v) for k, v in sorted(value.items())}
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)


def grading_policy(config) -> dict[str, Any]:
    """What a (loaded) traitlets configuration makes nbgrader run when it grades.

    >>> from traitlets.config import Config
    >>> c = Config()
    >>> c.Autograde.autograde_preprocessors = ["course.grading.job.sandboxed.SandboxedGrade"]
    >>> c.SandboxedGrade.cell_timeout = 60
    >>> grading_policy(c)
    {'Autograde': {'autograde_preprocessors': ['course.grading.job.sandboxed.SandboxedGrade']}}
    """
    policy: dict[str, Any] = {}
    for section, traits in POLICY_TRAITS.items():
        if section not in config:
            continue
        values = config[section]
        keys = sorted(values) if traits is None else [t for t in traits if t in values]
        found = {k: _name(values[k]) for k in keys if not (section == "SandboxedGrade" and k in RUN_SETTINGS)}
        if found:
            policy[section] = found
    return policy


def check_policy_is_sandboxed(policy: dict[str, Any]) -> None:
    """Raise :class:`SandboxPolicyError` unless the policy grades only in the sandbox.

    >>> check_policy_is_sandboxed({"Autograde": {"autograde_preprocessors": [SANDBOXED_STEP]}})
    >>> check_policy_is_sandboxed({"Autograde": {"autograde_preprocessors": [
    ...     "nbgrader.preprocessors.Execute"]}})
    Traceback (most recent call last):
    ...
    course.grading.job.approval.SandboxPolicyError: autograde would not run students' code in the sandbox: Autograde.autograde_preprocessors must hold course.grading.job.sandboxed.SandboxedGrade and no kernel step (has: nbgrader.preprocessors.Execute)
    """
    steps = policy.get("Autograde", {}).get("autograde_preprocessors")
    steps = steps if isinstance(steps, list) else []
    sanitize = policy.get("Autograde", {}).get("sanitize_preprocessors") or []
    kernel = [s for s in [*steps, *sanitize] if s in KERNEL_STEPS or str(s).endswith("Execute")]
    if SANDBOXED_STEP not in steps or kernel:
        raise SandboxPolicyError(
            "autograde would not run students' code in the sandbox: Autograde.autograde_preprocessors "
            f"must hold {SANDBOXED_STEP} and no kernel step (has: {', '.join(map(str, steps)) or 'nothing'})")
    if "sandbox" in policy.get("SandboxedGrade", {}):
        raise SandboxPolicyError(
            "SandboxedGrade.sandbox is set in the configuration: the sandbox is switched off only "
            "with --unsafe-no-sandbox on the command line (python -m course.grading autograde), "
            "never by a configuration file; remove that line")


@dataclass(frozen=True)
class Approval:
    """What the instructor approved for one course directory."""

    course: str
    """The course directory."""
    sha256: str
    """SHA-256 of ``nbgrader_config.py``."""
    text: str
    """The approved file's text (for the difference shown next time)."""
    policy: dict
    """:func:`grading_policy` of the configuration, as approved."""
    approved_at: str
    """When (ISO 8601)."""
    approved_by: str
    """Which account approved it."""


def read_approval(root: str | os.PathLike) -> Approval | None:
    """The last approval of the course directory ``root``, or None."""
    try:
        data = json.loads(_record_path(root).read_text(encoding="utf-8"))
        return Approval(**{k: data[k] for k in Approval.__dataclass_fields__})
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _file_state(root: str | os.PathLike) -> tuple[str, str]:
    path = config_path(root)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigNotApproved(f"{path} cannot be read ({exc.strerror or exc})") from None
    return hashlib.sha256(data).hexdigest(), data.decode("utf-8", errors="replace")


def config_diff(root: str | os.PathLike, *, context: int = 2) -> str:
    """The difference between the approved ``nbgrader_config.py`` and the file now (unified diff)."""
    _, text = _file_state(root)
    approval = read_approval(root)
    before = approval.text if approval else ""
    diff = difflib.unified_diff(before.splitlines(keepends=True), text.splitlines(keepends=True),
                                "approved" if approval else "(never approved)", str(config_path(root)),
                                n=context)
    return "".join(diff)


def check_config_approved(root: str | os.PathLike) -> Approval:
    """Raise :class:`ConfigNotApproved` unless ``nbgrader_config.py`` is the approved file.

    Reads the file only: it is not run.

    Returns
    -------
    Approval
        The approval that matches.
    """
    sha, _ = _file_state(root)
    approval = read_approval(root)
    path = config_path(root)
    if approval is None:
        raise ConfigNotApproved(
            f"{path} has not been approved for grading yet. It decides how students' code is run: "
            f"review it, then run {APPROVE_COMMAND} in {path.parent}",
            summary=f"{path} has not been approved for grading yet")
    if approval.sha256 != sha:
        diff = config_diff(root)
        shown = "\n".join(diff.splitlines()[:40])
        raise ConfigNotApproved(
            f"{path} changed since it was approved ({approval.approved_at}, by {approval.approved_by}); "
            f"grading stops until you approve it again with {APPROVE_COMMAND}. What changed:\n{shown}",
            summary=f"{path} changed since it was approved ({approval.approved_at}, by {approval.approved_by})")
    return approval


def check_policy_approved(config, root: str | os.PathLike) -> None:
    """Raise unless the loaded ``config`` grades with the approved policy, in the sandbox.

    Raises
    ------
    SandboxPolicyError
        If the policy would run students' code outside the sandbox.
    ConfigNotApproved
        If the policy differs from the approved one (another configuration
        file of Jupyter's changed it, or nothing was approved).
    """
    policy = grading_policy(config)
    check_policy_is_sandboxed(policy)
    approval = read_approval(root)
    if approval is None:
        raise ConfigNotApproved(f"{config_path(root)} has not been approved for grading yet: "
                                f"run {APPROVE_COMMAND}")
    if policy != approval.policy:
        changed = sorted({f"{s}.{k}" for s in set(policy) | set(approval.policy)
                          for k in set(policy.get(s, {})) | set(approval.policy.get(s, {}))
                          if policy.get(s, {}).get(k) != approval.policy.get(s, {}).get(k)})
        raise ConfigNotApproved(
            f"the grading configuration differs from the one approved for {Path(root).resolve()} "
            f"({', '.join(changed)}); another nbgrader configuration file may set it "
            f"(~/.jupyter/nbgrader_config.py, /etc/jupyter/...). Review, then run {APPROVE_COMMAND}")


def approve_config(root: str | os.PathLike, *, config=None, store: str | os.PathLike | None = None) -> Approval:
    """Approve the course's ``nbgrader_config.py`` as it is now, and the policy it gives.

    Parameters
    ----------
    root : path
        The course directory.
    config : traitlets Config, optional
        The loaded configuration (default: load ``root/nbgrader_config.py``,
        which runs it, as ``make autograde`` does).
    store : path, optional
        The folder of approvals (default :func:`approvals_dir`; the hub's
        set-up writes into the instructor's).

    Returns
    -------
    Approval

    Raises
    ------
    SandboxPolicyError
        If the configuration would grade outside the sandbox (nothing is approved).
    """
    sha, text = _file_state(root)
    if config is None:
        from ..term.course_dir import load_course_config

        config = load_course_config(str(Path(root).resolve()))
    policy = grading_policy(config)
    check_policy_is_sandboxed(policy)
    approval = Approval(str(Path(root).resolve()), sha, text, json.loads(json.dumps(policy)),
                        _dt.datetime.now().isoformat(timespec="seconds"), getpass.getuser())
    path = _record_path(root) if store is None else Path(store) / _record_path(root).name
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(approval.__dict__, handle, indent=1)
    os.replace(tmp, path)
    return approval
