"""The program that runs a student's code INSIDE the sandbox (untrusted side).

This file is the only part of the course that exists inside the sandbox: it is
bound read-only into it and run as ``python -I -S inside.py``, with Python's
standard library and nothing else (no site-packages, no ``course`` package, no
reference searches, no grader).  It imports the standard library only.

It speaks a line protocol with the grader (:mod:`course.sandbox.session`) over
its standard input and a private copy of its standard output; the student's
prints are captured per cell and per call, never mixed with the protocol.
Every message is one JSON object per line (see :func:`encode`).  Nothing the
grader receives from here is trusted: the grader only decodes plain data
(numbers, strings, tuples, lists, fractions, players and handles it issued).

Messages from the grader, and the answers::

    {"op": "cell", "source": ..., "timeout": s}
        -> {"op": "ran", "stdout": ..., "error": null or {"type", "message", "traceback"}}
    {"op": "names"}
        -> {"op": "names", "names": [the callables the cells defined]}
    {"op": "fork"}
        -> {"op": "forked"} from a child process, which serves the next messages until
           {"op": "exit"}; then {"op": "joined", "status": s} from this process (one test's
           student-side state never reaches the next test)
    {"op": "call", "name": "minimax_value", "args": [...], "timeout": s, "forget": true}
        -> any number of {"op": "game"/"callback", ...} requests, each answered by the
           grader with {"op": "reply", "value": ...} or {"op": "raise", "type", "message"}
        -> {"op": "return", "value": ..., "stdout": ...}
           or {"op": "error", "type": ..., "message": ..., "traceback": ..., "stdout": ...}
        ("forget": the handles of earlier calls are dropped first)
    {"op": "batch", "id": ..., "name": "my_evaluate", "items": [[args], ...], "within": [lo, hi]
     or null, "count": bool}
        -> the calls name(*args), one after the other, each as a "call" with "forget" would
           run it (its own handles, its own captured output, its own line count); their answers
           come back in order, several in one line: {"op": "batched", "id": ..., "results":
           [[value, stdout] or [value, stdout, lines], ...]}, sent before any request and at
           most BATCH_BYTES (estimated), BATCH_ITEMS results or BATCH_SECONDS of calls per line
           (the grader's wait for a line is a call's).  Only values that are
           numbers (strictly inside "within" if given) go into a "batched" line; the first
           call that raises or returns anything else ends the batch, and its answer comes as
           for a call, with "item": its index: {"op": "return" or "error", "id", "item", ...}.
           (The grader would have stopped there too, or asks for the rest in a new batch.)

A state's handle may carry, in its "info", ``"values": [[h, value], ...]``: the values of the
grader's functions ``h`` (pure functions of the state that record nothing) on it; a call of
such a function on that state is answered here.

A reply may carry the children of a state and nodes below them (sent ahead); what the
student's code uses of those is answered here and reported, in order, before the next
message: {"op": "notes", "notes": [[game handle, "moves" or "utility", [state]], ...]}
(the grader records each as if the call had been made).

A "call" whose game is an explicit tree may carry the tree: ``"nodes": [[kind, first child,
number of children, utility or probabilities], ...]`` (numbered breadth first, the root 0) and
``"tree": {"game": h, "cls": name, "values": [[h, [[value] or null, ...]], ...]}``.  Then the
game's calls on the tree's stand-ins (``{"$s": n}``, 0 the initial state, the next number for
each ``result``) are answered here from the tree and recorded (:class:`_Local`); the record goes
to the grader, which makes the calls again on its own game, with the next message: in a
request's or the answer's ``"record"``, or alone, ``{"op": "record", "id": ..., "record": [...]}``
(every RECORD_CHUNK entries, and every RECORD_SECONDS of CPU time while the call runs).  What
the tree cannot answer exactly is asked as above, after the record so far.

Inside, ``course`` is a small stand-in module: ``course.Player`` works as in
the course (``game.turn(state) is Player.MAX``), and any other name of the
course (``course.search.minimax``, ``course.grading.explain``, ...) is a
placeholder that raises when used: the reference searches are not available
while a notebook is graded.
"""

from __future__ import annotations

import gc

# As the sandbox's program (imported as ``inside`` by the grader's boot line; the grader imports
# ``course.sandbox.inside``): no garbage collection while the modules of its start are imported
# (about 20 collections, over objects that all live on); main() turns it on again.
_COLLECTING = gc.isenabled()
if __name__ in ("inside", "__main__"):
    gc.disable()

import enum  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import types  # noqa: E402

OUTPUT_LIMIT = 20_000
RECURSION_LIMIT = 5_000
MESSAGE_LIMIT = 8 * 1024 * 1024
NOTES_PER_LINE = 1_000
BATCH_BYTES = 256 * 1024
BATCH_ITEMS = 1_000
BATCH_SECONDS = 1.0
RECORD_CHUNK = 5_000
RECORD_SECONDS = 0.05


# ---------------------------------------------------------------------------
# the encoding shared with the grader (plain JSON with a few tagged objects)
# ---------------------------------------------------------------------------
class Player(enum.Enum):
    """Whose turn it is (the course's ``Player``)."""

    MAX = "max"
    MIN = "min"
    CHANCE = "chance"


#: Types found to be no plain data: their values go through ``handle`` at once (a memo).
_HANDLED = {}


def _fraction_class():
    """:class:`fractions.Fraction` if that module was imported, else None (no value can be a
    fraction then).  Not imported at the start: it costs about 3 ms of CPU of every sandbox's
    start (``decimal``, ``numbers``), and most submissions never see a fraction."""
    module = sys.modules.get("fractions")
    return None if module is None else getattr(module, "Fraction", None)


def encode(value, handle=None):
    """``value`` as JSON-ready data; objects that are not plain data go through ``handle``."""
    kind = type(value)
    if kind is int or kind is str or kind is float or kind is bool or value is None:
        return value                               # the common cases first
    if kind is tuple:
        return {"$t": [encode(v, handle) for v in value]}
    if kind is list:
        return [encode(v, handle) for v in value]
    if handle is not None and kind in _HANDLED:
        return handle(value)
    if isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    fraction = _fraction_class()
    if fraction is not None and isinstance(value, fraction):
        return {"$f": [value.numerator, value.denominator]}
    if isinstance(value, enum.Enum) and type(value).__name__ == "Player":
        return {"$p": value.value}
    if isinstance(value, tuple):
        return {"$t": [encode(v, handle) for v in value]}
    if isinstance(value, list):
        return [encode(v, handle) for v in value]
    if isinstance(value, range) and len(value) <= 100_000:
        # a game's moves are often a range (the course's trees): they cross as the list they are
        return [int(v) for v in value]
    if isinstance(value, dict):
        return {"$d": [[encode(k, handle), encode(v, handle)] for k, v in value.items()]}
    if type(value).__module__ == "numpy":
        # numpy's numbers and arrays (the students' environment offers numpy): as Python's
        convert = getattr(value, "tolist", None)
        if callable(convert):
            plain = convert()
            if type(plain).__module__ != "numpy":
                return encode(plain, handle)
    if handle is not None:
        if kind is not range and kind.__module__ != "numpy":      # decided by the type alone
            if len(_HANDLED) > 1000:
                _HANDLED.clear()
            _HANDLED[kind] = True
        return handle(value)
    raise TypeError(f"cannot send a {type(value).__name__}")


def decode(data, resolve=None, depth=0):
    """The value ``data`` encodes; tagged handles go through ``resolve``."""
    if depth > 200:
        raise ValueError("data nested too deeply")
    kind = type(data)
    if kind is int or kind is str or kind is float or kind is bool or data is None:
        return data                                # the common cases first (as JSON makes them)
    if kind is list:
        return [decode(v, resolve, depth + 1) for v in data]
    if isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [decode(v, resolve, depth + 1) for v in data]
    if isinstance(data, dict) and len(data) >= 1:
        if "$f" in data:
            n, d = data["$f"]
            if not (isinstance(n, int) and isinstance(d, int)) or d == 0:
                raise ValueError("bad fraction")
            from fractions import Fraction
            return Fraction(n, d)
        if "$t" in data:
            return tuple(decode(v, resolve, depth + 1) for v in data["$t"])
        if "$d" in data:
            return {decode(k, resolve, depth + 1): decode(v, resolve, depth + 1) for k, v in data["$d"]}
        if "$p" in data:
            return data["$p"] if resolve is None else resolve({"$p": data["$p"]})
        if "$h" in data or "$o" in data or "$s" in data:
            # a handle; "$o": an object that cannot cross; "$s": a stand-in of a replayed tree
            if resolve is None:
                raise ValueError("unexpected handle")
            return resolve(data)
    raise ValueError(f"cannot decode {str(data)[:80]}")


# ---------------------------------------------------------------------------
# the sandbox side
# ---------------------------------------------------------------------------
class GameUsageError(Exception):
    """The game refused a call (for example: moves of a terminal state)."""


class GradingError(Exception):
    """The grader refused a request from this process."""


class Unavailable:
    """A name of the course that does not exist while a notebook is graded."""

    def __init__(self, name):
        self._name = name

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self._name} is not available while your notebook is graded: "
                           "your functions must work with the game's methods alone")

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return Unavailable(f"{self._name}.{attr}")

    def __repr__(self):
        return f"<{self._name}: not available during grading>"


class _CourseStub(types.ModuleType):
    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return Unavailable(f"{self.__name__}.{attr}")


class _CourseFinder:
    """Import hook, after the others: any ``course.*`` module not in the sandbox is a stand-in."""

    def find_spec(self, name, path=None, target=None):
        if name == "course" or name.startswith("course."):
            import importlib.machinery
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _CourseStub(spec.name)
        module.__path__ = []
        if spec.name in ("course", "course.game"):
            module.Player = Player
        return module

    def exec_module(self, module):
        pass


class _Channel:
    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer
        self.pending = []
        self.busy = False           # a message is being made or sent: no record from a timer

    def note(self, h, method, args):
        """Queue a note (what was used of what the grader sent ahead: ``game.method(*args)``);
        the notes go out, in order and together, before the next message sent."""
        self.pending.append([h, method, args])

    def send(self, message):
        was, self.busy = self.busy, True
        try:
            lines = [_dumps({"op": "notes", "notes": self.pending[i:i + NOTES_PER_LINE]}) + "\n"
                     for i in range(0, len(self.pending), NOTES_PER_LINE)]
            lines.append(_dumps(message) + "\n")
            self.writer.write("".join(lines))
            self.pending = []
            self.writer.flush()
        finally:
            self.busy = was

    def receive(self):
        # ``reader`` is binary: a text reader decodes through a Python-level codec object, a
        # cost on every message; the grader's messages are ASCII JSON (a character is a byte)
        line = self.reader.readline(MESSAGE_LIMIT)
        if not line:
            os._exit(0)                          # the grader went away
        return _loads(line.decode("utf-8"))


# ``json.dumps(message, allow_nan=True)`` and ``json.loads(line)``, without what they do again
# for every message (a new C encoder made for each call; the checks of their arguments; two
# regular expressions around the C scanner): the same text and the same values, a few
# microseconds less for each of the hundreds of messages of a submission.
def _make_encoder():
    c_make_encoder = getattr(json.encoder, "c_make_encoder", None)
    if c_make_encoder is None:
        return None
    try:
        return c_make_encoder({}, json.JSONEncoder().default, json.encoder.encode_basestring_ascii,
                              None, ": ", ", ", False, False, True)
    except TypeError:                          # another Python's signature: json.dumps serves
        return None


_ENCODER = [_make_encoder()]


def _dumps(message):
    """``json.dumps(message, allow_nan=True)`` for a message (a dict)."""
    encoder = _ENCODER[0]
    if encoder is None or type(message) is not dict:
        return json.dumps(message, allow_nan=True)
    try:
        return "".join(encoder(message, 0))
    except BaseException:
        _ENCODER[0] = _make_encoder()             # its record of containers seen may be left over
        raise


_SCAN = json.decoder.JSONDecoder().scan_once


def _loads(text):
    """``json.loads(text)`` for a line (one JSON object, then its newline)."""
    if text[:1] == "{":
        try:
            value, end = _SCAN(text, 0)
        except StopIteration:
            value, end = None, -1
        if end == len(text) or (end == len(text) - 1 and text[end] == "\n"):
            return value
    return json.loads(text)                    # anything else, exactly as json.loads takes it


class _Bounded(io.TextIOBase):
    def __init__(self, limit=OUTPUT_LIMIT):
        self.parts, self.kept, self.total, self.limit = [], 0, 0, limit

    def writable(self):
        return True

    def write(self, text):
        text = str(text)
        self.total += len(text)
        room = self.limit - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        return len(text)

    def value(self):
        text = "".join(self.parts)
        if self.total > self.kept:
            text += f"\n... ({self.total - self.kept} more characters not shown)"
        return text


class _Known:
    """A state whose moves and children the sandbox holds: each child is handed out once.

    ``game`` is the game's handle while the first use of a node sent ahead is still to be
    reported, None once reported (or for a node whose moves the student asked for).
    """

    __slots__ = ("state", "moves", "kids", "probabilities", "game")

    def __init__(self, state, moves, kids, probabilities=None, game=None):
        self.state, self.moves, self.kids = state, moves, kids
        self.probabilities, self.game = probabilities, game


class Runner:
    """Executes the cells and serves the grader's calls."""

    def __init__(self, channel):
        self.channel = channel
        self.namespace = {"__name__": "__main__", "__builtins__": __builtins__}
        self.proxies = {}                          # handle id -> proxy object (identity kept)
        self.children = {}                         # id(state) -> (state, moves, unused children)
        self.cell_count = 0
        self.batch = None                          # the "batch" being run: {"id", "results", "size"}
        self.local = None                          # the call's copy of an explicit tree (_Local)

    # -- handles -----------------------------------------------------------
    def resolve(self, data):
        if "$p" in data:
            return Player(data["$p"])
        if "$s" in data:
            local, s = self.local, data["$s"]
            if local is not None and type(s) is int and 0 <= s < len(local.standins):
                return local.standins[s]
            raise ValueError("the grader named a stand-in that was never made")
        h = data["$h"]
        proxy = self.proxies.get(h)
        if proxy is None:
            kind = data.get("kind")
            if kind == "game":
                proxy = _make_game(self, h, decode(data.get("vmin")), decode(data.get("vmax")))
            elif kind == "fn":
                proxy = _make_function(self, h)
            else:
                proxy = _make_object(self, h, data.get("cls", "State"), data.get("attrs") or {},
                                     data.get("text"), data.get("info"))
            self.proxies[h] = proxy
        return proxy

    def handle_of(self, value):
        h = getattr(value, "_grading_handle_", None)
        if isinstance(h, int) and self.proxies.get(h) is value:
            return {"$h": h}
        if type(h) is int and h < 0 and self.local is not None and self.local.serial(value) is not None:
            return {"$s": -1 - h}                  # a stand-in of this call's tree
        raise TypeError(f"cannot send a {type(value).__name__} to the grader")

    def request(self, op, h, method, args):
        if self.batch is not None:
            self.flush_batch()                     # the grader counts on: this is the next call's
        message = {"op": op, "h": h, "method": method,
                   "args": [encode(a, self.handle_of) for a in args]}
        local = self.local
        if local is not None:                      # what was answered here goes first
            channel = self.channel
            was, channel.busy = channel.busy, True
            try:
                if local.record:
                    message["record"], local.record = local.record, []
                channel.send(message)
            finally:
                channel.busy = was
        else:
            self.channel.send(message)
        while True:
            message = self.channel.receive()
            kind = message.get("op")
            if kind == "reply":
                value = decode(message.get("value"), self.resolve)
                children = message.get("children")
                if isinstance(children, list) and args and isinstance(value, list):
                    moves = [m[0] for m in value] if method == "chance_outcomes" else value
                    if len(children) == len(moves):
                        self.children[id(args[0])] = _Known(
                            args[0], moves, [decode(c, self.resolve) for c in children],
                            [m[1] for m in value] if method == "chance_outcomes" else None)
                for entry in message.get("deeper") or ():
                    self.learn(h, entry)
                return value
            if kind == "raise":
                cls = GameUsageError if message.get("type") == "GameUsageError" else GradingError
                raise cls(message.get("message", ""))
            raise GradingError(f"unexpected message {kind!r}")

    def learn(self, h, entry):
        """Keep a node the grader sent ahead: its moves and children, not yet reported used."""
        parent = decode(entry[0], self.resolve)
        moves = decode(entry[1])
        probabilities = None if entry[2] is None else decode(entry[2])
        kids = [decode(c, self.resolve) for c in entry[3]]
        if len(kids) == len(moves) and getattr(parent, "_grading_handle_", None) is not None:
            self.children[id(parent)] = _Known(parent, moves, kids, probabilities, game=h)

    def first_use(self, known):
        """Report the first use of a node sent ahead (the grader records its expansion then)."""
        if known.game is not None:
            self.channel.note(known.game, "moves", [encode(known.state, self.handle_of)])
            known.game = None

    # -- operations ----------------------------------------------------------
    def names(self):
        names = sorted(name for name, value in list(self.namespace.items())
                       if isinstance(name, str) and not name.startswith("_") and callable(value)
                       and not isinstance(value, (type, Unavailable, types.ModuleType)))
        self.channel.send({"op": "names", "names": names})

    def run_cell(self, index, source, timeout):
        sink = _Bounded()
        error = None
        old = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = sink
        try:
            code = compile(plain_python(source), f"<cell {index + 1}>", "exec")
            with _alarm(timeout):
                exec(code, self.namespace)
        except BaseException as exc:               # noqa: BLE001 - reported, the next cell runs
            error = _describe(exc)
        finally:
            sys.stdout, sys.stderr = old
        self.cell_count += 1
        return {"op": "ran", "stdout": sink.value(), "error": error}

    def call(self, message):
        sink = _Bounded()
        old = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = sink
        game = None
        try:
            fn = self.namespace.get(message.get("name"))
            if not callable(fn):
                raise NameError(f"name {message.get('name')!r} is not defined in your notebook")
            tree = message.get("tree")
            if isinstance(tree, dict) and isinstance(message.get("nodes"), list):
                self.local = _Local(self, message["nodes"], tree, message.get("id"))
                _record_timer(self)
            args = [decode(a, self.resolve) for a in message.get("args", [])]
            if self.local is not None:
                game = self.proxies.get(tree.get("game"))
                if type(game) is _Game:
                    game._grading_local_ = self.local      # its calls answered from the tree
                else:
                    game = self.local = None
            counter = _LineCounter() if message.get("count") else None
            with _alarm(message.get("timeout")):
                if counter is None:
                    value = fn(*args)
                else:
                    with counter:
                        value = fn(*args)
            reply = {"op": "return", "value": encode(value, self._encode_result)}
            if counter is not None:
                reply["lines"] = counter.lines if counter.intact else -1
        except BaseException as exc:               # noqa: BLE001 - reported to the grader
            reply = {"op": "error", **_describe(exc)}
        finally:
            sys.stdout, sys.stderr = old
            if game is not None:
                game._grading_local_ = None         # a game kept for later asks the grader
        reply["stdout"] = sink.value()
        reply["id"] = message.get("id")
        channel = self.channel
        was, channel.busy = channel.busy, True
        try:
            if _TIMED[0] is not None:
                _record_timer(None)
            local, self.local = self.local, None
            if local is not None and local.record:
                reply["record"] = local.record      # replayed by the grader before the answer
            channel.send(reply)
        finally:
            channel.busy = was

    def run_batch(self, message):
        """Run the calls of a "batch" message (see the module's docstring) and answer them."""
        fn = self.namespace.get(message.get("name"))
        items = message.get("items")
        within = message.get("within")
        if not (isinstance(within, list) and len(within) == 2
                and all(type(x) in (int, float) for x in within)):
            within = None
        count = bool(message.get("count"))
        self.batch = {"id": message.get("id"), "results": [], "size": 0, "since": time.monotonic()}
        try:
            for index, item in enumerate(items if isinstance(items, list) else ()):
                self.proxies.clear()               # each call's own handles, as with "forget"
                self.children.clear()
                sink = _Bounded()
                old = sys.stdout, sys.stderr
                sys.stdout = sys.stderr = sink
                counter = None
                try:
                    if not callable(fn):
                        raise NameError(f"name {message.get('name')!r} is not defined in your notebook")
                    args = [decode(a, self.resolve) for a in (item if isinstance(item, list) else ())]
                    counter = _LineCounter() if count else None
                    if counter is None:
                        value = fn(*args)
                    else:
                        with counter:
                            value = fn(*args)
                    encoded = encode(value, self._encode_result)
                except BaseException as exc:       # noqa: BLE001 - reported to the grader
                    sys.stdout, sys.stderr = old
                    self.flush_batch()
                    self.batch = None
                    self.channel.send({"op": "error", **_describe(exc), "stdout": sink.value(),
                                       "id": message.get("id"), "item": index})
                    return
                finally:
                    sys.stdout, sys.stderr = old
                stdout = sink.value()
                lines = None if counter is None else counter.lines if counter.intact else -1
                if not _plain_number(encoded, within):
                    self.flush_batch()
                    self.batch = None
                    reply = {"op": "return", "value": encoded, "stdout": stdout,
                             "id": message.get("id"), "item": index}
                    if lines is not None:
                        reply["lines"] = lines
                    self.channel.send(reply)
                    return
                batch = self.batch
                batch["results"].append([encoded, stdout] if lines is None
                                        else [encoded, stdout, lines])
                # a JSON string is at most 6 bytes a character (\uXXXX)
                batch["size"] += 40 + 6 * len(stdout)
                if batch["size"] >= BATCH_BYTES or len(batch["results"]) >= BATCH_ITEMS \
                        or time.monotonic() - batch["since"] >= BATCH_SECONDS:
                    self.flush_batch()
            self.flush_batch()
        finally:
            self.batch = None

    def flush_batch(self):
        """Send the answers of the batch's calls made so far (if any)."""
        batch = self.batch
        if batch is not None and batch["results"]:
            self.channel.send({"op": "batched", "id": batch["id"], "results": batch["results"]})
            batch["results"], batch["size"], batch["since"] = [], 0, time.monotonic()

    def _encode_result(self, value):
        try:
            return self.handle_of(value)
        except TypeError:
            return {"$o": type(value).__name__, "repr": repr(value)[:200]}

    def serve(self):
        while True:
            message = self.channel.receive()
            op = message.get("op")
            if op == "cell":
                self.channel.send(self.run_cell(self.cell_count, str(message.get("source", "")),
                                                message.get("timeout")))
            elif op == "names":
                self.names()
            elif op == "call":
                if message.get("forget"):          # the previous call's handles are gone
                    self.proxies.clear()
                    self.children.clear()
                self.local = None
                self.call(message)
            elif op == "batch":
                self.local = None
                self.run_batch(message)
            elif op == "forget":
                self.proxies.clear()
                self.children.clear()
                self.local = None
            elif op == "fork":
                self.fork()
            elif op == "exit":
                return

    def fork(self):
        """Serve one test in a child process: nothing it does to the student's state outlives it.

        The child answers ``{"op": "forked"}`` and serves until the grader sends ``exit``; this
        process waits for it, stops every process the test left running, then says
        ``{"op": "joined", "status": ...}`` and serves on with the state the cells left (the
        next test starts from it again).
        """
        sys.stdout.flush()
        before = _processes()
        try:
            pid = os.fork()
        except OSError:
            # the student's processes fill the limit: stop them (every process of the sandbox
            # but this one and bwrap), then try once more
            _stop_strays()
            try:
                pid = os.fork()
            except OSError as exc:
                self.channel.send({"op": "fork-failed", "message": str(exc)})
                return
        if pid == 0:
            try:
                self.channel.send({"op": "forked"})
                self.serve()
            finally:
                os._exit(0)
        while True:
            try:
                _, status = os.waitpid(pid, 0)
                break
            except InterruptedError:
                continue
            except ChildProcessError:
                status = -1
                break
        _stop_new(before)
        self.proxies.clear()
        self.children.clear()
        self.local = None
        self.channel.send({"op": "joined", "status": status})


def _plain_number(encoded, within):
    """Whether a call's encoded value is a finite number (not a bool), strictly inside
    ``within`` (``[lo, hi]``) if given: the answers a "batch" goes on after."""
    if type(encoded) is int:
        if not -(1 << 63) < encoded < 1 << 63:
            return False                           # long: sent alone, as a call's value is
    elif type(encoded) is not float:
        return False
    if encoded != encoded or encoded in (float("inf"), float("-inf")):
        return False
    return within is None or within[0] < encoded < within[1]


def _processes():
    """The ids of the sandbox's live processes (it has a PID namespace of its own), or None
    outside a sandbox (--unsafe-no-sandbox: the machine's, never to be touched)."""
    if os.environ.get("COURSE_IN_SANDBOX") != "1":
        return None
    found = set()
    try:
        names = os.listdir("/proc")
    except OSError:
        return None
    for name in names:
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as stat:
                    if stat.read().rsplit(b")", 1)[1].split()[0] != b"Z":
                        found.add(int(name))
            except (OSError, IndexError):
                pass
    return found


def _stop_new(before):
    """Kill every process that was not there before a test (whatever it left running: a child,
    a daemon), and reap those that are this process's: nothing of a test outlives it."""
    if before is None:
        return
    for _ in range(100):                           # a process may fork while the others die
        new = (_processes() or set()) - before - {os.getpid(), 1}
        for pid in new:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break
        if not new:
            return


def _stop_strays():
    """Kill every other process of the sandbox the student's code started, and reap them."""
    import time

    if os.environ.get("COURSE_IN_SANDBOX") != "1":
        return          # never outside a sandbox's own PID namespace (--unsafe-no-sandbox)
    try:
        os.kill(-1, signal.SIGKILL)                # all we may signal, except ourselves and PID 1
    except OSError:
        pass
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.01)


def plain_python(source):
    """The cell without IPython's ``%magic`` and ``!shell`` lines (they do nothing here)."""
    lines = []
    for line in source.splitlines():
        stripped = line.lstrip()
        if stripped.startswith(("%", "!")):
            line = line[: len(line) - len(stripped)] + "pass  # " + stripped
        lines.append(line)
    return "\n".join(lines)


def _describe(exc):
    import traceback          # here, not at the start: every sandbox starts, few tracebacks

    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != __file__]
    lines = traceback.format_list(frames[-8:]) + traceback.format_exception_only(type(exc), exc)
    return {"type": type(exc).__name__, "message": str(exc)[:2000],
            "traceback": "".join(lines)[-6000:]}


class _LineCounter:
    """Count the lines of Python a call runs (its work, the same on every machine).

    ``intact`` is False if the code switched the counting off (``sys.settrace``).
    """

    def __init__(self):
        self.lines, self.intact = 0, True

    def trace(self, frame, event, arg):
        if event == "line":
            self.lines += 1
        return self.trace

    def __enter__(self):
        sys.settrace(self.trace)
        return self

    def __exit__(self, *exc):
        self.intact = sys.gettrace() == self.trace
        sys.settrace(None)
        return False


class CellTimeoutError(BaseException):
    """The time limit of a cell or call.  Not an ``Exception`` (``TimeoutError`` is an ``OSError``,
    which library code such as ``glob`` swallows): only ``except BaseException`` catches it, and
    then the grader's own clock stops the process."""


class _alarm:
    """Stop the running code after ``seconds`` (the grader also keeps its own clock)."""

    def __init__(self, seconds):
        self.seconds = seconds

    def __enter__(self):
        if self.seconds:
            def stop(signum, frame):
                raise CellTimeoutError(f"stopped after {self.seconds:g} seconds")
            signal.signal(signal.SIGALRM, stop)
            signal.setitimer(signal.ITIMER_REAL, float(self.seconds))

    def __exit__(self, *exc):
        if self.seconds:
            signal.setitimer(signal.ITIMER_REAL, 0)
        return False


# The stand-ins for the grader's objects.  One class for every game, and one per class name of
# the grader's states, made once: a class per object (as before) made each call's objects
# cyclic garbage, and the garbage collector's passes over them cost more than the calls.
class _Game:
    """A game of the grader's: each method asks the grader, except where it sent the answer ahead."""

    __slots__ = ("_grading_handle_", "_grading_runner_", "_grading_local_", "vmin", "vmax")

    def __init__(self, runner, h, vmin, vmax):
        self._grading_runner_, self._grading_handle_ = runner, h
        self._grading_local_ = None
        self.vmin, self.vmax = vmin, vmax

    def __repr__(self):
        return "<game>"

    def _ask(self, name, args):
        return self._grading_runner_.request("game", self._grading_handle_, name, args)

    def _local(self, name, args):
        # is_terminal and turn are not recorded: answered here when the grader sent the answer
        info = _info_of(args[0]) if len(args) == 1 else None
        if info is None or info.get("game") != self._grading_handle_:
            return self._ask(name, args)
        if name == "is_terminal":
            return info["terminal"]
        if "turn_error" in info:
            raise GameUsageError(info["turn_error"])
        if "turn" not in info:                     # a terminal state: the grader answers
            return self._ask(name, args)
        return Player(info["turn"]["$p"])

    def is_terminal(self, *args):
        local = self._grading_local_
        if local is not None and len(args) == 1:
            s = local.serial(args[0])
            if s is not None:
                return local.nodes[local.positions[s]][0] == "leaf"
        return self._local("is_terminal", args)

    def turn(self, *args):
        local = self._grading_local_
        if local is not None and len(args) == 1:
            s = local.serial(args[0])
            if s is not None:
                player = local.players.get(local.nodes[local.positions[s]][0])
                if player is not None:             # a leaf's turn: the grader refuses it
                    return player
        return self._local("turn", args)

    def initial_state(self, *args):
        local = self._grading_local_
        if local is not None and not args:
            return local.standins[0]
        return self._ask("initial_state", args)

    def evaluate(self, *args):
        return self._ask("evaluate", args)

    def describe_move(self, *args):
        return self._ask("describe_move", args)

    def _known(self, state):
        entry = self._grading_runner_.children.get(id(state))
        return entry if entry is not None and entry.state is state else None

    def moves(self, state):
        local = self._grading_local_
        if local is not None:
            s = local.serial(state)
            if s is not None:
                node = local.nodes[local.positions[s]]
                if node[0] != "leaf":
                    local.add(["m", s])
                    return list(range(node[2]))
        # a node sent ahead: its moves are here (its first use is reported, and recorded there)
        entry = self._known(state)
        if entry is None:
            return self._ask("moves", (state,))
        self._grading_runner_.first_use(entry)
        return list(entry.moves)

    def chance_outcomes(self, state):
        local = self._grading_local_
        if local is not None:
            s = local.serial(state)
            if s is not None:
                node = local.nodes[local.positions[s]]
                if node[0] == "chance":
                    local.add(["c", s])
                    return list(zip(range(node[2]), [decode(p) for p in node[3]]))
        entry = self._known(state)
        if entry is None or entry.probabilities is None:
            return self._ask("chance_outcomes", (state,))
        self._grading_runner_.first_use(entry)
        return list(zip(entry.moves, entry.probabilities))

    def result(self, state, move):
        local = self._grading_local_
        if local is not None:
            s = local.serial(state)
            if s is not None:
                child = local.result(s, move)
                if child is not None:
                    return child
        # the children came with the moves: the first result() for each move needs no trip
        entry = self._known(state)
        if entry is not None:
            for i, m in enumerate(entry.moves):
                if entry.kids[i] is not None and m == move:     # the grader's test: equality
                    self._grading_runner_.first_use(entry)
                    child, entry.kids[i] = entry.kids[i], None
                    return child
        return self._ask("result", (state, move))

    def utility(self, state):
        local = self._grading_local_
        if local is not None:
            s = local.serial(state)
            if s is not None:
                node = local.nodes[local.positions[s]]
                if node[0] == "leaf":
                    local.add(["u", s])
                    return decode(node[3])
        # a terminal state's utility came with it: answer, and report the call (recorded there)
        info = _info_of(state)
        if info is not None and info.get("game") == self._grading_handle_ and "utility" in info:
            runner = self._grading_runner_
            runner.channel.note(self._grading_handle_, "utility", [encode(state, runner.handle_of)])
            return decode(info["utility"])
        return self._ask("utility", (state,))


_Game.__name__ = _Game.__qualname__ = "Game"


def _make_game(runner, h, vmin, vmax):
    return _Game(runner, h, vmin, vmax)


def _make_function(runner, h):
    def function(*args):
        if len(args) == 1:
            local = runner.local
            if local is not None:
                found = local.value(h, args[0])
                if found is not None:
                    return found[0]
            # the grader sent this function's value with the state (a pure function of it)
            info = _info_of(args[0])
            for pair in (info.get("values") or ()) if info is not None else ():
                if type(pair) is list and len(pair) == 2 and pair[0] == h:
                    return decode(pair[1], runner.resolve)
        return runner.request("callback", h, "__call__", args)
    function._grading_handle_ = h
    return function


class _State:
    """A state (or other object) of the grader's: read-only attributes, as the grader sent them."""

    __slots__ = ("_grading_handle_", "_grading_info_", "_grading_values_", "_grading_text_")

    def __getattr__(self, name):
        values = object.__getattribute__(self, "_grading_values_")
        if name in values:
            return values[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __delattr__(self, name):
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __repr__(self):
        return f"<{type(self).__name__}>"

    def __str__(self):
        text = object.__getattribute__(self, "_grading_text_")
        return text if text is not None else repr(self)


#: The stand-in class for each class name of the grader's objects.
_STATE_CLASSES = {}


def _info_of(value):
    """What the grader sent ahead about a state it handed out (None for anything else)."""
    if type(value) in _PROXY_TYPES:
        return object.__getattribute__(value, "_grading_info_")
    return None


_PROXY_TYPES = set()


def _state_class(name):
    cls = _STATE_CLASSES.get(name)
    if cls is None:
        if len(_STATE_CLASSES) > 100:                 # names come from the grader: a few
            _STATE_CLASSES.clear()
            _PROXY_TYPES.clear()
            _READERS.clear()
        cls = _STATE_CLASSES[name] = type(name, (_State,), {"__slots__": ()})
        _PROXY_TYPES.add(cls)
        _READERS[cls] = set()
    return cls


#: For each stand-in class, the attribute names seen in its objects' values (see _add_readers).
_READERS = {}


def _reader(name):
    def read(self):
        try:
            return object.__getattribute__(self, "_grading_values_")[name]
        except KeyError:
            # not among this object's values: Python then asks __getattr__, which says so
            raise AttributeError(name) from None
    return property(read)


def _add_readers(cls, values):
    """Give ``cls`` a property for each new attribute name of ``values``.

    ``state.board`` then finds its value at once, as ``__getattr__`` would (the same value,
    the same error for a name an object lacks): ``__getattr__`` is reached only after a failed
    look-up, which costs an exception (about 1 us, and a student's evaluation function reads
    a state's attributes thousands of times a submission).  A name the class has already (its
    methods, slots, dunders) is left alone: the class's attribute comes first, as before.
    """
    known = _READERS.get(cls)
    if known is None:
        return
    for name in values:
        if name not in known:
            known.add(name)
            if name.isidentifier() and not name.startswith("__") \
                    and not any(name in vars(base) for base in cls.__mro__):
                type.__setattr__(cls, name, _reader(name))


def _make_object(runner, h, cls_name, attrs, text, info=None):
    values = {k: decode(v, runner.resolve) for k, v in attrs.items() if isinstance(k, str)}
    if not (isinstance(info, dict) and isinstance(info.get("terminal"), bool)
            and (isinstance(info.get("turn"), dict) or isinstance(info.get("turn_error"), str)
                 or info.get("terminal") is True)):
        info = None
    cls = _state_class(str(cls_name))
    if values:
        _add_readers(cls, values)
    proxy = object.__new__(cls)
    for slot, value in (("_grading_handle_", h), ("_grading_info_", info),
                        ("_grading_values_", values), ("_grading_text_", text)):
        object.__setattr__(proxy, slot, value)
    return proxy


class _Local:
    """One call's copy of the explicit tree it searches (sent with the call: "nodes", "tree").

    The game's calls on the tree's stand-ins are answered here, exactly as the grader would
    answer them, and kept in order in ``record`` (``["m", s]`` moves, ``["c", s]`` chance
    outcomes, ``["r", s, move]`` result, ``["u", s]`` utility; ``s`` the stand-in's number):
    the record goes to the grader before the next message (a request, the call's answer, or
    alone every RECORD_CHUNK entries), and the grader's own game makes each call again, in
    order.  ``result`` makes a new stand-in each time (numbered as the grader numbers the
    states it makes); anything else (a leaf's moves, an illegal move, ``evaluate``, a state
    that is not a stand-in of this tree) is asked of the grader, after the record so far.
    """

    __slots__ = ("runner", "nodes", "standins", "positions", "record", "values", "call_id",
                 "players", "cls", "infos", "game", "limit")

    def __init__(self, runner, nodes, tree, call_id):
        self.runner, self.nodes, self.call_id = runner, nodes, call_id
        self.game, self.infos = tree.get("game"), {}
        limit = tree.get("limit")
        self.limit = limit if type(limit) is int else 0    # stand-ins made here, at most
        self.standins, self.positions, self.record = [], [], []
        self.players = {"max": Player("max"), "min": Player("min"), "chance": Player("chance")}
        self.cls = _state_class(str(tree.get("cls", "State")))
        self.values = {}
        for pair in tree.get("values") or ():
            if type(pair) is list and len(pair) == 2 and type(pair[1]) is list \
                    and len(pair[1]) == len(nodes):
                self.values[pair[0]] = pair[1]
        self.standin(0)

    def standin(self, position):
        """A new stand-in for the node at ``position`` (the next number)."""
        proxy = object.__new__(self.cls)
        info = self.infos.get(position)
        if info is None:
            info = self.infos[position] = self.info(position)
        for slot, value in (("_grading_handle_", -1 - len(self.standins)),
                            ("_grading_info_", info), ("_grading_values_", _NO_ATTRIBUTES),
                            ("_grading_text_", None)):
            object.__setattr__(proxy, slot, value)
        self.standins.append(proxy)
        self.positions.append(position)
        return proxy

    def info(self, position):
        """What the live protocol sends with the node's state (used once the call is over: a
        stand-in kept for a later call answers as a state of an earlier call does)."""
        kind, extra = self.nodes[position][0], self.nodes[position][3]
        info = {"game": self.game, "terminal": True, "utility": extra} if kind == "leaf" else \
            {"game": self.game, "terminal": False, "turn": {"$p": kind}}
        values = [[h, found[position][0]] for h, found in self.values.items()
                  if type(found[position]) is list and len(found[position]) == 1]
        if values:
            info["values"] = values
        return info

    def serial(self, value):
        """The number of ``value`` if it is a stand-in of this call's tree, else None."""
        if type(value) is self.cls:
            h = object.__getattribute__(value, "_grading_handle_")
            if type(h) is int and h < 0:
                s = -1 - h
                if s < len(self.standins) and self.standins[s] is value:
                    return s
        return None

    def add(self, entry):
        self.record.append(entry)
        if len(self.record) >= RECORD_CHUNK:
            self.flush()

    def flush(self):
        """Send the record so far on its own (from :meth:`add`, or from a timer while the call
        runs: a search stopped by the grader's clock has its calls up to then recorded, as
        the live protocol has).  The list is cut, never replaced: an entry appended while a
        timer interrupts is kept for the next message."""
        channel = self.runner.channel
        if channel.busy:
            return
        channel.busy = True
        try:
            record = self.record
            n = len(record)
            if n and self.runner.local is self:
                channel.send({"op": "record", "id": self.call_id, "record": record[:n]})
                del record[:n]
        finally:
            channel.busy = False

    def result(self, s, move):
        """A new stand-in for ``result(stand-in s, move)``, or None if the grader must answer."""
        node = self.nodes[self.positions[s]]
        if node[0] == "leaf" or len(self.standins) >= self.limit:
            return None                                    # (past the limit: asked live)
        n = node[2]
        if type(move) is int:
            sent, i = move, (move if 0 <= move < n else None)
        else:
            sent = encode(move, self.runner.handle_of)     # raises as the grader's request would
            try:                                           # the grader's test: a dict's look-up
                i = {k: k for k in range(n)}.get(decode(sent))
            except (ValueError, TypeError):
                i = None
        if i is None:
            return None
        self.add(["r", s, sent])
        return self.standin(node[1] + i)

    def value(self, h, state):
        """``(value,)`` of the grader's function ``h`` on a stand-in, if it was sent, else None."""
        values = self.values.get(h)
        if values is None:
            return None
        s = self.serial(state)
        if s is None:
            return None
        item = values[self.positions[s]]
        if type(item) is list and len(item) == 1:
            return (decode(item[0], self.runner.resolve),)
        return None


_NO_ATTRIBUTES = {}
_TIMED = [None]


def _on_timer(signum, frame):
    runner = _TIMED[0]
    local = runner.local if runner is not None else None
    if local is not None and local.record:
        try:
            local.flush()
        except Exception:                          # noqa: BLE001 - the next message carries it
            pass


def _record_timer(runner):
    """Send a call's record every RECORD_SECONDS of CPU time while it runs (runner None: stop)."""
    _TIMED[0] = runner
    try:
        if runner is not None:
            signal.signal(signal.SIGPROF, _on_timer)
            signal.setitimer(signal.ITIMER_PROF, RECORD_SECONDS, RECORD_SECONDS)
        else:
            signal.setitimer(signal.ITIMER_PROF, 0)
    except (ValueError, OSError):                  # not the main thread: no timer
        pass


def main():
    # the sandbox's own processes, counted apart from any other sandbox's (see bwrap.py's
    # counts_own_processes): set before any student code runs; it can only be lowered after
    limit = os.environ.get("COURSE_PROCESS_LIMIT", "")
    if limit.isdigit():
        import resource

        resource.setrlimit(resource.RLIMIT_NPROC, (int(limit), int(limit)))
    sys.setrecursionlimit(RECURSION_LIMIT)
    protocol_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    protocol_in = os.fdopen(os.dup(0), "rb")
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(devnull, fd)                       # stray writes to fd 1 never reach the grader
    sys.stdin = io.StringIO("")
    # the student-facing part of the course (game model, examples) sits beside this file; the
    # rest of the course is absent, and its names are stand-ins
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    # the students' packages (numpy, ...), read-only, after the standard library
    sys.path += [p for p in os.environ.get("COURSE_STUDENT_PATH", "").split(os.pathsep) if p]
    sys.meta_path.append(_CourseFinder())
    global Player
    try:
        from course.game import Player
    except ImportError:
        pass
    # what the start made lives as long as the process: the collector leaves it alone from now
    # on (no collection during a cell walks it; nor in a test's copy of the process, where
    # walking it would copy its memory pages), and collects the student's objects as before
    gc.freeze()
    if _COLLECTING:
        gc.enable()
    Runner(_Channel(protocol_in, protocol_out)).serve()


if __name__ == "__main__":
    main()
