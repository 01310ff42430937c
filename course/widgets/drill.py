"""The drill widget: a tree picture between a question and an answer form, checked at once.

A :class:`DrillWidget` is a column of three parts: the top panel (the drill's kind,
level and share code, the controls for the next drill, the question, the tree in
text), the tree picture (a :class:`~course.widgets.TreeView`), and the answer panel
(the form, *Check answer* and *Show answer*, the result and the streak/mastery bar).
The panels are two views of :class:`DrillPanel` (one small ES module,
``drill.js``); the logic is :mod:`course.drills`.  :func:`drill` is the entry point a
notebook calls (``from course.widgets import drill``).

After a check the picture shows the reference search stopped at the moment the
explanation is about, with that node drawn as *current*; a right answer shows the
whole search.  A click on a node of the picture goes to its part of the form (and
ticks or unticks a leaf in the pruning drills): the picture answers too.

Everything works by keyboard: the form is native controls with labels, Enter in a
box checks, results are announced through a polite live region.

>>> from course.drills import make_drill, Progress
>>> w = DrillWidget(make_drill("pruning", level=1, seed=7), progress=Progress())
>>> w.drill.code, w.answer.drill["fields"][0]["kind"]
('pruning-1-7', 'toggle')
>>> v = w.check({"B1": False, "B2": False, "C1": False, "C2": True})
>>> v.correct, w.answer.verdict["summary"], w.progress.stats("pruning").streak
(True, 'Right!', 1)
"""

from __future__ import annotations

from typing import Any

import anywidget
import ipywidgets as widgets
import traitlets

from ..drills import KINDS, SESSION, Drill, Progress, Verdict, make_drill
from ..drills.numbers import fmt
from ..drills.progress import WINDOW
from ..errors import CourseError
from ._esm import esm
from .tree_view import TreeView

__all__ = ["drill", "DrillWidget", "DrillPanel"]

_KIND_LABELS = {
    "minimax": "minimax values",
    "pruning": "alpha-beta: leaves never looked at",
    "window": "alpha-beta: alpha and beta at entry",
    "star1": "Star1: bounds at a chance node",
    "bab": "Bounded Alpha-Beta: leaves skipped",
}


class DrillPanel(anywidget.AnyWidget):
    """One panel of a drill (``section`` ``"top"`` or ``"answer"``); see the module docstring."""

    _esm = esm("drill.js")

    section = traitlets.Unicode("top").tag(sync=True)
    drill = traitlets.Dict().tag(sync=True)
    verdict = traitlets.Dict().tag(sync=True)
    progress = traitlets.Dict().tag(sync=True)
    kinds = traitlets.List().tag(sync=True)
    next_level = traitlets.Int(1).tag(sync=True)
    message = traitlets.Unicode("").tag(sync=True)
    select = traitlets.Dict().tag(sync=True)
    announce_new = traitlets.Bool(False).tag(sync=True)


class DrillWidget(widgets.VBox):
    """A drill on screen.  Build one with :func:`drill`.

    Attributes
    ----------
    drill : Drill
        The drill shown.
    top, answer : DrillPanel
        The question panel and the answer panel.
    picture : TreeView
        The tree: bare while the question is open, the reference search after a check.
    progress : Progress
        Streaks and mastery (shared by the session's drills unless given).
    verdict : Verdict or None
        The last check.
    """

    def __init__(self, drill: Drill, *, progress: Progress | None = None) -> None:
        self.progress = progress if progress is not None else SESSION
        kinds = [[k, _KIND_LABELS[k]] for k in KINDS]
        self.top = DrillPanel(section="top", kinds=kinds)
        self.answer = DrillPanel(section="answer", kinds=kinds)
        self.picture = TreeView(max_height=380, click_zoom=False, announce=False,
                                layout=widgets.Layout(width="100%"))
        self.picture.on_node_click(self._clicked)
        for panel in (self.top, self.answer):
            panel.on_msg(self._on_message)
        self.verdict: Verdict | None = None
        self._counted = False
        self._checks = 0
        super().__init__(children=[self.top, self.picture, self.answer])
        self.show(drill)

    # -- what the student does -----------------------------------------------------------------
    def show(self, drill: Drill, *, announce: bool = False) -> None:
        """Show ``drill``: its question, its bare tree, an empty form."""
        self.drill = drill
        self.verdict = None
        self._counted = False
        data = {
            "kind": drill.kind, "title": drill.title, "level": drill.level, "seed": drill.seed,
            "code": drill.code, "recipe": drill.recipe, "question": drill.question,
            "tree_text": drill.tree_text(),
            "fields": [{"id": f.id, "label": f.label, "kind": f.kind, "group": f.group,
                        "options": [list(o) for o in f.options]} for f in drill.fields()],
            "focus_note": (f"Your code went wrong around node {drill.names[drill.focus]} "
                           f"(path {drill.focus!r}): look there first."
                           if drill.focus is not None and drill.focus in drill.names else ""),
        }
        self.top.announce_new = announce
        self.top.message = ""
        for panel in (self.top, self.answer):
            panel.next_level = drill.level or 1
            panel.verdict = {}
            panel.drill = data
        self._show_progress()
        self._draw(None)

    def check(self, values: dict) -> Verdict:
        """Check the form's values (field id -> text, or bool for a tick box).

        The first check of a drill counts for the streak and mastery.
        """
        verdict = self.drill.check_form(values)
        self._checks += 1
        if not self._counted:
            self.progress.record(self.drill.kind, verdict.correct, level=self.drill.level)
            self._counted = True
        self._show(verdict)
        return verdict

    def reveal(self) -> None:
        """Fill the form with the answer and draw the whole search (a first try counts as wrong)."""
        if not self._counted:
            self.progress.record(self.drill.kind, False, level=self.drill.level)
            self._counted = True
        answer = _form_values(self.drill)
        verdict = self.drill.check_form(answer)
        self._checks += 1
        self._show(verdict, answer=answer, revealed=True)

    def new(self, kind: str | None = None, level: int | None = None, *, code: str | None = None,
            seed: int | None = None) -> None:
        """Show a fresh drill (another seed), or the drill of a share ``code``.

        A problem (an unreadable code) is shown in the top panel, not raised.
        """
        try:
            if code:
                drill = make_drill(code=code.strip())
            else:
                drill = make_drill(kind or self.drill.kind, level=level or self.drill.level or 1,
                                   seed=seed)
        except CourseError as exc:
            self.top.message = str(exc)
            return
        self.show(drill, announce=True)

    # -- internals ---------------------------------------------------------------------------------
    def _show(self, verdict: Verdict, *, answer: dict | None = None, revealed: bool = False) -> None:
        self.verdict = verdict
        summary = verdict.summary()
        explanation = verdict.explanation
        if revealed:
            summary = "The answer:"
            explanation = verdict.explanation.replace("Right: ", "", 1)
        data = {"checked": True, "correct": verdict.correct, "summary": summary,
                "explanation": explanation, "wrong": list(verdict.wrong), "n": self._checks,
                "node": self.drill.names.get(verdict.node) if verdict.node is not None else None}
        if answer is not None:
            data["answer"] = answer
        self.answer.verdict = data
        self._show_progress()
        self._draw(verdict)

    def _show_progress(self) -> None:
        s = self.progress.stats(self.drill.kind)
        self.answer.progress = {"kind": self.drill.kind, "streak": s.streak, "best": s.best,
                                "mastery": s.mastery, "window": WINDOW, "line": s.line()}

    def _draw(self, verdict: Verdict | None) -> None:
        from ..draw import draw_tree

        d = self.drill
        try:
            if verdict is None:
                picture = draw_tree(d.game, title="the tree")
            elif verdict.correct or verdict.upto is None:
                picture = draw_tree(d.game, d.reference, title="the whole search")
            else:
                where = d.names.get(verdict.node, "") if verdict.node is not None else ""
                picture = draw_tree(d.game, d.reference, upto=verdict.upto,
                                    title=f"the search, stopped where it decides: {where}"
                                    if where else "the search, stopped where it decides")
        except CourseError:
            picture = None
        self.picture.show(picture)

    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        kind = content.get("type")
        if kind == "check" and isinstance(content.get("values"), dict):
            values = {str(k): v for k, v in content["values"].items()
                      if isinstance(v, (str, bool)) and len(str(v)) < 200}
            self.check(values)
        elif kind == "reveal":
            self.reveal()
        elif kind == "new":
            level = content.get("level")
            self.new(content.get("kind") if content.get("kind") in KINDS else None,
                     level if isinstance(level, int) and 1 <= level <= 5 else None,
                     code=content.get("code") if isinstance(content.get("code"), str) else None)

    def _clicked(self, node_id: str) -> None:
        """A node of the picture was clicked: go to its part of the form."""
        path = tuple(int(i) for i in node_id.split("_")[1:])
        d = self.drill
        name = d.names.get(path)
        if name is None:
            return
        ids = [f.id for f in d.fields() if f.node == path]
        if not ids:
            return
        self.answer.select = {"field": ids[0], "toggle": d.kind in ("pruning", "bab"),
                              "n": self.answer.select.get("n", 0) + 1}


def drill(kind: str = "pruning", *, level: int = 1, seed: int | None = None, tree: Any = None,
          code: str | None = None, order: str | None = None, epsilon: Any = None,
          node: Any = None, focus: Any = None, progress: Progress | None = None) -> DrillWidget:
    """A drill as a widget: the tree, the question, a form to answer in, Check, New drill.

    Takes the parameters of :func:`course.drills.make_drill` (plus ``progress``, default
    :data:`course.drills.SESSION`).  Works in JupyterLab and in the JupyterLite edition, by
    keyboard and by mouse.

    Returns
    -------
    DrillWidget

    Examples
    --------
    >>> w = drill("pruning", level=1, seed=12, progress=Progress())
    >>> w.drill.code
    'pruning-1-12'
    """
    first = make_drill(kind, level=level, seed=seed, tree=tree, code=code, order=order,
                       epsilon=epsilon, node=node, focus=focus)
    return DrillWidget(first, progress=progress if progress is not None else SESSION)


def _form_values(drill: Drill) -> dict:
    """The form's values that say the right answer."""
    expected = drill.expected
    values: dict[str, Any] = {}
    if drill.kind == "minimax":
        values = {k: (v if k == "move" else fmt(v)) for k, v in expected.items()}
    elif drill.kind in ("pruning", "bab"):
        values = {f.id: f.id in expected for f in drill.fields()}
    elif drill.kind == "window":
        for name, window in expected.items():
            values[f"{name}.skip"] = window is None
            if window is not None:
                values[f"{name}.alpha"], values[f"{name}.beta"] = (fmt(x) for x in window)
            else:
                values[f"{name}.alpha"] = values[f"{name}.beta"] = ""
    elif drill.kind == "star1":
        for k, (lo, hi) in enumerate(expected["rows"], 1):
            values[f"row{k}.L"], values[f"row{k}.U"] = fmt(lo), fmt(hi)
        values["stop"] = expected["stop"] or "none"
    return values
