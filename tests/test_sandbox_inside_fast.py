"""The sandbox's short cuts on every message and every state attribute (course/sandbox/inside.py).

``_dumps``/``_loads`` stand for ``json.dumps(message, allow_nan=True)`` and ``json.loads(line)``
on the sandbox's side of the protocol, and a stand-in state's attributes are read through
properties instead of ``__getattr__``: each must give exactly what the plain way gives (the
same text, the same values, the same errors).  No sandbox is started here.
"""

from __future__ import annotations

import json
import math

import pytest

from course.sandbox import inside

MESSAGES = [
    {"op": "return", "value": 3, "stdout": "", "id": 7},
    {"op": "return", "value": [1.5, float("inf"), float("-inf"), -0.0, 1e300, 2 ** 80, True, None],
     "stdout": "caf\u00e9 \u2603 \U0001F600\n\t\"\\\x00\x1f", "id": None},
    {"op": "batched", "id": 1, "results": [[0.1, ""], [2, "x", 17]] * 50},
    {"op": "game", "h": 3, "method": "result", "args": [{"$t": [{"$h": 4}, {"$p": "max"}]}]},
    {"op": "error", "type": "ValueError", "message": "m" * 5000, "traceback": "", "stdout": ""},
    {"op": "notes", "notes": [[1, "moves", [{"$h": 2}]]] * 3, "nested": {"a": {"b": [[[]]]}}},
    {},
]


@pytest.mark.parametrize("message", MESSAGES)
def test_dumps_writes_what_json_dumps_writes(message):
    assert inside._dumps(message) == json.dumps(message, allow_nan=True)


def test_dumps_nan_and_errors_as_json_dumps():
    nan = inside._dumps({"v": float("nan")})
    assert nan == json.dumps({"v": float("nan")}, allow_nan=True) == '{"v": NaN}'
    for bad in ({"v": object()}, {1.5j: 1}):
        with pytest.raises(TypeError) as ours:
            inside._dumps(bad)
        with pytest.raises(TypeError) as theirs:
            json.dumps(bad, allow_nan=True)
        assert str(ours.value) == str(theirs.value)
    loop: list = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        inside._dumps({"v": loop})
    # after a failure part-way, the next messages are written as before (nothing left over)
    shared = [1, 2]
    assert inside._dumps({"a": shared, "b": [shared, shared]}) == '{"a": [1, 2], "b": [[1, 2], [1, 2]]}'
    for message in MESSAGES:
        assert inside._dumps(message) == json.dumps(message, allow_nan=True)


@pytest.mark.parametrize("message", MESSAGES)
def test_loads_reads_what_json_loads_reads(message):
    text = json.dumps(message, allow_nan=True)
    for line in (text + "\n", text, " " + text + "\n", text + " \n"):
        ours, theirs = inside._loads(line), json.loads(line)
        assert ours == theirs or (json.dumps(ours) == json.dumps(theirs))      # NaN != NaN


@pytest.mark.parametrize("line", ['{"op": 1} {"op": 2}\n', '{"op": \n', "{\n", "", "[1]\n",
                                  '{"op": 1}\n\n', '\ufeff{"op": 1}\n', '{"op": 1}x'])
def test_loads_refuses_what_json_loads_refuses(line):
    try:
        expected = json.loads(line)
    except json.JSONDecodeError as exc:
        with pytest.raises(json.JSONDecodeError) as ours:
            inside._loads(line)
        assert str(ours.value) == str(exc)
    else:
        assert inside._loads(line) == expected


class _Runner:
    @staticmethod
    def resolve(data):
        return data


def _state(cls_name, attrs):
    return inside._make_object(_Runner, 1, cls_name, attrs, None)


def test_state_attributes_read_as_before():
    a = _state("ReadState", {"board": [1, 2], "turn_no": 3, "mro": 4, "__repr__": 5,
                             "_grading_values_": 6, "not an identifier": 7})
    b = _state("ReadState", {"other": 8})
    assert (a.board, a.turn_no, a.mro, getattr(a, "not an identifier")) == ([1, 2], 3, 4, 7)
    assert b.other == 8
    assert type(a).__dict__["board"].__class__ is property         # no __getattr__ on the way
    # a name another object of the class has, and a name no object has: the same error
    for obj, name in ((b, "board"), (a, "other"), (a, "missing")):
        with pytest.raises(AttributeError) as info:
            getattr(obj, name)
        assert str(info.value) == f"'ReadState' object has no attribute '{name}'"
        assert not hasattr(obj, name)
    # the class's own attributes come first, as they did with __getattr__
    assert repr(a) == "<ReadState>" and callable(a.__repr__)
    assert a._grading_values_["_grading_values_"] == 6
    with pytest.raises(AttributeError, match="read-only"):
        a.board = 1
    with pytest.raises(AttributeError, match="read-only"):
        del a.board
    with pytest.raises(AttributeError):
        a.__dict__                       # noqa: B018 - no instance dictionary, as before
    assert math.isfinite(len(inside._READERS))
