"""The class at a glance: per assignment, the scores, and per question how the class did.

For every assignment with graded submissions, :func:`summary` writes

* ``<assignment>-scores.png`` -- a histogram of the total scores, one bar per integer score,
  the submissions *not attempted* (the untouched release) and *crashed* (could not be graded)
  in their own colours;
* ``<assignment>-questions.png`` -- a histogram per question (every graded cell: the
  autograded tests and the written answers graded by hand), one panel each;
* ``summary.txt`` -- the same in words: the score statistics, and per question its mean, how
  many submissions got full credit, and for a test every kind of failure with its count
  (the error a test raised, ``not attempted``, ``not graded``, ``no points``); and
* ``summary.html`` -- one page with all of it, each picture with a text alternative and its
  numbers in a table.  The page holds what submissions wrote (the names of the errors their
  code raised), so everything in it is escaped, and it allows no script at all
  (Content-Security-Policy ``default-src 'none'``; pictures are ``data:`` images).

Reads verdicts (the gradebook, the grading report), and the graded notebooks as data (the names
of the errors their tests raised).
"""

from __future__ import annotations

from collections import Counter
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
import os
from pathlib import Path
from typing import Any

from ..course_dir import CourseLayout, course_layout, gradebook
from .report import hand_points_pending, read_report

__all__ = ["summary", "AssignmentSummary", "QuestionSummary", "summary_html"]


@dataclass
class QuestionSummary:
    """How the class did on one graded cell (a question) of an assignment."""

    notebook: str
    """The notebook's name, without ``.ipynb``."""
    grade_id: str
    """The cell's nbgrader ``grade_id``."""
    max_score: float
    """Its points."""
    by_hand: bool
    """Graded by hand (a written answer, a task), not by a test."""
    scores: list[float] = field(default_factory=list)
    """The points of every submission graded on it (0 for a submission that could not be graded)."""
    pending: int = 0
    """Submissions whose answer still waits for a hand grade (not in :attr:`scores`)."""
    failures: list[tuple[str, int]] = field(default_factory=list)
    """A test's failures by kind, most frequent first, all of them: the error the test raised,
    ``not attempted`` (the untouched release), ``not graded`` (the submission could not be
    graded), ``no points`` (fewer points than the maximum, no error)."""

    @property
    def mean(self) -> float | None:
        """Mean points of the graded submissions (None if none is graded)."""
        return sum(self.scores) / len(self.scores) if self.scores else None

    @property
    def full_credit(self) -> int:
        """Submissions with every point of the question."""
        return sum(1 for v in self.scores if v >= self.max_score - 1e-9)

    @property
    def failed(self) -> int:
        """Submissions with fewer points than the maximum."""
        return len(self.scores) - self.full_credit


@dataclass
class AssignmentSummary:
    """Scores and most-failed tests of one assignment."""

    assignment: str
    max_score: float
    scores: list[float]
    failed_tests: list[tuple[str, int, int, list[tuple[str, int]]]]
    """``(test id, submissions failing it, submissions graded, [(kind, count), ...])``, most failed
    first; the kinds are all of them (see :attr:`QuestionSummary.failures`)."""
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
    questions: list[QuestionSummary] = field(default_factory=list)
    """Every graded cell, in the notebooks' order."""
    questions_plot: Path | None = None
    """``<assignment>-questions.png``: a histogram per question."""
    groups: dict[str, list[float]] = field(default_factory=dict)
    """The total scores by kind of submission: ``attempted``, ``not attempted``, ``crashed``."""


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
                    out[gid] = _kind_text(output.get("ename", "error"))
                    break
    return out


def _kind_text(name: object, limit: int = 60) -> str:
    """An error's name as a kind of failure: a student's code chose it, so no control
    characters and at most ``limit`` characters (escaped again wherever it is shown)."""
    text = " ".join(re.sub(r"[\x00-\x1f\x7f-\x9f]", " ", str(name)).split()) or "error"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _question_order(layout: CourseLayout, assignment: str) -> dict[tuple[str, str], int]:
    """``(notebook, grade_id) -> position`` in the source notebooks (the order students see)."""
    import nbformat

    order: dict[tuple[str, str], int] = {}
    for path in sorted((layout.source / assignment).glob("*.ipynb")):
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception:  # noqa: BLE001 - the gradebook's order then
            continue
        for cell in nb.cells:
            gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if gid:
                order.setdefault((path.stem, gid), len(order))
    return order


def _median(values: list[float]) -> float:
    s = sorted(values)
    return s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _step(values: list[float]) -> float:
    """The histogram's bar width: 1 for whole points, 0.5 for half points, else 0.1."""
    for step in (1.0, 0.5):
        if all(abs(v / step - round(v / step)) < 1e-9 for v in values):
            return step
    return 0.1


def _bins(values: list[float], top: float, step: float | None = None) -> list[tuple[float, int]]:
    """``(points, submissions)`` for every multiple of ``step`` from 0 to ``top`` (a score goes
    to the nearest; ``step`` by default :func:`_step` of the values).

    >>> _bins([0.0, 2.0, 2.0], 2), _bins([0.5, 1.5], 2)[:4]
    ([(0.0, 1), (1.0, 0), (2.0, 2)], [(0.0, 0), (0.5, 1), (1.0, 0), (1.5, 1)])
    """
    import math

    step = step or _step(values)
    counts = Counter(int(math.floor(v / step + 0.5)) for v in values)
    return [(round(k * step, 6), counts.get(k, 0))
            for k in range(0, int(math.floor(max(1.0, top) / step + 0.5)) + 1)]


def _describe_scores(item: "AssignmentSummary") -> str:
    """The total-score histogram in words (its text alternative)."""
    parts = [f"Histogram of the total scores of {item.assignment}: {_count(len(item.scores), 'submission')}, "
             f"out of {item.max_score:g} points, mean {sum(item.scores) / len(item.scores):.1f}."]
    top = max([item.max_score, *item.scores])
    for points, n in _bins(item.scores, top, 1.0):
        if n:
            kinds = [f"{sum(1 for v in vs if int(round(v)) == int(points))} {g}"
                     for g, vs in item.groups.items() if any(int(round(v)) == int(points) for v in vs)]
            parts.append(f"{points:g} points: {_count(n, 'submission')}"
                         + (f" ({', '.join(kinds)})" if len(item.groups) > 1 and kinds else "") + ".")
    return " ".join(parts)


def _describe_questions(item: "AssignmentSummary") -> str:
    """The per-question histograms in words (their text alternative)."""
    parts = [f"Histograms of the points per question of {item.assignment}, one panel per question."]
    for q in item.questions:
        counts = ", ".join(f"{_count(n, 'submission')} {points:g}" for points, n in _bins(q.scores, q.max_score) if n)
        pending = f", {q.pending} still to grade by hand" if q.pending else ""
        parts.append(f"{q.grade_id} ({'graded by hand' if q.by_hand else 'autograded'}, "
                     f"{q.max_score:g} points): {counts or 'none graded'}{pending}.")
    return " ".join(parts)


def _scores_figure(item: "AssignmentSummary") -> Any:
    import math

    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(6, 3.2))
    top_score = max(1, math.ceil(max(item.max_score or 0, max(item.scores))))
    edges = [i - 0.5 for i in range(top_score + 2)]      # one bar centred on each integer
    colours = {"attempted": "#4C72B0", "not attempted": "#BBBBBB", "crashed": "#C44E52"}
    hatches = {"attempted": "", "not attempted": "//", "crashed": "xx"}
    shown = [g for g in item.groups if item.groups[g]]
    _, _, patches = ax.hist([item.groups[g] for g in shown], bins=edges, stacked=True,
                            color=[colours[g] for g in shown], label=[f"{g} ({len(item.groups[g])})" for g in shown],
                            edgecolor="white", rwidth=0.9)
    for group, bars in zip(shown, patches if len(shown) > 1 else [patches]):
        for bar in bars:
            bar.set_hatch(hatches[group])       # not told apart by colour alone
    ax.set_xlim(-0.75, top_score + 0.75)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(f"score (out of {item.max_score:g}: {item.autograded_points:g} autograded"
                  f" + {item.hand_points:g} by hand)")
    ax.set_ylabel("submissions")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    if len(shown) > 1:
        ax.legend(fontsize="small")
    ax.set_title(f"{item.assignment}: {len(item.scores)} submissions, mean "
                 f"{sum(item.scores) / len(item.scores):.1f}")
    fig.tight_layout()
    return fig


def _questions_figure(item: "AssignmentSummary") -> Any:
    import math

    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    from ....plots import STYLES

    n = max(1, len(item.questions))
    cols = min(3, n)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 2.5 * rows), squeeze=False)
    for k, ax in enumerate(axes.flat):
        if k >= len(item.questions):
            ax.set_visible(False)
            continue
        q = item.questions[k]
        step = _step(q.scores)
        bins = _bins(q.scores, q.max_score, step)
        colour = STYLES[1]["color"] if q.by_hand else STYLES[0]["color"]
        ax.bar([b for b, _ in bins], [c for _, c in bins], width=0.8 * step, color=colour,
               edgecolor="black", linewidth=0.6, hatch="//" if q.by_hand else "")
        ax.set_xlim(-0.75 * step, bins[-1][0] + 0.75 * step)
        if step == 1.0:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(0, max(1, len(q.scores) + q.pending))
        mean = q.mean
        title = (f"{q.grade_id}\n{'by hand' if q.by_hand else 'test'}, {q.max_score:g} "
                 f"point{'' if q.max_score == 1 else 's'}")
        title += f", mean {mean:.1f}" if mean is not None else ", none graded"
        if q.pending:
            title += f", {q.pending} pending"
        ax.set_title(title, fontsize="small")
        ax.set_xlabel("points", fontsize="small")
        if k % cols == 0:
            ax.set_ylabel("submissions", fontsize="small")
        ax.tick_params(labelsize="small")
    fig.suptitle(f"{item.assignment}: points per question")
    fig.tight_layout()
    return fig


def _png(fig: Any, path: Path) -> bytes:
    import io

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, facecolor="white")
    data = buffer.getvalue()
    path.write_bytes(data)
    return data


def summary(root: str | os.PathLike = ".", output_dir: str | os.PathLike = "grading-summary", *,
            top: int = 5, log: Any = None) -> list[AssignmentSummary]:
    """Per assignment: the scores and every question (module notes), in PNG, text and one HTML page.

    Submissions are told apart: *not attempted* (the untouched release: every
    answer cell as released), *crashed* (the notebook could not be graded:
    unreadable, or the grading failed) and the others; each counts with its
    score (0 for the first two) and is drawn in its own colour and hatching, one bar per
    integer score.  The text says which points are autograded and which are
    graded by hand, and how many submissions still wait for a hand grade
    (their scores do not include those points yet).  Per question (every graded cell):
    its mean over the submissions graded on it, how many got full credit, how many wait
    for a hand grade, and for a test every kind of failure with its count.

    Parameters
    ----------
    root : path
        The course directory.
    output_dir : path
        Where to write ``<assignment>-scores.png``, ``<assignment>-questions.png``,
        ``summary.txt`` and ``summary.html`` (relative paths are inside ``root``).
    top : int
        How many of the most-failed tests to name first in the text.
    log : callable, optional
        Receives the text summary, line by line.

    Returns
    -------
    list of AssignmentSummary
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..safe_text import console_log

    log = console_log(log)             # error names are the students' code's
    layout = course_layout(root)
    report = read_report(layout)
    out_dir = Path(output_dir)
    if not out_dir.is_absolute():
        out_dir = layout.root / out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    results: list[AssignmentSummary] = []
    pictures: dict[str, tuple[bytes, bytes]] = {}
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
            order = _question_order(layout, name)
            questions: dict[tuple[str, str], QuestionSummary] = {}
            for nb in spec.notebooks:
                answers = {c.name for c in nb.solution_cells}
                for cell in nb.grade_cells:
                    questions[(nb.name, cell.name)] = QuestionSummary(
                        nb.name, cell.name, float(cell.max_score or 0),
                        by_hand=cell.name in answers or cell.cell_type != "code")
            question_kinds: dict[int, Counter] = {}
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
                        question = questions.get((nb.notebook.name, grade.name))
                        kind = ("not graded" if failed else "not attempted" if group == "not attempted"
                                else errors.get(grade.name, "no points"))
                        if question is not None:
                            if not failed and (grade.needs_manual_grade or grade.score is None):
                                question.pending += 1
                            else:
                                points = 0.0 if failed else float(grade.score)
                                question.scores.append(points)
                                if points < question.max_score - 1e-9 and not question.by_hand:
                                    question_kinds.setdefault(id(question), Counter())[kind] += 1
                        if grade.name not in test_ids:
                            continue
                        graded[grade.name] += 1
                        if failed or (grade.auto_score or 0) < grade.max_score:
                            failures[grade.name] += 1
                            kinds.setdefault(grade.name, Counter())[kind] += 1
            # failed submissions the gradebook does not hold (e.g. restored after tampering) score 0
            for key, entry in report.items():
                if key.endswith(f"/{name}") and entry.get("status") == "failed" \
                        and entry.get("student") not in seen:
                    scores.append(0.0)
                    groups["crashed"].append(0.0)
                    crashed.append(entry.get("student", key.split("/")[0]))
                    for (nb_name, gid), question in questions.items():
                        question.scores.append(0.0)
                        if not question.by_hand:
                            question_kinds.setdefault(id(question), Counter())["not graded"] += 1
                        if gid in test_ids:
                            graded[gid] += 1
                            failures[gid] += 1
                            kinds.setdefault(gid, Counter())["not graded"] += 1
            if not scores:
                continue
            for question in questions.values():
                question.failures = sorted(question_kinds.get(id(question), Counter()).items(),
                                           key=lambda kv: (-kv[1], kv[0]))
            ranked = sorted(failures, key=lambda t: (-failures[t], t))[:top]
            item = AssignmentSummary(name, float(spec.max_score), scores,
                                     [(t, failures[t], graded[t],
                                       sorted(kinds[t].items(), key=lambda kv: (-kv[1], kv[0])))
                                      for t in ranked],
                                     not_attempted=sorted(untouched), crashed=sorted(crashed),
                                     autograded_points=auto_points,
                                     hand_points=float(spec.max_score) - auto_points,
                                     hand_pending=sorted(pending),
                                     questions=sorted(questions.values(), key=lambda q: (
                                         order.get((q.notebook, q.grade_id), len(order)), q.notebook, q.grade_id)),
                                     groups={g: v for g, v in groups.items() if v})
            fig = _scores_figure(item)
            item.histogram = out_dir / f"{name}-scores.png"
            scores_png = _png(fig, item.histogram)
            plt.close(fig)
            fig = _questions_figure(item)
            item.questions_plot = out_dir / f"{name}-questions.png"
            questions_png = _png(fig, item.questions_plot)
            plt.close(fig)
            pictures[name] = (scores_png, questions_png)
            results.append(item)
    lines = _summary_lines(results)
    (out_dir / "summary.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    page = out_dir / "summary.html"
    page.write_text(summary_html(results, pictures), encoding="utf-8")
    if log is not None:
        for line in lines or ["no graded submissions yet: run the autograder first"]:
            log(line)
        if results:
            log(f"report: {page}")
    return results


def _summary_lines(results: list[AssignmentSummary]) -> list[str]:
    lines = []
    for item in results:
        s = sorted(item.scores)
        lines.append(f"{item.assignment}: {len(s)} submissions, mean {sum(s) / len(s):.2f}, median "
                     f"{_median(s):g}, min {s[0]:g}, max {s[-1]:g} (out of {item.max_score:g}: "
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
        lines.append(f"    per question (histograms {item.questions_plot}):")
        for q in item.questions:
            what = "by hand" if q.by_hand else "test"
            if q.mean is None:
                stats = "none graded yet"
            else:
                stats = (f"mean {q.mean:.2f} of {q.max_score:g}, full credit {q.full_credit} of "
                         f"{len(q.scores)} ({q.full_credit / len(q.scores):.0%})")
            extra = f", {q.pending} to grade by hand" if q.pending else ""
            kinds = (f"; failures: {', '.join(f'{k} x{n}' for k, n in q.failures)}" if q.failures else "")
            lines.append(f"      {q.notebook}.ipynb {q.grade_id} ({what}): {stats}{extra}{kinds}")
    return lines


# --------------------------------------------------------------------------- the page

_CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; "
        "form-action 'none'")

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5rem auto; max-width: 70rem; color: #1a1a1a;
       background: #fff; line-height: 1.45; padding: 0 1rem; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.25rem; margin-top: 2.5rem; } h3 { font-size: 1.05rem; }
table { border-collapse: collapse; margin: .5rem 0 1rem; }
th, td { border: 1px solid #767676; padding: .25rem .5rem; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding-bottom: .25rem; }
figure { margin: 1rem 0; } img { max-width: 100%; height: auto; border: 1px solid #d0d0d0; }
figcaption { color: #4a4a4a; }
a:focus, summary:focus { outline: 3px solid #1a5fb4; outline-offset: 2px; }
"""


def _e(text: object) -> str:
    import html

    return html.escape(str(text), quote=True)


def _anchor(name: str) -> str:
    return "a-" + re.sub(r"[^A-Za-z0-9_-]", "-", name)


def summary_html(results: Iterable[AssignmentSummary], pictures: dict[str, tuple[bytes, bytes]] | None = None,
                 *, when: str | None = None) -> str:
    """The summary as one page: no script, everything from the submissions escaped.

    Parameters
    ----------
    results : iterable of AssignmentSummary
    pictures : dict, optional
        ``assignment -> (scores PNG, questions PNG)``, shown as ``data:`` images with their
        text alternatives; without them, only the tables.
    when : str, optional
        When the summary was made (default: now).

    Examples
    --------
    >>> q = QuestionSummary("minimax", "a1-test", 3.0, False, [3.0, 0.0],
    ...                     failures=[("<img src=x onerror=alert(1)>", 1)])
    >>> item = AssignmentSummary("a1", 3.0, [3.0, 0.0], [], questions=[q], groups={"attempted": [3.0, 0.0]})
    >>> page = summary_html([item], when="today")
    >>> "<img src=x" in page, "&lt;img src=x onerror=alert(1)&gt; ×1" in page
    (False, True)
    """
    import base64
    import datetime as _dt

    results = list(results)
    pictures = pictures or {}
    when = when or _dt.datetime.now().isoformat(timespec="seconds")
    parts = [f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
             f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
             f'<meta name="viewport" content="width=device-width, initial-scale=1">'
             f'<title>Grading summary</title><style>{_STYLE}</style></head><body><main>'
             f'<h1>Grading summary</h1><p>{_e(when)}. Per assignment: the total scores, then every '
             f'question (graded cell): its mean, how many got full credit, and for a test every kind '
             f'of failure. Hand-graded points count once given.</p>']
    if not results:
        parts.append("<p>No graded submissions yet: run the autograder first.</p>")
    else:
        parts.append('<nav aria-label="Assignments"><ul>' + "".join(
            f'<li><a href="#{_anchor(i.assignment)}">{_e(i.assignment)}</a></li>' for i in results)
            + "</ul></nav>")
    for item in results:
        s = sorted(item.scores)
        parts.append(f'<section aria-labelledby="{_anchor(item.assignment)}">'
                     f'<h2 id="{_anchor(item.assignment)}">{_e(item.assignment)}</h2>')
        parts.append(f"<p>{_count(len(s), 'submission')}: mean {sum(s) / len(s):.2f}, median {_median(s):g}, "
                     f"min {s[0]:g}, max {s[-1]:g}, out of {item.max_score:g} "
                     f"({item.autograded_points:g} autograded + {item.hand_points:g} graded by hand).</p>")
        facts = [f"not attempted (the untouched release, 0 points): {len(item.not_attempted)}"
                 + (f" ({_e(', '.join(item.not_attempted))})" if item.not_attempted else ""),
                 f"crashed (could not be graded, 0 points): {len(item.crashed)}"
                 + (f" ({_e(', '.join(item.crashed))})" if item.crashed else "")]
        if item.hand_pending:
            facts.append(f"still to grade by hand: {_count(len(item.hand_pending), 'submission')} "
                         f"({_e(', '.join(item.hand_pending))}): their scores are autograded points only")
        parts.append("<ul>" + "".join(f"<li>{f}</li>" for f in facts) + "</ul>")
        scores_png, questions_png = pictures.get(item.assignment, (b"", b""))
        if scores_png:
            parts.append(f'<figure><img alt="{_e(_describe_scores(item))}" '
                         f'src="data:image/png;base64,{base64.b64encode(scores_png).decode()}">'
                         f"<figcaption>Total scores of {_e(item.assignment)}, one bar per integer score."
                         f"</figcaption></figure>")
        parts.append(f'<h3 id="{_anchor(item.assignment)}-questions">Questions</h3>')
        parts.append(f'<table><caption>Per question of {_e(item.assignment)}</caption><thead><tr>'
                     '<th scope="col">notebook</th><th scope="col">question</th><th scope="col">graded</th>'
                     '<th scope="col">points</th><th scope="col">graded on it</th><th scope="col">mean</th>'
                     '<th scope="col">full credit</th><th scope="col">to grade by hand</th>'
                     '<th scope="col">failures, by kind</th></tr></thead><tbody>')
        for q in item.questions:
            mean = f"{q.mean:.2f}" if q.mean is not None else "–"
            full = (f"{q.full_credit} ({q.full_credit / len(q.scores):.0%})" if q.scores else "–")
            fails = ", ".join(f"{_e(k)} ×{n}" for k, n in q.failures) or ("none" if not q.by_hand else "–")
            parts.append(f"<tr><td>{_e(q.notebook)}.ipynb</td><th scope=\"row\">{_e(q.grade_id)}</th>"
                         f"<td>{'by hand' if q.by_hand else 'by a test'}</td><td class=\"n\">{q.max_score:g}</td>"
                         f"<td class=\"n\">{len(q.scores)}</td><td class=\"n\">{mean}</td>"
                         f"<td class=\"n\">{full}</td><td class=\"n\">{q.pending}</td><td>{fails}</td></tr>")
        parts.append("</tbody></table>")
        if questions_png:
            parts.append(f'<figure><img alt="{_e(_describe_questions(item))}" '
                         f'src="data:image/png;base64,{base64.b64encode(questions_png).decode()}">'
                         f"<figcaption>Points per question of {_e(item.assignment)}: one histogram per "
                         f"question, tests plain, questions graded by hand hatched.</figcaption></figure>")
        parts.append("</section>")
    parts.append("</main></body></html>")
    return "\n".join(parts)
