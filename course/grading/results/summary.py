"""The class at a glance: per assignment, a histogram of the scores and the tests failed most.

Reads verdicts, and the graded notebooks as data (error names, review flags).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
import os
from pathlib import Path
from typing import Any

from ..course_dir import CourseLayout, course_layout, gradebook
from .report import hand_points_pending, read_report

__all__ = ["summary", "AssignmentSummary"]


@dataclass
class AssignmentSummary:
    """Scores and most-failed tests of one assignment."""

    assignment: str
    max_score: float
    scores: list[float]
    failed_tests: list[tuple[str, int, int, list[tuple[str, int]]]]
    """``(test id, submissions failing it, submissions graded, [(error name, count), ...])``, most failed first."""
    histogram: Path | None = None
    not_attempted: list[str] = field(default_factory=list)
    """Students who handed in the untouched release (every answer cell as released): they score 0."""
    crashed: list[str] = field(default_factory=list)
    """Students whose notebook could not be graded (unreadable, or the grading failed): they score 0."""
    autograded_points: float = 0.0
    """Points of the test cells (autograded)."""
    hand_points: float = 0.0
    """Points of the written answers (graded by hand in the formgrader)."""
    hand_pending: list[str] = field(default_factory=list)
    """Students whose written answers are still to be graded by hand."""


def _answer_sources(notebooks: Iterable[Path]) -> dict[str, str] | None:
    """grade_id -> source of every answer cell (nbgrader ``solution`` cells); None if unreadable."""
    import nbformat

    found: dict[str, str] = {}
    for path in notebooks:
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception:  # noqa: BLE001 - an unreadable notebook is not an untouched release
            return None
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if meta.get("solution") and meta.get("grade_id"):
                found[meta["grade_id"]] = cell.source.strip()
    return found


def _untouched(layout: CourseLayout, student: str, assignment: str) -> bool:
    """Whether a submission's answer cells all equal the release's (the student attempted nothing)."""
    release = _answer_sources(sorted((layout.release / assignment).glob("*.ipynb")))
    if not release:
        return False
    for folder in (layout.autograded / student / assignment, layout.submitted / student / assignment):
        notebooks = sorted(folder.glob("*.ipynb"))
        if notebooks:
            answers = _answer_sources(notebooks)
            return answers is not None and all(answers.get(g, text) == text for g, text in release.items())
    return False


def _error_names(layout: CourseLayout, student: str, assignment: str) -> dict[str, str]:
    """grade_id -> the error name of that test cell in the autograded notebooks."""
    import nbformat

    out = {}
    for path in (layout.autograded / student / assignment).glob("*.ipynb"):
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception:  # noqa: BLE001 - a broken graded copy only loses the detail
            continue
        for cell in nb.cells:
            gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if not gid or cell.cell_type != "code":
                continue
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    out[gid] = output.get("ename", "error")
                    break
    return out


def summary(root: str | os.PathLike = ".", output_dir: str | os.PathLike = "grading-summary", *,
            top: int = 5, log: Any = None) -> list[AssignmentSummary]:
    """Per assignment: a histogram of the scores (PNG) and the tests students fail most.

    Submissions are told apart: *not attempted* (the untouched release: every
    answer cell as released), *crashed* (the notebook could not be graded:
    unreadable, or the grading failed) and the others; each counts with its
    score (0 for the first two) and is drawn in its own colour, one bar per
    integer score.  The text says which points are autograded and which are
    graded by hand, and how many submissions still wait for a hand grade
    (their scores do not include those points yet).

    Parameters
    ----------
    root : path
        The course directory.
    output_dir : path
        Where to write ``<assignment>-scores.png`` and ``summary.txt``
        (relative paths are inside ``root``).
    top : int
        How many of the most-failed tests to list.
    log : callable, optional
        Receives the text summary, line by line.

    Returns
    -------
    list of AssignmentSummary
    """
    import math

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    layout = course_layout(root)
    report = read_report(layout)
    out_dir = Path(output_dir)
    if not out_dir.is_absolute():
        out_dir = layout.root / out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    results: list[AssignmentSummary] = []
    from nbgrader.api import MissingEntry

    with gradebook(layout) as gb:
        for name in layout.assignments():
            try:
                spec = gb.find_assignment(name)
            except MissingEntry:
                continue
            scores, failures, graded = [], Counter(), Counter()
            kinds: dict[str, Counter] = {}
            test_ids = {c.name for nb in spec.notebooks for c in nb.grade_cells
                        if c.cell_type == "code"}
            auto_points = float(sum(c.max_score for nb in spec.notebooks for c in nb.grade_cells
                                    if c.cell_type == "code"))
            groups: dict[str, list[float]] = {"attempted": [], "not attempted": [], "crashed": []}
            crashed, untouched, pending = [], [], []
            seen = set()
            for sub in spec.submissions:
                who = sub.student.id
                seen.add(who)
                entry = report.get(f"{who}/{name}", {})
                failed = entry.get("status") == "failed"
                score = 0.0 if failed else float(sub.score)
                if failed or entry.get("unreadable"):
                    crashed.append(who)
                    group = "crashed"
                elif _untouched(layout, who, name):
                    untouched.append(who)
                    group = "not attempted"
                else:
                    group = "attempted"
                if not failed and hand_points_pending(sub):
                    pending.append(who)
                scores.append(score)
                groups[group].append(score)
                errors = _error_names(layout, who, name)
                for nb in sub.notebooks:
                    for grade in nb.grades:
                        if grade.name not in test_ids:
                            continue
                        graded[grade.name] += 1
                        if failed or (grade.auto_score or 0) < grade.max_score:
                            failures[grade.name] += 1
                            kind = ("not graded" if failed else "not attempted" if group == "not attempted"
                                    else errors.get(grade.name, "no points"))
                            kinds.setdefault(grade.name, Counter())[kind] += 1
            # failed submissions the gradebook does not hold (e.g. restored after tampering) score 0
            for key, entry in report.items():
                if key.endswith(f"/{name}") and entry.get("status") == "failed" \
                        and entry.get("student") not in seen:
                    scores.append(0.0)
                    groups["crashed"].append(0.0)
                    crashed.append(entry.get("student", key.split("/")[0]))
            if not scores:
                continue
            ranked = sorted(failures, key=lambda t: (-failures[t], t))[:top]
            item = AssignmentSummary(name, float(spec.max_score), scores,
                                     [(t, failures[t], graded[t], kinds[t].most_common(3)) for t in ranked],
                                     not_attempted=sorted(untouched), crashed=sorted(crashed),
                                     autograded_points=auto_points,
                                     hand_points=float(spec.max_score) - auto_points,
                                     hand_pending=sorted(pending))
            fig, ax = plt.subplots(figsize=(6, 3.2))
            top_score = max(1, math.ceil(max(spec.max_score or 0, max(scores))))
            edges = [i - 0.5 for i in range(top_score + 2)]      # one bar centred on each integer
            colours = {"attempted": "#4C72B0", "not attempted": "#BBBBBB", "crashed": "#C44E52"}
            shown = [g for g in groups if groups[g]]
            ax.hist([groups[g] for g in shown], bins=edges, stacked=True, color=[colours[g] for g in shown],
                    label=[f"{g} ({len(groups[g])})" for g in shown], edgecolor="white", rwidth=0.9)
            ax.set_xlim(-0.75, top_score + 0.75)
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_xlabel(f"score (out of {spec.max_score:g}: {auto_points:g} autograded"
                          f" + {item.hand_points:g} by hand)")
            ax.set_ylabel("submissions")
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
            if len(shown) > 1:
                ax.legend(fontsize="small")
            ax.set_title(f"{name}: {len(scores)} submissions, mean {sum(scores) / len(scores):.1f}")
            fig.tight_layout()
            item.histogram = out_dir / f"{name}-scores.png"
            fig.savefig(item.histogram, dpi=100)
            plt.close(fig)
            results.append(item)
    lines = []
    for item in results:
        s = sorted(item.scores)
        median = s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2
        lines.append(f"{item.assignment}: {len(s)} submissions, mean {sum(s) / len(s):.2f}, median "
                     f"{median:g}, min {s[0]:g}, max {s[-1]:g} (out of {item.max_score:g}: "
                     f"{item.autograded_points:g} autograded + {item.hand_points:g} graded by hand); "
                     f"histogram {item.histogram}")
        lines.append(f"    not attempted (the untouched release, 0 points): {len(item.not_attempted)}"
                     + (f" ({', '.join(item.not_attempted)})" if item.not_attempted else ""))
        lines.append(f"    crashed (could not be graded, 0 points): {len(item.crashed)}"
                     + (f" ({', '.join(item.crashed)})" if item.crashed else ""))
        if item.hand_pending:
            lines.append(f"    still to grade by hand: {len(item.hand_pending)} submissions "
                         f"({', '.join(item.hand_pending)}); their scores are autograded points only")
        for test, failed, total, kinds in item.failed_tests:
            detail = ", ".join(f"{k} x{n}" for k, n in kinds)
            lines.append(f"    {test}: failed by {failed} of {total} ({detail})")
        if not item.failed_tests:
            lines.append("    no test failed")
    (out_dir / "summary.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if log is not None:
        for line in lines or ["no graded submissions yet: run the autograder first"]:
            log(line)
    return results
