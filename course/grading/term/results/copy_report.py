"""The copy audit of a graded class: groups of students to review, in one file, and one line.

:mod:`.similarity` finds pairs; a class of 31 in which a few students shared
code has dozens of pairs, and one line per pair on the console buries the
rest of the run.  Here the pairs become **groups** -- students linked by
findings, directly or through each other (the connected components of the
"looks like" graph), with the references they match -- and the run writes

* ``autograded/.course-grading/copies.json`` -- every group, pair, note on
  hidden code and skipped file, for scripts;
* ``autograded/.course-grading/copies.html`` -- the same for people: per
  group its members and pairs, and side by side the code of each pair with
  the matching passages marked; and
* one line on the console, e.g. ``copy audit: 2 groups (5 students) and 1
  submission with code hidden in strings to review: <path>``.

The page is built from the submissions, so everything in it is escaped
(student ids, file names and code are hostile: a name or a line of code is
text, never markup), and it carries a Content-Security-Policy that allows no
script at all.
"""

from __future__ import annotations

if __name__ == "__main__":       # the audit's own process: before nbformat imports jsonschema
    from ...._optional import skip_unused_format_checks

    skip_unused_format_checks()

import datetime as _dt
import html
import json
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .copy_groups import CopyGroups, Pair, group_copies
from .similarity import DEFAULT_THRESHOLD, Audit, Finding, audit_assignment

if TYPE_CHECKING:
    from ..course_dir import CourseLayout

__all__ = ["Group", "group_findings", "copy_report_html", "copy_report_texts", "write_copy_report",
           "summary_line", "start_copy_audit", "report_copies", "CopyAudit", "COPIES_PATH", "COPIES_HTML_PATH"]

#: Where the audit's findings are written, relative to ``autograded/``.
COPIES_PATH = Path(".course-grading") / "copies.json"
#: Where the audit's page is written, relative to ``autograded/``.
COPIES_HTML_PATH = Path(".course-grading") / "copies.html"
#: The most characters of one side's code shown on the page.
SHOWN_CHARS = 20_000
#: The most pairs of one group shown side by side on the page (all are listed).
SHOWN_PAIRS = 6


@dataclass(frozen=True)
class Group:
    """Students whose code looks alike, directly or through each other.

    Attributes
    ----------
    students : tuple of str
        The members, sorted.
    references : tuple of str
        The reference texts any member's code matches.
    pairs : tuple of Finding
        The findings linking them, most similar first.
    strongest : float
        The highest similarity among ``pairs``.
    """

    students: tuple[str, ...]
    references: tuple[str, ...]
    pairs: tuple[Finding, ...]
    strongest: float


def _grouped(findings: Sequence[Finding]) -> CopyGroups:
    """:func:`.copy_groups.group_copies` of ``findings``, made once for the report's several parts
    (the JSON, the page and the console's line each read the same groups)."""
    key = tuple((f.who, f.other, f.similarity, f.kind, f.line,
                 None if f.shares is None else tuple(f.shares), f.overlap) for f in findings)
    with _GROUPED_LOCK:
        found = _GROUPED.get(key)
    if found is None:
        found = group_copies(findings)
        with _GROUPED_LOCK:
            if len(_GROUPED) >= 16:
                _GROUPED.clear()
            _GROUPED[key] = found
    return found


_GROUPED: dict[tuple, CopyGroups] = {}
_GROUPED_LOCK = threading.Lock()


def group_findings(findings: Sequence[Finding]) -> list[Group]:
    """Students whose code is alike, as small groups (:func:`.copy_groups.group_copies`).

    A group is a set of students every two of whom share most of their code both ways
    (complete linkage on the mutual similarity, at the threshold); a student whose code only
    matches a reference is a group of one.  Pairs in no group, and students whose code is
    common (inside many classmates' answers), are not groups: the page lists them apart.

    Parameters
    ----------
    findings : sequence of Finding
        One assignment's findings (:func:`.similarity.find_copies`).

    Returns
    -------
    list of Group
        Largest group first, then most similar.

    Examples
    --------
    >>> f = lambda a, b, s, kind="student": Finding(a, b, s, kind, f"{a} ~ {b}")
    >>> groups = group_findings([f("ann", "bob", 0.9), f("bob", "cat", 0.8),
    ...                          f("dan", "course/search/minimax.py", 0.95, "reference")])
    >>> [(g.students, g.references) for g in groups]
    [(('ann', 'bob'), ()), (('dan',), ('course/search/minimax.py',))]
    """
    found = _grouped(findings)
    members = [set(g) for g in found.groups]
    in_group = {s for g in members for s in g}
    members += [{s} for s in sorted(found.references) if s not in in_group]
    groups = []
    for chosen in members:
        pairs = tuple(sorted((f for f in findings if f.who in chosen and (
            f.kind == "reference" or f.other in chosen)),
            key=lambda f: (-f.similarity, f.kind, f.who, f.other)))
        references = tuple(sorted({f.other for f in pairs if f.kind == "reference"}))
        groups.append(Group(tuple(sorted(chosen)), references, pairs,
                            max(f.similarity for f in pairs)))
    groups.sort(key=lambda g: (-len(g.students), -g.strongest, g.students))
    return groups


# --------------------------------------------------------------------------- the page

_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'"

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5rem auto; max-width: 110rem; color: #1a1a1a;
       background: #fff; line-height: 1.45; padding: 0 1rem; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.25rem; margin-top: 2rem; } h3 { font-size: 1.05rem; }
table { border-collapse: collapse; margin: .5rem 0; }
th, td { border: 1px solid #767676; padding: .25rem .5rem; text-align: left; vertical-align: top; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
pre { background: #f6f6f6; border: 1px solid #767676; padding: .5rem; overflow: auto; max-height: 32rem;
      font-size: .85rem; white-space: pre; }
pre:focus { outline: 3px solid #1a5fb4; }
mark { background: #ffe08a; color: #1a1a1a; }
.note { color: #4a4a4a; }
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _marked(code: str, slices: Any) -> str:
    """``code`` escaped, with the passages in ``slices`` (2 x N starts/ends) in ``<mark>``."""
    code = code[:SHOWN_CHARS]
    out, at = [], 0
    spans = sorted(zip(*slices)) if slices is not None and len(slices) == 2 else []
    for start, end in spans:
        start, end = max(int(start), at), min(int(end), len(code))
        if start >= end:
            continue
        out.append(_e(code[at:start]))
        out.append(f"<mark>{_e(code[start:end])}</mark>")
        at = end
    out.append(_e(code[at:]))
    return "".join(out)


def _pairs_table(caption: str, findings: Sequence[Finding]) -> str:
    """A table of pairs with both directions: how much of each side is in the other."""
    rows = ['<table><caption class="note">' + _e(caption) + '</caption><thead><tr>'
            '<th scope="col">student</th><th scope="col">alike</th><th scope="col">similarity</th>'
            '<th scope="col">student\'s code in the other</th><th scope="col">the other\'s code in '
            'the student\'s</th><th scope="col">shorter</th><th scope="col">tokens in common</th>'
            '</tr></thead><tbody>']
    for f in findings:
        other = f"student {f.other}" if f.kind == "student" else f"reference {f.other}"
        shares = f.shares or (f.similarity, None)
        back = f"{shares[1]:.0%}" if shares[1] is not None and f.kind == "student" else "–"
        shorter = ("–" if f.kind != "student" or f.shares is None
                   else f.who if shares[0] >= shares[1] else f.other)
        rows.append(f"<tr><td>{_e(f.who)}</td><td>{_e(other)}</td><td>{f.similarity:.0%}</td>"
                    f"<td>{shares[0]:.0%}</td><td>{back}</td><td>{_e(shorter)}</td>"
                    f"<td>{f.overlap or '–'}</td></tr>")
    rows.append("</tbody></table>")
    return "".join(rows)


def _side_by_side(finding: Finding, audit: Audit, prints: dict[str, Any] | None = None) -> str:
    """Two codes side by side, what they share marked; ``prints`` keeps the fingerprints made
    (a class's codes are often the same text: each is fingerprinted once per page)."""
    from .similarity import _fingerprint

    prints = {} if prints is None else prints
    left = audit.codes.get(finding.who, "")
    right = (audit.codes if finding.kind == "student" else audit.references).get(finding.other, "")
    slices: tuple[Any, Any] = (None, None)
    try:
        from copydetect import compare_files

        for code in (left, right):
            if code not in prints:
                prints[code] = _fingerprint(code)
        a, b = prints[left], prints[right]
        if a.hashes and b.hashes:
            _, _, slices = compare_files(a, b)
    except Exception:  # noqa: BLE001 - the page shows the code unmarked
        pass
    label_b = f"student {finding.other}" if finding.kind == "student" else f"reference {finding.other}"
    cut = " (cut)" if max(len(left), len(right)) > SHOWN_CHARS else ""
    return (f'<div class="pair" role="group" aria-label="{_e(finding.who)} and {_e(label_b)}">'
            f'<div><h4>student {_e(finding.who)}</h4>'
            f'<pre tabindex="0" aria-label="code of student {_e(finding.who)}{cut}">{_marked(left, slices[0])}</pre></div>'
            f'<div><h4>{_e(label_b)}</h4>'
            f'<pre tabindex="0" aria-label="code of {_e(label_b)}{cut}">{_marked(right, slices[1])}</pre></div></div>')


def copy_report_html(audits: Sequence[Audit], *, threshold: float = DEFAULT_THRESHOLD,
                     when: str | None = None) -> str:
    """The audit as one self-contained HTML page, everything from the submissions escaped.

    Parameters
    ----------
    audits : sequence of Audit
        One per assignment (:func:`.similarity.audit_assignment`).
    threshold : float
        The threshold used (shown on the page).
    when : str, optional
        When the audit ran (default: now).

    Returns
    -------
    str
        The page: no script, a Content-Security-Policy that forbids any.

    Examples
    --------
    >>> from course.grading.term.results.similarity import Audit
    >>> bad = '<img src=x onerror=alert(1)>'
    >>> audit = Audit("a1", [Finding(bad, "bob", 0.9, "student", "x")], {}, [], {bad: "x = 1"}, {}, 0.1)
    >>> page = copy_report_html([audit], when="today")
    >>> "<img" in page, "&lt;img src=x onerror=alert(1)&gt;" in page
    (False, True)
    """
    when = when or _dt.datetime.now().isoformat(timespec="seconds")
    parts = [f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
             f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
             f'<meta name="viewport" content="width=device-width, initial-scale=1">'
             f'<title>Copy audit</title><style>{_STYLE}</style></head><body><main>'
             f'<h1>Copy audit</h1>'
             f'<p>{_e(when)}. Pairs of submissions whose code is at least {threshold:.0%} alike '
             f'(names, comments and layout ignored), grouped; code run from strings or packed into '
             f'them. A finding is a reason to look, never evidence: read the code below.</p>']
    prints: dict[str, Any] = {}
    for audit in audits:
        groups = group_findings(audit.findings)
        found = _grouped(audit.findings)
        others = found.other_pairs()
        parts.append(f"<h2>{_e(audit.assignment)}</h2>")
        parts.append(f'<p class="note">{len(audit.codes)} submissions compared in {audit.seconds:.1f} s: '
                     f"{len(groups)} group{'s' if len(groups) != 1 else ''} to review, "
                     f"{len(others)} more pair{'s' if len(others) != 1 else ''}, "
                     f"{len(found.common)} with common code, "
                     f"{len(audit.hidden)} with code hidden in strings.</p>")
        for number, group in enumerate(groups, 1):
            who = ", ".join(group.students)
            refs = f"; matches {', '.join(group.references)}" if group.references else ""
            parts.append(f"<h3>Group {number}: {_e(who)}{_e(refs)} (up to {group.strongest:.0%})</h3>")
            parts.append(_pairs_table("Pairs in this group", group.pairs))
            for finding in group.pairs[:SHOWN_PAIRS]:
                parts.append(_side_by_side(finding, audit, prints))
        if others:
            parts.append("<h3>Other pairs</h3><p class=\"note\">Alike one way at least, but not "
                         "in a group: every two members of a group share most of their code both ways. "
                         "Most alike first.</p>")
            by_name = {(f.who, f.other): f for f in audit.findings}
            chosen = [by_name[(p.a, p.b)] for p in others if (p.a, p.b) in by_name]
            parts.append(_pairs_table("Other pairs, most alike first", chosen))
            for finding in chosen[:SHOWN_PAIRS]:
                parts.append(_side_by_side(finding, audit, prints))
        if found.common:
            parts.append("<h3>Common code</h3><p class=\"note\">Each of these answers lies inside the "
                         "longer answers of many classmates, and little of theirs is in it: code many "
                         "students write alike (the textbook's idiom), not a sign of copying by itself. "
                         "They are in no group.</p><ul>")
            for student, classmates in found.common:
                shares = {p.other(student): p.share_of(student) for p in found.pairs
                          if student in (p.a, p.b)}
                listed = ", ".join(f"{_e(c)} ({shares.get(c, 0):.0%})" for c in classmates)
                parts.append(f"<li>{_e(student)}: inside the answers of {len(classmates)} classmates "
                             f"({listed})</li>")
            parts.append("</ul>")
        if audit.hidden:
            parts.append("<h3>Code run from strings or packed into them</h3><ul>")
            for student, texts in sorted(audit.hidden.items()):
                items = "".join(f"<li>{_e(t)}</li>" for t in texts)
                parts.append(f"<li>{_e(student)}<ul>{items}</ul></li>")
            parts.append("</ul>")
        if audit.incomplete:
            parts.append("<h3>Not audited in full: look at these by hand</h3><ul>"
                         + "".join(f"<li>{_e(who)}: {_e(why)}</li>"
                                   for who, why in sorted(audit.incomplete.items())) + "</ul>")
        if audit.notes:
            parts.append("<h3>Notes</h3><ul>" + "".join(f"<li>{_e(n)}</li>" for n in audit.notes) + "</ul>")
    parts.append("</main></body></html>")
    return "\n".join(parts)


def _finding_dict(f: Finding) -> dict[str, Any]:
    """``dataclasses.asdict(f)`` (what the JSON files hold), without its deep copy of each field."""
    return {field.name: getattr(f, field.name) for field in fields(Finding)}


def _as_json(audit: Audit) -> dict[str, Any]:
    found = _grouped(audit.findings)
    return {
        "findings": [_finding_dict(f) for f in audit.findings],
        "groups": [{"students": list(g.students), "references": list(g.references),
                    "strongest": g.strongest, "pairs": [_finding_dict(f) for f in g.pairs]}
                   for g in group_findings(audit.findings)],
        "pairs": [{"students": [p.a, p.b], "shares": list(p.shares), "mutual": p.mutual,
                   "shorter": p.shorter, "overlap": p.overlap} for p in found.pairs],
        "other_pairs": [[p.a, p.b] for p in found.other_pairs()],
        "common": [{"student": s, "inside": list(c)} for s, c in found.common],
        "hidden_code": audit.hidden,
        "notes": audit.notes,
        "incomplete": audit.incomplete,
        "compared": len(audit.codes),
        "seconds": audit.seconds,
    }


def summary_line(audits: Sequence[Audit], where: str | Path) -> str:
    """One line for the console: what there is to review, and where.

    Examples
    --------
    >>> from course.grading.term.results.similarity import Audit
    >>> f = Finding("ann", "bob", 0.9, "student", "")
    >>> summary_line([Audit("a1", [f], {"cat": ["exec"]}, [], {}, {}, 0.1)], "copies.html")
    'copy audit: 1 group (2 students) and 1 submission with code hidden in strings to review: copies.html'
    >>> summary_line([Audit("a1", [], {}, [], {}, {}, 0.1)], "copies.html")
    'copy audit: nothing to review (copies.html)'
    """
    groups = [g for a in audits for g in group_findings(a.findings)]
    students = sum(len(g.students) for g in groups)
    hidden = sum(len(a.hidden) for a in audits)
    notes = sum(len(a.notes) for a in audits)
    pairs = sum(len(_grouped(a.findings).other_pairs()) for a in audits)
    incomplete = sum(len(a.incomplete) for a in audits)
    said = []
    if groups:
        said.append(f"{len(groups)} group{'s' if len(groups) != 1 else ''} "
                    f"({students} student{'s' if students != 1 else ''})")
    if pairs:
        said.append(f"{pairs} more pair{'s' if pairs != 1 else ''}")
    if hidden:
        said.append(f"{hidden} submission{'s' if hidden != 1 else ''} with code hidden in strings")
    if incomplete:
        said.append(f"{incomplete} submission{'s' if incomplete != 1 else ''} not audited in full")
    tail = f"; {notes} note{'s' if notes != 1 else ''}" if notes else ""
    if not said:
        return f"copy audit: nothing to review{tail} ({where})"
    listed = said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]
    return f"copy audit: {listed} to review{tail}: {where}"


def copy_report_texts(audits: Sequence[Audit], *, threshold: float = DEFAULT_THRESHOLD
                      ) -> tuple[str, str]:
    """The texts of ``copies.json`` and ``copies.html`` for ``audits``."""
    document = {"threshold": threshold, "assignments": {a.assignment: _as_json(a) for a in audits}}
    return json.dumps(document, indent=1), copy_report_html(audits, threshold=threshold)


def write_copy_report(folder: str | Path, audits: Sequence[Audit], *,
                      threshold: float = DEFAULT_THRESHOLD,
                      texts: tuple[str, str] | None = None) -> tuple[Path, Path]:
    """Write ``copies.json`` and ``copies.html`` (:data:`COPIES_PATH`, :data:`COPIES_HTML_PATH`)
    under ``folder`` (``autograded/``); returns their paths.  ``texts``: the two files' texts if
    already made (by the audit's process: :func:`copy_report_texts` of these ``audits``)."""
    folder = Path(folder)
    json_path, html_path = folder / COPIES_PATH, folder / COPIES_HTML_PATH
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_text, html_text = texts if texts is not None else copy_report_texts(audits, threshold=threshold)
    json_path.write_text(json_text, encoding="utf-8")
    html_path.write_text(html_text, encoding="utf-8")
    return json_path, html_path


# --------------------------------------------------------------------------- during autograde

#: The most memory (bytes of address space) the audit's process may map.
AUDIT_MEMORY_BYTES = 3 * 2**30
#: Seconds the audit's process may take beyond its time limit (starting, writing its results)
#: before it is stopped.
AUDIT_MARGIN = 15.0


def _audit_json(audit: Audit) -> dict[str, Any]:
    return {"assignment": audit.assignment, "findings": [_finding_dict(f) for f in audit.findings],
            "hidden": audit.hidden, "notes": audit.notes, "codes": audit.codes,
            "references": audit.references, "seconds": audit.seconds,
            "incomplete": audit.incomplete}


def _audit_from_json(data: dict[str, Any]) -> Audit:
    return Audit(str(data["assignment"]), [Finding(**f) for f in data["findings"]],
                 dict(data["hidden"]), list(data["notes"]), dict(data["codes"]),
                 dict(data["references"]), float(data["seconds"]), dict(data.get("incomplete") or {}))


def _audit_all(layout: CourseLayout, assignments: list[str], time_limit: float | None = None,
               progress: Callable[[str, str], None] | None = None) -> list[Audit]:
    """Every assignment's audit, all within one ``time_limit`` (default: the audit's)."""
    import time

    from .similarity import DEFAULT_TIME_LIMIT

    limit = DEFAULT_TIME_LIMIT if time_limit is None else time_limit
    deadline = time.monotonic() + limit
    return [audit_assignment(layout.root, layout.submitted, a, deadline=deadline,
                             progress=None if progress is None else
                             (lambda who, a=a: progress(a, who)))
            for a in assignments]


def _limit_audit_process(memory: int, seconds: float) -> None:
    """``preexec_fn`` of the audit's process: its own memory and CPU limits, a lower priority
    than grading, and it ends with the grading process (Linux ``PR_SET_PDEATHSIG``)."""
    import resource
    import signal

    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    try:
        os.nice(5)
    except OSError:
        pass
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


class CopyAudit:
    """The copy audit of a grading run, in a process of its own (started by :func:`start_copy_audit`).

    The process has its own limits: memory (:data:`AUDIT_MEMORY_BYTES`), CPU time and wall-clock
    time (the audit's time limit, :data:`.similarity.DEFAULT_TIME_LIMIT`, plus
    :data:`AUDIT_MARGIN`), and each submission's search for hidden code its own budget
    (:mod:`.hidden_code`).  It writes each assignment's audit as it finishes it; whatever it
    has not finished when it is stopped is reported as incomplete, by student, never waited for.
    """

    def __init__(self, layout: CourseLayout, assignments: list[str], time_limit: float | None = None) -> None:
        import subprocess
        import sys
        import tempfile
        import time

        from .similarity import DEFAULT_TIME_LIMIT

        self.layout, self.assignments = layout, list(assignments)
        self.time_limit = DEFAULT_TIME_LIMIT if time_limit is None else float(time_limit)
        self.texts: tuple[str, str] | None = None     # the report's files, as its process made them
        self.started = time.monotonic()
        self.deadline = self.started + self.time_limit + AUDIT_MARGIN
        fd, name = tempfile.mkstemp(prefix="course-copy-audit-", suffix=".jsonl")
        os.close(fd)
        self.output = Path(name)
        command = [sys.executable, "-m", "course.grading.term.results.copy_report",
                   "--root", str(layout.root), "--submitted", str(layout.submitted),
                   "--time-limit", str(self.time_limit), "--output", str(self.output),
                   *self.assignments]
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        memory, seconds = AUDIT_MEMORY_BYTES, self.time_limit + AUDIT_MARGIN
        self.stderr: list[str] = []
        self.start_error = ""
        try:
            self.proc: subprocess.Popen | None = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                cwd=str(layout.root), env=env, start_new_session=True,
                preexec_fn=lambda: _limit_audit_process(memory, seconds))
        except (OSError, subprocess.SubprocessError) as exc:   # grading goes on without it
            self.proc, self.start_error = None, f"the audit could not start ({exc})"
            return
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read_err(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line.decode("utf-8", "replace"))
            del self.stderr[:-20]

    def stop(self) -> None:
        """Stop the audit's process (and anything it started) if it still runs, and remove its
        results (grading was interrupted: nothing is reported)."""
        self._halt()
        self.output.unlink(missing_ok=True)

    def _halt(self) -> None:
        import signal

        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            self.proc.wait(timeout=10)
        except Exception:  # noqa: BLE001 - nothing more to do
            pass

    def __call__(self) -> list[Audit]:
        """The audits: waits at most until the audit's deadline, then stops it.

        Every assignment it did not finish is an :class:`Audit` whose ``incomplete`` names each
        student not audited (and the one being read when it stopped) with the reason."""
        import subprocess
        import time

        why = self.start_error
        if self.proc is not None:
            try:
                self.proc.wait(timeout=max(0.0, self.deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                why = f"the audit was stopped at its time limit ({self.time_limit:.0f} s)"
            self._halt()
            code = self.proc.returncode
            if not why and code != 0:
                tail = "".join(self.stderr).strip().splitlines()
                why = (f"the audit's process ended with status {code}"
                       + (f" ({tail[-1][:200]})" if tail else "")
                       + (" (its memory or CPU limit?)" if code < 0 or "MemoryError" in "".join(tail) else ""))
            self.proc = None
        done: dict[str, Audit] = {}
        reading: dict[str, str] = {}
        texts = None
        try:
            for line in self.output.read_text(encoding="utf-8").splitlines():
                try:
                    item = json.loads(line)
                    if "audit" in item:
                        done[item["audit"]["assignment"]] = _audit_from_json(item["audit"])
                    elif "reading" in item:
                        reading[str(item["reading"][0])] = str(item["reading"][1])
                    elif "report" in item:
                        made = item["report"]
                        if made["assignments"] == self.assignments and isinstance(made["json"], str) \
                                and isinstance(made["html"], str):
                            texts = (made["json"], made["html"])
                except (ValueError, KeyError, TypeError):
                    continue
        except OSError:
            pass
        # the files the audit's process made serve only if it audited every assignment
        self.texts = texts if not why and set(done) == set(self.assignments) else None
        self.output.unlink(missing_ok=True)
        audits = []
        for name in self.assignments:
            if name in done:
                audits.append(done[name])
                continue
            why = why or "the audit's process ended without its results"
            incomplete = {who: f"not audited: {why}" for who in self._students(name)}
            if name in reading:
                incomplete[reading[name]] = f"not audited: {why}, while this submission was read"
            audits.append(Audit(name, [], {}, [f"copies: audit incomplete for {name}: {why}"], {}, {},
                                round(time.monotonic() - self.started, 3), incomplete))
        return audits

    def _students(self, assignment: str) -> list[str]:
        try:
            return sorted(p.name for p in self.layout.submitted.iterdir()
                          if not p.name.startswith(".") and (p / assignment).is_dir())
        except OSError:
            return []


def start_copy_audit(layout: CourseLayout, assignments: list[str], *,
                     time_limit: float | None = None) -> CopyAudit:
    """Start the audit of the submissions in a process of its own while they are graded (they do
    not change meanwhile, and the grading workers leave a core idle while they wait on their
    sandboxes).  Calling what it returns gives the audits, waiting at most until the audit's own
    time limit; grading never waits on it (see :class:`CopyAudit`)."""
    return CopyAudit(layout, assignments, time_limit)


def report_copies(layout: CourseLayout, assignments: list[str], log: Any,
                  computed: Sequence[Audit] | None = None, *,
                  texts: tuple[str, str] | None = None) -> list[Audit]:
    """Write the audit's report files and say in one line what there is to review.

    Scores are not changed.  ``computed`` holds the audits if already made
    (:func:`start_copy_audit`), ``texts`` the report files' texts if the audit's process made
    them (:attr:`CopyAudit.texts`).  Every student whose submission was not audited in full is
    named on a line of its own (``copy audit incomplete for ...``).
    """
    from ..safe_text import console_text

    audits = list(computed) if computed is not None else _audit_all(layout, assignments)
    try:
        _, html_path = write_copy_report(layout.autograded, audits,
                                         texts=texts if computed is not None else None)
        where: str | Path = html_path
        try:
            where = html_path.relative_to(layout.root)
        except ValueError:
            pass
    except OSError as error:
        where = f"report not written: {error}"
    if log is not None:
        log(console_text(summary_line(audits, where)))
        for audit in audits:
            for who, why in sorted(audit.incomplete.items()):
                log(f"copy audit incomplete for {console_text(who, limit=100)}/"
                    f"{console_text(audit.assignment, limit=100)}: {console_text(why, limit=300)}")
    return audits


def main(argv: Sequence[str] | None = None) -> int:
    """The audit's process: ``python -m course.grading.term.results.copy_report --root R --submitted S
    --time-limit T --output FILE ASSIGNMENT...``; writes JSON lines to FILE as it goes."""
    import argparse

    from ..course_dir import course_layout

    parser = argparse.ArgumentParser(prog="python -m course.grading.term.results.copy_report")
    parser.add_argument("--root", required=True)
    parser.add_argument("--submitted", required=True)
    parser.add_argument("--time-limit", type=float, required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("assignments", nargs="+")
    args = parser.parse_args(argv)
    layout = course_layout(args.root, args.submitted)
    with open(args.output, "a", encoding="utf-8") as out:
        def write(item: dict) -> None:
            out.write(json.dumps(item) + "\n")
            out.flush()

        import time

        from .similarity import audit_assignment as _audit

        deadline = time.monotonic() + args.time_limit
        audits = []
        for name in args.assignments:
            audit = _audit(layout.root, layout.submitted, name, deadline=deadline,
                           progress=lambda who, name=name: write({"reading": [name, who]}))
            audits.append(_audit_json(audit))
            write({"audit": audits[-1]})
        # the report's files too, here beside the grading rather than after it: made from the
        # audits as the grading process reads them back, so they are the files it would make
        read_back = [_audit_from_json(json.loads(json.dumps(a))) for a in audits]
        json_text, html_text = copy_report_texts(read_back)
        write({"report": {"assignments": list(args.assignments), "json": json_text,
                          "html": html_text}})
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
