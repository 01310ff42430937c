"""Flagging copies (course.grading.term.results.similarity): copies are found whatever the names, comments
and layout; untouched stubs, trivial code and independent honest answers are not."""

from __future__ import annotations

import ast
import base64
import codecs
import copy
import dataclasses
import json
import lzma
import re
import textwrap
import time
import zlib
from pathlib import Path

import pytest

from course.grading.term.results.similarity import (
    DEFAULT_THRESHOLD,
    Finding,
    audit_assignment,
    audit_copies,
    find_copies,
    given_code,
    reference_code,
    student_code,
)

ROOT = Path(__file__).resolve().parents[1]
EXERCISES = ROOT / "exercises"
ASSIGNMENTS = sorted(p.name for p in EXERCISES.iterdir() if p.is_dir())

# Independent honest answers, written for these tests (and to choose the threshold: the
# module notes quote their similarities).  Different algorithms, or the same algorithm
# written differently, by different "students".
HONEST_MINIMAX = {
    "recursive": '''
def minimax_value(game, state):
    "The minimax value of `state`: MAX's payoff when both sides play perfectly."
    if game.is_terminal(state):
        return game.utility(state)
    values = []
    for move in game.moves(state):
        values.append(minimax_value(game, game.result(state, move)))
    return max(values) if game.turn(state) is Player.MAX else min(values)
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
    "helpers": '''
def minimax_value(game, state):
    "The minimax value of `state`: MAX's payoff when both sides play perfectly."
    def max_value(s):
        if game.is_terminal(s):
            return game.utility(s)
        best = -math.inf
        for a in game.moves(s):
            best = max(best, min_value(game.result(s, a)))
        return best
    def min_value(s):
        if game.is_terminal(s):
            return game.utility(s)
        best = math.inf
        for a in game.moves(s):
            best = min(best, max_value(game.result(s, a)))
        return best
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
    "loop-running-best": '''
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
}

HONEST_ALPHABETA = {
    "inner-function": '''
def alphabeta_decision(game, state):
    "Return (value, move) of `state` by alpha-beta search (cuts on equality, first best move)."
    INF = float("inf")
    def search(node, lo, hi):
        if game.is_terminal(node):
            return game.utility(node)
        maxing = game.turn(node) is Player.MAX
        best = -INF if maxing else INF
        for m in game.moves(node):
            val = search(game.result(node, m), lo, hi)
            if maxing:
                best = max(best, val)
                if best >= hi:
                    break
                lo = max(lo, best)
            else:
                best = min(best, val)
                if best <= lo:
                    break
                hi = min(hi, best)
        return best
    maxing = game.turn(state) is Player.MAX
    lo, hi = -INF, INF
    result = None
    for m in game.moves(state):
        val = search(game.result(state, m), lo, hi)
        if result is None or (maxing and val > result[0]) or (not maxing and val < result[0]):
            result = (val, m)
            if maxing:
                lo = val
            else:
                hi = val
    return result
''',
    "aima-helpers": '''
def alphabeta_decision(game, state):
    "Return (value, move) of `state` by alpha-beta search (cuts on equality, first best move)."
    def max_value(s, alpha, beta):
        if game.is_terminal(s):
            return game.utility(s)
        v = -math.inf
        for a in game.moves(s):
            v = max(v, min_value(game.result(s, a), alpha, beta))
            if v >= beta:
                return v
            alpha = max(alpha, v)
        return v

    def min_value(s, alpha, beta):
        if game.is_terminal(s):
            return game.utility(s)
        v = math.inf
        for a in game.moves(s):
            v = min(v, max_value(game.result(s, a), alpha, beta))
            if v <= alpha:
                return v
            beta = min(beta, v)
        return v

    if game.turn(state) is Player.MAX:
        best, choice, alpha = -math.inf, None, -math.inf
        for a in game.moves(state):
            v = min_value(game.result(state, a), alpha, math.inf)
            if choice is None or v > best:
                best, choice = v, a
            alpha = max(alpha, best)
    else:
        best, choice, beta = math.inf, None, math.inf
        for a in game.moves(state):
            v = max_value(game.result(state, a), -math.inf, beta)
            if choice is None or v < best:
                best, choice = v, a
            beta = min(beta, best)
    return best, choice
''',
    "negamax-window": '''
def alphabeta_decision(game, state):
    "Return (value, move) of `state` by alpha-beta search (cuts on equality, first best move)."
    def color(s):
        return 1 if game.turn(s) is Player.MAX else -1

    def negamax(s, a, b):
        if game.is_terminal(s):
            return color(s) * game.utility(s)
        value = -math.inf
        for child in (game.result(s, m) for m in game.moves(s)):
            score = -negamax(child, -b, -a) if color(child) != color(s) else negamax(child, a, b)
            value = max(value, score)
            if value >= b:
                break
            a = max(a, value)
        return value

    c = color(state)
    a, b = -math.inf, math.inf
    best_move, best_score = None, -math.inf
    for m in game.moves(state):
        child = game.result(state, m)
        score = -negamax(child, -b, -a) if color(child) != c else negamax(child, a, b)
        if best_move is None or score > best_score:
            best_move, best_score = m, score
        a = max(a, best_score)
    return c * best_score, best_move
''',
    "generator-loop": '''
def alphabeta_decision(game, state):
    "Return (value, move) of `state` by alpha-beta search (cuts on equality, first best move)."
    class Search:
        def __init__(self):
            self.window = [-math.inf, math.inf]

        def run(self, node, window):
            low, high = window
            if game.is_terminal(node):
                return game.utility(node)
            is_max = game.turn(node) is Player.MAX
            outcome = -math.inf if is_max else math.inf
            children = iter(game.moves(node))
            while True:
                move = next(children, None)
                if move is None:
                    return outcome
                reply = self.run(game.result(node, move), (low, high))
                outcome = max(outcome, reply) if is_max else min(outcome, reply)
                if (is_max and outcome >= high) or (not is_max and outcome <= low):
                    return outcome
                if is_max:
                    low = max(low, outcome)
                else:
                    high = min(high, outcome)

    searcher = Search()
    scored = []
    low, high = -math.inf, math.inf
    is_max = game.turn(state) is Player.MAX
    for move in game.moves(state):
        reply = searcher.run(game.result(state, move), (low, high))
        scored.append((reply, move))
        if is_max:
            low = max(low, reply)
        else:
            high = min(high, reply)
    pick = max if is_max else min
    target = pick(r for r, _ in scored)
    return next((r, m) for r, m in scored if r == target)
''',
    "aima-helpers-2": '''
def alphabeta_decision(game, state):
    "Return (value, move) of `state` by alpha-beta search (cuts on equality, first best move)."
    def max_value(node, alpha, beta):
        if game.is_terminal(node):
            return game.utility(node)
        value = -math.inf
        for move in game.moves(node):
            value = max(value, min_value(game.result(node, move), alpha, beta))
            if value >= beta:
                break
            alpha = max(alpha, value)
        return value

    def min_value(node, alpha, beta):
        if game.is_terminal(node):
            return game.utility(node)
        value = math.inf
        for move in game.moves(node):
            value = min(value, max_value(game.result(node, move), alpha, beta))
            if value <= alpha:
                break
            beta = min(beta, value)
        return value

    maximizing = game.turn(state) is Player.MAX
    alpha, beta = -math.inf, math.inf
    best = None
    for move in game.moves(state):
        child = game.result(state, move)
        if maximizing:
            value = min_value(child, alpha, beta)
            if best is None or value > best[0]:
                best = (value, move)
            alpha = max(alpha, value)
        else:
            value = max_value(child, alpha, beta)
            if best is None or value < best[0]:
                best = (value, move)
            beta = min(beta, value)
    return best
''',
}

# The model answer of a2, disguised: names, layout, comments, MIN branch first.
DISGUISED_MODEL_ANSWER = '''
def alphabeta_decision(game, state):
    """My alpha-beta."""
    def val(node, a, b):
        # leaves first
        if game.is_terminal(node): return game.utility(node)
        if game.turn(node) is not Player.MAX:
            best = math.inf
            for mv in game.moves(node):
                best = min(best, val(game.result(node, mv), a, b))
                if best <= a: return best
                b = min(b, best)
        else:
            best = -math.inf
            for mv in game.moves(node):
                best = max(best, val(game.result(node, mv), a, b))
                if best >= b: return best
                a = max(a, best)
        return best
    is_max = game.turn(state) is Player.MAX
    a, b = -math.inf, math.inf
    top, pick = None, None
    for mv in game.moves(state):
        x = val(game.result(state, mv), a, b)
        if pick is None or (x > top if is_max else x < top):
            top, pick = x, mv
        if is_max: a = max(a, top)
        else: b = min(b, top)
    return top, pick
'''


def _release(assignment: str) -> tuple[Path, dict]:
    (path,) = sorted((EXERCISES / assignment).glob("*.ipynb"))
    return path, json.loads(path.read_text(encoding="utf-8"))


def _answer_cells(notebook: dict) -> list[dict]:
    return [c for c in notebook["cells"] if c["cell_type"] == "code"
            and c.get("metadata", {}).get("nbgrader", {}).get("solution")]


def _submit(submitted: Path, student: str, assignment: str, answers: dict[str, str] | None = None) -> Path:
    """Write ``submitted/<student>/<assignment>/<notebook>``: the release with ``answers``
    ({grade_id: code}) in place of its answer cells' stubs (None: untouched)."""
    path, notebook = _release(assignment)
    notebook = copy.deepcopy(notebook)
    for cell in _answer_cells(notebook):
        grade_id = cell["metadata"]["nbgrader"]["grade_id"]
        if answers and grade_id in answers:
            cell["source"] = textwrap.dedent(answers[grade_id]).strip("\n")
    target = submitted / student / assignment / path.name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(notebook), encoding="utf-8")
    return target


def _rename(code: str, names: dict[str, str]) -> str:
    for old, new in names.items():
        code = re.sub(rf"(?<![.\w]){re.escape(old)}\b", new, code)
    return code


def _disguise(code: str) -> str:
    """Renamed variables, new comments, new layout: what a student hiding a copy does first."""
    code = _rename(code, {"s": "node", "v": "score", "alpha": "lo", "beta": "hi", "move": "m",
                          "best_value": "top", "best_move": "choice", "maximizing": "is_max",
                          "value": "evaluate_node"})
    out = []
    for line in code.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            continue
        indent = line[: len(line) - len(line.lstrip())]
        if stripped.startswith(("for ", "if ")):
            out.append(f"{indent}# my own reasoning here")
        out.append(f"{indent}{stripped}    # step" if stripped.startswith("return") else line)
    return "\n".join(out).replace(", ", ",").replace(" = ", "=")


@pytest.fixture
def submitted(tmp_path):
    return tmp_path / "submitted"


def test_student_code_keeps_answers_and_drops_stubs_and_comments(submitted):
    path = _submit(submitted, "ann", "a2_alphabeta", {"a2-alphabeta": HONEST_ALPHABETA["aima-helpers"]})
    code = student_code(path)
    assert "def max_value(s, alpha, beta):" in code
    assert "#" not in code and "NotImplementedError" not in code
    assert "BEGIN SOLUTION" not in code
    untouched = student_code(_submit(submitted, "bob", "a2_alphabeta"), given=given_code(ROOT, "a2_alphabeta"))
    assert untouched.splitlines()[0] == "def alphabeta_decision(game, state):"
    assert "YOUR CODE HERE" not in untouched and "NotImplementedError" not in untouched


def test_reference_code_has_the_searches_and_the_model_answers():
    refs = reference_code(ROOT)
    assert {"course/search/minimax.py", "course/search/alphabeta.py", "course/search/bab.py"} <= set(refs)
    assert {f"solutions/{a}/{p.stem}.ipynb" for a in ASSIGNMENTS
            for p in (ROOT / "solutions" / a).glob("*.ipynb")} <= set(refs)
    model = refs["solutions/a2_alphabeta/alphabeta.ipynb"]
    assert "if v >= beta:" in model and "BEGIN SOLUTION" not in model
    assert "def alphabeta_decision" not in model  # only what lies between the markers


def test_a_renamed_recommented_reformatted_copy_is_flagged_against_the_original(submitted):
    original = HONEST_ALPHABETA["inner-function"]
    _submit(submitted, "ann", "a2_alphabeta", {"a2-alphabeta": original})
    _submit(submitted, "bob", "a2_alphabeta", {"a2-alphabeta": _disguise(_rename(
        original, {"node": "pos", "lo": "a", "hi": "b", "best": "v", "val": "x", "result": "answer"}))})
    _submit(submitted, "cat", "a2_alphabeta", {"a2-alphabeta": HONEST_ALPHABETA["negamax-window"]})
    findings = audit_copies(ROOT, submitted, "a2_alphabeta")
    students = [f for f in findings if f.kind == "student"]
    assert [(f.who, f.other) for f in students] == [("ann", "bob")]
    assert students[0].similarity >= 0.9
    assert "ann" in students[0].line and "bob" in students[0].line


def test_a_disguised_model_answer_is_flagged_as_reference(submitted):
    _submit(submitted, "ann", "a2_alphabeta", {"a2-alphabeta": DISGUISED_MODEL_ANSWER})
    findings = audit_copies(ROOT, submitted, "a2_alphabeta")
    assert findings and findings[0].kind == "reference"
    assert findings[0].other == "solutions/a2_alphabeta/alphabeta.ipynb"
    assert findings[0].similarity >= 0.9


def _pasted_library_alphabeta() -> str:
    """course/search/alphabeta.py's search, pasted into the answer cell and lightly disguised."""
    source = (ROOT / "course" / "search" / "alphabeta.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    search = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_search")
    body = ast.get_source_segment(source, search)
    body = _rename(body, {"_search": "my_search", "value": "visit", "alpha": "lo", "beta": "hi",
                          "child_value": "child", "is_max": "maxing", "reason": "why"})
    body = "\n".join(line for line in body.splitlines() if not line.strip().startswith("#"))
    return ("from course.search._context import SearchContext, first_best\n\n"
            + body + "\n\n\n"
            "def alphabeta_decision(game, state):\n"
            "    result = my_search('ab', SearchContext(game), state, epsilon=None)\n"
            "    return result.value, result.move\n")


def test_the_reference_alphabeta_pasted_into_an_answer_cell_is_flagged(submitted):
    _submit(submitted, "ann", "a2_alphabeta", {"a2-alphabeta": _pasted_library_alphabeta()})
    _submit(submitted, "bob", "a2_alphabeta", {"a2-alphabeta": HONEST_ALPHABETA["aima-helpers"]})
    findings = audit_copies(ROOT, submitted, "a2_alphabeta")
    assert [(f.who, f.other, f.kind) for f in findings] == [("ann", "course/search/alphabeta.py", "reference")]
    assert findings[0].similarity >= 0.8


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_untouched_release_stubs_are_not_flagged(submitted, assignment):
    for student in ("ann", "bob", "cat"):
        _submit(submitted, student, assignment)
    assert audit_copies(ROOT, submitted, assignment) == []


def test_the_same_one_line_formula_is_too_trivial_to_flag(submitted):
    formula = 'def best_case_leaves(b, d):\n    return b ** math.ceil(d / 2) + b ** (d // 2) - 1\n'
    for student in ("ann", "bob"):
        _submit(submitted, student, "a5_ordering", {"a5-best-case": formula})
    assert audit_copies(ROOT, submitted, "a5_ordering") == []


@pytest.mark.parametrize("group", ["minimax", "alphabeta"])
def test_different_honest_implementations_are_not_flagged(group):
    answers = {"minimax": HONEST_MINIMAX, "alphabeta": HONEST_ALPHABETA}[group]
    stubs = [_answer_cells(_release(a)[1])[0]["source"] for a in ("a1_minimax", "a2_alphabeta")]
    stubs = ["".join(s) if isinstance(s, list) else s for s in stubs]
    assert find_copies(answers, reference_code(ROOT), boilerplate=stubs) == []
    # Some do share the textbook's structure, and it shows: the threshold is not far above.
    shared = find_copies(answers, reference_code(ROOT), boilerplate=stubs, threshold=0.0)
    assert all(f.similarity < DEFAULT_THRESHOLD for f in shared)


def test_findings_are_frozen_sorted_and_in_range():
    code = HONEST_ALPHABETA["inner-function"]
    findings = find_copies({"ann": code, "bob": _disguise(code), "cat": code},
                           {"model": code}, threshold=0.0)
    assert findings == sorted(findings, key=lambda f: -f.similarity)
    assert all(isinstance(f, Finding) and 0 <= f.similarity <= 1 and f.kind in ("student", "reference")
               for f in findings)
    assert {(f.who, f.other) for f in findings if f.similarity >= DEFAULT_THRESHOLD} == {
        ("ann", "bob"), ("ann", "cat"), ("bob", "cat"), ("ann", "model"), ("bob", "model"), ("cat", "model")}
    with pytest.raises(dataclasses.FrozenInstanceError):
        findings[0].similarity = 0.0  # type: ignore[misc]
    assert str(findings[0]) == findings[0].line
    with pytest.raises(ValueError):
        find_copies({}, {}, threshold=1.5)


def test_unreadable_notebooks_are_skipped_with_a_note(submitted, caplog):
    original = HONEST_ALPHABETA["inner-function"]
    _submit(submitted, "ann", "a2_alphabeta", {"a2-alphabeta": original})
    _submit(submitted, "bob", "a2_alphabeta", {"a2-alphabeta": original})
    broken = {
        "cut": "{\"cells\": [",
        "list": "[1, 2, 3]",
        "nocells": json.dumps({"cells": "none"}),
        "weirdcells": json.dumps({"cells": [1, None, {"cell_type": "code", "metadata": []},
                                            {"cell_type": "code", "source": 3,
                                             "metadata": {"nbgrader": {"solution": True}}}]}),
    }
    for student, text in broken.items():
        folder = submitted / student / "a2_alphabeta"
        folder.mkdir(parents=True)
        (folder / "alphabeta.ipynb").write_text(text, encoding="utf-8")
    binary = submitted / "dan" / "a2_alphabeta" / "alphabeta.ipynb"
    binary.parent.mkdir(parents=True)
    binary.write_bytes(b"\xff\xfe\x00garbage")
    (submitted / "eve" / "a2_alphabeta" / "alphabeta.ipynb").mkdir(parents=True)  # a folder: walked, empty
    syntax = _submit(submitted, "fay", "a2_alphabeta", {"a2-alphabeta": "def alphabeta_decision(game, state:\n    '''"})
    (submitted / "loose-file.txt").write_text("not a student", encoding="utf-8")
    notes: list[str] = []
    findings = audit_copies(ROOT, submitted, "a2_alphabeta", notes=notes)
    assert [(f.who, f.other) for f in findings if f.kind == "student"] == [("ann", "bob")]
    skipped = {note.split("/")[0].split()[-1] for note in notes}
    assert skipped == {"cut", "list", "nocells", "dan"}
    assert all("cannot be read" in note for note in notes)
    assert syntax.exists() and "cannot be read" in caplog.text
    assert audit_copies(ROOT, submitted / "missing", "a2_alphabeta") == []


# --------------------------------------------------------------------------- dodging the audit
# Each attack below went unnoticed before (audit_copies returned [] for the first two, and the
# padded submission took 29 s on this machine, 62 s on the class of the issue).


def _with_extra_cell(path: Path, code: str) -> None:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    notebook["cells"].append({"cell_type": "code", "metadata": {}, "execution_count": None,
                              "outputs": [], "source": code})
    path.write_text(json.dumps(notebook), encoding="utf-8")


def test_a_copy_in_an_extra_cell_is_found(submitted):
    _with_extra_cell(_submit(submitted, "ann", "a2_alphabeta"), _pasted_library_alphabeta())
    _submit(submitted, "bob", "a2_alphabeta", {"a2-alphabeta": HONEST_ALPHABETA["aima-helpers"]})
    findings = audit_copies(ROOT, submitted, "a2_alphabeta")
    assert [(f.who, f.other) for f in findings] == [("ann", "course/search/alphabeta.py")]


def test_a_copy_in_a_python_file_beside_the_notebook_is_found(submitted):
    _submit(submitted, "ann", "a2_alphabeta", {"a2-alphabeta": "from helpers import alphabeta_decision"})
    (submitted / "ann" / "a2_alphabeta" / "lib").mkdir()
    (submitted / "ann" / "a2_alphabeta" / "lib" / "helpers.py").write_text(_pasted_library_alphabeta())
    findings = audit_copies(ROOT, submitted, "a2_alphabeta")
    assert [(f.who, f.other) for f in findings] == [("ann", "course/search/alphabeta.py")]


def test_untouched_demo_and_test_cells_are_not_counted_as_written(submitted):
    path = _submit(submitted, "ann", "a2_alphabeta", {"a2-alphabeta": HONEST_ALPHABETA["aima-helpers"]})
    written = student_code(path, given=given_code(ROOT, "a2_alphabeta"))
    assert "def max_value(s, alpha, beta):" in written
    assert "assert" not in written and "draw_tree" not in written


PACKINGS = {
    "base64+zlib": lambda code: "import base64, zlib\nexec(zlib.decompress(base64.b64decode("
                                f"{base64.b64encode(zlib.compress(code.encode())).decode()!r})).decode())",
    "bound to a name": lambda code: f"import base64, zlib\nBLOB = {base64.b64encode(zlib.compress(code.encode()))!r}\n"
                                    "SRC = zlib.decompress(base64.b64decode(BLOB))\nexec(SRC)",
    "hex, built at run time": lambda code: f"import binascii\nparts = [{code.encode().hex()!r}]\n"
                                           "exec(binascii.unhexlify(''.join(parts)))",
    "rot13": lambda code: f"import codecs\nexec(codecs.decode({codecs.encode(code, 'rot13')!r}, 'rot13'))",
    "a plain string": lambda code: f"exec({code!r})",
    "lzma, reversed": lambda code: f"import lzma\nexec(lzma.decompress({lzma.compress(code.encode())[::-1]!r}[::-1]))",
    "a literal nobody decodes in sight": lambda code: "import base64, zlib, sys\n"
        f"KEY = {base64.b64encode(zlib.compress(code.encode())).decode()!r}\n"
        "exec(zlib.decompress(base64.b64decode(getattr(sys.modules[__name__], 'KEY'))))",
}


@pytest.mark.parametrize("packing", sorted(PACKINGS))
def test_a_copy_packed_into_a_string_and_run_is_unpacked_and_found(submitted, packing):
    _submit(submitted, "ann", "a2_alphabeta", {"a2-alphabeta": PACKINGS[packing](_pasted_library_alphabeta())})
    notes: list[str] = []
    findings = audit_copies(ROOT, submitted, "a2_alphabeta", notes=notes)
    assert [(f.who, f.other) for f in findings] == [("ann", "course/search/alphabeta.py")]
    assert any("alphabeta.ipynb cell" in n and "exec of" in n for n in notes)
    assert any("of Python, compared as code" in n for n in notes)


def test_hidden_code_is_never_run(submitted, tmp_path):
    marker = tmp_path / "ran"
    payload = f"open({str(marker)!r}, 'w').write('x')\n" + _pasted_library_alphabeta()
    _submit(submitted, "ann", "a2_alphabeta", {"a2-alphabeta": PACKINGS["base64+zlib"](payload)})
    assert audit_copies(ROOT, submitted, "a2_alphabeta")
    assert not marker.exists()


def test_a_decompression_bomb_in_a_string_is_capped(submitted):
    bomb = base64.b64encode(zlib.compress(b"x = 1\n" * (20 * 2**20 // 6), 9)).decode()   # 20 MB inflated
    _submit(submitted, "ann", "a2_alphabeta", {"a2-alphabeta": f"import zlib, base64\nexec(zlib.decompress(base64.b64decode({bomb!r})))"})
    notes: list[str] = []
    started = time.monotonic()
    assert audit_copies(ROOT, submitted, "a2_alphabeta", notes=notes) == []
    assert time.monotonic() - started < 30
    assert any("exec of a string built at run time" in n for n in notes)


def test_a_padded_submission_is_cut_and_the_audit_stays_quick(submitted):
    padding = "\n".join(f"def f{i}(x):\n    return x * {i} + {i * 7} - len(str(x)) // {i + 1}\n" for i in range(60000))
    _submit(submitted, "ann", "a2_alphabeta", {"a2-alphabeta": _pasted_library_alphabeta() + "\n" + padding})
    _submit(submitted, "bob", "a2_alphabeta", {"a2-alphabeta": HONEST_ALPHABETA["aima-helpers"]})
    notes: list[str] = []
    started = time.monotonic()
    audit_copies(ROOT, submitted, "a2_alphabeta", notes=notes)
    # 4 MB of code: 29 s before the cut, about 1 s after on an idle machine (generous: CI is loaded).
    assert time.monotonic() - started < 15
    assert any("ann/a2_alphabeta: more than 100,000 characters" in n for n in notes)


def test_the_audit_stops_at_its_time_limit(submitted):
    for student in ("ann", "bob", "cat"):
        _submit(submitted, student, "a2_alphabeta", {"a2-alphabeta": HONEST_ALPHABETA["aima-helpers"]})
    audit = audit_assignment(ROOT, submitted, "a2_alphabeta", time_limit=0.0)
    assert audit.findings == []
    # reading and unpacking count against the limit too (issue 29): nobody was read, and each
    # student is named as not audited
    assert sorted(audit.incomplete) == ["ann", "bob", "cat"]
    assert all("time limit" in why for why in audit.incomplete.values())
    assert any("audit incomplete for ann, bob, cat" in n for n in audit.notes)
    import time

    from course.grading.term.results.similarity import find_copies
    notes: list[str] = []
    codes = {s: HONEST_ALPHABETA["aima-helpers"] for s in ("ann", "bob", "cat")}
    assert find_copies(codes, {}, deadline=time.monotonic() - 1, notes=notes) == []
    assert any("time limit reached" in n and "pairs not compared" in n for n in notes)
    assert audit_assignment(ROOT, submitted, "a2_alphabeta").findings   # without the limit: all alike


# --------------------------------------------------------------------------- the report


def _class_of(submitted: Path, size: int, copied: dict[str, str]) -> None:
    """``size`` students: four honest, independent answers, short distinct ones (too trivial to
    compare), and ``copied`` = {student: code} for the copiers."""
    honest = ["aima-helpers", "aima-helpers-2", "generator-loop", "negamax-window"]
    for number in range(size):
        student = f"s{number:02d}"
        if student in copied:
            answer = copied[student]
        elif number < len(honest):
            answer = HONEST_ALPHABETA[honest[number]]
        else:
            answer = f"def alphabeta_decision(game, state):\n    return decide_{number}(game, state)\n"
        _submit(submitted, student, "a2_alphabeta", {"a2-alphabeta": answer})


def test_a_class_gets_groups_in_one_file_and_one_console_line(submitted, tmp_path):
    from course.grading.term.course_dir import CourseLayout
    from course.grading.term.results.copy_report import COPIES_HTML_PATH, COPIES_PATH, report_copies

    shared = HONEST_ALPHABETA["inner-function"]
    ring = {f"s{n:02d}": _rename(shared, {"node": f"n{n}", "best": f"b{n}"}) for n in range(10, 16)}
    _class_of(submitted, 31, {**ring, "s20": _pasted_library_alphabeta(), "s21": _disguise(_pasted_library_alphabeta())})
    layout = CourseLayout(root=ROOT, submitted=submitted, autograded=tmp_path / "autograded",
                          **{k: tmp_path / k for k in CourseLayout.__dataclass_fields__
                             if k not in ("root", "submitted", "autograded")})
    lines: list[str] = []
    audits = report_copies(layout, ["a2_alphabeta"], lines.append)
    assert len(lines) == 1, lines
    pairs = len(audits[0].findings)
    assert pairs > 15                       # one line per pair, as before, would be this many
    assert lines[0].startswith("copy audit: 2 groups (8 students)") and "copies.html" in lines[0]
    document = json.loads((layout.autograded / COPIES_PATH).read_text())
    groups = document["assignments"]["a2_alphabeta"]["groups"]
    assert [g["students"] for g in groups] == [sorted(ring), ["s20", "s21"]]
    assert groups[1]["references"] == ["course/search/alphabeta.py"]
    page = (layout.autograded / COPIES_HTML_PATH).read_text()
    assert page.count("<mark>") > 10 and "Group 2: s20, s21" in page


def test_the_report_page_shows_hostile_names_and_code_as_text(submitted, tmp_path):
    from course.grading.term.results.copy_report import write_copy_report

    hostile = "</pre><script>alert(1)</script><img src=x onerror=alert(2)>"
    code = f"# {hostile}\n" + HONEST_ALPHABETA["inner-function"] + f"\nNOTE = {hostile!r}\n"
    for student in ("ann", "bob"):
        _submit(submitted, student, "a2_alphabeta", {"a2-alphabeta": code})
    audit = audit_assignment(ROOT, submitted, "a2_alphabeta")
    audit.codes[hostile] = audit.codes.pop("ann")
    audit.findings[:] = [dataclasses.replace(f, who=hostile) for f in audit.findings]
    audit.hidden[hostile] = [hostile]
    audit.notes.append(hostile)
    _, page_path = write_copy_report(tmp_path, [audit])
    page = page_path.read_text()
    assert "<script" not in page and "<img" not in page and "onerror=alert(2)>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "Content-Security-Policy" in page and "default-src 'none'" in page


def _texts_for_overlap():
    """Codes to compare: the honest answers, each also renamed, cut, padded and shuffled."""
    import random

    rng = random.Random(7)
    texts = list(HONEST_MINIMAX.values())
    for code in list(texts):
        lines = code.strip().splitlines()
        texts.append("\n".join(lines[: max(2, len(lines) // 2)]))
        texts.append(code.replace("state", "s").replace("game", "g") + "\nx = [1, 2, 3]\n")
        shuffled = lines[:]
        rng.shuffle(shuffled)
        texts.append("\n".join(shuffled))
    return texts


@pytest.mark.parametrize("boilerplate", [False, True])
def test_the_overlap_is_copydetects(boilerplate):
    """The audit's own overlap (no NumPy array per shared k-gram) gives copydetect's numbers:
    every pair of a set of related codes, both ways, with and without boilerplate removed."""
    import numpy as np
    from copydetect import compare_files

    from course.grading.term.results.similarity import _fingerprint, _overlap

    texts = _texts_for_overlap()
    stub = np.unique(np.array(sorted(_fingerprint(texts[0]).hashes))) if boilerplate else None
    prints = [_fingerprint(t, stub) for t in texts]
    compared = 0
    for a in prints:
        for b in prints:
            if not a.hashes or not b.hashes:
                continue
            shared, (sim_a, sim_b), _ = compare_files(a, b)
            want = (min(1.0, float(sim_a)), min(1.0, float(sim_b)), int(shared))
            assert _overlap(a, b) == want
            compared += 1
    assert compared >= 100


@pytest.mark.parametrize("seed", range(20))
def test_the_tokens_covered_are_copydetects(seed):
    """Random shared positions (gaps of every size around ``k``, positions under several hashes):
    the tokens covered are the length of copydetect's copied slices."""
    import random

    import numpy as np
    from copydetect.utils import get_copied_slices

    from course.grading.term.results.similarity import _covered

    rng = random.Random(seed)
    k = rng.randint(1, 30)
    where: dict[int, list[int]] = {}
    position = rng.randint(0, 5)
    for _ in range(rng.randint(1, 60)):
        where.setdefault(rng.randint(0, 25), []).append(position)
        position += rng.choice([1, 1, 2, k - 2, k - 1, k, k + 1, 3 * k])
    shared = {h for h in where if rng.random() < 0.7} or set(where)
    idx = np.concatenate([np.array(where[h]) for h in shared])
    slices = get_copied_slices(idx, k)
    assert _covered(where, shared, k) == int(np.sum(slices[1] - slices[0]))


def test_code_searched_once_is_charged_to_each_submissions_budget(tmp_path):
    """The audit searches each text for hidden code once and reuses what it found; the steps are
    still charged to every submission's budget, so a submission whose budget would run out runs
    out as before: two identical cells, a budget that fits one search but not two."""
    import nbformat

    from course.grading.term.results import hidden_code, similarity

    packed = ("import base64\n"
              "exec(base64.b64decode('" + base64.b64encode(HONEST_MINIMAX["recursive"].encode()).decode()
              + "'))\n")
    budget = hidden_code.Budget()
    hidden_code.find_hidden_code(packed, budget=budget)
    steps = budget.steps - budget.left
    assert steps > 1
    folder = tmp_path / "ann" / "a1"
    folder.mkdir(parents=True)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(packed), nbformat.v4.new_code_cell(packed)]
    nbformat.write(nb, folder / "a1.ipynb")

    def read(searched, max_steps):
        defaults = hidden_code.Budget.__init__.__defaults__
        hidden_code.Budget.__init__.__defaults__ = (max_steps, None)
        try:
            return similarity._read_submission(folder, [], lambda text: None, "ann/a1",
                                               searched=searched)
        finally:
            hidden_code.Budget.__init__.__defaults__ = defaults

    for max_steps in (steps + steps // 2, 3 * steps):
        alone = read(None, max_steps)
        searched: dict = {}
        first = read(searched, max_steps)
        again = read(searched, max_steps)              # every search now found in the memo
        assert alone == first == again
        assert bool(alone[2]) is (max_steps < 2 * steps), alone[2]
