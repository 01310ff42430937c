"""Code a submission hides from the copy audit: run from strings, or packed into them.

The copy audit (:mod:`.similarity`) compares code as tokens, and a string is one
token: source code passed to ``exec`` as a string literal, or packed with
base64 and zlib and unpacked at run time, would be invisible to it.  This module
finds such code **without running any of it**:

* :func:`dynamic_calls` -- the calls that run or import code given as data
  (``exec``, ``eval``, ``compile``, ``__import__``, ``importlib.import_module``,
  ``marshal.loads``, ``pickle.loads``, ``types.FunctionType`` ...), found in
  the syntax tree, each with whether its argument is a plain literal or a
  string built at run time;
* :func:`unpack_strings` -- the Python code hidden in the submission's string
  literals: every literal, and every expression made only of literals and a
  small set of pure decoders (``base64``, ``binascii``, ``zlib``, ``gzip``,
  ``bz2``, ``lzma``, ``codecs`` rot13, ``bytes.fromhex``, ``.decode()``,
  concatenation, ``"".join``, reversing ``[::-1]``), is evaluated by this
  module's own interpreter of those operations -- never by Python's -- with
  every intermediate value capped at :data:`MAX_DECODED` bytes, and kept if
  what comes out parses as Python;
* :func:`find_hidden_code` -- both: the notes for the instructor and the
  unpacked code, which the audit adds to the student's code before comparing.

What it cannot see: code built by a computation other than those decoders
(arithmetic on characters, a custom cipher, a string fetched from a file or
the network at grading time).  Such a submission still shows its ``exec`` of a
run-time string in :func:`dynamic_calls`, which is a reason to look at it: the
course's exercises never need one.
"""

from __future__ import annotations

import ast
import base64
import binascii
import bz2
import codecs
import lzma
import tokenize
import io
import zlib
from dataclasses import dataclass

__all__ = ["HiddenCode", "dynamic_calls", "unpack_strings", "find_hidden_code", "MAX_DECODED",
           "Budget", "SearchIncomplete", "MAX_STEPS"]

#: The largest value (bytes or characters) a decoding step may produce; larger ones are dropped.
MAX_DECODED = 1 << 20
#: The most decoding steps tried on one literal (e.g. base64, then zlib, then ``.decode()``).
MAX_DEPTH = 4
#: Literals shorter than this are not tried as packed code.
MIN_PACKED = 32
#: Decoded text with fewer code tokens than this is not reported (a word, a number).
MIN_TOKENS = 12
#: At most this many characters of literals are examined per submission.
MAX_EXAMINED = 2_000_000
#: The work one submission's search may do, in steps: one per expression evaluated, plus one per
#: kB of text each step produces or parses (:class:`Budget`).  An honest submission takes a few
#: hundred; a name folded 4**14 times (``a = "".join([b, b, b, b])``, fourteen levels deep)
#: would take 268 million without memoised names and the cap.
MAX_STEPS = 100_000

# The callables that run, compile or import code given as data, by their last name.
_RUNS_CODE = {"exec", "eval", "compile", "execfile", "__import__", "import_module", "run_path",
              "run_module", "FunctionType", "CodeType", "loads", "load"}
# These count only as the builtins (``re.compile`` is not Python's ``compile``).
_BUILTIN_ONLY = {"exec", "eval", "compile", "execfile", "__import__"}
# ``loads`` / ``load`` count only on these modules (``json.loads`` is harmless).
_LOADERS = {"marshal", "pickle", "dill", "cloudpickle", "_pickle"}


@dataclass(frozen=True)
class HiddenCode:
    """Python code found in a string of a submission.

    Attributes
    ----------
    line : int
        The line of the literal or expression in the code examined.
    how : str
        How it was packed: the decoding steps, e.g. ``"base64 → zlib"``, or
        ``"a string literal"``.
    code : str
        The unpacked Python code.
    """

    line: int
    how: str
    code: str

    @property
    def note(self) -> str:
        """One line for the instructor."""
        lines = len(self.code.splitlines())
        return (f"line {self.line}: {self.how} holds {lines} line{'s' if lines != 1 else ''} "
                f"of Python, compared as code")


# --------------------------------------------------------------------------- calls that run code


def _call_name(func: ast.expr) -> tuple[str, str]:
    """(last name, dotted owner) of a called expression: ``zlib.decompress`` -> ("decompress", "zlib")."""
    if isinstance(func, ast.Name):
        return func.id, ""
    if isinstance(func, ast.Attribute):
        owner = func.value
        parts = []
        while isinstance(owner, ast.Attribute):
            parts.append(owner.attr)
            owner = owner.value
        if isinstance(owner, ast.Name):
            parts.append(owner.id)
        return func.attr, ".".join(reversed(parts))
    if (isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.func.id == "getattr"
            and len(func.args) >= 2 and isinstance(func.args[1], ast.Constant)
            and isinstance(func.args[1].value, str)):
        return func.args[1].value, "getattr"
    return "", ""


def _runs_code(func: ast.expr) -> str:
    name, owner = _call_name(func)
    if name not in _RUNS_CODE:
        return ""
    if name in ("loads", "load") and owner.split(".")[-1] not in _LOADERS:
        return ""
    if name in _BUILTIN_ONLY and owner not in ("", "builtins", "__builtins__", "getattr"):
        return ""          # re.compile, a method named eval: not Python's
    return f"{owner}.{name}" if owner and owner != "getattr" else name


def dynamic_calls(code: str) -> list[str]:
    """The calls in ``code`` that run, compile or import code given as data.

    Parameters
    ----------
    code : str
        Python source (if it does not parse, nothing is found).

    Returns
    -------
    list of str
        One note per call, in order: its line, the callable and what it is
        given -- ``a string literal``, ``a string built at run time`` or
        ``no argument``.

    Examples
    --------
    >>> dynamic_calls("import zlib\\nexec(zlib.decompress(blob))\\nx = eval('1 + 1')")
    ['line 2: exec of a string built at run time', 'line 3: eval of a string literal']
    >>> dynamic_calls("import json\\njson.loads('[1]')")
    []
    """
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    notes = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (what := _runs_code(node.func)):
            if not node.args:
                given = "no argument"
            elif isinstance(node.args[0], ast.Constant):
                if what.split(".")[-1] in ("import_module", "__import__", "run_module"):
                    continue            # importing a module by its written name hides nothing
                given = "a string literal"
            else:
                given = "a string built at run time"
            notes.append((node.lineno, f"line {node.lineno}: {what} of {given}"))
    return [note for _, note in sorted(notes)]


# --------------------------------------------------------------------------- unpacking strings


class _TooBig(Exception):
    pass


class SearchIncomplete(Exception):
    """The search of one submission ran out of its :class:`Budget`; ``found`` holds what it had
    found by then (the notes and the unpacked code, as :func:`find_hidden_code` returns them)."""

    def __init__(self, why: str, found: tuple[list[str], str] = ([], "")) -> None:
        super().__init__(why)
        self.found = found


class Budget:
    """The work one submission's search may do: ``steps`` (:data:`MAX_STEPS`) and a
    :func:`time.monotonic` ``deadline``; :meth:`spend` raises :class:`SearchIncomplete` once
    either is used up.  One budget is shared by every string of a submission.

    >>> budget = Budget(steps=2)
    >>> budget.spend(); budget.spend()
    >>> budget.spend()
    Traceback (most recent call last):
    ...
    course.grading.term.results.hidden_code.SearchIncomplete: the search for code hidden in strings took more than 2 steps
    """

    def __init__(self, steps: int = MAX_STEPS, deadline: float | None = None) -> None:
        self.steps, self.left, self.deadline = steps, steps, deadline

    def spend(self, steps: int = 1) -> None:
        import time

        self.left -= steps
        if self.left < 0:
            raise SearchIncomplete(f"the search for code hidden in strings took more than "
                                   f"{self.steps:,} steps")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise SearchIncomplete("the search for code hidden in strings reached its time limit")

    def spend_text(self, value: bytes | str | None) -> None:
        """One step, and one per kB of ``value``."""
        self.spend(1 + (len(value) >> 10 if value is not None else 0))


def _capped(value: bytes | str) -> bytes | str:
    if len(value) > MAX_DECODED:
        raise _TooBig
    return value


def _as_bytes(value: bytes | str) -> bytes:
    return value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")


def _inflate(data: bytes, wbits: int) -> bytes:
    inflater = zlib.decompressobj(wbits)
    out = inflater.decompress(data, MAX_DECODED + 1)
    return _capped(out)


def _bounded(decompressor: bz2.BZ2Decompressor | lzma.LZMADecompressor, data: bytes) -> bytes:
    return _capped(decompressor.decompress(data, max_length=MAX_DECODED + 1))


def _b64(value: bytes | str, altchars: bytes | None = None) -> bytes:
    data = b"".join(_as_bytes(value).split())
    return base64.b64decode(data, altchars=altchars, validate=True)


# Pure decoders by name (as called in code) -> function of one value.  Each output is capped.
_DECODERS = {
    "b64decode": _b64,
    "standard_b64decode": _b64,
    "urlsafe_b64decode": lambda v: _b64(v, b"-_"),
    "decodebytes": _b64,
    "a2b_base64": _b64,
    "b32decode": lambda v: base64.b32decode(_as_bytes(v)),
    "b16decode": lambda v: base64.b16decode(_as_bytes(v), casefold=True),
    "b85decode": lambda v: base64.b85decode(_as_bytes(v)),
    "a85decode": lambda v: base64.a85decode(_as_bytes(v)),
    "unhexlify": lambda v: binascii.unhexlify(_as_bytes(v)),
    "a2b_hex": lambda v: binascii.unhexlify(_as_bytes(v)),
    "fromhex": lambda v: bytes.fromhex(v if isinstance(v, str) else v.decode("ascii")),
    "decompress": None,  # zlib / gzip / bz2 / lzma: by owner, below
}


def _decompress(owner: str, value: bytes | str) -> bytes:
    data = _as_bytes(value)
    if owner == "bz2":
        return _bounded(bz2.BZ2Decompressor(), data)
    if owner == "lzma":
        return _bounded(lzma.LZMADecompressor(), data)
    if owner == "gzip":
        return _inflate(data, 31)
    return _inflate(data, zlib.MAX_WBITS | 32)   # zlib or gzip header, whichever it has


# The steps tried on a bare literal (no code says how to decode it): name -> function.
_GUESSES = (
    ("base64", _b64),
    ("urlsafe base64", lambda v: _b64(v, b"-_")),
    ("hex", lambda v: binascii.unhexlify(b"".join(_as_bytes(v).split()))),
    ("base85", lambda v: base64.b85decode(_as_bytes(v))),
    ("base32", lambda v: base64.b32decode(_as_bytes(v))),
    ("zlib", lambda v: _inflate(_as_bytes(v), zlib.MAX_WBITS | 32)),
    ("raw deflate", lambda v: _inflate(_as_bytes(v), -zlib.MAX_WBITS)),
    ("bz2", lambda v: _bounded(bz2.BZ2Decompressor(), _as_bytes(v))),
    ("lzma", lambda v: _bounded(lzma.LZMADecompressor(), _as_bytes(v))),
    ("rot13", lambda v: codecs.decode(v, "rot13") if isinstance(v, str) else None),
    ("reversed", lambda v: v[::-1]),
)


def _text(value: bytes | str) -> str | None:
    if isinstance(value, str):
        return value
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _python(text: str | None, budget: Budget | None = None) -> str | None:
    """``text`` if it is Python code worth comparing (parses, has statements of some size)."""
    if not text or "\x00" in text:
        return None
    if budget is not None:
        budget.spend_text(text)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Return,
                                 ast.For, ast.While, ast.If, ast.Assign, ast.Call))
               for node in ast.walk(tree)):
        return None
    try:
        count = sum(1 for tok in tokenize.generate_tokens(io.StringIO(text).readline)
                    if tok.type in (tokenize.NAME, tokenize.OP, tokenize.NUMBER, tokenize.STRING))
    except (tokenize.TokenError, SyntaxError):
        return None
    return text if count >= MIN_TOKENS else None


class _Folder(ast.NodeVisitor):
    """Evaluates an expression made of literals, names bound once to such expressions and the
    pure decoders above -- this module's interpreter, not Python's: anything else is unknown."""

    def __init__(self, names: dict[str, ast.expr], budget: Budget | None = None,
                 memo: dict[str, tuple[bytes | str | None, tuple[str, ...], bool]] | None = None):
        self.names = names
        self.steps: list[str] = []
        self.depth = 0
        self.too_big = False
        self.budget = budget if budget is not None else Budget()
        # a name's value, once folded (with the steps that made it): a name used many times is
        # evaluated once, so names nested in names cost their number, not its power
        self.memo = memo if memo is not None else {}

    def fold(self, node: ast.expr) -> bytes | str | None:
        self.depth += 1
        try:
            if self.depth > 40:
                return None
            value = self._fold(node)
            self.budget.spend_text(value)
            return value
        except _TooBig:
            self.too_big = True
            return None
        except (ValueError, TypeError, binascii.Error, zlib.error, OSError, EOFError,
                lzma.LZMAError, UnicodeError, LookupError, RecursionError, MemoryError):
            return None
        finally:
            self.depth -= 1

    def _fold(self, node: ast.expr) -> bytes | str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            return node.value
        if isinstance(node, ast.Name) and node.id in self.memo:
            value, steps, too_big = self.memo[node.id]
            self.steps.extend(steps)
            self.too_big = self.too_big or too_big
            return value
        if isinstance(node, ast.Name) and node.id in self.names:
            bound = self.names.pop(node.id)          # each name once: no loops
            before, was_too_big = len(self.steps), self.too_big
            self.too_big = False
            try:
                value = self.fold(bound)
            finally:
                self.names[node.id] = bound
            self.memo[node.id] = (value, tuple(self.steps[before:]), self.too_big)
            self.too_big = self.too_big or was_too_big
            return value
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.fold(node.left), self.fold(node.right)
            if left is None or right is None or type(left) is not type(right):
                return None
            return _capped(left + right)
        if isinstance(node, ast.JoinedStr):
            parts = [self.fold(v) if not isinstance(v, ast.Constant) else v.value for v in node.values]
            return "".join(parts) if all(isinstance(p, str) for p in parts) else None
        if isinstance(node, ast.FormattedValue):
            return self.fold(node.value)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            s = node.slice
            if s.lower is None and s.upper is None and isinstance(s.step, ast.UnaryOp) \
                    and isinstance(s.step.op, ast.USub) and isinstance(s.step.operand, ast.Constant) \
                    and s.step.operand.value == 1:
                value = self.fold(node.value)
                if value is not None:
                    self.steps.append("reversed")
                    return value[::-1]
            return None
        if isinstance(node, ast.Call):
            return self._call(node)
        return None

    def _call(self, node: ast.Call) -> bytes | str | None:
        name, owner = _call_name(node.func)
        func = node.func
        if name == "join" and isinstance(func, ast.Attribute) and len(node.args) == 1 \
                and isinstance(node.args[0], (ast.List, ast.Tuple)):
            sep = self.fold(func.value)
            parts = [self.fold(e) for e in node.args[0].elts]
            if sep is None or any(p is None or type(p) is not type(sep) for p in parts):
                return None
            return _capped(sep.join(parts))  # type: ignore[arg-type]
        if name in ("decode", "encode") and isinstance(func, ast.Attribute):
            value = self.fold(func.value)
            if value is None:
                return None
            codec = "utf-8"
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                codec = node.args[0].value
            if codecs.lookup(codec).name in ("rot-13", "rot13"):
                self.steps.append("rot13")
                return codecs.decode(_text(value) or "", "rot13")
            if name == "decode" and isinstance(value, bytes):
                return value.decode(codec)
            if name == "encode" and isinstance(value, str):
                return value.encode(codec)
            return None
        if name == "decode" and owner == "codecs" and len(node.args) >= 2:
            value = self.fold(node.args[0])
            codec = node.args[1].value if isinstance(node.args[1], ast.Constant) else None
            if value is None or not isinstance(codec, str):
                return None
            self.steps.append(codec)
            if codecs.lookup(codec).name in ("rot-13", "rot13"):
                return codecs.decode(_text(value) or "", "rot13")
            if codec in ("hex", "hex_codec", "base64", "base64_codec", "zlib", "zlib_codec", "bz2", "bz2_codec"):
                kind = codec.split("_")[0]
                decoder = {"hex": _DECODERS["unhexlify"], "base64": _b64,
                           "zlib": lambda v: _decompress("zlib", v), "bz2": lambda v: _decompress("bz2", v)}[kind]
                return _capped(decoder(value))
            return None
        if name in ("bytes", "str") and isinstance(func, ast.Name) and node.args:
            value = self.fold(node.args[0])
            if value is None:
                return None
            if name == "str" and isinstance(value, bytes) and len(node.args) >= 2:
                return value.decode("utf-8")
            if name == "bytes" and isinstance(value, str) and len(node.args) >= 2:
                return value.encode("utf-8")
            return value
        if name in _DECODERS and node.args:
            value = self.fold(node.args[0])
            if value is None:
                return None
            if name == "decompress":
                self.steps.append(owner.split(".")[-1] or "zlib")
                return _decompress(owner.split(".")[-1], value)
            self.steps.append({"unhexlify": "hex", "a2b_hex": "hex", "fromhex": "hex"}.get(
                name, "base64" if "64" in name or name == "decodebytes" else name.replace("decode", "")))
            return _capped(_DECODERS[name](value))  # type: ignore[misc]
        return None


def _bindings(tree: ast.AST) -> dict[str, ast.expr]:
    """Names assigned exactly once, to one value, in ``tree``."""
    seen: dict[str, list[ast.expr]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    seen.setdefault(target.id, []).append(node.value)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
            seen.setdefault(node.target.id, []).extend([node.value] if node.value else [])
            if isinstance(node, ast.AugAssign):
                seen[node.target.id].append(node.value)
    return {name: values[0] for name, values in seen.items() if len(values) == 1}


def _guess(value: bytes | str, depth: int, budget: list[int], last: str = "",
           steps: Budget | None = None) -> tuple[list[str], str] | None:
    """Decoding steps, tried in turn up to ``MAX_DEPTH`` deep, that make ``value`` Python code.

    A literal that is Python as it stands is not packed code (a template, a generated config):
    it is what ``exec`` of it would run, which :func:`unpack_strings` handles apart."""
    code = _python(_text(value), steps)
    if code:
        return ([], code) if depth else None
    if depth >= MAX_DEPTH or budget[0] <= 0:
        return None
    budget[0] -= 1
    for name, step in _GUESSES:
        if name in ("reversed", "rot13") and name == last:   # each undoes itself
            continue
        try:
            out = step(value)
        except (ValueError, TypeError, binascii.Error, zlib.error, OSError, EOFError, lzma.LZMAError,
                UnicodeError, LookupError, _TooBig, MemoryError):
            continue
        if steps is not None:
            steps.spend_text(out)
        if out is None or len(out) < 8 or len(out) > MAX_DECODED or out == value:
            continue
        found = _guess(out, depth + 1, budget, name, steps)
        if found is not None:
            return [name, *found[0]], found[1]
    return None


def unpack_strings(code: str, *, budget: Budget | None = None) -> list[HiddenCode]:
    """The Python code hidden in ``code``'s strings, decoded without running anything.

    Three places are looked at: the argument of a call that runs code
    (``exec("...")`` -- a string literal is code the audit would otherwise
    see as one token), expressions made of literals and pure decoders
    (``zlib.decompress(base64.b64decode("..."))``, names bound once to such
    values included), and every string literal of at least
    :data:`MIN_PACKED` characters, tried with chains of up to
    :data:`MAX_DEPTH` common decoders (base64, hex, base85, base32, zlib,
    bz2, lzma, rot13, reversal).  A result counts if it parses as Python and
    has at least :data:`MIN_TOKENS` tokens.

    Parameters
    ----------
    code : str
        Python source; if it does not parse, only its string tokens are tried.
    budget : Budget, optional
        The work the search may do (default: a new :class:`Budget` of :data:`MAX_STEPS`
        steps).  Names are evaluated once each, whatever the number of times they are used.

    Returns
    -------
    list of HiddenCode
        In line order, each piece of code once.

    Raises
    ------
    SearchIncomplete
        If the budget ran out; its ``found`` holds the pieces found until then.

    Examples
    --------
    >>> import base64, zlib
    >>> secret = "def f(game, state):\\n    return max(f(game, c) for c in game.moves(state))\\n"
    >>> blob = base64.b64encode(zlib.compress(secret.encode())).decode()
    >>> found = unpack_strings(f"import base64, zlib\\nexec(zlib.decompress(base64.b64decode('{blob}')))")
    >>> [(h.line, h.how) for h in found]
    [(2, 'base64 → zlib')]
    >>> found[0].code == secret
    True
    >>> unpack_strings("greeting = 'hello, world'")
    []
    """
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    found: dict[str, HiddenCode] = {}
    steps = budget if budget is not None else Budget()
    try:
        _unpack(tree, code, found, steps)
    except SearchIncomplete as exc:
        exc.found = ([h.note for h in found.values()], "\n\n".join(h.code for h in found.values()))
        raise
    return sorted(found.values(), key=lambda h: (h.line, h.how))


def _unpack(tree: ast.AST | None, code: str, found: dict[str, HiddenCode], steps: Budget) -> None:
    """:func:`unpack_strings`' search, adding to ``found`` as it goes."""
    budget = [MAX_EXAMINED]

    def keep(line: int, how: str, text: str | None) -> None:
        if text and (python := _python(text, steps)) and python not in found:
            found[python] = HiddenCode(line, how, python)

    literals: list[tuple[int, bytes | str]] = []
    too_big: list[int] = []
    if tree is not None:
        names = _bindings(tree)
        memo: dict[str, tuple[bytes | str | None, tuple[str, ...], bool]] = {}
        for node in ast.walk(tree):
            steps.spend()
            if isinstance(node, ast.Call) and _runs_code(node.func) and node.args:
                folder = _Folder(dict(names), steps, memo)
                value = folder.fold(node.args[0])
                if value is not None:
                    keep(node.lineno, " → ".join(folder.steps) or "a string literal", _text(value))
                elif folder.too_big:
                    too_big.append(node.lineno)
            elif isinstance(node, ast.Call):
                name, _ = _call_name(node.func)
                if name in _DECODERS or name in ("decode", "join"):
                    folder = _Folder(dict(names), steps, memo)
                    value = folder.fold(node)
                    if value is not None and folder.steps:
                        keep(node.lineno, " → ".join(folder.steps), _text(value))
            if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
                literals.append((node.lineno, node.value))
    else:
        try:
            for tok in tokenize.generate_tokens(io.StringIO(code).readline):
                if tok.type == tokenize.STRING:
                    try:
                        value = ast.literal_eval(tok.string)
                    except (ValueError, SyntaxError, MemoryError, RecursionError):
                        continue
                    if isinstance(value, (str, bytes)):
                        literals.append((tok.start[0], value))
        except (tokenize.TokenError, SyntaxError, IndentationError):
            pass
    guesses = [200]   # decoding attempts per submission, all literals together
    for line, value in literals:
        if len(value) < MIN_PACKED or budget[0] <= 0 or guesses[0] <= 0:
            continue
        budget[0] -= len(value)
        result = _guess(value, 0, guesses, steps=steps)
        if result is not None:
            keep(line, " → ".join(result[0]), result[1])
    if too_big:
        where = ", ".join(str(n) for n in sorted(set(too_big))[:5])
        raise SearchIncomplete(f"line {where}: code is run from a string built of more than "
                               f"{MAX_DECODED // 2**20} MB, too large to unpack")


def find_hidden_code(code: str, *, budget: Budget | None = None) -> tuple[list[str], str]:
    """Notes on the code a submission runs from strings, and that code unpacked.

    Parameters
    ----------
    code : str
        A student's code.

    budget : Budget, optional
        The work the search may do (:func:`unpack_strings`).

    Returns
    -------
    notes : list of str
        :func:`dynamic_calls` then one note per piece of :func:`unpack_strings`.
    unpacked : str
        The unpacked code, pieces separated by blank lines (to compare with
        the other submissions and the references as if it had been written
        out).

    Raises
    ------
    SearchIncomplete
        If the budget ran out (its ``found``: the notes and code found until then).

    Examples
    --------
    >>> notes, unpacked = find_hidden_code("exec('def g(game, s):\\\\n    return [g(game, c) for c in game.moves(s)]')")
    >>> notes
    ['line 1: exec of a string literal', 'line 1: a string literal holds 2 lines of Python, compared as code']
    >>> unpacked.splitlines()[0]
    'def g(game, s):'
    """
    calls = dynamic_calls(code)
    try:
        hidden = unpack_strings(code, budget=budget)
    except SearchIncomplete as exc:
        exc.found = (calls + exc.found[0], exc.found[1])
        raise
    notes = calls + [h.note for h in hidden]
    return notes, "\n\n".join(h.code for h in hidden)
