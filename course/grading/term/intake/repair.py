"""Put a submitted notebook back into a shape nbgrader can grade, and say what was changed.

Students' notebooks arrive damaged in predictable ways: cells deleted (even
locked ones: editors that ignore the metadata allow it), cells copied (two
cells with one ``grade_id``), nbgrader metadata edited or removed, cell types
changed, JSON cut short by a crashed upload.  nbgrader restores the *source*
of locked cells from its checksums, but stops on invalid metadata and on some
missing cells.  :func:`repair_notebook` fixes the structure first, from the
released notebook:

* every cell whose ``grade_id`` the release knows gets the release's nbgrader
  metadata and cell type back (its content stays the student's; nbgrader then
  restores locked content);
* a ``grade_id`` the release does not know, or a second copy of one, loses its
  nbgrader metadata (it becomes an ordinary cell);
* a release cell that is missing is inserted again, from the release, after
  the cell that precedes it there;
* cells are rebuilt from their essential fields, so malformed ones validate.

A file that is not JSON, or not a notebook, cannot be repaired:
:func:`repair_submission` sets it aside (``<name>.ipynb.unreadable``) and puts
the blank released notebook in its place, as it does for a notebook that was
not handed in, so that nbgrader records the submission with 0 points for it;
the reason goes into the grading report.

:func:`audit_notebook` lists code in the student's cells that deserves a look
by the instructor (tracing hooks, frame inspection, imports of the reference
searches); it never changes a score.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
from nbformat.v4.rwbase import strip_transient
from nbformat.corpus.words import generate_corpus_id as random_cell_id

__all__ = ["RepairReport", "repair_notebook", "repair_submission", "audit_notebook", "SUSPICIOUS",
           "MAX_CELLS", "MAX_NOTEBOOK_BYTES", "TooLarge"]

#: Patterns in student code the audit reports, with what they suggest.
SUSPICIOUS: tuple[tuple[str, str], ...] = (
    (r"\bsettrace\b|\bsetprofile\b", "changes the tracing hooks that watch the search"),
    (r"__closure__|cell_contents", "reads or edits function closures"),
    (r"_getframe|\binspect\.(stack|currentframe)|\bf_back\b", "inspects the call stack"),
    (r"\bgc\.get_(objects|referrers|referents)\b", "searches the garbage collector's objects"),
    (r"\bcourse\.grading\b|\bfrom\s+course\.grading\b", "uses the grading package"),
    (r"\bcourse\.search\b|\bfrom\s+course\s+import\s+[^\n]{0,500}?\b(minimax|alphabeta|expectimax|star1|bab)\b",
     "imports a reference search"),
    (r"__code__|__class__\s*=|setattr\s*\(\s*type\(", "replaces code or classes at run time"),
)


#: The largest notebook file repaired (bytes); a larger one is set aside as unreadable.  A
#: course notebook with its outputs is well under 1 MB; outputs are dropped when it is graded.
MAX_NOTEBOOK_BYTES = 32 * 2**20
#: The most cells a submitted notebook may have: this many, or 20 times the release's cells if
#: that is more.  Beyond it, the notebook is set aside as unreadable (graded as blank, "needs
#: attention"): 120,000 empty cells in a 22 kB zip would otherwise keep the grader busy for
#: minutes before any time limit applies.
MAX_CELLS = 2_000
#: The most characters of one cell the audit's patterns are matched against.
AUDIT_CHARS = 200_000
#: The most audit findings listed per notebook (the rest are counted).
MAX_FINDINGS = 20


class TooLarge(ValueError):
    """A submitted notebook over a limit of :func:`repair_submission` (the message says which)."""


@dataclass
class RepairReport:
    """What :func:`repair_submission` did to one submission."""

    changes: list[str] = field(default_factory=list)
    """One line per change, e.g. ``"minimax.ipynb: re-added missing cell a1-test-decision"``."""
    unreadable: dict[str, str] = field(default_factory=dict)
    """Notebook file name -> why it could not be read (it is graded as missing)."""
    missing: list[str] = field(default_factory=list)
    """Released notebooks that were not submitted."""
    unknown: list[str] = field(default_factory=list)
    """Other notebooks in the submission (not graded): perhaps a released one, renamed."""
    review: list[str] = field(default_factory=list)
    """Audit findings for the instructor (see :func:`audit_notebook`)."""


def _nbgrader(cell: Any) -> dict:
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    nbg = meta.get("nbgrader") if isinstance(meta, dict) else None
    return nbg if isinstance(nbg, dict) else {}


def _text(source: Any) -> str:
    if isinstance(source, list):
        return "".join(str(s) for s in source)
    return source if isinstance(source, str) else ""


def _new_cell(kind: str, source: str) -> nbformat.NotebookNode:
    """A new cell as ``nbformat.v4.new_code_cell`` (``new_markdown_cell``, ``new_raw_cell``) makes
    it, without checking it against the schema there: :func:`repair_notebook` checks the whole
    notebook it makes once (a notebook's cells were checked twice, 40 % of staging a class)."""
    cell = nbformat.NotebookNode(id=random_cell_id(), cell_type=kind, metadata=nbformat.NotebookNode(),
                                 source=source)
    if kind == "code":
        cell.execution_count, cell.outputs = None, []
    return cell


def _release_notebook(path: Path) -> nbformat.NotebookNode:
    """The released notebook at ``path``, read once while the file is unchanged (a class's
    submissions are repaired against the same few notebooks; :func:`repair_notebook` and
    :func:`audit_notebook` only read it)."""
    info = path.stat()
    key = (str(path.resolve()), info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    found = _RELEASES.get(key)
    if found is None:
        found = nbformat.read(path, as_version=4)
        if len(_RELEASES) >= 64:
            _RELEASES.clear()
        _RELEASES[key] = found
    return found


_RELEASES: dict[tuple, nbformat.NotebookNode] = {}


def _rebuild(cell: Any) -> nbformat.NotebookNode | None:
    """A clean copy of a cell (type, source, metadata, id), or None if it is not a cell."""
    if not isinstance(cell, dict):
        return None
    kind = cell.get("cell_type")
    source = _text(cell.get("source", ""))
    if kind not in ("code", "markdown", "raw"):
        return None
    new = _new_cell(kind, source)
    meta = cell.get("metadata")
    if isinstance(meta, dict):
        try:
            new.metadata = nbformat.from_dict(json.loads(json.dumps(meta)))
        except (TypeError, ValueError):
            new.metadata = nbformat.NotebookNode()
    cid = cell.get("id")
    if isinstance(cid, str) and re.fullmatch(r"[a-zA-Z0-9-_]{1,64}", cid):
        new.id = cid
    if kind == "markdown" and isinstance(cell.get("attachments"), dict):
        new.attachments = nbformat.from_dict(cell["attachments"])
    return new


def _set_type(cell: nbformat.NotebookNode, kind: str) -> nbformat.NotebookNode:
    if cell.cell_type == kind:
        return cell
    new = _new_cell(kind, cell.source)
    new.metadata = cell.metadata
    new.id = cell.id
    return new


def repair_notebook(nb: Any, release: nbformat.NotebookNode) -> tuple[nbformat.NotebookNode, list[str]]:
    """Repair a submitted notebook's structure against the released notebook.

    Parameters
    ----------
    nb : dict
        The submitted notebook as parsed JSON (any shape).
    release : NotebookNode
        The released notebook (from ``exercises/``).

    Returns
    -------
    (NotebookNode, list of str)
        The repaired notebook (valid nbformat 4) and the changes made.

    Raises
    ------
    ValueError
        If ``nb`` is not a notebook at all (no list of cells).

    Examples
    --------
    >>> from nbformat.v4 import new_notebook, new_code_cell
    >>> cell = new_code_cell("check()", metadata={"nbgrader": {"grade_id": "t", "grade": True,
    ...     "solution": False, "locked": True, "points": 1, "schema_version": 3}})
    >>> release = new_notebook(cells=[new_code_cell("x = 1"), cell])
    >>> fixed, changes = repair_notebook({"cells": [{"cell_type": "code", "source": "x = 2"}]}, release)
    >>> [c.source for c in fixed.cells], changes
    (['x = 2', 'check()'], ['re-added missing cell t'])
    """
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise ValueError("the file is JSON but not a notebook (it has no list of cells)")
    changes: list[str] = []
    release_meta: dict[str, tuple[int, nbformat.NotebookNode]] = {}
    for i, cell in enumerate(release.cells):
        gid = _nbgrader(cell).get("grade_id")
        if gid:
            release_meta[gid] = (i, cell)

    cells: list[nbformat.NotebookNode] = []
    dropped = 0
    for raw in nb["cells"]:
        cell = _rebuild(raw)
        if cell is None:
            dropped += 1
            continue
        cells.append(cell)
    if dropped:
        changes.append(f"dropped {dropped} malformed cell{'s' if dropped > 1 else ''}")

    seen: set[str] = set()
    for k, cell in enumerate(cells):
        meta = _nbgrader(cell)
        gid = meta.get("grade_id") if meta else None
        if not meta:
            continue
        if not isinstance(gid, str) or gid not in release_meta:
            del cell.metadata["nbgrader"]
            changes.append(f"removed grading metadata from a cell with unknown id {gid!r}")
            continue
        if gid in seen:
            del cell.metadata["nbgrader"]
            changes.append(f"removed grading metadata from a second copy of cell {gid}")
            continue
        seen.add(gid)
        original = release_meta[gid][1]
        essential = ("grade", "solution", "locked", "points", "task")
        if any(meta.get(key) != _nbgrader(original).get(key) for key in essential):
            changes.append(f"restored the grading metadata of cell {gid}")
        cell.metadata["nbgrader"] = nbformat.from_dict(json.loads(json.dumps(_nbgrader(original))))
        for key in ("deletable", "editable"):
            if key in original.metadata:
                cell.metadata[key] = original.metadata[key]
        if cell.cell_type != original.cell_type:
            changes.append(f"changed cell {gid} back to a {original.cell_type} cell")
            cells[k] = _set_type(cell, original.cell_type)

    # re-insert missing release cells after their predecessor in the release
    for gid, (i, original) in release_meta.items():
        if gid in seen:
            continue
        anchor = None
        for j in range(i - 1, -1, -1):
            prev = _nbgrader(release.cells[j]).get("grade_id")
            if prev and prev in seen:
                anchor = prev
                break
        position = min(i, len(cells))          # no anchor: the release position
        if anchor is not None:
            position = next(k for k, c in enumerate(cells) if _nbgrader(c).get("grade_id") == anchor) + 1
        cells.insert(position, nbformat.from_dict(json.loads(json.dumps(original))))
        seen.add(gid)
        changes.append(f"re-added missing cell {gid}")

    # unique cell ids
    used: set[str] = set()
    for cell in cells:
        if not getattr(cell, "id", None) or cell.id in used:
            cell.id = uuid.uuid4().hex[:8]
        used.add(cell.id)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None

    fixed = nbformat.v4.new_notebook(cells=cells)
    fixed.metadata = nbformat.from_dict(json.loads(json.dumps(release.metadata)))
    nbformat.validate(fixed)
    return fixed, changes


def audit_notebook(nb: nbformat.NotebookNode, release: nbformat.NotebookNode) -> list[str]:
    """Findings about the student-written code cells of a notebook, for the instructor to review.

    Only cells the student could write are scanned: solution cells and
    cells that are not in the release.  Locked cells are restored by nbgrader.

    Returns
    -------
    list of str
        E.g. ``["cell a2-alphabeta: changes the tracing hooks that watch the search"]``.
    """
    locked = {_nbgrader(c).get("grade_id") for c in release.cells if _nbgrader(c).get("locked")}
    findings = []
    for k, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        gid = _nbgrader(cell).get("grade_id")
        if gid in locked:
            continue
        name = gid or f"#{k + 1}"
        source = cell.source[:AUDIT_CHARS]
        for pattern, meaning in SUSPICIOUS:
            if re.search(pattern, source):
                findings.append(f"cell {name}: {meaning}")
    return findings


def _cell_count(raw: Any) -> int:
    """The cells of a parsed notebook, in nbformat 4 (``cells``) or 3 (``worksheets``)."""
    if not isinstance(raw, dict):
        return 0
    count = len(raw["cells"]) if isinstance(raw.get("cells"), list) else 0
    sheets = raw.get("worksheets")
    if isinstance(sheets, list):
        count += sum(len(w["cells"]) for w in sheets
                     if isinstance(w, dict) and isinstance(w.get("cells"), list))
    return count


def repair_submission(directory: str | os.PathLike, release_directory: str | os.PathLike) -> RepairReport:
    """Repair, in place, every notebook of one submitted assignment.

    Parameters
    ----------
    directory : path
        ``<submitted>/<student>/<assignment>`` (a staging copy: this changes files).
    release_directory : path
        ``exercises/<assignment>``, the notebooks as released.

    Returns
    -------
    RepairReport
        Unreadable notebooks are renamed ``<name>.ipynb.unreadable``; they and
        missing notebooks are replaced by the blank release (0 points).  A notebook
        over a limit (:data:`MAX_NOTEBOOK_BYTES`, :data:`MAX_CELLS`) counts as unreadable,
        with the limit as its reason: the work done here is bounded per submission.
    """
    directory, release_directory = Path(directory), Path(release_directory)
    report = RepairReport()
    released = {p.name for p in release_directory.glob("*.ipynb")}
    report.unknown = sorted(p.name for p in directory.glob("*.ipynb")
                            if p.name not in released and not p.is_symlink())
    for release_path in sorted(release_directory.glob("*.ipynb")):
        release = _release_notebook(release_path)
        path = directory / release_path.name
        if not path.exists():
            report.missing.append(release_path.name)
            shutil.copyfile(release_path, path)
            continue
        try:
            size = path.stat().st_size
            if size > MAX_NOTEBOOK_BYTES:
                raise TooLarge(f"it is larger than the limit of {MAX_NOTEBOOK_BYTES // 2**20} MB "
                               f"({size / 2**20:.0f} MB)")
            with open(path, encoding="utf-8") as handle:
                raw = json.load(handle)
            most = max(MAX_CELLS, 20 * len(release.cells))
            count = _cell_count(raw)
            if count > most:
                raise TooLarge(f"it has {count:,} cells, more than the limit of {most:,}")
            if isinstance(raw, dict) and raw.get("nbformat", 4) < 4:
                raw = nbformat.reads(json.dumps(raw), as_version=4)
            fixed, changes = repair_notebook(raw, release)
        except (ValueError, TypeError, UnicodeDecodeError, RecursionError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            if isinstance(exc, json.JSONDecodeError):
                reason = f"not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
            elif isinstance(exc, UnicodeDecodeError):
                reason = "not UTF-8 text"
            report.unreadable[release_path.name] = reason
            os.replace(path, str(path) + ".unreadable")
            shutil.copyfile(release_path, path)
            continue
        report.changes += [f"{release_path.name}: {c}" for c in changes]
        findings = audit_notebook(fixed, release)
        if len(findings) > MAX_FINDINGS:
            findings = findings[:MAX_FINDINGS] + [f"and {len(findings) - MAX_FINDINGS} more findings "
                                                  "like these"]
        report.review += [f"{release_path.name}: {f}" for f in findings]
        # read only by the grading worker (nbformat.read gives the same notebook as from what
        # nbformat.write writes): one line of JSON, which the C encoder writes many times
        # faster than nbformat's indented form; not checked a second time: it was checked as
        # repair_notebook made it (nbformat.validate raised if it were not valid)
        text = json.dumps(strip_transient(fixed), sort_keys=True,
                          ensure_ascii=False, separators=(",", ":"))
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
    return report


def describe(report: RepairReport) -> Iterable[str]:
    """Human-readable lines for a :class:`RepairReport`."""
    for name, why in report.unreadable.items():
        yield f"{name} could not be read ({why}): graded as blank, 0 points"
    from .student_ids import describe_name

    for name in report.missing:
        if report.unknown:
            others = ", ".join(describe_name(n) for n in report.unknown[:3])
            yield (f"{name} was not submitted: 0 points (the submission holds {others}: if that is "
                   f"{name} renamed, see docs/instructor/troubleshooting.md, \"A renamed notebook\")")
        else:
            yield f"{name} was not submitted: 0 points"
    yield from report.changes
