"""The drill kind about Star2: what the probing phase learns at one chance node.

==========  ================================================================  ====================
kind        the question                                                      reference search
==========  ================================================================  ====================
star2       at one chance node, in the probing phase: for each outcome         :func:`~course.search.star2`
            probed, which bound its probe gives and its value, the chance
            node's L and U after the probe, and after which probe (if any)
            the node is cut
==========  ================================================================  ====================

Star2 (:func:`course.search.star2`) enters a chance node and first *probes*
every outcome that is a MAX or MIN node, likeliest first: it searches only
that outcome's first child.  A MIN outcome is worth at most any child, so its
probe gives an **upper** bound; a MAX outcome's gives a **lower** bound.  The
chance node then counts each probed outcome by its probe's bounds instead of
``[vmin, vmax]`` (condition C3 with better knowledge) and is cut as soon as
``β ≤ α``, before any outcome is searched in full.

The drill asks exactly that phase.  A student who knows Star1 but not probing
(each outcome searched in full, its value counted) answers it wrongly:
:meth:`Star2Drill.star1_answer` is that answer, and a drill is drawn only if
it is wrong there.

See :mod:`course.drills.kinds` for what every kind provides and how to add one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ParameterError
from ..game import Path
from ..search import star1, star2
from ..search.result import SearchResult, TraceEvent
from ..trees import TreeGame
from .bounded import _BoundedWords
from .kinds import _KIND, Drill, Field, Verdict, _bounds, _box, _Index, _names_list, _op, _parse
from .numbers import AnswerError, exact, fmt, parse_number, same

__all__ = ["Star2Drill"]

SIDES = {"upper": "at most", "lower": "at least"}
"""The two answers to "which bound does the probe give": upper (MIN outcome), lower (MAX)."""

_BOUND_WORDS = {"upper": "an upper bound", "lower": "a lower bound"}
_PARTS = ("side", "value", "L", "U")
_EMPTY_ROW = (None, None, None, None)


class _Probe:
    """One probe of the reference trace: the outcome, what the probe returned, the node after."""

    def __init__(self, outcome: Path, bounds: tuple[Any, Any], exit_at: int, update: int,
                 state: TraceEvent) -> None:
        self.outcome = outcome          # path of the outcome probed
        self.bounds = bounds            # (L, U) the probed outcome returned
        self.exit_at = exit_at          # trace index of the outcome's exit after the probe
        self.update = update            # trace index of the chance node's update after it
        self.state = state              # that update: the chance node's L, U, alpha, beta


def _probes(events: tuple[TraceEvent, ...], node: Path) -> tuple[list[_Probe], int | None]:
    """The probing phase at chance node ``node``: its probes in order, and the trace index of
    the probe-phase cut-off (None if the node goes on to search its outcomes)."""
    start = next(i for i, e in enumerate(events) if e.kind == "enter" and e.path == node)
    probes: list[_Probe] = []
    last_exit: dict[Path, int] = {}
    for i in range(start + 1, len(events)):
        e = events[i]
        if e.kind == "exit" and len(e.path) == len(node) + 1 and e.path[:-1] == node:
            last_exit[e.path] = i
        if e.path != node:
            continue
        if e.kind == "update" and e.reason == "probe":
            child = node + (e.child,)
            j = last_exit[child]
            probes.append(_Probe(child, (events[j].lower, events[j].upper), j, i, e))
        elif e.kind == "cutoff" and str(e.reason).startswith("probe:"):
            return probes, i
        else:                           # the search phase (or the node's exit) has begun
            return probes, None
    return probes, None  # pragma: no cover - a chance node always exits


def _probed_kinds(game: TreeGame, node: Path) -> bool:
    """Whether every outcome of ``node`` is a MAX or MIN node with at least two children
    (so that each is probed, and a probe is one child of several)."""
    return all(c.kind in ("max", "min") and len(c.children) >= 2 for c in game.node(node).children)


class Star2Drill(_BoundedWords, Drill):
    """Star2's probing phase at one chance node: each probe's bound, L and U, the cut.

    Answer: a dict from outcome (name or path) to ``(side, value, L, U)``:
    ``side`` is ``"upper"`` (the probe shows the outcome is worth *at most*
    ``value``) or ``"lower"`` (*at least*), and ``L``, ``U`` are the chance
    node's bounds after that probe; an outcome never probed (after a cut) maps
    to None.  ``"stop"`` is the outcome after whose probe the node is cut, or
    None if it goes on to search its outcomes.

    >>> from fractions import Fraction as F
    >>> from course.drills import make_drill
    >>> d = make_drill("star2", tree={"tree": {"max": [6, {"chance": [
    ...     [F(1, 2), {"min": [4, 9, 9]}], [F(1, 2), {"min": [3, 9]}]]}]}, "bounds": [0, 10]})
    >>> d.expected
    {'C': ('upper', 4, 0, 7), 'D': ('upper', 3, 0, Fraction(7, 2)), 'stop': 'D'}
    >>> print(d.check({"C": ("upper", 4, 0, 7), "D": ("upper", 3, 0, 7), "stop": "D"}).explanation)
    After the probe of D, B has L = 0 and U = 7/2 (not L = 0, U = 7): B counts each outcome by what it knows of it, a probed one by its probe's bounds and one not probed yet by [vmin, vmax] = [0, 10]: L = 1/2·0 + 1/2·0 = 0 and U = 1/2·4 + 1/2·3 = 7/2.
    """

    kind = "star2"
    title = "Star2: the probing phase"
    label = "Star2: what the probes show at a chance node"
    family = "star2"
    epsilon = 0
    order = "probability"

    def _setup(self, node: Path | None = None) -> None:
        self._node = node

    @classmethod
    def given_params(cls, game: TreeGame, *, order: Any = None, epsilon: Any = None,
                     node: Any = None) -> dict[str, Any]:
        if not game.has_chance:
            raise ParameterError("a star2 drill needs a tree with a chance node whose outcomes "
                                 "are MAX or MIN nodes")
        return {"node": node}

    @classmethod
    def tree_params(cls, game: TreeGame, level: int, seed: int) -> dict[str, Any] | None:
        """A chance node Star2 probes whose outcomes are all MAX or MIN nodes, picked by the
        seed, the ones entered later (with a window already narrowed) first."""
        result = star2(game, trace=True)
        entered = []
        for e in result.trace.events:
            if e.kind == "enter" and e.player == "chance" and e.path not in entered:
                entered.append(e.path)
        good = [p for p in entered if _probed_kinds(game, p)]
        if not good:
            return None
        later = good[1:] or good
        return {"node": later[seed % len(later)]}

    def _search(self) -> SearchResult:
        result = star2(self.game, trace=True)
        events = tuple(result.trace.events)
        entered = [e.path for e in events if e.kind == "enter" and e.player == "chance"]
        if self._node is None:
            good = [p for p in entered if _probed_kinds(self.game, p)]
            if not good:
                raise AnswerError("Star2 probes no chance node of this tree whose outcomes are "
                                  "all MAX or MIN nodes with two or more children: nothing to ask")
            self._node = good[-1]
        else:
            path = self._node if isinstance(self._node, tuple) else self.resolve(self._node)
            if self.node(path).kind != "chance":
                raise AnswerError(f"node {self.names.get(path, path)} is not a chance node")
            if path not in entered:
                raise AnswerError(f"Star2 never enters {self.names[path]}: choose a chance node "
                                  "it searches")
            self._node = path
        self._probe_list, self._cut = _probes(events, self._node)
        if not self._probe_list:
            raise AnswerError(f"Star2 probes no outcome of {self.names[self._node]} (its outcomes "
                              "are leaves or chance nodes): choose another chance node")
        return result

    @property
    def chance_node(self) -> Path:
        """The chance node the drill asks about."""
        return self._node

    def _recipe_params(self) -> str:
        return f", node={self._node!r}"

    # -- what is asked ------------------------------------------------------------------------
    def _asked(self) -> list[Path]:
        """The outcomes Star2 would probe, in probing order (likeliest first, ties left to
        right): every MAX or MIN outcome."""
        node = self.node(self._node)
        kids = [c.path for c in node.children if c.kind in ("max", "min")]
        probs = dict(zip((c.path for c in node.children), node.probabilities))
        return sorted(kids, key=lambda p: -probs[p])         # stable: ties keep their order

    def _probe(self, outcome: Path) -> _Probe | None:
        return next((p for p in self._probe_list if p.outcome == outcome), None)

    def _side(self, outcome: Path) -> str:
        return "upper" if self.node(outcome).kind == "min" else "lower"

    def _row(self, outcome: Path) -> tuple[Any, Any, Any, Any] | None:
        probe = self._probe(outcome)
        if probe is None:
            return None
        side = self._side(outcome)
        value = probe.bounds[1] if side == "upper" else probe.bounds[0]
        return side, exact(value), exact(probe.state.lower), exact(probe.state.upper)

    def _stop(self) -> str | None:
        return self.names[self._probe_list[-1].outcome] if self._cut is not None else None

    @property
    def expected(self) -> dict:
        out: dict[str, Any] = {self.names[p]: self._row(p) for p in self._asked()}
        out["stop"] = self._stop()
        return out

    def worthwhile(self) -> bool:
        """Star1's answer (no probing) is wrong, and the node's window matters: it was entered
        with a window narrower than [vmin, vmax], or its probes cut it."""
        e = self.index.events[self.index.enter[self._node]]
        narrowed = (e.alpha, e.beta) != (self.game.vmin, self.game.vmax)
        return (narrowed or self._cut is not None or self.level in (None, 1, 2)) \
            and not self.check(self.star1_answer()).correct

    def star1_answer(self) -> dict:
        """The answer of a search without a probing phase: Star1, outcomes likeliest first.

        Each outcome is searched in full, so "the probe" of an outcome is its whole value
        (the bound its kind gives), and the chance node's L and U after it are Star1's C3
        bounds after that outcome; the stop is Star1's cut.  This is what a student who
        knows Star1 but not probing writes.
        """
        result = star1(self.game, order="probability", trace=True)
        idx = _Index(tuple(result.trace.events))
        n = self._node
        out: dict[str, Any] = {}
        updates = {idx.events[i].child: idx.events[i] for i in idx.updates.get(n, [])}
        for p in self._asked():
            e, got = updates.get(p[-1]), idx.returned(p)
            if e is None or got is None:
                out[self.names[p]] = None
                continue
            side = self._side(p)
            value = got[1] if side == "upper" else got[0]
            out[self.names[p]] = (side, exact(value), exact(e.lower), exact(e.upper))
        cut = idx.cutoff.get(n)
        out["stop"] = self.names[n + (idx.events[cut - 1].child,)] if cut is not None else None
        return out

    # -- the form -------------------------------------------------------------------------------
    @property
    def question(self) -> str:
        n = self.names[self._node]
        e = self.index.events[self.index.enter[self._node]]
        return (f"Star2 enters the chance node {n} with α = {fmt(e.alpha)}, β = {fmt(e.beta)}; "
                f"every leaf lies in [vmin, vmax] = [{fmt(self.game.vmin)}, {fmt(self.game.vmax)}]. "
                f"Before searching any outcome in full, {n} probes each MAX or MIN outcome, "
                "likeliest first (ties left to right): it searches only the outcome's first child (left "
                "to right). For each probe say which bound it gives on the outcome (at most or "
                f"at least) and its value, and {n}'s bounds L and U after the probe; then say after "
                "which probe (if any) it is cut (leave the rows after a cut empty).")

    def fields(self) -> list[Field]:
        out = []
        node = self.node(self._node)
        probs = dict(zip((c.path for c in node.children), node.probabilities))
        for k, p in enumerate(self._asked(), 1):
            name = self.names[p]
            group = (f"probe {k}: outcome {name} ({_KIND[self.node(p).kind]}, probability "
                     f"{fmt(probs[p])})")
            options = tuple((side, f"{words} ({_BOUND_WORDS[side]})") for side, words in SIDES.items())
            out += [Field(f"{name}.side", f"what the probe of {name} shows", "choice", p, group,
                          options),
                    Field(f"{name}.value", f"the bound the probe of {name} gives", "number", p,
                          group),
                    Field(f"{name}.L", f"L of {self.names[self._node]} after probing {name}",
                          "number", p, group),
                    Field(f"{name}.U", f"U of {self.names[self._node]} after probing {name}",
                          "number", p, group)]
        options = tuple((self.names[p], f"after probing {self.names[p]}") for p in self._asked())
        options += (("none", "no cut: it goes on to search its outcomes"),)
        out.append(Field("stop", f"{self.names[self._node]} is cut", "choice", self._node,
                         "the cut-off", options))
        return out

    def from_form(self, values: Mapping[str, Any]) -> dict:
        out: dict[str, Any] = {}
        for p in self._asked():
            name = self.names[p]
            side = values.get(f"{name}.side") or None
            numbers = tuple(_parse(values, f"{name}.{part}", optional=True)
                            for part in ("value", "L", "U"))
            out[name] = None if side is None and numbers == (None, None, None) else (side, *numbers)
        stop = values.get("stop") or None
        out["stop"] = None if stop == "none" else stop
        return out

    def form(self, answer: Mapping[Any, Any]) -> dict[str, Any]:
        given = {k if k == "stop" else self.names[self.resolve(k)]: v for k, v in dict(answer).items()}
        values: dict[str, Any] = {}
        for p in self._asked():
            name = self.names[p]
            side, value, lo, hi = given.get(name) or _EMPTY_ROW
            values[f"{name}.side"] = side or ""
            values[f"{name}.value"], values[f"{name}.L"], values[f"{name}.U"] = (
                _box(value), _box(lo), _box(hi))
        stop = given.get("stop")
        values["stop"] = "none" if stop is None else self.names[self.resolve(stop)]
        return values

    def answer_from(self, run: Any) -> dict:
        """A record of a search has no probing phase (the simulations are Star1's, BAB's, ...):
        it answers as :meth:`star1_answer` does, from the record's own numbers."""
        returned = getattr(run, "returned", None) or {}
        tests = getattr(run, "tests", None) or {}
        cut_after = getattr(run, "cut_after", None) or {}
        n = self._node
        out: dict[str, Any] = {}
        for p in self._asked():
            got, state = returned.get(p), tests.get((n, p[-1]))
            if got is None or state is None:
                out[self.names[p]] = None
                continue
            side = self._side(p)
            out[self.names[p]] = (side, got[1] if side == "upper" else got[0], state[0], state[1])
        stop = cut_after.get(n)
        out["stop"] = None if stop is None else self.names[n + (stop,)]
        return out

    # -- checking ---------------------------------------------------------------------------------
    def _read(self, answer: Mapping[Any, Any]) -> tuple[dict[Path, tuple], str | None]:
        rows: dict[Path, tuple] = {}
        stop = None
        for key, value in dict(answer).items():
            if key == "stop":
                stop = value
                continue
            path = self.resolve(key)
            if value is None:
                rows[path] = _EMPTY_ROW
                continue
            side, *numbers = value
            if side not in (None, "upper", "lower"):
                raise AnswerError(f"the side of a probe is 'upper' (at most) or 'lower' (at "
                                  f"least), got {side!r}")
            rows[path] = (side, *(None if x is None else parse_number(x) for x in numbers))
        if stop is not None:
            if stop == "none":
                stop = None
            else:
                stop = self.names[self.resolve(stop)]
        return rows, stop

    def check(self, answer: Mapping[Any, Any]) -> Verdict:
        given, stop = self._read(answer)
        asked = self._asked()
        n = self._node
        total = 4 * len(asked) + 1
        wrong_ids: list[str] = []
        first: Path | None = None             # the first wrong row among the probes made
        extra: Path | None = None             # the first row filled after the cut
        for p in asked:
            name = self.names[p]
            want, got = self._row(p), given.get(p, _EMPTY_ROW)
            for part, w, g in zip(_PARTS, want or _EMPTY_ROW, got):
                bad = (g is not None) if w is None else (g != w if part == "side" else not same(g, w))
                if bad:
                    wrong_ids.append(f"{name}.{part}")
                    if want is not None:
                        first = first or p
                    else:
                        extra = extra or p
        want_stop = self._stop()
        if stop != want_stop:
            wrong_ids.append("stop")
        right = total - len(wrong_ids)
        if not wrong_ids:
            words = (f"Right: {self.names[n]} is cut after probing {want_stop}, before it searches "
                     "any outcome in full." if want_stop else
                     f"Right: the probes leave {self.names[n]} open, so it goes on to search its "
                     "outcomes.")
            return Verdict(True, words, right=total, total=total)
        ids = tuple(wrong_ids)
        position = {self.names[p]: k for k, p in enumerate(asked, 1)}
        made = len(self._probe_list)
        stop_at = position.get(stop) if stop else None
        want_at = position.get(want_stop) if want_stop else None
        decision_k = min(x for x in (stop_at, want_at, made + 1) if x is not None)
        if first is not None and asked.index(first) + 1 <= decision_k:
            return self._row_verdict(first, given.get(first, _EMPTY_ROW), ids, right, total)
        if want_stop is not None and (stop_at is None or stop_at > want_at):
            return Verdict(False, self._cut_words(), node=n, upto=self._cut + 1, wrong=ids,
                           right=right, total=total)
        if stop != want_stop:
            probe = self._probe_list[stop_at - 1]
            nxt = self.names[asked[stop_at]] if stop_at < len(asked) else None
            _, test = self._test(probe.state)
            then = (f"it goes on to probe {nxt}" if nxt else
                    "it goes on to search its outcomes")
            words = (f"{self.names[n]} is not cut after probing {stop}: after that probe L = "
                     f"{fmt(probe.state.lower)}, U = {fmt(probe.state.upper)}, so α = max(L, α) = "
                     f"{fmt(probe.state.alpha)} and β = min(U, β) = {fmt(probe.state.beta)}; {test}, "
                     f"so {then}.")
            return Verdict(False, words, node=n, upto=probe.update + 1, wrong=ids, right=right,
                           total=total)
        skipped = self.names[extra]
        words = (f"{self.names[n]} is cut after probing {want_stop}, so {skipped} is never probed: "
                 f"its row stays empty. " + self._cut_words())
        return Verdict(False, words, node=n, upto=self._cut + 1, wrong=ids, right=right,
                       total=total)

    def _row_verdict(self, outcome: Path, got: tuple, ids: tuple[str, ...], right: int,
                     total: int) -> Verdict:
        name = self.names[outcome]
        side, value, lo, hi = self._row(outcome)
        probe = self._probe(outcome)
        g_side, g_value, g_lo, g_hi = got
        if g_side != side or g_value is None or not same(g_value, value):
            said = ("you left it empty" if g_side is None and g_value is None else
                    f"not {name} {SIDES.get(g_side, '?')} {fmt(g_value)}")
            return Verdict(False, f"The probe shows that {name} is {SIDES[side]} {fmt(value)} "
                           f"({said}). " + self._probe_words(outcome), node=outcome,
                           upto=probe.exit_at + 1, wrong=ids, right=right, total=total)
        said = ("you left it empty" if g_lo is None and g_hi is None
                else f"not L = {fmt(g_lo)}, U = {fmt(g_hi)}")
        return Verdict(False, f"After the probe of {name}, {self.names[self._node]} has L = "
                       f"{fmt(lo)} and U = {fmt(hi)} ({said}): " + self._bounds_words(outcome),
                       node=self._node, upto=probe.update + 1, wrong=ids, right=right,
                       total=total)

    def _probe_words(self, outcome: Path) -> str:
        node = self.node(outcome)
        probe = self._probe(outcome)
        name = self.names[outcome]
        events = self.index.events
        taken = next(e for e in events[self.index.enter[outcome]:probe.exit_at]
                     if e.kind == "update" and e.path == outcome)
        child = outcome + (taken.child,)
        got = next(_bounds((e.lower, e.upper)) for e in reversed(events[:probe.exit_at])
                   if e.path == child and e.kind in ("leaf", "exit"))
        lo, hi = probe.bounds
        head = (f"{self.who(outcome)} is probed: only its first child, {self.names[child]}, is "
                f"searched, and it is worth {got}. ")
        if node.kind == "min":
            return head + (f"A MIN node is worth at most any of its children, so {name} ≤ "
                           f"{fmt(hi)}: an upper bound (its other children could only lower it); "
                           f"its lower bound stays vmin = {fmt(lo)}.")
        return head + (f"A MAX node is worth at least any of its children, so {name} ≥ {fmt(lo)}: "
                       f"a lower bound (its other children could only raise it); its upper bound "
                       f"stays vmax = {fmt(hi)}.")

    def _bounds_words(self, outcome: Path) -> str:
        n = self._node
        node = self.node(n)
        probe = self._probe(outcome)
        known = {p.outcome: p.bounds for p in self._probe_list[:self._probe_list.index(probe) + 1]}
        vmin, vmax = self.game.vmin, self.game.vmax
        terms_L, terms_U = [], []
        for q, c in zip(node.probabilities, node.children):
            lo, hi = known.get(c.path, (vmin, vmax))
            terms_L.append(f"{fmt(q)}·{_op(lo)}")
            terms_U.append(f"{fmt(q)}·{_op(hi)}")
        return (f"{self.names[n]} counts each outcome by what it knows of it, a probed one by its "
                f"probe's bounds and one not probed yet by [vmin, vmax] = [{fmt(vmin)}, "
                f"{fmt(vmax)}]: L = {' + '.join(terms_L)} = {fmt(probe.state.lower)} and "
                f"U = {' + '.join(terms_U)} = {fmt(probe.state.upper)}.")

    def _cut_words(self) -> str:
        n = self._node
        probe = self._probe_list[-1]
        e = self.index.events[self._cut]
        _, test = self._test(e)
        never = [self.names[p] for p in self._asked() if self._probe(p) is None]
        rest = (f" {_names_list(never)} {'is' if len(never) == 1 else 'are'} never probed, and no "
                "outcome is searched in full." if never else " No outcome is searched in full.")
        return (f"After the probe of {self.names[probe.outcome]}, {self.names[n]} has L = "
                f"{fmt(e.lower)}, U = {fmt(e.upper)}, so α = max(L, α) = {fmt(e.alpha)} and "
                f"β = min(U, β) = {fmt(e.beta)}: {test}, so {self.names[n]} is cut in the probing "
                f"phase.{rest}")

