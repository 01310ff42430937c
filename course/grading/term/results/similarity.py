"""Flag submissions whose code is a near-copy of the reference searches or of another student's.

For the instructor's audit only: a finding is a pair of texts to look at side
by side, never evidence and never a change of score.

The comparison is `copydetect <https://github.com/blingenf/copydetect>`_'s,
the winnowing of MOSS (Schleimer, Wilkerson & Aiken 2003) over pygments
tokens: names become ``V``/``F``, strings ``S``, comments and layout vanish,
and two texts are compared by the hashed k-grams of what is left.  Renaming
variables, rewording comments and reformatting therefore change nothing.

* :func:`student_code` -- the code of every cell of a notebook that the student
  wrote or changed, without the release's stub lines and without comments;
* :func:`given_code` -- the release's code cells, which every student has;
* :func:`reference_code` -- the reference searches (``course/search``) and the
  model answers of ``solutions/``;
* :func:`find_copies` -- compare submissions with each other and with the
  references, per assignment; returns :class:`Finding` objects;
* :func:`audit_assignment` -- the same for ``submitted/<student>/<assignment>/``:
  every notebook and ``.py`` file there, code hidden in strings unpacked
  (:mod:`.hidden_code`), each submission cut at :data:`MAX_CODE_CHARS`, the
  comparison stopped at a time limit; :func:`audit_copies` -- its findings.
  :mod:`.copy_report` groups them and writes the report.

Code that every student is given (the function header and docstring of the
release's answer cells, a constant such as ``LINES``) is *boilerplate*: its
k-grams are discarded before comparing, as MOSS's ``-b`` option does, so that
two untouched stubs, or two honest answers sharing the given header, do not
look alike.  Code shorter than ``min_tokens`` tokens (a one-line formula that
every correct answer writes the same way) is not compared at all.

**The threshold.**  The similarity of a pair is the fraction of one side's
fingerprinted tokens that lie in k-grams also found in the other (k = 25
characters of copydetect's filtered text, about 8-10 tokens, its default):
for two students the larger of the two fractions, for a student and a
reference the student's.  Measured on independent honest answers written for
the purpose (kept in ``tests/test_similarity.py``):

==========================================================  ===========
pair                                                        similarity
==========================================================  ===========
minimax: recursive / iterative (explicit stack)             0.00
minimax: recursive / AIMA max_value-min_value helpers       0.00
minimax: recursive / negamax, recursive / running best      0.00, 0.36
alpha-beta: one inner function / AIMA helpers               0.31
alpha-beta: AIMA helpers / AIMA helpers (other student)     0.51
alpha-beta: one inner function / negamax, / class + loop    0.19, 0.20
alpha-beta honest answers / the model answer of a2          0.09-0.62
minimax honest answers / the model answers                  0.00-0.37
the model answer, renamed, recommented, reformatted         0.94-1.00
a student's answer, renamed, recommented, reformatted       1.00
``alphabeta.py``'s search pasted, renamed, uncommented      0.90
the same in an extra cell, a ``.py`` file, a packed string  0.86-0.89
pycode_similar (AST diff) on the two AIMA-helper answers    0.78
==========================================================  ===========

The highest honest figure, 0.62, is an answer following the textbook's
MAX-VALUE/MIN-VALUE pseudocode, which the model answer follows too; the
default threshold, 0.7, sits between it and the copies.  Limits: code
rewritten line by line (every name *and* every expression changed, the
reference's helpers replaced by others) is not found -- ``alphabeta.py``'s
search adapted to the notebook's ``game`` API scores 0.41 -- and two students
who both transcribe the textbook can approach the threshold.  A finding is a
reason to look, nothing more.
"""

from __future__ import annotations

import functools
import io
import itertools
import json
import logging
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "Finding",
    "student_code",
    "reference_code",
    "find_copies",
    "audit_copies",
    "audit_assignment",
    "Audit",
    "given_code",
    "DEFAULT_THRESHOLD",
    "DEFAULT_MIN_TOKENS",
    "REFERENCE_SEARCHES",
]

log = logging.getLogger(__name__)

#: Report pairs at least this similar (see the module notes for how it was chosen).
DEFAULT_THRESHOLD = 0.7
#: Code with fewer pygments tokens (names, keywords, operators, literals) is not compared.
DEFAULT_MIN_TOKENS = 40
#: copydetect's k-gram length, in characters of its filtered token text (its default noise threshold).
NOISE_K = 25
#: A notebook larger than this (bytes) is not read (its outputs, not code, would make it so big).
MAX_NOTEBOOK_BYTES = 20 * 2**20
#: A ``.py`` file larger than this (bytes) is not read.
MAX_FILE_BYTES = 2**20
#: At most this many files of one submission are read (notebooks and ``.py`` files, in name order).
MAX_FILES = 50
#: Of each submission, at most this many characters of code are compared (the course's answers
#: are 1-5 kB; a submission padded to megabytes would otherwise take a minute).
MAX_CODE_CHARS = 100_000
#: An audit of one assignment stops after this many seconds, reading and unpacking included (the
#: students not read and the pairs not compared are noted).
DEFAULT_TIME_LIMIT = 300.0
#: The most seconds the search for code hidden in strings may take on one submission (besides
#: its budget of steps, :data:`.hidden_code.MAX_STEPS`).
SUBMISSION_TIME_LIMIT = 20.0
#: The reference searches, relative to the ``course`` package's parent folder.
REFERENCE_SEARCHES = ("course/search/minimax.py", "course/search/alphabeta.py", "course/search/bab.py")

_BEGIN = "### BEGIN SOLUTION"
_END = "### END SOLUTION"
_STUB_LINE = re.compile(r"^\s*(###\s*(BEGIN|END)\s+SOLUTION|raise\s+NotImplementedError(\(\s*\))?)\s*$")
_MAGIC_LINE = re.compile(r"^\s*[%!]")
_HIDDEN_REGION = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS[ \t]*\n.*?^[ \t]*### END HIDDEN TESTS[ \t]*$",
                            re.MULTILINE | re.DOTALL)
_SOLUTION_REGION = re.compile(r"^[ \t]*### BEGIN SOLUTION[ \t]*\n.*?^[ \t]*### END SOLUTION[ \t]*$",
                              re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Finding:
    """One pair of codes that look alike, for the instructor to review.

    Attributes
    ----------
    who : str
        The student whose code was compared.
    other : str
        The other student, or the reference (a path such as
        ``course/search/alphabeta.py``).
    similarity : float
        In [0, 1]: the fraction of code found in the other text (see
        :func:`find_copies`).
    kind : {"student", "reference"}
        What ``other`` is.
    line : str
        One line saying all of the above, for a console or a report.
    shares : tuple of float, optional
        ``(who's, other's)``: the fraction of each side's fingerprinted code found in the
        other (``similarity`` is the larger for two students, the first for a reference).
        The shorter submission is the one with the larger share.
    overlap : int
        How many fingerprinted tokens the two share.
    """

    who: str
    other: str
    similarity: float
    kind: Literal["student", "reference"]
    line: str
    shares: tuple[float, float] | None = None
    overlap: int = 0

    def __str__(self) -> str:
        return self.line


# --------------------------------------------------------------------------- reading code


def _source(cell: Mapping[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _code_cells(notebook_path: str | os.PathLike) -> list[tuple[int, str, bool]]:
    """``(cell number, source, is an answer cell)`` of every code cell of a notebook.

    A cell is an answer cell if its nbgrader metadata says ``"solution": true``.
    Numbers count all cells from 1, as JupyterLab shows them.
    """
    path = Path(notebook_path)
    if path.stat().st_size > MAX_NOTEBOOK_BYTES:
        raise ValueError(f"{path.name} is larger than {MAX_NOTEBOOK_BYTES // 2**20} MB")
    with open(path, encoding="utf-8") as f:
        notebook = json.load(f)
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise ValueError(f"{notebook_path} is not a notebook (no list of cells)")
    cells = []
    for number, cell in enumerate(notebook["cells"], 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        metadata = cell.get("metadata")
        nbgrader = metadata.get("nbgrader") if isinstance(metadata, dict) else None
        answer = isinstance(nbgrader, dict) and nbgrader.get("solution") is True
        cells.append((number, _source(cell), answer))
    return cells


def _answer_cells(notebook_path: str | os.PathLike) -> list[str]:
    """Sources of the code cells whose nbgrader metadata says ``"solution": true``."""
    return [source for _, source, answer in _code_cells(notebook_path) if answer]


def _strip_comments(code: str) -> str:
    """``code`` without comments (and without lines that only held a comment)."""
    import tokenize

    lines = code.splitlines(keepends=True)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        # Not valid Python (an unfinished answer): drop whole-line comments only.
        return "".join(line for line in lines if not line.lstrip().startswith("#"))
    for tok in reversed(tokens):  # from the end, so earlier positions stay valid
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            lines[row - 1] = lines[row - 1][:col].rstrip() + "\n"
    return "".join(line for line in lines if line.strip())


def _clean(code: str) -> str:
    # a class's notebooks hold the same cells many times (the release's, untouched answers)
    return _clean_memo(code) if len(code) <= _MEMO_CHARS else _clean_now(code)


def _clean_now(code: str) -> str:
    kept = [line for line in code.splitlines() if not _STUB_LINE.match(line) and not _MAGIC_LINE.match(line)]
    return _strip_comments("\n".join(kept) + "\n").strip("\n")


#: The longest text whose cleaned code is kept for the next time (the memo holds 4,096 of them).
_MEMO_CHARS = 20_000
_clean_memo = functools.lru_cache(maxsize=4096)(_clean_now)


def _pieces(notebook_path: str | os.PathLike, given: Iterable[str] = (),
            limit: int | None = None) -> list[tuple[str, str]]:
    """``(where, code)`` for each code cell a student wrote or changed (see :func:`student_code`),
    reading at most ``limit`` characters of source in all."""
    given_code = {_clean(text) for text in given}
    name = Path(notebook_path).name
    pieces = []
    for number, source, answer in _code_cells(notebook_path):
        if limit is not None:
            if limit <= 0:
                break
            source, limit = source[:limit], limit - len(source)
        code = _clean(source)
        if code and (answer or code not in given_code):
            pieces.append((f"{name} cell {number}", code))
    return pieces


def student_code(notebook_path: str | os.PathLike, given: Iterable[str] = ()) -> str:
    """The code a student wrote in a notebook, ready to compare.

    Every code cell counts -- the answer cells (nbgrader metadata
    ``"solution": true``) and any cell the student added or changed -- except
    the cells that are exactly as the release gave them (``given``), so that
    a copy cannot hide in an extra cell.  The release's stub lines
    (``### BEGIN SOLUTION``, ``### END SOLUTION``,
    ``raise NotImplementedError()``), IPython magics and shell lines, and all
    comments (``# YOUR CODE HERE`` among them) are removed, so untouched
    stubs do not match each other on them.

    Parameters
    ----------
    notebook_path : str or os.PathLike
        A submitted ``.ipynb`` file.
    given : Iterable[str], optional
        The sources of the release's code cells (:func:`given_code`): a cell
        equal to one of them, comments and stub lines aside, is left out
        unless it is an answer cell.

    Returns
    -------
    str
        The code, one cell after the other, separated by a blank line (empty
        if there is none).

    Raises
    ------
    OSError
        If the file cannot be read.
    ValueError
        If it is not JSON, not a notebook, or larger than
        :data:`MAX_NOTEBOOK_BYTES` (:func:`audit_copies` skips such files
        with a note).

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> cell = {"cell_type": "code", "metadata": {"nbgrader": {"solution": True}},
    ...         "source": ["def f(x):\\n", "    # YOUR CODE HERE\\n",
    ...                    "    return x + 1  # add one\\n", "    raise NotImplementedError()\\n"]}
    >>> demo = {"cell_type": "code", "metadata": {}, "source": "print(f(1))"}
    >>> extra = {"cell_type": "code", "metadata": {}, "source": "g = lambda x: x - 1"}
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.ipynb"
    >>> _ = path.write_text(json.dumps({"cells": [cell, demo, extra]}))
    >>> print(student_code(path, given=["print(f(1))"]))
    def f(x):
        return x + 1
    <BLANKLINE>
    g = lambda x: x - 1
    """
    return "\n\n".join(code for _, code in _pieces(notebook_path, given))


def _solution_regions(code: str) -> str:
    """The lines between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` (all regions)."""
    parts, inside = [], False
    for line in code.splitlines():
        marker = line.strip()
        if marker == _BEGIN:
            inside = True
        elif marker == _END:
            inside = False
        elif inside:
            parts.append(line)
    return "\n".join(parts)


def _default_root() -> Path:
    return Path(__file__).resolve().parents[4]


def reference_code(root: str | os.PathLike | None = None) -> dict[str, str]:
    """The reference texts a submission may have been copied from.

    Parameters
    ----------
    root : str or os.PathLike, optional
        The course directory holding ``solutions/`` (default: the folder above
        the installed ``course`` package, i.e. this repository).

    Returns
    -------
    dict[str, str]
        ``{name: code}``: the reference searches ``course/search/minimax.py``,
        ``alphabeta.py`` and ``bab.py`` (from the installed package), and for
        each ``solutions/<assignment>/<notebook>.ipynb`` the code between
        ``### BEGIN SOLUTION`` and ``### END SOLUTION`` of its answer cells.
        Names are paths relative to ``root`` (to the package's parent for the
        searches), with ``/`` separators.  Missing or unreadable files are
        left out.

    Examples
    --------
    >>> refs = reference_code()
    >>> sorted(refs)[:3]
    ['course/search/alphabeta.py', 'course/search/bab.py', 'course/search/minimax.py']
    >>> "def alphabeta(" in refs["course/search/alphabeta.py"]
    True
    >>> "v >= beta" in refs["solutions/a2_alphabeta/alphabeta.ipynb"]
    True
    """
    package_parent = _default_root()
    root = Path(root) if root is not None else package_parent
    references: dict[str, str] = {}
    for name in REFERENCE_SEARCHES:
        try:
            references[name] = (package_parent / name).read_text(encoding="utf-8")
        except OSError as error:  # pragma: no cover - the package always has them
            log.warning("reference %s not read: %s", name, error)
    for path in sorted((root / "solutions").glob("*/*.ipynb")):
        name = path.relative_to(root).as_posix()
        try:
            answers = [_solution_regions(source) for source in _answer_cells(path)]
        except (OSError, ValueError) as error:
            log.warning("reference %s not read: %s", name, error)
            continue
        code = "\n\n".join(a for a in answers if a.strip())
        if code:
            references[name] = code
    return references


def given_code(root: str | os.PathLike, assignment: str) -> list[str]:
    """What every student of ``assignment`` is given: the release's code cells.

    The source notebooks' code cells (``solutions/<assignment>/``) with their
    solution regions and hidden tests cut out (what ``nbgrader
    generate_assignment`` keeps), falling back on the released notebooks
    (``exercises/<assignment>/``); then the answer cells of each notebook
    joined as :func:`student_code` joins them.

    Parameters
    ----------
    root : str or os.PathLike
        The course directory.
    assignment : str
        E.g. ``"a2_alphabeta"``.

    Returns
    -------
    list of str
        The cells' sources (empty if the assignment has no notebook).

    Examples
    --------
    >>> given = given_code(_default_root(), "a2_alphabeta")
    >>> any(text.startswith("def alphabeta_decision(game, state):") for text in given)
    True
    >>> any("v >= beta" in text for text in given)   # the model answer is not given
    False
    """
    root = Path(root)
    stubs: list[str] = []
    for folder, cut in ((root / "solutions" / assignment, True), (root / "exercises" / assignment, False)):
        for path in sorted(folder.glob("*.ipynb")):
            try:
                cells = _code_cells(path)
            except (OSError, ValueError):
                continue
            given = [(_HIDDEN_REGION.sub("", _SOLUTION_REGION.sub("", s)) if cut else s, answer)
                     for _, s, answer in cells]
            stubs.extend(text for text, _ in given)
            # The answer cells joined as student_code joins them (a notebook's untouched stubs).
            stubs.append("\n\n".join(code for code in (_clean(t) for t, answer in given if answer) if code))
        if stubs:
            break
    return stubs


# --------------------------------------------------------------------------- comparing


def _token_count(code: str) -> int:
    """Pygments tokens other than layout and comments."""
    from pygments import token
    from pygments.lexers import PythonLexer

    return sum(1 for kind, text in PythonLexer().get_tokens(code)
               if text.strip() and kind not in token.Text and kind not in token.Comment)


def _fingerprint(code: str, boilerplate: Any = None) -> Any:
    from copydetect import CodeFingerprint

    return CodeFingerprint("answer.py", NOISE_K, 1, boilerplate=boilerplate,
                           language="python", fp=io.StringIO(code))


def _overlap(a: Any, b: Any) -> tuple[float, float, int]:
    """The fractions of ``a``'s and of ``b``'s fingerprinted tokens found in the other, and
    the number of tokens they share.

    The numbers of copydetect's ``compare_files`` (tests/test_similarity.py checks they are the
    same), computed without its arrays: ``compare_files`` makes a NumPy array for each shared
    k-gram, and a class's audit compares every pair of students.
    """
    if not a.hashes or not b.hashes:
        return 0.0, 0.0, 0
    shared_hashes = a.hashes & b.hashes
    if not shared_hashes:
        return 0.0, 0.0, 0
    covered_a = _covered(a.hash_idx, shared_hashes, a.k)
    covered_b = _covered(b.hash_idx, shared_hashes, b.k)
    sim_a = covered_a / a.token_coverage if len(a.filtered_code) > 0 else 0
    sim_b = covered_b / b.token_coverage if len(b.filtered_code) > 0 else 0
    return min(1.0, float(sim_a)), min(1.0, float(sim_b)), int(covered_a)


def _covered(where: Mapping[int, list[int]], hashes: set[int], k: int) -> int:
    """Tokens covered by the k-grams at the positions of ``hashes`` (copydetect's copied slices:
    positions at most ``k - 1`` apart make one slice, from the first to the last plus ``k``)."""
    positions = sorted(i for h in hashes for i in where[h])
    total, start = 0, positions[0]
    for before, after in zip(positions, positions[1:]):
        if after - before > k - 1:
            total += before + k - start
            start = after
    return total + positions[-1] + k - start


def find_copies(
    submissions: Mapping[str, str],
    references: Mapping[str, str],
    *,
    threshold: float = DEFAULT_THRESHOLD,
    min_tokens: int = DEFAULT_MIN_TOKENS,
    boilerplate: Iterable[str] = (),
    deadline: float | None = None,
    notes: list[str] | None = None,
) -> list[Finding]:
    """Pairs of near-identical code among one assignment's submissions and the references.

    Every pair of students is compared, and every student with every
    reference.  The similarity of two students is the larger of the two
    fractions "tokens of one found in k-grams of the other" (a copy padded
    with extra code is still found); that of a student and a reference is the
    fraction of the *student's* code found in the reference (a reference file
    is much longer than an answer cell).  Renamed names, new comments and new
    layout do not lower it.

    Parameters
    ----------
    submissions : Mapping[str, str]
        ``{student: code}`` for one assignment (e.g. from :func:`student_code`).
    references : Mapping[str, str]
        ``{name: code}`` (e.g. :func:`reference_code`).
    threshold : float
        Report pairs whose similarity is at least this (0 to 1).
    min_tokens : int
        Code with fewer pygments tokens than this, not counting the lines
        it shares with the boilerplate, is too trivial to compare and is
        skipped (an untouched stub, a one-line formula).
    boilerplate : Iterable[str]
        Code every student is given (the release's answer-cell stubs): its
        k-grams are ignored, in submissions and references alike.
    deadline : float, optional
        A :func:`time.monotonic` time after which no more pairs are compared
        (the findings so far are returned, and ``notes`` says how many pairs
        were left).
    notes : list of str, optional
        Receives a line if the deadline stopped the comparison.

    Returns
    -------
    list[Finding]
        Most similar first (ties by kind, student, other).  Empty if nothing
        reaches the threshold.

    Examples
    --------
    >>> honest = '''
    ... def minimax_value(game, state):
    ...     if game.is_terminal(state):
    ...         return game.utility(state)
    ...     values = [minimax_value(game, game.result(state, m)) for m in game.moves(state)]
    ...     if game.turn(state) is Player.MAX:
    ...         return max(values)
    ...     return min(values)
    ... '''
    >>> renamed = '''
    ... def minimax_value(g, s):
    ...     # a base case first
    ...     if g.is_terminal(s): return g.utility(s)
    ...     vals = [minimax_value(g, g.result(s, mv))
    ...             for mv in g.moves(s)]
    ...     if g.turn(s) is Player.MAX: return max(vals)
    ...     return min(vals)
    ... '''
    >>> [f.line for f in find_copies({"ann": honest, "bob": renamed}, {})]
    ["ann ~ bob: 100% of ann's answer code is also in student bob's"]
    >>> find_copies({"ann": honest, "bob": "def minimax_value(game, state):\\n    pass"}, {})
    []
    """
    if not 0 <= threshold <= 1:
        raise ValueError(f"threshold must be between 0 and 1, not {threshold!r}")
    stubs = [code for code in boilerplate if code and code.strip()]
    given_lines = {line.strip() for code in stubs for line in _clean(code).splitlines() if line.strip()}
    boilerplate_hashes = None
    if stubs:
        import numpy as np

        # As given, and as student_code leaves it (stub lines and comments gone).
        hashes = set().union(*(_fingerprint(text).hashes for code in stubs for text in (code, _clean(code))))
        boilerplate_hashes = np.unique(np.array(sorted(hashes))) if hashes else None

    made: dict[str, Any] = {}            # code -> its fingerprint, or None (too short, empty)

    def prints(texts: Mapping[str, str]) -> dict[str, Any]:
        kept = {}
        for name, code in texts.items():
            if code not in made:
                own = "\n".join(line for line in code.splitlines() if line.strip() not in given_lines)
                fingerprint = None
                if _token_count(own) >= min_tokens:
                    fingerprint = _fingerprint(code, boilerplate_hashes)
                made[code] = fingerprint if fingerprint is not None and fingerprint.hashes else None
            if made[code] is not None:
                kept[name] = made[code]
        return kept

    students = prints(submissions)
    refs = prints(references)
    pairs = [(a, b, "student") for a, b in itertools.combinations(sorted(students), 2)]
    pairs += [(who, name, "reference") for who in sorted(students) for name in sorted(refs)]
    findings: list[Finding] = []
    compared: dict[tuple[int, int], tuple[float, float, int]] = {}   # the same two codes: once

    def overlap(x: Any, y: Any) -> tuple[float, float, int]:
        key = (id(x), id(y))
        if key not in compared:
            compared[key] = _overlap(x, y)
        return compared[key]

    for done, (a, b, kind) in enumerate(pairs):
        if deadline is not None and time.monotonic() > deadline:
            if notes is not None:
                notes.append(f"copies: time limit reached, {len(pairs) - done} of {len(pairs)} pairs "
                             f"not compared")
            break
        if kind == "student":
            sim_a, sim_b, shared = overlap(students[a], students[b])
            similarity = max(sim_a, sim_b)
            if similarity >= threshold:
                copied, source = (a, b) if sim_a >= sim_b else (b, a)
                findings.append(Finding(a, b, similarity, "student",
                                        f"{a} ~ {b}: {similarity:.0%} of {copied}'s answer code "
                                        f"is also in student {source}'s", (sim_a, sim_b), shared))
        else:
            similarity, sim_ref, shared = overlap(students[a], refs[b])
            if similarity >= threshold:
                findings.append(Finding(a, b, similarity, "reference",
                                        f"{a} ~ {b}: {similarity:.0%} of {a}'s answer code "
                                        f"is also in reference {b}", (similarity, sim_ref), shared))
    findings.sort(key=lambda f: (-f.similarity, f.kind, f.who, f.other))
    return findings


@dataclass
class Audit:
    """The copy audit of one assignment.

    Attributes
    ----------
    assignment : str
        The assignment audited.
    findings : list[Finding]
        The pairs at or above the threshold, most similar first.
    hidden : dict[str, list[str]]
        Per student, where their code runs code from strings or packs code
        into them (:mod:`.hidden_code`), one note each.
    notes : list[str]
        Files skipped, code cut at :data:`MAX_CODE_CHARS`, a time limit reached.
    codes : dict[str, str]
        The code compared, per student (for the report).
    references : dict[str, str]
        The reference texts compared.
    seconds : float
        How long the audit took.
    incomplete : dict[str, str]
        Per student whose submission was not audited in full, why (the search for hidden code
        ran out of its budget, the audit's time limit came first): a reason to look at it.
    """

    assignment: str
    findings: list[Finding]
    hidden: dict[str, list[str]]
    notes: list[str]
    codes: dict[str, str]
    references: dict[str, str]
    seconds: float
    incomplete: dict[str, str] = field(default_factory=dict)


def _submission_files(folder: Path) -> list[Path]:
    """The notebooks and ``.py`` files under ``folder``, no links followed, in name order."""
    found: list[Path] = []
    for here, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        for name in sorted(files):
            path = Path(here) / name
            if path.suffix in (".ipynb", ".py") and not path.is_symlink() and path.is_file():
                found.append(path)
    return sorted(found, key=lambda p: (p.suffix != ".ipynb", p.relative_to(folder).as_posix()))


def _read_submission(folder: Path, given: list[str], note: Callable[[str], None],
                     label: str, deadline: float | None = None,
                     searched: dict[str, tuple[list[str], str, int]] | None = None
                     ) -> tuple[str, list[str], str]:
    """The code of one student's submission folder, the notes on code hidden in strings, and why
    the search for hidden code was not finished ("" if it was).

    The search has a budget of steps (:data:`.hidden_code.MAX_STEPS`) and of time
    (:data:`SUBMISSION_TIME_LIMIT`, and the audit's ``deadline``) for the whole submission.
    ``searched`` keeps, for each code searched to the end, what was found and the steps it took:
    the same code in another submission is not searched again, its steps are charged to that
    submission's budget (a search that would not fit in what is left runs, and stops, as before).
    """
    from .hidden_code import Budget, SearchIncomplete, find_hidden_code

    limit = time.monotonic() + SUBMISSION_TIME_LIMIT
    budget = Budget(deadline=limit if deadline is None else min(limit, deadline))
    unfinished = ""

    files = _submission_files(folder)
    if len(files) > MAX_FILES:
        note(f"copies: {label}: only the first {MAX_FILES} of {len(files)} files read")
        files = files[:MAX_FILES]
    pieces: list[tuple[str, str]] = []
    room = 2 * MAX_CODE_CHARS           # of source read (comments and stubs go before comparing)
    for path in files:
        if room <= 0:
            break
        found: list[tuple[str, str]] = []
        where = path.relative_to(folder).as_posix()
        try:
            if path.suffix == ".ipynb":
                folder_part = where.rsplit("/", 1)[0] + "/" if "/" in where else ""
                found = _pieces(path, given, room)
                pieces.extend((folder_part + w, code) for w, code in found)
            elif path.stat().st_size > MAX_FILE_BYTES:
                note(f"copies: skipped {label}/{where} (larger than {MAX_FILE_BYTES // 2**10} kB)")
            else:
                found = [(where, _clean(path.read_text(encoding="utf-8", errors="replace")[:room]))]
                pieces.extend((w, c) for w, c in found if c)
            room -= sum(len(c) for _, c in found)
        except (OSError, ValueError, UnicodeDecodeError, RecursionError) as error:
            note(f"copies: skipped {label}/{where} (cannot be read: {type(error).__name__}: {error})")
    hidden: list[str] = []
    unpacked: list[str] = []
    left = MAX_CODE_CHARS
    for where, code in pieces:
        if left <= 0:
            break
        searching = code[:left]
        known = searched.get(searching) if searched is not None else None
        try:
            if known is not None and known[2] <= budget.left and (
                    budget.deadline is None or time.monotonic() <= budget.deadline):
                texts, extra = list(known[0]), known[1]
                budget.left -= known[2]
            else:
                before = budget.left
                texts, extra = find_hidden_code(searching, budget=budget)
                if searched is not None and len(searching) <= _MEMO_CHARS:
                    searched[searching] = (list(texts), extra, before - budget.left)
        except SearchIncomplete as exc:
            texts, extra = exc.found
            unfinished = f"{where}: {exc}"
        hidden.extend(f"{where}, {text}" for text in texts)
        if extra:
            unpacked.append(extra)
        if unfinished:
            hidden.append(f"{where}, the search for code hidden in strings was stopped ({unfinished}): "
                          "look at this submission by hand")
            break
        left -= len(code)
    code = "\n\n".join([c for _, c in pieces] + unpacked)
    if len(code) > MAX_CODE_CHARS or room <= 0:
        note(f"copies: {label}: more than {MAX_CODE_CHARS:,} characters of code; "
             f"only the first {MAX_CODE_CHARS:,} compared")
        code = code[:MAX_CODE_CHARS]
    return code, hidden, unfinished


def audit_assignment(
    root: str | os.PathLike,
    submitted_dir: str | os.PathLike,
    assignment: str,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    min_tokens: int = DEFAULT_MIN_TOKENS,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    deadline: float | None = None,
    progress: Callable[[str], None] | None = None,
) -> Audit:
    """The copy audit of one assignment's submissions: near-copies and code hidden in strings.

    Reads every notebook and ``.py`` file in
    ``<submitted_dir>/<student>/<assignment>/`` (sub-folders included, links
    not followed, at most :data:`MAX_FILES` files): every code cell the
    student wrote or changed (:func:`student_code`, the release's cells being
    ``given``) and every ``.py`` file.  Code run from strings or packed into
    them is noted and unpacked, without running it (:mod:`.hidden_code`), and
    compared as if written out.  Each student's code is cut at
    :data:`MAX_CODE_CHARS` characters; every pair of students and every
    student with :func:`reference_code` of ``root`` is compared
    (:func:`find_copies`, the release's code being boilerplate) until
    ``time_limit`` seconds have passed since it started (reading and
    unpacking count too).  It never raises on a submission: a file that
    cannot be read is skipped, with a note; a submission whose search for
    hidden code ran out of its budget, or that the time limit left unread, is
    in ``incomplete`` with the reason.

    Parameters
    ----------
    root : str or os.PathLike
        The course directory (holding ``solutions/``).
    submitted_dir : str or os.PathLike
        The submissions folder, relative to ``root`` unless absolute
        (nbgrader's ``submitted``).
    assignment : str
        E.g. ``"a2_alphabeta"``.
    threshold, min_tokens
        As for :func:`find_copies`.
    time_limit : float or None
        Seconds after which nothing more is read or compared (None: no limit).
    deadline : float, optional
        A :func:`time.monotonic` time by which the audit stops, if earlier (one deadline for
        the audits of several assignments).
    progress : callable, optional
        Called with each student's id before their submission is read.

    Returns
    -------
    Audit

    Examples
    --------
    >>> import tempfile
    >>> audit = audit_assignment(_default_root(), tempfile.mkdtemp(), "a2_alphabeta")
    >>> audit.findings, audit.hidden, audit.notes
    ([], {}, [])
    """
    started = time.monotonic()
    if time_limit is not None:
        deadline = started + time_limit if deadline is None else min(deadline, started + time_limit)
    root = Path(root)
    submitted = Path(submitted_dir)
    if not submitted.is_absolute():
        submitted = root / submitted
    notes: list[str] = []

    def note(text: str) -> None:
        log.warning("%s", text)
        notes.append(text)

    given = given_code(root, assignment)
    submissions: dict[str, str] = {}
    hidden: dict[str, list[str]] = {}
    incomplete: dict[str, str] = {}
    try:
        student_dirs = sorted(p for p in submitted.iterdir()
                              if p.is_dir() and not p.is_symlink() and not p.name.startswith("."))
    except OSError:
        student_dirs = []
    searched: dict[str, tuple[list[str], str, int]] = {}
    for student_dir in student_dirs:
        folder = student_dir / assignment
        if not folder.is_dir() or folder.is_symlink():
            continue
        who = student_dir.name
        if deadline is not None and time.monotonic() > deadline:
            incomplete[who] = "not read: the audit reached its time limit first"
            continue
        if progress is not None:
            progress(who)
        try:
            code, found, unfinished = _read_submission(folder, given, note, f"{who}/{assignment}",
                                                       deadline, searched)
        except Exception as error:  # noqa: BLE001 - one submission never stops the audit
            note(f"copies: skipped {who}/{assignment} ({type(error).__name__}: {error})")
            incomplete[who] = f"not read ({type(error).__name__})"
            continue
        if unfinished:
            incomplete[who] = f"the search for code hidden in strings was stopped ({unfinished})"
        if found:
            hidden[who] = found
        if code:
            submissions[who] = code
    if incomplete:
        note(f"copies: audit incomplete for {', '.join(sorted(incomplete))} of {assignment}")
    references = reference_code(root)
    try:
        findings = find_copies(submissions, references, threshold=threshold, min_tokens=min_tokens,
                               boilerplate=given, notes=notes, deadline=deadline)
    except Exception as error:  # never stop the grading report on the audit
        note(f"copies: comparison of {assignment} failed ({type(error).__name__}: {error})")
        findings = []
    return Audit(assignment, findings, hidden, notes, submissions, references,
                 round(time.monotonic() - started, 3), incomplete)


def audit_copies(
    root: str | os.PathLike,
    submitted_dir: str | os.PathLike,
    assignment: str,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    min_tokens: int = DEFAULT_MIN_TOKENS,
    notes: list[str] | None = None,
) -> list[Finding]:
    """Near-copies among the submissions of one assignment, and of the references.

    The findings of :func:`audit_assignment`.

    Parameters
    ----------
    root, submitted_dir, assignment, threshold, min_tokens
        As for :func:`audit_assignment`.
    notes : list of str, optional
        Receives its notes (files skipped, code cut, the time limit) and
        its notes on code hidden in strings, one per line.

    Returns
    -------
    list[Finding]
        As :func:`find_copies`: most similar first.

    Examples
    --------
    >>> import tempfile
    >>> audit_copies(_default_root(), tempfile.mkdtemp(), "a2_alphabeta")
    []
    """
    audit = audit_assignment(root, submitted_dir, assignment, threshold=threshold, min_tokens=min_tokens)
    if notes is not None:
        notes.extend(audit.notes)
        notes.extend(f"copies: hidden code in {who}/{assignment}: {text}"
                     for who, texts in sorted(audit.hidden.items()) for text in texts)
    return audit.findings
