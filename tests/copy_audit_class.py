"""A class of 29 for the copy audit: honest answers written independently, textbook idioms, copies.

The class the audit met in issue 28 (29 students, a1_minimax) had 28 of them in one group: a
student who wrote only the textbook's five lines of ``minimax_value`` was "91 % like" seven
classmates whose longer answers contain the same idiom, and the grouping chained them all.  This
module writes such a class, reproducibly (no randomness: every student is a fixed choice):

* **honest** students (16): each answers the three functions of ``a1_minimax`` with their own
  choice among several independently written implementations of each (the textbook idioms
  among them, as most students write them), with the small differences independent writers
  make within one idiom (:data:`VARIATIONS`) and their own names; no two honest students hand
  in the same three choices;
* **short** students (5): only ``minimax_value``, in one of the textbook's short forms (the rest
  of the notebook as released);
* **untouched** (2): the release;
* **copiers** (6): a pair (one copies the other's whole notebook, renamed and recommented), a
  copy padded with extra code of the copier's own, and a trio around one original.

:func:`write_class` writes ``submitted/<student>/a1_minimax/minimax.ipynb``; :data:`KINDS` says
what each student is, :func:`pair_kind` what each pair is (``copy``, ``honest``, ``short``:
a short answer with anyone, ``idiom``: two short answers).
"""

from __future__ import annotations

import copy
import json
import re
import textwrap
from pathlib import Path

ASSIGNMENT = "a1_minimax"

# --- independently written implementations of each function (the answer cells' bodies) -------

VALUE = {
    "idiom-list": '''
def minimax_value(game, state):
    "The minimax value of `state`: MAX's payoff when both sides play perfectly."
    if game.is_terminal(state):
        return game.utility(state)
    values = [minimax_value(game, game.result(state, move)) for move in game.moves(state)]
    if game.turn(state) is Player.MAX:
        return max(values)
    return min(values)
''',
    "idiom-ternary": '''
def minimax_value(game, state):
    "The minimax value of `state`: MAX's payoff when both sides play perfectly."
    if game.is_terminal(state):
        return game.utility(state)
    values = [minimax_value(game, game.result(state, m)) for m in game.moves(state)]
    return max(values) if game.turn(state) is Player.MAX else min(values)
''',
    "idiom-pick": '''
def minimax_value(game, state):
    "The minimax value of `state`: MAX's payoff when both sides play perfectly."
    if game.is_terminal(state):
        return game.utility(state)
    pick = max if game.turn(state) == Player.MAX else min
    return pick(minimax_value(game, game.result(state, a)) for a in game.moves(state))
''',
    "loop-best": '''
def minimax_value(game, state):
    "The minimax value of `state`: MAX's payoff when both sides play perfectly."
    if game.is_terminal(state):
        return game.utility(state)
    maximizing = game.turn(state) is Player.MAX
    best = None
    for move in game.moves(state):
        v = minimax_value(game, game.result(state, move))
        if best is None or (maximizing and v > best) or (not maximizing and v < best):
            best = v
    return best
''',
    "aima-helpers": '''
def minimax_value(game, state):
    "The minimax value of `state`: MAX's payoff when both sides play perfectly."
    def max_value(s):
        if game.is_terminal(s):
            return game.utility(s)
        v = -math.inf
        for a in game.moves(s):
            v = max(v, min_value(game.result(s, a)))
        return v
    def min_value(s):
        if game.is_terminal(s):
            return game.utility(s)
        v = math.inf
        for a in game.moves(s):
            v = min(v, max_value(game.result(s, a)))
        return v
    return max_value(state) if game.turn(state) is Player.MAX else min_value(state)
''',
    "negamax": '''
def minimax_value(game, state):
    "The minimax value of `state`: MAX's payoff when both sides play perfectly."
    def nega(s):
        sign = 1 if game.turn(s) is Player.MAX else -1
        if game.is_terminal(s):
            return sign * game.utility(s)
        return max(-nega(game.result(s, m)) for m in game.moves(s))
    sign = 1 if game.turn(state) is Player.MAX else -1
    return sign * nega(state)
''',
    "append-loop": '''
def minimax_value(game, state):
    "The minimax value of `state`: MAX's payoff when both sides play perfectly."
    if game.is_terminal(state):
        return game.utility(state)
    results = []
    for child_move in game.moves(state):
        child = game.result(state, child_move)
        results.append(minimax_value(game, child))
    if game.turn(state) == Player.MIN:
        return min(results)
    else:
        return max(results)
''',
    "iterative": '''
def minimax_value(game, state):
    "The minimax value of `state`: MAX's payoff when both sides play perfectly."
    stack = [(state, False)]
    done = {}
    while stack:
        node, expanded = stack.pop()
        key = id(node)
        if game.is_terminal(node):
            done[key] = game.utility(node)
            continue
        children = [game.result(node, m) for m in game.moves(node)]
        if not expanded:
            stack.append((node, True))
            stack.extend((c, False) for c in children)
        else:
            pick = max if game.turn(node) is Player.MAX else min
            done[key] = pick(done[id(c)] for c in children)
    return done[id(state)]
''',
}

DECISION = {
    "loop-best": '''
def minimax_decision(game, state):
    "Return (value, move): the minimax value of `state` and the first move achieving it."
    maximizing = game.turn(state) is Player.MAX
    best_value, best_move = None, None
    for move in game.moves(state):
        value = minimax_value(game, game.result(state, move))
        if best_move is None or (value > best_value if maximizing else value < best_value):
            best_value, best_move = value, move
    return best_value, best_move
''',
    "index": '''
def minimax_decision(game, state):
    "Return (value, move): the minimax value of `state` and the first move achieving it."
    moves = list(game.moves(state))
    values = [minimax_value(game, game.result(state, m)) for m in moves]
    best = max(values) if game.turn(state) is Player.MAX else min(values)
    return best, moves[values.index(best)]
''',
    "sign": '''
def minimax_decision(game, state):
    "Return (value, move): the minimax value of `state` and the first move achieving it."
    sign = 1 if game.turn(state) == Player.MAX else -1
    chosen = None
    for m in game.moves(state):
        score = sign * minimax_value(game, game.result(state, m))
        if chosen is None or score > chosen[0]:
            chosen = (score, m)
    return sign * chosen[0], chosen[1]
''',
    "pairs": '''
def minimax_decision(game, state):
    "Return (value, move): the minimax value of `state` and the first move achieving it."
    scored = []
    for move in game.moves(state):
        scored.append((minimax_value(game, game.result(state, move)), move))
    target = minimax_value(game, state)
    for value, move in scored:
        if value == target:
            return value, move
''',
    "enumerate": '''
def minimax_decision(game, state):
    "Return (value, move): the minimax value of `state` and the first move achieving it."
    options = list(game.moves(state))
    best_index = 0
    best_score = minimax_value(game, game.result(state, options[0]))
    for i in range(1, len(options)):
        score = minimax_value(game, game.result(state, options[i]))
        better = score > best_score if game.turn(state) is Player.MAX else score < best_score
        if better:
            best_index, best_score = i, score
    return best_score, options[best_index]
''',
}

DEPTH = {
    "inner": '''
def depth_limited_decision(game, state, depth):
    "Return (value, move) of minimax searching `depth` moves deep and evaluating there."
    def value(s, d):
        if game.is_terminal(s):
            return game.utility(s)
        if d == depth:
            return game.evaluate(s)
        values = [value(game.result(s, move), d + 1) for move in game.moves(s)]
        return max(values) if game.turn(s) is Player.MAX else min(values)

    maximizing = game.turn(state) is Player.MAX
    best_value, best_move = None, None
    for move in game.moves(state):
        v = value(game.result(state, move), 1)
        if best_move is None or (v > best_value if maximizing else v < best_value):
            best_value, best_move = v, move
    return best_value, best_move
''',
    "countdown": '''
def depth_limited_decision(game, state, depth):
    "Return (value, move) of minimax searching `depth` moves deep and evaluating there."
    def search(node, left):
        if game.is_terminal(node):
            return game.utility(node)
        if left == 0:
            return game.evaluate(node)
        children = [search(game.result(node, m), left - 1) for m in game.moves(node)]
        if game.turn(node) == Player.MAX:
            return max(children)
        return min(children)
    moves = list(game.moves(state))
    scores = [search(game.result(state, m), depth - 1) for m in moves]
    best = max(scores) if game.turn(state) == Player.MAX else min(scores)
    return best, moves[scores.index(best)]
''',
    "two-functions": '''
def depth_limited_decision(game, state, depth):
    "Return (value, move) of minimax searching `depth` moves deep and evaluating there."
    def max_value(s, d):
        if game.is_terminal(s):
            return game.utility(s)
        if d >= depth:
            return game.evaluate(s)
        return max(min_value(game.result(s, a), d + 1) for a in game.moves(s))
    def min_value(s, d):
        if game.is_terminal(s):
            return game.utility(s)
        if d >= depth:
            return game.evaluate(s)
        return min(max_value(game.result(s, a), d + 1) for a in game.moves(s))
    follow = min_value if game.turn(state) is Player.MAX else max_value
    best = None
    for a in game.moves(state):
        v = follow(game.result(state, a), 1)
        if best is None or (v > best[0] if game.turn(state) is Player.MAX else v < best[0]):
            best = (v, a)
    return best
''',
    "negamax": '''
def depth_limited_decision(game, state, depth):
    "Return (value, move) of minimax searching `depth` moves deep and evaluating there."
    def nega(s, d):
        sign = 1 if game.turn(s) is Player.MAX else -1
        if game.is_terminal(s):
            return sign * game.utility(s)
        if d == depth:
            return sign * game.evaluate(s)
        return max(-nega(game.result(s, m), d + 1) for m in game.moves(s))
    sign = 1 if game.turn(state) is Player.MAX else -1
    top = None
    for m in game.moves(state):
        score = -nega(game.result(state, m), 1)
        if top is None or score > top[0]:
            top = (score, m)
    return sign * top[0], top[1]
''',
}

#: The honest students' choices: (value, decision, depth); no two alike.
HONEST = [
    ("idiom-list", "loop-best", "inner"), ("idiom-list", "index", "countdown"),
    ("idiom-list", "sign", "two-functions"), ("idiom-list", "pairs", "negamax"),
    ("idiom-ternary", "loop-best", "countdown"), ("idiom-ternary", "enumerate", "inner"),
    ("idiom-ternary", "index", "negamax"), ("idiom-pick", "sign", "inner"),
    ("idiom-pick", "enumerate", "countdown"), ("loop-best", "loop-best", "two-functions"),
    ("aima-helpers", "index", "two-functions"), ("aima-helpers", "pairs", "inner"),
    ("negamax", "sign", "negamax"), ("append-loop", "enumerate", "two-functions"),
    ("iterative", "pairs", "countdown"), ("append-loop", "loop-best", "negamax"),
]
#: The short answers: only minimax_value, in a textbook form.
SHORT = ["idiom-list", "idiom-ternary", "idiom-pick", "idiom-list", "idiom-ternary"]


#: Small differences independent writers make within one idiom (each changes tokens, not
#: only names); honest student ``k`` applies those whose bit is set in ``k + 1``.
VARIATIONS = [
    (" is Player.MAX", " == Player.MAX"),
    ("for move in game.moves(state):", "for move in list(game.moves(state)):"),
    ("if best_move is None or", "if best_value is None or"),
    ("        return max(values)\n    return min(values)", "        return max(values)\n    else:\n        return min(values)"),
    ("(value > best_value if maximizing else value < best_value)",
     "((maximizing and value > best_value) or (not maximizing and value < best_value))"),
    ("if game.is_terminal(s):\n            return game.utility(s)",
     "if game.is_terminal(s):\n            return float(game.utility(s))"),
]


def _vary(code: str, student: int) -> str:
    for bit, (old, new) in enumerate(VARIATIONS):
        if (student + 1) >> bit & 1:
            code = code.replace(old, new)
    return code


def _rename(code: str, student: int) -> str:
    """The student's own names for the locals (the audit ignores names: this is realism only)."""
    names = {"values": ["vals", "scores", "outcomes", "children_values"],
             "best": ["top", "incumbent", "current_best", "b"],
             "move": ["mv", "action", "choice", "a_move"]}
    for old, options in names.items():
        code = re.sub(rf"(?<![.\w]){old}\b", options[student % len(options)], code)
    return code


def _disguise(code: str) -> str:
    """A copier's work: names changed, comments added, layout changed."""
    code = re.sub(r"(?<![.\w])(state|s)\b", "position", code)
    out = []
    for line in code.splitlines():
        indent = line[: len(line) - len(line.lstrip())]
        if line.strip().startswith(("for ", "if ")):
            out.append(f"{indent}# I check every option here")
        out.append(line.replace(" = ", "=").replace(", ", ","))
    return "\n".join(out)


PADDING = '''

def count_leaves(game, state):
    "How many terminal states lie below `state` (my own check of the tree size)."
    if game.is_terminal(state):
        return 1
    total = 0
    for m in game.moves(state):
        total += count_leaves(game, game.result(state, m))
    return total


def principal_variation(game, state):
    "The moves both players make under perfect play, from `state`."
    line = []
    while not game.is_terminal(state):
        _, m = minimax_decision(game, state)
        line.append(m)
        state = game.result(state, m)
    return line
'''

#: Student id -> kind (honest, short, untouched, copy-of:<student>).
KINDS: dict[str, str] = {}
_ANSWERS: dict[str, dict[str, str] | None] = {}

for _k, (_v, _d, _l) in enumerate(HONEST):
    _sid = f"h{_k:02d}"
    KINDS[_sid] = "honest"
    _ANSWERS[_sid] = {"a1-minimax-value": _rename(_vary(VALUE[_v], _k), _k),
                      "a1-minimax-decision": _rename(_vary(DECISION[_d], _k), _k + 1),
                      "a1-depth-limited": _rename(_vary(DEPTH[_l], _k), _k + 2)}
for _k, _v in enumerate(SHORT):
    _sid = f"s{_k:02d}"
    KINDS[_sid] = "short"
    _ANSWERS[_sid] = {"a1-minimax-value": _rename(VALUE[_v], _k)}
for _sid in ("u00", "u01"):
    KINDS[_sid] = "untouched"
    _ANSWERS[_sid] = None
# copiers: c00 copies h03 whole; c01 copies h09 and pads it; c02, c03 copy h12 (a trio);
# c04 copies c00 (a chain of copies); c05 copies h14's decision and depth functions only
_COPIES = {"c00": ("h03", None), "c01": ("h09", "pad"), "c02": ("h12", None), "c03": ("h12", None),
           "c04": ("c00", None), "c05": ("h14", "two")}
for _sid, (_src, _how) in _COPIES.items():
    KINDS[_sid] = f"copy-of:{_src}"
    _orig = _ANSWERS[_src]
    _copy = {gid: _disguise(code) for gid, code in _orig.items()}
    if _how == "pad":
        _copy["a1-depth-limited"] += PADDING
    if _how == "two":
        _copy["a1-minimax-value"] = _rename(VALUE["idiom-ternary"], 7)
    _ANSWERS[_sid] = _copy


def pair_kind(a: str, b: str) -> str:
    """``copy`` (one copied the other, or both the same original), ``idiom`` (two short
    answers), ``short`` (a short answer and a longer one), ``honest``, or ``untouched``."""
    def origin(s: str) -> str:
        while KINDS[s].startswith("copy-of:"):
            s = KINDS[s].split(":", 1)[1]
        return s
    if "untouched" in (KINDS[a], KINDS[b]):
        return "untouched"
    if (KINDS[a].startswith("copy-of:") or KINDS[b].startswith("copy-of:")) and origin(a) == origin(b):
        return "copy"
    if KINDS[a] == KINDS[b] == "short":
        return "idiom"
    if "short" in (KINDS[a], KINDS[b]):
        return "short"
    return "honest"


def copy_groups() -> list[set[str]]:
    """The true groups: each original with everyone who copied from it (directly or not)."""
    groups: dict[str, set[str]] = {}
    for sid in KINDS:
        s = sid
        while KINDS[s].startswith("copy-of:"):
            s = KINDS[s].split(":", 1)[1]
        if s != sid:
            groups.setdefault(s, {s}).add(sid)
    return sorted(groups.values(), key=sorted)


def write_class(submitted: str | Path, release: str | Path) -> list[str]:
    """Write every student's notebook into ``submitted/<id>/a1_minimax/``; return the ids."""
    submitted, release = Path(submitted), Path(release)
    notebook = json.loads((release / ASSIGNMENT / "minimax.ipynb").read_text(encoding="utf-8"))
    for sid, answers in _ANSWERS.items():
        nb = copy.deepcopy(notebook)
        for cell in nb["cells"]:
            gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if answers and gid in answers:
                cell["source"] = textwrap.dedent(answers[gid]).strip("\n")
        target = submitted / sid / ASSIGNMENT / "minimax.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(nb), encoding="utf-8")
    return list(_ANSWERS)


assert len(KINDS) == 29
assert len(set(HONEST)) == len(HONEST)
