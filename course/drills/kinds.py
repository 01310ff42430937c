"""The drill kinds: the question, the expected answer from the reference trace, and why.

Every drill runs one reference search of :mod:`course.search` with
``trace=True`` and reads its answer from the trace.  A student's answer is
compared with it *in the order the search did things*, and the first place
they differ is explained from the trace's numbers at that moment: which node
decided, with what window or bounds, and by which rule.  The explanation comes
with the node to highlight and the number of trace events to draw, so the
picture shows the search stopped at the moment that explains the answer.

This module holds the base class and the kinds about minimax and alpha-beta;
:mod:`course.drills.bounded` the kinds about Star1 and Bounded Alpha-Beta, and
:mod:`course.drills.probing` the kind about Star2.

==========  =====================================================  ===========================
kind        the question                                           reference search
==========  =====================================================  ===========================
minimax     the value of every inner node (and the root's move)    :func:`~course.search.expectimax`
pruning     which leaves alpha-beta never looks at                 :func:`~course.search.alphabeta`
window      alpha and beta when alpha-beta enters each node        :func:`~course.search.alphabeta`
root        the window each child of the root is searched with     :func:`~course.search.alphabeta`
star1       Star1's L and U at one chance node after each child,   :func:`~course.search.star1`
            and whether (after which child) it cuts
c6          the window Star1 gives each child of a chance node     :func:`~course.search.star1`
bab         which leaves Bounded Alpha-Beta skips for an epsilon   :func:`~course.search.bab`
bounds      the bounds [L, U] every node returns, and the move     :func:`~course.search.bab`
star2       Star2's probing phase at one chance node: each         :func:`~course.search.star2`
            probe's bound, L and U after it, the cut
==========  =====================================================  ===========================

Answers are plain Python data (see each class), or the form's text boxes
(:meth:`Drill.check_form`, what the widget sends; :meth:`Drill.form` is the
other way round).

A drill can also be answered by a *model*: a record of what a search did,
:meth:`Drill.answer_from` turns it into the answer that search gives.  Grading
feedback uses it to check that a drill it offers really catches a mistake:
the mistake's simulation (:func:`course.grading.checks.diagnose.simulate`) answers the
drill, and the drill must find that answer wrong.  A record is any object
with these attributes (what ``simulate`` returns; a part a record lacks is
an empty dict):

``events``
    ``(kind, path)`` pairs in the order they happened, kind ``"expand"`` or ``"leaf"``.
``windows``
    path -> ``(alpha, beta)`` the node was entered with (expanded nodes).
``child_windows``
    ``(path, child)`` -> the window the node gave that child before searching it
    (leaves included).
``returned``
    path -> ``(lower, upper)`` the node returned (a value twice).
``tests``
    ``(path, child)`` -> the node's state after taking that child in:
    ``(L, U, alpha, beta)`` in Star1 and BAB.
``cut_after``
    path -> the index of the child after which the node stopped early.
``move``
    the root's move.

Adding a kind
-------------
A kind is one subclass of :class:`Drill` plus a tree shape per level:

1. Subclass :class:`Drill` (or a kind close to the new one): set :attr:`~Drill.kind`
   (letters and digits: it is the first part of the share code), :attr:`~Drill.title`,
   :attr:`~Drill.label` and :attr:`~Drill.family`; implement ``_search`` (the reference
   search with ``trace=True``), :attr:`~Drill.question`, :meth:`~Drill.fields`,
   :attr:`~Drill.expected`, :meth:`~Drill.check` (explain the first difference, in search
   order), :meth:`~Drill.from_form`, :meth:`~Drill.form` and :meth:`~Drill.answer_from`.
   Parameters of the kind (an ordering, epsilon, a node) go through ``_setup``; the
   classmethods ``given_params`` (a given tree) and ``seeded_params`` (a seeded one) pick
   them, and :meth:`~Drill.worthwhile` says whether a seeded tree makes a question worth
   asking (else the next tree is drawn).
2. Register the class in :data:`course.drills.KIND_CLASSES` and give it a shape per level
   in :data:`course.drills.generate.SHAPES`.
3. Name the catalogue mistakes it catches in :mod:`course.grading.checks.diagnose` (a mistake's
   ``drills``): feedback then offers it when it checks that the mistake answers it wrongly.
   That check simulates the kind's :attr:`~Drill.family` (``diagnose.simulate``): a kind about
   a search the simulator does not know yet (Star2: the ``star2`` kind) needs its family added
   there first; until then feedback never offers it, and ``tests/test_misconceptions.py``
   checks that no mistake names it.

The widget (:mod:`course.widgets.drill`) needs nothing more: it builds the form from the
fields, and the tests of ``tests/test_drills.py`` and ``tests/test_misconceptions.py``
run over every registered kind.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..errors import ParameterError
from ..game import Path
from ..search import alphabeta, expectimax
from ..search.result import SearchResult, TraceEvent
from ..trees import TreeGame, TreeNode, parse_tree, tree_to_obj
from .generate import node_names
from .numbers import AnswerError, exact, fmt, parse_number, said_pair, same

__all__ = ["Field", "Verdict", "Drill", "MinimaxDrill", "PruningDrill", "WindowDrill", "RootDrill",
           "ORDER_WORDS", "ORDER_SHORT"]

ORDER_WORDS = {
    "given": "each node's children from left to right",
    "reversed": "each node's children from right to left",
    "best-first": ("each node's children best first (MAX: highest value first, MIN: lowest "
                   "first, ties left to right)"),
    "worst-first": ("each node's children worst first (MAX: lowest value first, MIN: highest "
                    "first, ties left to right)"),
}
"""The move orderings a drill can ask for, in words."""

ORDER_SHORT = {"given": "left to right", "reversed": "right to left", "best-first": "best first",
               "worst-first": "worst first"}
"""The same orderings in two or three words (for "its first child in the search order, ...")."""

_KIND = {"max": "MAX", "min": "MIN", "chance": "chance", "leaf": "leaf"}


@dataclass(frozen=True)
class Field:
    """One input of a drill's form."""

    id: str
    """Key of the input in :meth:`Drill.check_form`'s ``values``."""
    label: str
    """Its accessible name, e.g. ``"value of B"``."""
    kind: str
    """``"number"`` (a text box for a number), ``"toggle"`` (a checkbox) or ``"choice"``."""
    node: Path | None = None
    """The node it is about (highlighted with it)."""
    group: str = ""
    """The heading of the form row it belongs to (one row per node)."""
    options: tuple[tuple[str, str], ...] = ()
    """For ``"choice"``: ``(value, label)`` pairs."""


@dataclass(frozen=True)
class Verdict:
    """The check of one answer."""

    correct: bool
    """True when every part of the answer is right."""
    explanation: str
    """Why the first wrong part is wrong (the search's own numbers), or what was right."""
    node: Path | None = None
    """The node the explanation is about (to highlight), or None."""
    upto: int | None = None
    """How many reference trace events to draw so the picture shows the moment explained
    (None: the whole search)."""
    wrong: tuple[str, ...] = ()
    """Form field ids of every wrong part (the first one is explained)."""
    right: int = 0
    """How many parts are right."""
    total: int = 0
    """How many parts the answer has."""

    def summary(self) -> str:
        """``"Right!"`` or ``"5 of 7 right"``: one short line for announcements."""
        if self.correct:
            return "Right!"
        return f"{self.right} of {self.total} right"


class _Index:
    """Where each node appears in a trace (events by node and kind)."""

    def __init__(self, events: tuple[TraceEvent, ...]) -> None:
        self.events = events
        self.enter: dict[Path, int] = {}
        self.exit: dict[Path, int] = {}
        self.leaf: dict[Path, int] = {}
        self.updates: dict[Path, list[int]] = {}
        self.cutoff: dict[Path, int] = {}
        for i, e in enumerate(events):
            if e.kind == "enter":
                self.enter.setdefault(e.path, i)
            elif e.kind == "exit":
                self.exit[e.path] = i
            elif e.kind == "leaf":
                self.leaf.setdefault(e.path, i)
            elif e.kind == "update":
                self.updates.setdefault(e.path, []).append(i)
            elif e.kind == "cutoff":
                self.cutoff[e.path] = i

    def searched(self, path: Path) -> bool:
        return path in self.enter or path in self.leaf

    def order(self, path: Path) -> list[int]:
        """The children of an entered node in the order the search took them (pruned ones last)."""
        taken = [self.events[i].child for i in self.updates.get(path, [])]
        cut = self.cutoff.get(path)
        return taken + (list(self.events[cut].pruned) if cut is not None else [])

    def pruned_by(self, path: Path) -> int | None:
        """Index of the cut-off event that skipped ``path`` (or an ancestor of it), or None."""
        for depth in range(len(path) - 1, -1, -1):
            parent = path[:depth]
            cut = self.cutoff.get(parent)
            if cut is not None and path[depth] in self.events[cut].pruned:
                return cut
        return None

    def update_after(self, parent: Path, child: int) -> int | None:
        """Index of the update event of ``parent`` that took in ``child``."""
        for i in self.updates.get(parent, []):
            if self.events[i].child == child:
                return i
        return None

    def returned(self, path: Path) -> tuple[Any, Any] | None:
        """``(lower, upper)`` a searched node returned (a leaf: its value twice)."""
        if path in self.leaf:
            e = self.events[self.leaf[path]]
            return e.lower, e.upper
        if path in self.exit:
            e = self.events[self.exit[path]]
            return e.lower, e.upper
        return None

    def position(self, path: Path) -> int:
        """When the search decided about ``path``: entered/evaluated, or cut off."""
        for table in (self.enter, self.leaf):
            if path in table:
                return table[path]
        cut = self.pruned_by(path)
        return cut if cut is not None else len(self.events)


def _bounds(pair: tuple[Any, Any] | None) -> str:
    if pair is None:
        return "?"
    lo, hi = pair
    return fmt(lo) if lo == hi else f"[{fmt(lo)}, {fmt(hi)}]"


def _op(x: Any) -> str:
    """A number as the right operand of a formula: negative ones in parentheses."""
    text = fmt(x)
    return f"({text})" if text.startswith("−") else text


def _names_list(names: list[str]) -> str:
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def _labelled(game: TreeGame, names: dict[Path, str]) -> TreeGame:
    """The same tree with every node labelled by its drill name (so pictures show the names)."""
    def rec(node: TreeNode) -> Any:
        if node.is_leaf:
            return {"label": names[node.path], "value": node.value}
        if node.kind == "chance":
            body = [[p, rec(c)] for p, c in zip(node.probabilities, node.children)]
        else:
            body = [rec(c) for c in node.children]
        return {"label": names[node.path], node.kind: body}
    return parse_tree({"tree": rec(game.root), "bounds": [game.vmin, game.vmax]})


def _exact_tree(game: TreeGame) -> TreeGame:
    """The tree with exact numbers (float probabilities such as 0.8 become 4/5)."""
    def rec(node: TreeNode) -> Any:
        label = {} if node.label is None else {"label": node.label}
        if node.is_leaf:
            return {**label, "value": exact(node.value)}
        if node.kind == "chance":
            probs = [exact(p) for p in node.probabilities]
            total = sum(probs)
            if total != 1:          # float probabilities: make them sum to 1 exactly
                probs[-1] = 1 - sum(probs[:-1])
            return {**label, "chance": [[p, rec(c)] for p, c in zip(probs, node.children)]}
        return {**label, node.kind: [rec(c) for c in node.children]}
    return parse_tree({"tree": rec(game.root), "bounds": [exact(game.vmin), exact(game.vmax)]})


def _reversed_order(game: Any, state: Any, path: Path, player: Any) -> list[int]:
    return list(reversed(range(len(game.moves(state)))))


class Drill:
    """A drill: one tree, one kind of question, the reference trace that answers it.

    Build one with :func:`course.drills.make_drill`.  Subclasses set
    :attr:`kind` and implement the question, the fields, the expected answer
    and the check.

    Attributes
    ----------
    game : TreeGame
        The tree, every node labelled with its name (what pictures show).
    names : dict
        Path -> node name (``"A"``, ``"B"``, ``"B1"``, ...).
    reference : SearchResult
        The reference search, with its trace.
    level, seed : int or None
        The difficulty and seed the tree was drawn with (None for a given tree).
    code : str or None
        ``"kind-level-seed"``: the drill's share code (None for a given tree).
    focus : tuple or None
        A node to start looking at (set by grading feedback).
    """

    kind = ""
    """The kind's name: letters and digits, the first part of the share code."""
    title = ""
    """The drill's title, e.g. ``"Alpha-beta pruning"``."""
    label = ""
    """The kind in a few words, as the widget's kind selector lists it."""
    family = ""
    """The search the question is about, named as :mod:`course.grading.checks.diagnose` names search
    families (``"minimax"``, ``"expectimax"``, ``"alphabeta"``, ``"star1"``, ``"bab"``): a
    simulation of that search answers the drill (:meth:`answer_from`)."""
    order = "given"
    epsilon: Any = None

    def __init__(self, game: TreeGame, *, level: int | None = None, seed: int | None = None,
                 focus: Path | None = None, **params: Any) -> None:
        plain = _exact_tree(game)
        self.names = node_names(plain)
        self.paths = {name: path for path, name in self.names.items()}
        self.game = _labelled(plain, self.names)
        self.level, self.seed, self.focus = level, seed, focus
        self._setup(**params)
        self.reference = self._search()
        self.index = _Index(tuple(self.reference.trace.events))

    # -- what subclasses provide -----------------------------------------------------------
    def _setup(self, **params: Any) -> None:
        if params:
            raise TypeError(f"unexpected parameters {sorted(params)} for a {self.kind} drill")

    def _search(self) -> SearchResult:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def question(self) -> str:  # pragma: no cover - abstract
        """The question in words."""
        raise NotImplementedError

    def fields(self) -> list[Field]:  # pragma: no cover - abstract
        """The form's inputs, in reading order."""
        raise NotImplementedError

    @property
    def expected(self) -> Any:  # pragma: no cover - abstract
        """The right answer, in the form :meth:`check` takes."""
        raise NotImplementedError

    def check(self, answer: Any) -> Verdict:  # pragma: no cover - abstract
        """Check an answer against the reference trace; explain the first difference."""
        raise NotImplementedError

    def from_form(self, values: Mapping[str, Any]) -> Any:  # pragma: no cover - abstract
        """The answer that the form's values (field id -> text or bool) say."""
        raise NotImplementedError

    def form(self, answer: Any) -> dict[str, Any]:  # pragma: no cover - abstract
        """The form's values that say ``answer``: every field, "" (or False) for an empty one.

        :meth:`from_form` reads them back; *Show answer* fills the form with
        ``form(expected)``, which also clears what the right answer leaves empty.
        """
        raise NotImplementedError

    def answer_from(self, run: Any) -> Any:  # pragma: no cover - abstract
        """The answer of a search that did ``run`` (a record, see the module docstring).

        A part of the question the record says nothing about is left empty.
        """
        raise NotImplementedError

    @classmethod
    def given_params(cls, game: TreeGame, *, order: Any = None, epsilon: Any = None,
                     node: Any = None) -> dict[str, Any]:
        """The kind's parameters on a given tree (``make_drill(tree=...)``), checked and defaulted.

        Raises
        ------
        ParameterError
            For a tree or parameter the kind cannot ask about.
        """
        return {}

    @classmethod
    def seeded_choices(cls, pick: Any, level: int, *, order: Any = None,
                       epsilon: Any = None) -> dict[str, Any]:
        """The parameters a seeded drill draws once, from ``pick`` (a seeded ``random.Random``)."""
        return {}

    @classmethod
    def tree_params(cls, game: TreeGame, level: int, seed: int) -> dict[str, Any] | None:
        """The parameters read off a drawn tree (a node to ask about); None: draw another tree."""
        return {}

    def worthwhile(self) -> bool:
        """Whether a seeded tree makes a question worth asking (else another is drawn)."""
        return True

    @property
    def search_order(self) -> Any:
        """The drill's ordering as a search's ``order=`` takes it (a name or a function)."""
        return _reversed_order if self.order == "reversed" else self.order

    # -- shared ------------------------------------------------------------------------------
    def check_form(self, values: Mapping[str, Any]) -> Verdict:
        """Check what the form holds (field id -> typed text, or a bool for a toggle).

        A number that cannot be read is a wrong part explained as such (the
        drill never raises for what a student types).
        """
        try:
            answer = self.from_form(values)
        except AnswerError as exc:
            bad = getattr(exc, "field", None)
            total = len(self.fields())
            return Verdict(False, f"{exc}.", node=self._field_node(bad), wrong=(bad,) if bad else (),
                           right=0, total=total)
        return self.check(answer)

    def _field_node(self, field_id: str | None) -> Path | None:
        for f in self.fields():
            if f.id == field_id:
                return f.node
        return None

    def name(self, path: Path) -> str:
        """The name of the node at ``path``."""
        return self.names[path]

    def node(self, path: Path) -> TreeNode:
        return self.game.node(path)

    def who(self, path: Path) -> str:
        """``"C (MIN)"``: a node's name and kind."""
        return f"{self.names[path]} ({_KIND[self.node(path).kind]})"

    def resolve(self, key: Any) -> Path:
        """A node given by name (``"B"``), path (``(0,)``) or, for the root's children, index."""
        if isinstance(key, str) and key in self.paths:
            return self.paths[key]
        if isinstance(key, tuple):
            try:
                self.game.node(key)
            except KeyError:
                pass
            else:
                return key
        raise AnswerError(f"this tree has no node {key!r}; nodes are named "
                          f"{', '.join(sorted(self.paths)[:8])}, ...")

    @property
    def code(self) -> str | None:
        """The share code ``kind-level-seed`` (None for a drill on a given tree)."""
        if self.level is None or self.seed is None:
            return None
        return f"{self.kind}-{self.level}-{self.seed}"

    @property
    def recipe(self) -> str:
        """Python that rebuilds this drill (a one-line ``drill(...)`` call)."""
        if self.code is not None:
            return f'drill("{self.kind}", level={self.level}, seed={self.seed})'
        import json

        tree = json.dumps(tree_to_obj(self._plain_for_recipe()), default=_json_number)
        extra = self._recipe_params()
        focus = f", focus={self.focus!r}" if self.focus is not None else ""
        return f'drill("{self.kind}", tree={tree}{extra}{focus})'

    def _plain_for_recipe(self) -> TreeGame:
        def strip(node: TreeNode) -> Any:
            if node.is_leaf:
                return node.value
            if node.kind == "chance":
                return {"chance": [[p, strip(c)] for p, c in zip(node.probabilities, node.children)]}
            return {node.kind: [strip(c) for c in node.children]}
        return parse_tree({"tree": strip(self.game.root), "bounds": [self.game.vmin, self.game.vmax]})

    def _recipe_params(self) -> str:
        return ""

    def tree_text(self) -> str:
        """The tree as an indented outline: names, kinds, probabilities and leaf values.

        What a screen reader reads instead of the picture, and what a student
        can work from on paper.
        """
        lines = [f"Every leaf value lies in [{fmt(self.game.vmin)}, {fmt(self.game.vmax)}]."]

        def walk(node: TreeNode, depth: int, probability: Any = None) -> None:
            pad = "  " * depth
            p = f"with probability {fmt(probability)}: " if probability is not None else ""
            name = self.names[node.path]
            if node.is_leaf:
                lines.append(f"{pad}{p}leaf {name} = {fmt(node.value)}")
                return
            kids = ", ".join(self.names[c.path] for c in node.children)
            lines.append(f"{pad}{p}{name}: {_KIND[node.kind]} node, children {kids}")
            for i, child in enumerate(node.children):
                walk(child, depth + 1, node.probabilities[i] if node.kind == "chance" else None)

        walk(self.game.root, 0)
        return "\n".join(lines)

    def __repr__(self) -> str:
        where = self.code or f"a given tree of {self.game.root.size} nodes"
        return f"<{type(self).__name__} {where}>"

    # -- explanations shared by the kinds ---------------------------------------------------
    def _origin(self, node: Path, bound: str, value: Any, before: int) -> str:
        """Where a node's alpha (or beta) came from: the ancestor whose child set it."""
        who_sets = "max" if bound == "alpha" else "min"
        for depth in range(len(node), -1, -1):
            anc = node[:depth]
            if self.node(anc).kind != who_sets:
                continue
            for i in reversed(self.index.updates.get(anc, [])):
                if i >= before:
                    continue
                e = self.index.events[i]
                v = e.lower if e.lower == e.upper else (e.lower if bound == "alpha" else e.upper)
                if getattr(e, bound) == value and v == value:
                    child = self.names[anc + (e.child,)]
                    who = "MAX" if who_sets == "max" else "MIN"
                    return (f" ({'α' if bound == 'alpha' else 'β'} = {fmt(value)} is what {who} at "
                            f"{self.names[anc]} is already sure of: its child {child} is worth "
                            f"{fmt(value)})")
                break
        return ""

    def _why_go_on(self, parent: Path, child: int) -> tuple[str, int]:
        """Why ``parent`` searches its child ``child``: (words, trace events to draw)."""
        idx = self.index
        order = idx.order(parent)
        pos = order.index(child)
        name = self.names[parent + (child,)]
        if pos == 0:
            start = idx.enter[parent]
            first = "its first child"
            if self.order != "given":       # the first child searched, not the leftmost one
                first += f" in the search order ({ORDER_SHORT[self.order]})"
            if not parent:
                return (f"The search starts at the root {self.names[parent]}, and a node always looks "
                        f"at {first}, {name}: only children after a cut-off are skipped.",
                        start + 1)
            return (f"{self.who(parent)} is searched, and a node always looks at {first} "
                    f"({name}): only children after a cut-off are skipped.", start + 1)
        previous = order[pos - 1]
        u = idx.update_after(parent, previous)
        e = idx.events[u]
        return self._no_cut_words(parent, previous, e, name), u + 1

    def _no_cut_words(self, parent: Path, previous: int, e: TraceEvent, next_name: str) -> str:
        """Alpha-beta's "no cut-off" in words (overridden by the bounded searches)."""
        kind = self.node(parent).kind
        got = _bounds(self.index.returned(parent + (previous,)))
        prev = self.names[parent + (previous,)]
        if kind == "max":
            return (f"At {self.who(parent)}, after child {prev} returned {got}, the value so far is "
                    f"v = {fmt(e.lower)} and the window is α = {fmt(e.alpha)}, β = {fmt(e.beta)}: "
                    f"v = {fmt(e.lower)} < β = {fmt(e.beta)}, so there is no cut-off and "
                    f"{self.names[parent]} goes on to {next_name}.")
        return (f"At {self.who(parent)}, after child {prev} returned {got}, the value so far is "
                f"v = {fmt(e.lower)} and the window is α = {fmt(e.alpha)}, β = {fmt(e.beta)}: "
                f"v = {fmt(e.lower)} > α = {fmt(e.alpha)}, so there is no cut-off and "
                f"{self.names[parent]} goes on to {next_name}.")

    def _why_cut(self, cut: int) -> str:
        """Alpha-beta's cut-off at trace event ``cut`` in words (overridden by the bounded searches)."""
        idx = self.index
        e = idx.events[cut]
        parent = e.path
        u = idx.events[cut - 1]            # the update that took in the last child searched
        last = self.names[parent + (u.child,)]
        got = _bounds(idx.returned(parent + (u.child,)))
        skipped = _names_list([self.names[parent + (i,)] for i in e.pruned])
        never = "is" if len(e.pruned) == 1 else "are"
        if self.node(parent).kind == "max":
            origin = self._origin(parent, "beta", e.beta, cut)
            return (f"At {self.who(parent)}, after child {last} returned {got}, the value so far is "
                    f"v = {fmt(e.lower)} ≥ β = {fmt(e.beta)}{origin}: MIN will never let the game "
                    f"reach {self.names[parent]}, so it stops and {skipped} {never} never looked at.")
        origin = self._origin(parent, "alpha", e.alpha, cut)
        return (f"At {self.who(parent)}, after child {last} returned {got}, the value so far is "
                f"v = {fmt(e.lower)} ≤ α = {fmt(e.alpha)}{origin}: MAX will never let the game "
                f"reach {self.names[parent]}, so it stops and {skipped} {never} never looked at.")


def _json_number(x: Any) -> Any:
    if isinstance(x, Fraction):
        return float(x)
    raise TypeError(f"cannot write {type(x).__name__} as JSON")


def _alphabeta_params(kind: str, game: TreeGame, order: Any) -> dict[str, Any]:
    if game.has_chance:
        raise ParameterError(f"a {kind} drill is about alpha-beta, which has no chance nodes: use "
                             "a tree without chance nodes (or a star1, c6, star2, bab or bounds drill)")
    return {"order": order or "given"}


def _box(x: Any) -> str:
    """A number as a form's text box holds it ("" for none)."""
    return "" if x is None else fmt(x)


def _run_part(run: Any, name: str) -> Any:
    """A part of a record (a dict; empty when the record lacks it)."""
    part = getattr(run, name, None)
    return part if part is not None else {}


def _record_move(run: Any, names: Mapping[Path, str]) -> str | None:
    """The name of the root child a record moved to (None if it says no move)."""
    move = getattr(run, "move", None)
    if isinstance(move, int) and not isinstance(move, bool) and (move,) in names:
        return names[(move,)]
    return None


def _field_error(fid: str, text: str) -> AnswerError:
    err = AnswerError(text)
    err.field = fid
    return err


def _parse(values: Mapping[str, Any], fid: str, *, optional: bool = False) -> Any:
    raw = values.get(fid, "")
    if optional and (raw is None or (isinstance(raw, str) and not raw.strip())):
        return None
    try:
        return parse_number(raw)
    except AnswerError as exc:
        err = AnswerError(str(exc))
        err.field = fid
        raise err from None


# =============================================================================================
class MinimaxDrill(Drill):
    """What is each inner node worth?  (Expectimax values where the tree has chance nodes.)

    Answer: a dict from node (name or path) to its value, plus ``"move"``: the
    root's move (the child's name), when the root is MAX or MIN.

    >>> from course.drills import make_drill
    >>> d = make_drill("minimax", level=1, seed=3)
    >>> d.check(d.expected).correct
    True
    """

    kind = "minimax"
    title = "Minimax values"
    label = "minimax values"

    @property
    def family(self) -> str:  # type: ignore[override]
        """``"expectimax"`` on a tree with chance nodes, else ``"minimax"``."""
        return "expectimax" if self.game.has_chance else "minimax"

    def _search(self) -> SearchResult:
        return expectimax(self.game, trace=True)

    def _inner(self) -> list[Path]:
        return [p for p in sorted(self.names, key=lambda p: (len(p), p)) if not self.node(p).is_leaf]

    @property
    def has_move(self) -> bool:
        return self.game.root.kind in ("max", "min")

    @property
    def question(self) -> str:
        chance = self.game.has_chance
        what = ("the value of every inner node: MAX takes the largest child value, MIN the "
                "smallest" + (", a chance node the probability-weighted sum of its children's"
                              if chance else ""))
        move = (f", and {self.names[()]}'s move: the first child, left to right, with the best value"
                if self.has_move else "")
        return f"Write {what}{move}."

    def fields(self) -> list[Field]:
        out = []
        for p in self._inner():
            node = self.node(p)
            kids = ", ".join(self.names[c.path] for c in node.children)
            out.append(Field(self.names[p], f"value of {self.names[p]}", "number", p,
                             f"{self.who(p)}, children {kids}"))
        if self.has_move:
            options = tuple((self.names[c.path], self.names[c.path]) for c in self.game.root.children)
            out.append(Field("move", f"move of {self.names[()]}", "choice", (),
                             f"the move of {self.names[()]}", options))
        return out

    @property
    def expected(self) -> dict:
        out = {self.names[p]: self.index.returned(p)[0] for p in self._inner()}
        if self.has_move:
            out["move"] = self.names[(self.reference.move,)]
        return out

    def from_form(self, values: Mapping[str, Any]) -> dict:
        out: dict[str, Any] = {}
        for f in self.fields():
            if f.kind == "number":
                out[f.id] = _parse(values, f.id, optional=True)
            elif values.get(f.id):
                out[f.id] = values[f.id]
        return out

    def form(self, answer: Mapping[Any, Any]) -> dict[str, Any]:
        given = {self.names[self.resolve(k)] if k != "move" else k: v for k, v in dict(answer).items()}
        return {f.id: (given.get(f.id) or "") if f.kind == "choice" else _box(given.get(f.id))
                for f in self.fields()}

    def answer_from(self, run: Any) -> dict:
        returned = _run_part(run, "returned")
        out: dict[str, Any] = {}
        for p in self._inner():
            got = returned.get(p)
            out[self.names[p]] = None if got is None else got[0]
        if self.has_move:
            out["move"] = _record_move(run, self.names)
        return out

    def check(self, answer: Mapping[Any, Any]) -> Verdict:
        given: dict[Path, Any] = {}
        move = None
        for key, value in dict(answer).items():
            if key == "move":
                move = value
                continue
            given[self.resolve(key)] = None if value is None else parse_number(value)
        inner = self._inner()
        wrong = [p for p in inner if not same(given.get(p), self.index.returned(p)[0])]
        right_move = self.names[(self.reference.move,)] if self.has_move else None
        move_name = None
        if move is not None:
            try:
                move_name = self.names[(move,)] if isinstance(move, int) else self.names[self.resolve(move)]
            except (AnswerError, KeyError):
                move_name = str(move)
        move_wrong = self.has_move and move_name != right_move
        total = len(inner) + self.has_move
        ids = tuple(self.names[p] for p in wrong) + (("move",) if move_wrong else ())
        right = total - len(ids)
        if not wrong and not move_wrong:
            return Verdict(True, f"Right: {self.names[()]} is worth {fmt(self.reference.value)}"
                           + (f" and its move is {right_move}." if self.has_move else "."),
                           right=right, total=total)
        if wrong:
            first = min(wrong, key=lambda p: self.index.exit[p])
            return Verdict(False, self._value_words(first, given.get(first)), node=first,
                           upto=self.index.exit[first] + 1, wrong=ids, right=right, total=total)
        return Verdict(False, self._move_words(move_name), node=(self.reference.move,),
                       wrong=ids, right=right, total=total)

    def _value_words(self, path: Path, given: Any) -> str:
        node = self.node(path)
        value = self.index.returned(path)[0]
        kids = [(self.names[c.path], self.index.returned(c.path)[0]) for c in node.children]
        said = "you left it empty" if given is None else f"not {fmt(given)}"
        if node.kind == "chance":
            terms = " + ".join(f"{fmt(p)}·{fmt(v)}" for p, (_, v) in zip(node.probabilities, kids))
            return (f"{self.who(path)}: a chance node is worth the probability-weighted sum of its "
                    f"children's values: {terms} = {fmt(value)} ({said}).")
        words = "largest" if node.kind == "max" else "smallest"
        op = "max" if node.kind == "max" else "min"
        listed = ", ".join(f"{n} = {fmt(v)}" for n, v in kids)
        return (f"{self.who(path)}: {'MAX' if node.kind == 'max' else 'MIN'} takes the {words} of "
                f"its children's values: {op}({listed}) = {fmt(value)} ({said}).")

    def _move_words(self, given: Any) -> str:
        root = self.game.root
        best = self.reference.value
        ties = [self.names[c.path] for c in root.children if self.index.returned(c.path)[0] == best]
        who = "MAX" if root.kind == "max" else "MIN"
        said = "you chose no move" if given is None else f"not {given}"
        tie = (f" {_names_list(ties)} are all worth {fmt(best)}: on a tie the move is the first of "
               "them, left to right." if len(ties) > 1 else "")
        return (f"{self.who(())} moves to the first child worth {fmt(best)}, the "
                f"{'largest' if who == 'MAX' else 'smallest'} child value: {ties[0]} "
                f"({said}).{tie}")


# =============================================================================================
class _LeafSetDrill(Drill):
    """Which leaves does the search never look at?  Answer: the names (or paths) of those leaves;
    an inner node stands for every leaf below it."""

    def fields(self) -> list[Field]:
        out = []
        for leaf in self.game.root.leaves():
            parent = leaf.path[:-1]
            group = f"children of {self.who(parent)}" if leaf.path else "the root"
            out.append(Field(self.names[leaf.path], f"{self.names[leaf.path]} = {fmt(leaf.value)}: "
                             "never looked at", "toggle", leaf.path, group))
        return out

    @property
    def skipped(self) -> list[Path]:
        evaluated = set(self.reference.leaves)
        return [leaf.path for leaf in self.game.root.leaves() if leaf.path not in evaluated]

    @property
    def expected(self) -> list[str]:
        return [self.names[p] for p in self.skipped]

    def from_form(self, values: Mapping[str, Any]) -> list[str]:
        return [f.id for f in self.fields() if values.get(f.id) in (True, "true", "on", 1)]

    def form(self, answer: Iterable[Any]) -> dict[str, Any]:
        if isinstance(answer, (str, tuple)):
            answer = [answer]
        marked = {leaf.path for key in answer for leaf in self.node(self.resolve(key)).leaves()}
        return {f.id: f.node in marked for f in self.fields()}

    def answer_from(self, run: Any) -> list[str]:
        seen = {path for kind, path in getattr(run, "events", ()) if kind == "leaf"}
        return [self.names[leaf.path] for leaf in self.game.root.leaves() if leaf.path not in seen]

    def check(self, answer: Iterable[Any]) -> Verdict:
        if isinstance(answer, (str, tuple)):
            answer = [answer]
        marked: set[Path] = set()
        for key in answer:
            path = self.resolve(key)
            marked.update(leaf.path for leaf in self.node(path).leaves())
        leaves = [leaf.path for leaf in self.game.root.leaves()]
        skipped = set(self.skipped)
        wrong = [p for p in leaves if (p in marked) != (p in skipped)]
        total = len(leaves)
        ids = tuple(self.names[p] for p in wrong)
        if not wrong:
            names = _names_list([self.names[p] for p in self.skipped]) if skipped else "none"
            return Verdict(True, f"Right: {self._search_name()} never looks at {names} "
                           f"({self.reference.evaluated} of {total} leaves evaluated).",
                           right=total, total=total)
        first = min(wrong, key=lambda p: (self.index.position(p), p))
        if first in skipped:          # the student thinks it is looked at: explain the cut-off
            cut = self.index.pruned_by(first)
            words = (f"{self.names[first]} is never looked at. " + self._why_cut(cut))
            return Verdict(False, words, node=self.index.events[cut].path, upto=cut + 1,
                           wrong=ids, right=total - len(wrong), total=total)
        # the student thinks it is skipped: why the search goes on to the highest such subtree
        top = first
        for depth in range(1, len(first) + 1):
            sub = first[:depth]
            if all(leaf.path in marked for leaf in self.node(sub).leaves()):
                top = sub
                break
        words, upto = self._why_go_on(top[:-1], top[-1])
        lead = (f"{self.names[first]} is looked at"
                + (f" (it lies below {self.names[top]})" if top != first else "") + ". ")
        return Verdict(False, lead + words, node=top[:-1], upto=upto, wrong=ids,
                       right=total - len(wrong), total=total)

    def _search_name(self) -> str:  # pragma: no cover - overridden
        return ""


class PruningDrill(_LeafSetDrill):
    """Which leaves does alpha-beta never look at (for a given move ordering)?

    >>> from course.drills import make_drill
    >>> from course.examples import aima_figure_5_2
    >>> d = make_drill("pruning", tree=aima_figure_5_2())
    >>> d.expected
    ['C2', 'C3']
    >>> print(d.check(["C3"]).explanation)
    C2 is never looked at. At C (MIN), after child C1 returned 2, the value so far is v = 2 ≤ α = 3 (α = 3 is what MAX at A is already sure of: its child B is worth 3): MAX will never let the game reach C, so it stops and C2 and C3 are never looked at.
    """

    kind = "pruning"
    title = "Alpha-beta pruning"
    label = "alpha-beta: leaves never looked at"
    family = "alphabeta"

    def _setup(self, order: str = "given") -> None:
        if order not in ORDER_WORDS:
            raise AnswerError(f"unknown ordering {order!r}; choose one of {', '.join(ORDER_WORDS)}")
        self.order = order

    @classmethod
    def given_params(cls, game: TreeGame, *, order: Any = None, epsilon: Any = None,
                     node: Any = None) -> dict[str, Any]:
        return _alphabeta_params(cls.kind, game, order)

    @classmethod
    def seeded_choices(cls, pick: Any, level: int, *, order: Any = None,
                       epsilon: Any = None) -> dict[str, Any]:
        if order is None:
            order = "given" if level <= 2 else pick.choice(("given", "given", "reversed", "best-first"))
        return {"order": order}

    def worthwhile(self) -> bool:
        return bool(self.expected)          # something is pruned

    def _search(self) -> SearchResult:
        return alphabeta(self.game, order=self.search_order, trace=True)

    def _search_name(self) -> str:
        return "alpha-beta"

    @property
    def question(self) -> str:
        return (f"Alpha-beta searches {ORDER_WORDS[self.order]}, and cuts on equality (MAX when "
                "v ≥ β, MIN when v ≤ α). Mark every leaf it never looks at.")

    def _recipe_params(self) -> str:
        return f', order="{self.order}"' if self.order != "given" else ""


class WindowDrill(Drill):
    """What are alpha and beta when alpha-beta enters each node?

    Answer: a dict from node (name or path) to ``(alpha, beta)``, or to None
    for a node the search never enters.  The root is entered with (−∞, +∞).

    >>> from course.drills import make_drill
    >>> from course.examples import aima_figure_5_2
    >>> d = make_drill("window", tree=aima_figure_5_2())
    >>> d.expected
    {'B': (-inf, inf), 'C': (3, inf), 'D': (3, inf)}
    >>> print(d.check({"B": ("-inf", "inf"), "C": (3, "inf"), "D": ("-inf", "inf")}).explanation)
    D is entered with α = 3, β = +∞, not α = −∞, β = +∞. D is the 3rd child A searches: after child C returned 2, A (MAX) has α = max(α, v) = 3 and β = +∞, the window it passes on to D.
    """

    kind = "window"
    title = "Alpha and beta"
    label = "alpha-beta: alpha and beta at entry"
    family = "alphabeta"
    skippable = True
    """Whether a node asked about may be one the search never enters (a 'never entered' box)."""

    def _setup(self, order: str = "given") -> None:
        if order not in ORDER_WORDS:
            raise AnswerError(f"unknown ordering {order!r}; choose one of {', '.join(ORDER_WORDS)}")
        self.order = order

    @classmethod
    def given_params(cls, game: TreeGame, *, order: Any = None, epsilon: Any = None,
                     node: Any = None) -> dict[str, Any]:
        return _alphabeta_params(cls.kind, game, order)

    @classmethod
    def seeded_choices(cls, pick: Any, level: int, *, order: Any = None,
                       epsilon: Any = None) -> dict[str, Any]:
        return {"order": order or "given"}

    def worthwhile(self) -> bool:
        inf = float("inf")
        windows = self.expected.values()    # a window that moved, and a node never entered
        return any(w is not None and w != (-inf, inf) for w in windows) \
            and any(w is None for w in windows)

    def _search(self) -> SearchResult:
        return alphabeta(self.game, order=self.search_order, trace=True)

    def _recipe_params(self) -> str:
        return f', order="{self.order}"' if self.order != "given" else ""

    def _asked(self) -> list[Path]:
        return [p for p in sorted(self.names, key=lambda p: (len(p), p))
                if p and not self.node(p).is_leaf]

    @property
    def question(self) -> str:
        return (f"Alpha-beta searches {ORDER_WORDS[self.order]}; the root "
                f"{self.names[()]} is entered with α = −∞, β = +∞. Write α and β as each node is "
                "entered, or tick 'never entered' for a node the search skips.")

    def fields(self) -> list[Field]:
        out = []
        for p in self._asked():
            group = f"{self.who(p)}, child of {self.names[p[:-1]]}"
            name = self.names[p]
            out += [Field(f"{name}.alpha", f"alpha when {name} is entered", "number", p, group),
                    Field(f"{name}.beta", f"beta when {name} is entered", "number", p, group)]
            if self.skippable:
                out.append(Field(f"{name}.skip", f"{name} is never entered", "toggle", p, group))
        return out

    def _window(self, path: Path) -> tuple[Any, Any] | None:
        i = self.index.enter.get(path)
        if i is None:
            return None
        e = self.index.events[i]
        return e.alpha, e.beta

    @property
    def expected(self) -> dict:
        return {self.names[p]: self._window(p) for p in self._asked()}

    def from_form(self, values: Mapping[str, Any]) -> dict:
        out = {}
        for p in self._asked():
            name = self.names[p]
            window = (_parse(values, f"{name}.alpha", optional=True),
                      _parse(values, f"{name}.beta", optional=True))
            if values.get(f"{name}.skip") in (True, "true", "on", 1):
                if window != _EMPTY:        # every box is read: a window and "never" say two things
                    fid = f"{name}.alpha" if window[0] is not None else f"{name}.beta"
                    raise _field_error(fid, f"you ticked '{name} is never entered' and gave {name} "
                                            "a window: a node the search never enters has none, "
                                            "so leave its α and β empty (or untick the box)")
                out[name] = None
            else:
                out[name] = window
        return out

    def form(self, answer: Mapping[Any, Any]) -> dict[str, Any]:
        given = {self.names[self.resolve(k)]: v for k, v in dict(answer).items()}
        values: dict[str, Any] = {}
        for p in self._asked():
            name = self.names[p]
            window = given.get(name, _EMPTY)
            if self.skippable:
                values[f"{name}.skip"] = window is None
            window = window or _EMPTY
            values[f"{name}.alpha"], values[f"{name}.beta"] = _box(window[0]), _box(window[1])
        return values

    def answer_from(self, run: Any) -> dict:
        windows = _run_part(run, "windows")
        return {self.names[p]: windows.get(p) for p in self._asked()}

    def check(self, answer: Mapping[Any, Any]) -> Verdict:
        given: dict[Path, Any] = {}
        for key, value in dict(answer).items():
            path = self.resolve(key)
            if value is None or value == "never entered":
                given[path] = None
            else:
                a, b = value
                given[path] = (None if a is None else parse_number(a),
                               None if b is None else parse_number(b))
        asked = self._asked()
        wrong: list[Path] = []
        ids: list[str] = []
        for p in asked:
            want, got = self._window(p), given.get(p, _EMPTY)
            name = self.names[p]
            if want is None or got is None:
                if (want is None) != (got is None):
                    wrong.append(p)
                    ids.append(f"{name}.skip")
                continue
            bad = [f"{name}.{k}" for k, w, g in (("alpha", want[0], got[0]), ("beta", want[1], got[1]))
                   if g is None or not same(g, w)]
            if bad:
                wrong.append(p)
                ids += bad
        total = len(asked)
        if not wrong:
            return Verdict(True, "Right: every window is the one alpha-beta enters the node with.",
                           right=total, total=total)
        first = min(wrong, key=lambda p: (self.index.position(p), p))
        want, got = self._window(first), given.get(first, _EMPTY)
        name = self.names[first]
        if want is None:
            cut = self.index.pruned_by(first)
            return Verdict(False, f"{name} is never entered. " + self._why_cut(cut),
                           node=self.index.events[cut].path, upto=cut + 1, wrong=tuple(ids),
                           right=total - len(wrong), total=total)
        if got is None:
            words, upto = self._why_go_on(first[:-1], first[-1])
            return Verdict(False, f"{name} is entered. " + words, node=first[:-1], upto=upto,
                           wrong=tuple(ids), right=total - len(wrong), total=total)
        said = said_pair(got, "α", "β")
        if said.startswith("not"):
            lead = f"{name} is entered with α = {fmt(want[0])}, β = {fmt(want[1])}, {said}. "
        else:
            lead = f"{name} is entered with α = {fmt(want[0])}, β = {fmt(want[1])} ({said}). "
        return Verdict(False, lead + self._window_words(first), node=first,
                       upto=self.index.enter[first] + 1, wrong=tuple(ids),
                       right=total - len(wrong), total=total)

    def _window_words(self, path: Path) -> str:
        parent, child = path[:-1], path[-1]
        idx = self.index
        order = idx.order(parent)
        pos = order.index(child)
        name, pname = self.names[path], self.names[parent]
        how = f" ({ORDER_SHORT[self.order]})" if self.order != "given" else ""
        if pos == 0:
            e = idx.events[idx.enter[parent]]
            return (f"{name} is the first child {pname} searches{how}, so it gets the window "
                    f"{pname} was entered with: α = {fmt(e.alpha)}, β = {fmt(e.beta)}.")
        previous = order[pos - 1]
        e = idx.events[idx.update_after(parent, previous)]
        prev = self.names[parent + (previous,)]
        got = _bounds(idx.returned(parent + (previous,)))
        nth = _ordinal(pos + 1)
        if self.node(parent).kind == "max":
            return (f"{name} is the {nth} child {pname} searches{how}: after child {prev} returned "
                    f"{got}, {pname} (MAX) has α = max(α, v) = {fmt(e.alpha)} and β = "
                    f"{fmt(e.beta)}, the window it passes on to {name}.")
        return (f"{name} is the {nth} child {pname} searches{how}: after child {prev} returned {got}, "
                f"{pname} (MIN) has β = min(β, v) = {fmt(e.beta)} and α = {fmt(e.alpha)}, the "
                f"window it passes on to {name}.")


class RootDrill(WindowDrill):
    """With what window does alpha-beta search each child of the root?

    The root's window narrows as its children return: a MAX root searches each
    child with α = the best value so far, a MIN root with β = the lowest.
    Answer: a dict from child (name or path) to ``(alpha, beta)``; only the
    root's inner children are asked (a leaf uses no window).

    >>> from course.drills import make_drill
    >>> from course.examples import aima_figure_5_2
    >>> d = make_drill("root", tree=aima_figure_5_2())
    >>> d.expected
    {'B': (-inf, inf), 'C': (3, inf), 'D': (3, inf)}
    >>> print(d.check({"B": ("-inf", "inf"), "C": ("-inf", "inf"), "D": ("-inf", "inf")}).explanation)
    C is entered with α = 3, β = +∞, not α = −∞, β = +∞. C is the 2nd child A searches: after child B returned 3, A (MAX) has α = max(α, v) = 3 and β = +∞, the window it passes on to C.
    """

    kind = "root"
    title = "The root's window"
    label = "alpha-beta: the window of each root child"
    skippable = False       # the root (entered with −∞, +∞) never cuts: every child is searched

    def _asked(self) -> list[Path]:
        return [c.path for c in self.game.root.children if not c.is_leaf]

    def worthwhile(self) -> bool:
        inf = float("inf")
        return len(self._asked()) >= 2 and any(w != (-inf, inf) for w in self.expected.values())

    @property
    def question(self) -> str:
        root = self.names[()]
        return (f"Alpha-beta searches {ORDER_WORDS[self.order]}; the root {root} is entered with "
                f"α = −∞, β = +∞. Write α and β as each child of {root} is entered (its inner "
                "children: a leaf uses no window).")


_EMPTY = (None, None)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
