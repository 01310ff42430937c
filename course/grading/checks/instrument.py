"""The instrumented game: a :class:`~course.game.Game` that records what a search does.

A student's search is graded by running it on an *instrumented* copy of a
game and comparing the record with the reference search's.  Two kinds of
event are recorded, in the order they happen:

*expansion*
    The first call of ``moves``, ``chance_outcomes`` or ``result`` on a
    state: the search has begun to generate that node's children.  This is
    what :attr:`course.search.SearchResult.expanded` counts.
*leaf evaluation*
    The first call of ``utility`` (a terminal state) or ``evaluate`` (a state
    at the depth limit) on a state.  This is what
    :attr:`~course.search.SearchResult.leaves` lists.

States handed to the search are opaque tokens.  Every call of ``result``
makes a *new* token, even for a node generated before, so a search that
generates the same node twice expands (and evaluates) it twice, and the
record shows it.  Calling ``moves`` or ``utility`` again on the *same* token
is not counted again: asking twice is not searching twice.

Two rules are noted beside the record (:meth:`Recording.terminal_evaluations`,
:meth:`Recording.regenerated`): ``evaluate`` called on a terminal state (it
must get ``utility``), and ``result`` called twice with the same state token
and move (a child created twice, even if only one copy is searched).

The record cannot be reached from the game by name (it lives in a slot whose
descriptor is taken off the game's class), the game
refuses new attributes, and :meth:`Recording.verify` checks afterwards that
the class and its methods are the originals and that the log still matches
its running digest.  Every recorded call also looks up the call stack for
frames of :mod:`course.search`: a search that hands the game to a reference
search is caught (:attr:`Recording.reference_calls`).

Examples
--------
>>> from course import parse_tree
>>> game, rec = instrument(parse_tree([[3, 12], [2, 4]]))
>>> root = game.initial_state()
>>> first = game.result(root, game.moves(root)[0])
>>> [game.utility(game.result(first, m)) for m in game.moves(first)]
[3, 12]
>>> rec.events()
(('expand', ()), ('expand', (0,)), ('leaf', (0, 0)), ('leaf', (0, 1)))
"""

from __future__ import annotations

import os
import sys
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from ...errors import CourseError, ParameterError, format_path
from ...game import Game, Path, Player
from .failures import InstrumentationTampered

__all__ = ["instrument", "Recording", "GameUsageError", "EXPAND", "LEAF"]

EXPAND = "expand"
"""Event kind: a node's children began to be generated."""
LEAF = "leaf"
"""Event kind: a leaf (terminal or depth-limit state) was evaluated."""

_SEARCH_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "search") + os.sep
_METHODS = ("initial_state", "turn", "moves", "chance_outcomes", "result", "is_terminal",
            "utility", "evaluate", "describe_move", "__setattr__", "__delattr__", "__repr__")
_STACK_LIMIT = 400


class GameUsageError(CourseError):
    """A search used the game interface in a way the rules forbid.

    For example: asking a terminal state for its moves or whose turn it is,
    asking a non-terminal state for its utility, playing an illegal move,
    or passing a state that does not come from this game.
    """


def is_reference_code(filename: str) -> bool:
    """True if ``filename`` is a source file of the reference searches (:mod:`course.search`).

    >>> import course.search.ordering as m
    >>> is_reference_code(m.__file__), is_reference_code(__file__)
    (True, False)
    """
    return os.path.abspath(filename).startswith(_SEARCH_DIR)


def _reference_frame() -> str | None:
    """Name of the innermost reference-search function on the call stack, if any."""
    frame = sys._getframe(2)
    for _ in range(_STACK_LIMIT):
        if frame is None:
            return None
        code = frame.f_code
        if code.co_filename.startswith(_SEARCH_DIR):
            return f"{getattr(code, 'co_qualname', code.co_name)} ({os.path.basename(code.co_filename)})"
        frame = frame.f_back
    return None


class _Node:
    """What the recorder knows about one state token (kept out of the student's reach)."""

    __slots__ = ("state", "path", "terminal", "player", "moves", "probabilities", "index",
                 "expanded", "evaluated", "value", "made")

    def __init__(self, state: Any, path: Path, terminal: bool) -> None:
        self.state = state
        self.path = path
        self.terminal = terminal
        self.player: Player | None = None
        self.moves: list | None = None
        self.probabilities: list | None = None
        self.index: dict | None = None
        self.expanded = False
        self.evaluated = False
        self.value: Any = None
        self.made: set = set()         # indices of the children result() has created


class Recording:
    """The checker's handle on an instrumented game's record (never given to the student).

    Attributes
    ----------
    game : Game
        The instrumented game.
    """

    __slots__ = ("game", "_events", "_digest", "_reference", "_cls", "_originals", "_codes",
                 "_root", "_estimate", "_notes", "_inner", "_recorder")

    def __init__(self, game, events, digest, reference, cls, originals, root, estimate,
                 notes=None, inner=None) -> None:
        self.game = game
        self._inner = inner
        self._notes = notes if notes is not None else {"terminal_evaluate": [], "regenerated": []}
        self._estimate = estimate
        self._events = events
        self._digest = digest
        self._reference = reference
        self._cls = cls
        self._originals = originals
        self._codes = {name: getattr(f, "__code__", None) for name, f in originals.items()}
        self._root = root
        self._recorder: tuple[Callable, Any] | None = None   # (the class's slot getter, the record)

    def events(self) -> tuple[tuple[str, Path], ...]:
        """Every recorded ``(kind, path)`` in order (kind :data:`EXPAND` or :data:`LEAF`)."""
        return tuple(self._events)

    def leaves(self) -> list[Path]:
        """Paths of the evaluated leaves, in evaluation order (repeats included)."""
        return [path for kind, path in self._events if kind == LEAF]

    def expansions(self) -> list[Path]:
        """Paths of the expanded nodes, in expansion order (repeats included)."""
        return [path for kind, path in self._events if kind == EXPAND]

    def terminal_evaluations(self) -> list[Path]:
        """Paths of terminal states the search called ``evaluate`` on (it must use ``utility``)."""
        return list(self._notes["terminal_evaluate"])

    def regenerated(self) -> list[Path]:
        """Paths of children created more than once by ``result`` on the same state and move."""
        return list(self._notes["regenerated"])

    def estimator(self) -> Callable[[Any], Any]:
        """An *uncounted* estimate of a state of the game, for move ordering.

        ``estimate(state)`` is UTILITY for a terminal state and EVAL otherwise,
        like the reference searches' ``order="heuristic"``; calling it records
        nothing.
        """
        return self._estimate

    def state_function(self, fn: Callable[[Any], Any], name: str) -> Callable[[Any], Any]:
        """``fn``, a function of the wrapped game's states, as a function of this game's states.

        For the data an exercise hands a search beside the game (an error bound per node,
        the moves a selective search keeps): ``wrapped(state)`` is ``fn`` of the state the
        token stands for, and calling it records nothing.  ``name`` is how a wrong argument
        is reported (``"error() was given ..., which is not a state of this game"``).
        """
        inner = self._inner

        def wrapped(state: Any) -> Any:
            return fn(inner(state, name))

        wrapped.__name__ = name
        # ``fn`` is the exercise's data (a table per node): the sandbox may be sent its value with
        # each state (:mod:`course.sandbox.session`), which spares a round trip per call
        wrapped.sent_with_states = True
        wrapped.of_inner = fn            # the same function of the wrapped game's states
        return wrapped

    @property
    def reference_calls(self) -> tuple[str, ...]:
        """Reference-search functions found on the stack during recorded calls."""
        return tuple(self._reference)

    def verify(self) -> None:
        """Check that the game and its record were not altered.

        Raises
        ------
        InstrumentationTampered
            If the game's class or methods were replaced, the game gained
            attributes, or the log no longer matches its running digest.
        """
        game, cls = self.game, self._cls
        problems = []
        if type(game) is not cls:
            problems.append(f"the game's class was changed to {type(game).__name__}")
        for name, func in self._originals.items():
            current = cls.__dict__.get(name)
            if current is not func:
                problems.append(f"method {name}() of the game was replaced")
            elif getattr(func, "__code__", None) is not self._codes[name]:
                problems.append(f"the code of method {name}() was replaced")
        if type(game) is cls and self._recorder is not None:
            try:
                held = self._recorder[0](game)
            except AttributeError:
                held = None
            if held is not self._recorder[1]:
                problems.append("the game's record of calls was replaced")
        extra = sorted(getattr(game, "__dict__", {}) or {})
        if extra:
            problems.append(f"attributes were added to the game: {', '.join(extra)}")
        expected = 0
        for event in self._events:
            expected = hash((expected, event))
        if expected != self._digest[0] or self._digest[1] != len(self._events):
            problems.append("the game's record of calls was edited")
        if problems:
            raise InstrumentationTampered(
                "the instrumented game was altered during your search ("
                + "; ".join(problems)
                + "). Use only the game's methods (turn, moves, chance_outcomes, result, "
                "is_terminal, utility, evaluate) and do not modify the game."
            )


def instrument(
    game: Game,
    *,
    state: Any = None,
    evaluate: Callable[[Any], float] | None = None,
    callers: bool = True,
) -> tuple[Game, Recording]:
    """Wrap ``game`` in a recording :class:`~course.game.Game`.

    Parameters
    ----------
    game : Game
        The game to wrap (an explicit tree, tic-tac-toe, Pig, ...).
    state : optional
        The state the wrapper's :meth:`initial_state` returns (path ``()``);
        default ``game.initial_state()``.
    evaluate : callable, optional
        EVAL used by the wrapper's ``evaluate``; default ``game.evaluate``.
    callers : bool
        Look at each recorded call's callers for a reference search
        (:attr:`Recording.reference_calls`).  False where the searching code runs
        elsewhere (a sandbox, :mod:`course.sandbox`): then only the grader's own code calls
        the game here, and walking its stack at every call finds nothing.

    Returns
    -------
    (Game, Recording)
        The instrumented game, to give to the student's search, and the
        recording, which only the checker keeps.

    Raises
    ------
    ParameterError
        If ``game`` is not a :class:`~course.game.Game`.

    Notes
    -----
    Paths use the index of each move in the parent's ``moves`` (or
    ``chance_outcomes``) list, like the reference searches, so the two
    records compare directly.
    """
    if not isinstance(game, Game):
        raise ParameterError(f"instrument() needs a course Game, got {type(game).__name__}")
    inner = game
    inner_evaluate = evaluate if evaluate is not None else inner.evaluate
    cls, originals, _, set_recorder, get_recorder = _game_class(f"Instrumented{type(inner).__name__}")
    rec = _Recorder(inner, inner_evaluate, callers)
    root_token = rec.make(inner.initial_state() if state is None else state, ())
    rec.root = root_token
    lookup = rec.lookup

    def estimate(state: Any) -> Any:
        node = lookup(state, "estimate")
        return inner.utility(node.state) if node.terminal else inner_evaluate(node.state)

    # records nothing and depends on the state alone: the sandbox may be sent its value with each
    # state (:mod:`course.sandbox.session`), which spares a round trip per call
    estimate.sent_with_states = True
    # the same function of the wrapped game's states (what a replayed tree is sent with)
    estimate.of_inner = rec.estimate_inner

    game_obj = object.__new__(cls)
    set_recorder(game_obj, rec)
    recording = Recording(game_obj, rec.events, rec.digest, rec.reference, cls, originals, root_token,
                          estimate, rec.notes, inner=rec.inner_state)
    recording._recorder = (get_recorder, rec)
    _UNRECORDED[game_obj] = (rec.peek, rec.peek_children, game, root_token, rec.root_state)
    return game_obj, recording


class State:
    """An opaque game state: pass it to the game's methods."""

    __slots__ = ("_path", "__weakref__")

    def __repr__(self) -> str:
        try:
            path = _token_path(self)
        except AttributeError:         # not made by an instrumented game
            return "<state>"
        return f"<state {format_path(path)}>"


# The token's path is kept in a slot whose descriptor is taken off the class: only this module can
# read or set it (``token._path`` is an AttributeError, as for any other name), so a token shows the
# student nothing but what its repr does.
_token_path = State.__dict__["_path"].__get__
_set_token_path = State.__dict__["_path"].__set__
del State._path


def _refuse(state: Any, method: str) -> GameUsageError:
    return GameUsageError(
        f"{method}() was given {state!r}, which is not a state of this game; pass only "
        "states you got from game.initial_state() or game.result(...)"
    )


class _Recorder:
    """The record of one instrumented game and the wrapped game's side of it (kept out of the
    student's reach: the instrumented game holds it in a slot whose name its class does not show)."""

    __slots__ = ("inner", "inner_evaluate", "callers", "events", "digest", "reference", "nodes",
                 "notes", "vmin", "vmax", "root")

    def __init__(self, inner: Game, inner_evaluate: Callable[[Any], Any], callers: bool) -> None:
        self.inner = inner
        self.inner_evaluate = inner_evaluate
        self.callers = callers
        self.events: list[tuple[str, Path]] = []
        self.digest = [0, 0]           # running hash of the events, and their count
        self.reference: list[str] = []
        self.nodes: dict[Any, _Node] = {}
        self.notes: dict[str, list] = {"terminal_evaluate": [], "regenerated": []}
        self.vmin, self.vmax = inner.vmin, inner.vmax
        self.root: Any = None

    def record(self, kind: str, node: _Node) -> None:
        if self.callers:
            where = _reference_frame()
            if where is not None:
                self.reference.append(where)
        event = (kind, node.path)
        self.events.append(event)
        digest = self.digest
        digest[0] = hash((digest[0], event))
        digest[1] += 1

    def lookup(self, state: Any, method: str) -> _Node:
        node = self.nodes.get(state) if isinstance(state, State) else None
        if node is None:
            raise _refuse(state, method)
        return node

    def children(self, node: _Node, method: str) -> _Node:
        if node.terminal:
            raise GameUsageError(
                f"{method}() was called on a terminal state; check game.is_terminal(state) first "
                "and use game.utility(state) there",
                path=node.path,
            )
        if node.moves is None:
            self.prepare(node)
        if not node.expanded:
            node.expanded = True
            self.record(EXPAND, node)
        return node

    def prepare(self, node: _Node) -> None:
        if node.moves is None:
            inner = self.inner
            player = inner.turn(node.state)
            node.player = player
            if player is Player.CHANCE:
                outcomes = list(inner.chance_outcomes(node.state))
                node.moves = [m for m, _ in outcomes]
                node.probabilities = [p for _, p in outcomes]
            else:
                node.moves = list(inner.moves(node.state))
            try:
                node.index = {m: i for i, m in enumerate(node.moves)}
            except TypeError:          # unhashable moves: fall back to list.index
                node.index = None

    def make(self, state: Any, path: Path) -> State:
        token = State()
        _set_token_path(token, path)
        self.nodes[token] = _Node(state, path, bool(self.inner.is_terminal(state)))
        return token

    def estimate_inner(self, s: Any) -> Any:
        inner = self.inner
        return inner.utility(s) if bool(inner.is_terminal(s)) else self.inner_evaluate(s)

    def inner_state(self, state: Any, name: str) -> Any:
        return self.lookup(state, name).state

    def root_state(self) -> Any:
        return self.nodes[self.root].state

    def peek(self, state: Any) -> Any:
        node = self.lookup(state, "utility")
        if not node.terminal:
            raise GameUsageError("not a terminal state", path=node.path)
        return self.inner.utility(node.state)

    def peek_children(self, state: Any) -> tuple[list, list | None, list]:
        node = self.lookup(state, "moves")
        if node.terminal:
            raise GameUsageError("a terminal state has no children", path=node.path)
        self.prepare(node)
        result, make, made, parent, path = self.inner.result, self.make, node.made, node.state, node.path
        kids = []
        for i, move in enumerate(node.moves):
            made.add(i)
            kids.append(make(result(parent, move), path + (i,)))
        chance = node.player is Player.CHANCE
        return list(node.moves), (list(node.probabilities) if chance else None), kids


#: The instrumented game classes made so far, by name: (class, its methods, a copy of its
#: ``__dict__``, the setter of its hidden recorder slot).  Made once per kind of game (a class
#: statement costs more than a short search); one that was altered is made anew.
_CLASSES: dict[str, tuple[type, dict, dict, Callable, Callable]] = {}


def _code(value: Any) -> Any:
    value = getattr(value, "fget", value)
    return getattr(value, "__code__", None)


def _game_class(name: str) -> tuple[type, dict, dict, Callable, Callable]:
    found = _CLASSES.get(name)
    if found is not None:
        cls, _, snapshot, _, _ = found
        now = cls.__dict__
        if (cls.__name__ == name and cls.__qualname__ == name and cls.__bases__ == (Game,)
                and len(now) == len(snapshot)
                and all(now.get(key) is value and _code(value) is code
                        for key, (value, code) in snapshot.items())):
            return found
    found = _new_game_class(name)
    _CLASSES[name] = found
    return found


def _new_game_class(name: str) -> tuple[type, dict, dict, Callable, Callable]:
    """A new instrumented game class (its methods are new functions: altering one of an earlier
    class's changes nothing here)."""

    class InstrumentedGame(Game):
        """A recording copy of a game (see :mod:`course.grading.checks.instrument`)."""

        __slots__ = ("_recorder",)

        @property
        def vmin(self):  # noqa: D401 - mirrors Game.vmin
            """Lower bound on every utility (the wrapped game's)."""
            return recorder(self).vmin

        @property
        def vmax(self):
            """Upper bound on every utility (the wrapped game's)."""
            return recorder(self).vmax

        def initial_state(self):
            return recorder(self).root

        def turn(self, state):
            rec = recorder(self)
            node = rec.lookup(state, "turn")
            if node.terminal:
                raise GameUsageError(
                    "turn() was called on a terminal state: nobody moves there; check "
                    "game.is_terminal(state) first",
                    path=node.path,
                )
            if node.player is None:
                node.player = rec.inner.turn(node.state)
            return node.player

        def moves(self, state):
            rec = recorder(self)
            node = rec.children(rec.lookup(state, "moves"), "moves")
            return list(node.moves)

        def chance_outcomes(self, state):
            rec = recorder(self)
            node = rec.lookup(state, "chance_outcomes")
            if not node.terminal and node.player is None:
                node.player = rec.inner.turn(node.state)
            if node.terminal or node.player is not Player.CHANCE:
                raise GameUsageError(
                    "chance_outcomes() was called on a state that is not a CHANCE state; "
                    "check game.turn(state) is Player.CHANCE first",
                    path=node.path,
                )
            node = rec.children(node, "chance_outcomes")
            return list(zip(node.moves, node.probabilities))

        def result(self, state, move):
            rec = recorder(self)
            node = rec.children(rec.lookup(state, "result"), "result")
            if node.index is not None:
                try:
                    i = node.index.get(move)
                except TypeError:
                    i = None
            else:
                i = next((k for k, m in enumerate(node.moves) if m == move), None)
            if i is None:
                raise GameUsageError(
                    f"move {move!r} is not legal here; the legal moves are {node.moves!r} "
                    "(use the moves game.moves(state) returns)",
                    path=node.path,
                )
            if i in node.made:
                rec.notes["regenerated"].append(node.path + (i,))
            node.made.add(i)
            return rec.make(rec.inner.result(node.state, node.moves[i]), node.path + (i,))

        def is_terminal(self, state):
            return recorder(self).lookup(state, "is_terminal").terminal

        def utility(self, state):
            rec = recorder(self)
            node = rec.lookup(state, "utility")
            if not node.terminal:
                raise GameUsageError(
                    "utility() was called on a state where the game is not over; use it only "
                    "when game.is_terminal(state) is True (and game.evaluate(state) at a depth limit)",
                    path=node.path,
                )
            if not node.evaluated:
                node.value = rec.inner.utility(node.state)
                node.evaluated = True
                rec.record(LEAF, node)
            return node.value

        def evaluate(self, state):
            rec = recorder(self)
            node = rec.lookup(state, "evaluate")
            terminal_evaluate = rec.notes["terminal_evaluate"]
            if node.terminal and node.path not in terminal_evaluate:
                terminal_evaluate.append(node.path)
            if not node.evaluated:
                node.value = rec.inner_evaluate(node.state)
                node.evaluated = True
                rec.record(LEAF, node)
            return node.value

        def describe_move(self, state, move):
            rec = recorder(self)
            return rec.inner.describe_move(rec.lookup(state, "describe_move").state, move)

        def __setattr__(self, name, value):
            raise GameUsageError(
                f"the game is read-only during grading (tried to set {name!r}); keep your own "
                "data in your own variables"
            )

        def __delattr__(self, name):
            raise GameUsageError(f"the game is read-only during grading (tried to delete {name!r})")

        def __repr__(self):
            return f"<instrumented {recorder(self).inner!r}>"

    slot = InstrumentedGame.__dict__["_recorder"]
    recorder, set_recorder = slot.__get__, slot.__set__
    del InstrumentedGame._recorder     # only this function's methods can reach the record
    InstrumentedGame.__name__ = InstrumentedGame.__qualname__ = name
    originals = {key: InstrumentedGame.__dict__[key] for key in _METHODS}
    snapshot = {key: (value, _code(value)) for key, value in InstrumentedGame.__dict__.items()}
    return InstrumentedGame, originals, snapshot, set_recorder, recorder


_UNRECORDED: "weakref.WeakKeyDictionary[Game, tuple[Callable, Callable]]" = weakref.WeakKeyDictionary()


def unrecorded_utility(game: Game, state: Any) -> Any:
    """The utility of a terminal ``state`` of ``game``, without recording a leaf evaluation.

    For the grader's own use (:mod:`course.sandbox.session` sends it ahead to the
    sandbox, which reports the student's call, recorded then, in its place).
    """
    peeks = _UNRECORDED.get(game)
    return peeks[0](state) if peeks is not None else game.utility(state)


def unrecorded_children(game: Game, state: Any) -> tuple[list, list | None, list] | None:
    """The moves, chance probabilities (None below a decision) and child states of ``state``,
    without recording an expansion; None if ``game`` is not an instrumented game.

    For the grader's own use: :mod:`course.sandbox.session` sends a few levels of the tree
    ahead to the sandbox, which reports the student's first use of a node (recorded then, in
    its place).  Each child is made once here, as :meth:`result` would have made it, so asking
    ``result`` again for the same move is noted as regenerating it.
    """
    peeks = _UNRECORDED.get(game)
    return peeks[1](state) if peeks is not None else None


#: Most nodes of an explicit tree whose searches the sandbox answers from a copy of the tree.
REPLAY_NODES = 20_000

_TREES: dict[int, tuple[Any, str, list]] = {}
_STRUCTURE = ("turn", "moves", "chance_outcomes", "result", "is_terminal", "utility")


def replay_tree(game: Game) -> tuple[str, list, Any] | None:
    """The explicit tree below an instrumented game's initial state, for a sandbox to answer a
    search's calls from (:mod:`course.sandbox.session`); None if ``game`` is not an instrumented
    :class:`~course.trees.TreeGame` (exactly that class) of at most :data:`REPLAY_NODES` nodes.

    Returns ``(nodes, states, root)``: ``nodes`` the tree as JSON text, its nodes numbered
    breadth first from 0 (the root), each ``[kind, first child, number of children, extra]``
    (``kind`` ``"max"``, ``"min"``, ``"chance"`` or ``"leaf"``; the children of a node are numbered
    one after the other; ``extra`` a leaf's utility, a chance node's probabilities, encoded as
    :func:`course.sandbox.inside.encode` does, else null); ``states`` the wrapped game's state of
    each number; ``root`` the instrumented game's initial state.  Made from the wrapped game's
    own nodes (nothing is recorded), the same text for the same tree (kept per process).
    """
    peeks = _UNRECORDED.get(game)
    if peeks is None or len(peeks) < 5:
        return None
    from ...trees import TreeGame, TreeNode

    from ...game import GameView
    from .cases import EvaluatedGame

    inner, root_token, root_state = peeks[2], peeks[3], peeks[4]()
    while type(inner) in (EvaluatedGame, GameView):      # views that change EVAL alone
        if any(name in vars(inner) for name in _STRUCTURE):
            return None
        inner = inner.game
    if type(inner) is not TreeGame or type(root_state) is not TreeNode \
            or root_state.size > REPLAY_NODES or any(name in vars(inner) for name in _STRUCTURE):
        return None
    found = _TREES.get(id(root_state))
    if found is not None and found[0] is root_state:
        return found[1], found[2], root_token
    from ...sandbox.inside import encode
    import json

    def plain(value: Any) -> Any:
        raise TypeError("not plain data")

    order, nodes = [root_state], []
    for node in order:           # grows as it goes: breadth first
        kind = node.kind
        if kind == "leaf":
            nodes.append(["leaf", 0, 0, encode(node.value, plain)])
        elif kind in ("max", "min", "chance"):
            children = node.children
            extra = None
            if kind == "chance":
                if len(node.probabilities) != len(children):
                    return None
                extra = [encode(p, plain) for p in node.probabilities]
            elif node.probabilities:
                return None
            nodes.append([kind, len(order), len(children), extra])
            order.extend(children)
        else:
            return None
    text = json.dumps(nodes)
    if len(_TREES) > 256:
        _TREES.clear()
    _TREES[id(root_state)] = (root_state, text, order)
    return text, order, root_token


def replay_path(game: Game, path: Sequence[int], state: Any = None) -> Any:
    """The state of ``game`` at ``path`` (child indices in ``moves``/``chance_outcomes`` order).

    >>> from course import parse_tree
    >>> g = parse_tree([[3, 12], [2, 4]])
    >>> replay_path(g, (1, 0)).value
    2
    """
    s = game.initial_state() if state is None else state
    for depth, i in enumerate(path):
        if game.is_terminal(s):
            raise KeyError(f"no node at path {tuple(path)}: a leaf is reached at depth {depth}")
        if game.turn(s) is Player.CHANCE:
            moves = [m for m, _ in game.chance_outcomes(s)]
        else:
            moves = list(game.moves(s))
        if not 0 <= i < len(moves):
            raise KeyError(f"no node at path {tuple(path)}: node at depth {depth} has {len(moves)} children")
        s = game.result(s, moves[i])
    return s
