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

from ..drills import KIND_CLASSES, KINDS, SESSION, Drill, Progress, Verdict, make_drill
from ..drills.progress import WINDOW
from ..errors import CourseError
from ._esm import esm
from .tree_view import TreeView

__all__ = ["drill", "DrillWidget", "DrillPanel"]

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
        kinds = [[k, KIND_CLASSES[k].label] for k in KINDS]
        self.top = DrillPanel(section="top", kinds=kinds)
        self.answer = DrillPanel(section="answer", kinds=kinds)
        self.picture = TreeView(max_height=picture_height(drill), click_zoom=False, announce=False,
                                layout=widgets.Layout(width="100%"))
        self._sizes: dict = {}
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
        self.picture.max_height = picture_height(drill)
        self._sizes = {}
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
        """Fill the form with the answer and draw the whole search (a first try counts as wrong).

        Every field is filled: the ones the answer leaves empty (a Star1 row after the cut, the
        window of a node never entered) are cleared.
        """
        if not self._counted:
            self.progress.record(self.drill.kind, False, level=self.drill.level)
            self._counted = True
        answer = self.drill.form(self.drill.expected)
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
        self._draw(verdict)          # first: the browser lays the picture out while the text arrives
        self.answer.verdict = data
        self._show_progress()

    def _show_progress(self) -> None:
        s = self.progress.stats(self.drill.kind)
        self.answer.progress = {"kind": self.drill.kind, "streak": s.streak, "best": s.best,
                                "mastery": s.mastery, "window": WINDOW, "line": s.line()}

    def _draw(self, verdict: Verdict | None) -> None:
        """Draw the tree (before a check) or the search at the moment explained (after one).

        Every picture of a drill has the same layout: each node is drawn as big as it is in
        the whole search (``sizes``, windows and bounds included), so the bare tree already
        takes the room the answer needs and a check only restyles it: the node asked about
        and the leaf row stay where the student saw them (see :func:`picture_height`).
        """
        from ..draw import draw_tree

        d = self.drill
        try:
            if not self._sizes:
                draw_tree(d.game, d.reference, sizes=self._sizes)
            if verdict is None:
                picture = draw_tree(d.game, title="the tree", sizes=self._sizes)
            elif verdict.correct or verdict.upto is None:
                picture = draw_tree(d.game, d.reference, title="the whole search", sizes=self._sizes)
            else:
                where = d.names.get(verdict.node, "") if verdict.node is not None else ""
                picture = draw_tree(d.game, d.reference, upto=verdict.upto,
                                    title=f"the search, stopped where it decides: {where}"
                                    if where else "the search, stopped where it decides",
                                    sizes=self._sizes)
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
        fields = [f for f in d.fields() if f.node == path]
        if not fields:
            return
        # a leaf drill's tick box is answered by the click itself (a node with a number or a
        # choice gets the focus, to type in)
        self.answer.select = {"field": fields[0].id, "toggle": fields[0].kind == "toggle" and
                              all(f.kind == "toggle" for f in fields),
                              "n": self.answer.select.get("n", 0) + 1}


#: Height (px) of a drill's picture per level of the tree below the root, and for the rest (title,
#: margins): at the readable zoom a drawn level with its windows or bounds takes about 105 px.
PX_PER_LEVEL, PX_BESIDES = 120, 140


def picture_height(drill: Drill) -> int:
    """The height of a drill's picture, enough for its whole tree at the readable zoom.

    At least 380 px (a level-1 tree); a deeper tree gets more, so that after a check the leaf
    row is in view without panning.

    >>> from course.drills import make_drill
    >>> picture_height(make_drill("pruning", level=1, seed=1))
    380
    >>> picture_height(make_drill("star1", level=5, seed=1))
    620
    """
    return max(380, PX_BESIDES + PX_PER_LEVEL * drill.game.root.height())


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
