"""numpy's default random generator in pure Python, for where numpy is missing (Lite offline).

``numpy.random.default_rng(seed)`` is a :class:`numpy.random.Generator` on the PCG64 bit
generator seeded through :class:`numpy.random.SeedSequence`.  The course's random trees draw their
numbers with two of its methods, ``uniform`` and ``integers``; this module reproduces exactly
those (and ``random``), bit for bit, so a seeded tree is the same tree with or without numpy:

* :class:`SeedSequence` -- numpy's entropy mixing (``hashmix``/``mix`` on a pool of four 32-bit
  words) and ``generate_state``;
* :class:`PCG64` -- the 128-bit LCG with the XSL-RR output function, numpy's 32-bit halves
  buffering and ``next_double`` (the top 53 bits times ``2**-53``);
* :class:`Generator` -- ``random``, ``uniform`` (``low + (high - low) * next_double``) and
  ``integers`` (Lemire's bounded integers with numpy's buffering of 8- and 16-bit draws in one
  32-bit word, per dtype).

It is a few hundred times slower than numpy, so :func:`default_rng` is used only when numpy cannot
be imported; ``tests/test_pcg64.py`` checks it against numpy on many seeds, ranges and dtypes.

Examples
--------
>>> rng = default_rng(7)
>>> [round(x, 6) for x in rng.uniform(0, 100, size=3)]
[62.509547, 89.72138, 77.568569]
>>> default_rng(7).integers(0, 10, size=5, dtype="int8")
[5, 2, 8, 9, 6]

Notes
-----
``uniform`` with ``low != 0`` rounds ``low + range * x`` twice, as numpy does when its C compiler
does not fuse the multiply-add (x86-64, WebAssembly); a build of numpy that fuses them may differ
in the last bit.  The course's trees use ``low = 0`` by default, where fusing changes nothing.
"""
from __future__ import annotations

from collections.abc import Sequence
from itertools import cycle

__all__ = ["SeedSequence", "PCG64", "Generator", "default_rng"]

_MASK32 = 0xFFFFFFFF
_MASK64 = 0xFFFFFFFFFFFFFFFF
_MASK128 = (1 << 128) - 1

# SeedSequence's hashing constants (numpy/random/bit_generator.pyx, after M. E. O'Neill's seed_seq).
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_MULT_L, _MIX_MULT_R = 0xCA01F9DD, 0x4973F715
_XSHIFT = 16
_POOL_SIZE = 4

# PCG64: the 128-bit LCG multiplier (pcg64.h, PCG_DEFAULT_MULTIPLIER_128).
_PCG_MULT = (2549297995355413924 << 64) + 4865540595714422341

#: The integer dtypes :meth:`Generator.integers` knows, as (bits, signed).
_DTYPES = {"int8": (8, True), "int16": (16, True), "int32": (32, True), "int64": (64, True),
           "uint8": (8, False), "uint16": (16, False), "uint32": (32, False),
           "uint64": (64, False)}


def _words(value: int) -> list[int]:
    """A non-negative integer as 32-bit words, least significant first (``[0]`` for 0)."""
    if value < 0:
        raise ValueError("expected non-negative integer")
    words = [value & _MASK32]
    value >>= 32
    while value:
        words.append(value & _MASK32)
        value >>= 32
    return words


def _entropy_words(entropy: int | Sequence[int]) -> list[int]:
    """numpy's ``_coerce_to_uint32_array`` for an int or a sequence of ints."""
    if isinstance(entropy, int):
        return _words(entropy)
    return [w for value in entropy for w in _words(int(value))]


class SeedSequence:
    """numpy's :class:`~numpy.random.SeedSequence` for integer entropy (no spawn key).

    Parameters
    ----------
    entropy : int or sequence of int
        Non-negative.

    Examples
    --------
    >>> SeedSequence(0).generate_state(2)
    [2968811710, 3677149159]
    """

    def __init__(self, entropy: int | Sequence[int]) -> None:
        self.entropy = entropy
        self.pool = self._mix(_entropy_words(entropy))

    @staticmethod
    def _mix(entropy: list[int]) -> list[int]:
        hash_const = _INIT_A

        def hashmix(value: int) -> int:
            nonlocal hash_const
            value ^= hash_const
            hash_const = (hash_const * _MULT_A) & _MASK32
            value = (value * hash_const) & _MASK32
            return value ^ (value >> _XSHIFT)

        def mix(x: int, y: int) -> int:
            result = (_MIX_MULT_L * x - _MIX_MULT_R * y) & _MASK32
            return result ^ (result >> _XSHIFT)

        pool = [hashmix(entropy[i] if i < len(entropy) else 0) for i in range(_POOL_SIZE)]
        for src in range(_POOL_SIZE):
            for dst in range(_POOL_SIZE):
                if src != dst:
                    pool[dst] = mix(pool[dst], hashmix(pool[src]))
        for src in range(_POOL_SIZE, len(entropy)):
            for dst in range(_POOL_SIZE):
                pool[dst] = mix(pool[dst], hashmix(entropy[src]))
        return pool

    def generate_state(self, n_words: int, dtype: str = "uint32") -> list[int]:
        """``n_words`` words of state, 32-bit or (``dtype="uint64"``) 64-bit."""
        wide = dtype == "uint64"
        if dtype not in ("uint32", "uint64"):
            raise ValueError("only support uint32 or uint64")
        hash_const = _INIT_B
        state = []
        source = cycle(self.pool)
        for _ in range(2 * n_words if wide else n_words):
            value = next(source) ^ hash_const
            hash_const = (hash_const * _MULT_B) & _MASK32
            value = (value * hash_const) & _MASK32
            state.append(value ^ (value >> _XSHIFT))
        if wide:  # little-endian pairs of 32-bit words
            return [state[i] | (state[i + 1] << 32) for i in range(0, len(state), 2)]
        return state


class PCG64:
    """numpy's PCG64 bit generator (XSL-RR 128/64), seeded by a :class:`SeedSequence`.

    Examples
    --------
    >>> bits = PCG64(SeedSequence(1))
    >>> bits.next_uint64()
    9441442522235856127
    """

    def __init__(self, seed_seq: SeedSequence) -> None:
        s0, s1, i0, i1 = seed_seq.generate_state(4, "uint64")
        self.inc = (((i0 << 64) | i1) << 1 | 1) & _MASK128
        self.state = (self.inc + ((s0 << 64) | s1)) & _MASK128   # srandom: step, add, step
        self.state = (self.state * _PCG_MULT + self.inc) & _MASK128
        self._half: int | None = None                            # numpy's has_uint32/uinteger

    def next_uint64(self) -> int:
        state = self.state = (self.state * _PCG_MULT + self.inc) & _MASK128
        value = ((state >> 64) ^ state) & _MASK64
        rot = state >> 122
        return ((value >> rot) | (value << (64 - rot))) & _MASK64

    def next_uint32(self) -> int:
        if self._half is not None:
            half, self._half = self._half, None
            return half
        value = self.next_uint64()
        self._half = value >> 32
        return value & _MASK32

    def next_double(self) -> float:
        return (self.next_uint64() >> 11) * (1.0 / 9007199254740992.0)


class Generator:
    """The part of :class:`numpy.random.Generator` the course uses, on a :class:`PCG64`.

    Results are lists of Python numbers (numpy returns arrays), or one number when ``size``
    is None.
    """

    def __init__(self, bit_generator: PCG64) -> None:
        self.bit_generator = bit_generator

    def random(self, size: int | None = None) -> float | list[float]:
        """Floats uniform in ``[0, 1)``, as ``Generator.random``."""
        draw = self.bit_generator.next_double
        return draw() if size is None else [draw() for _ in range(size)]

    def uniform(self, low: float = 0.0, high: float = 1.0,
                size: int | None = None) -> float | list[float]:
        """Floats uniform in ``[low, high)``: ``low + (high - low) * next_double()``."""
        low, span = float(low), float(high) - float(low)
        if span != span or span in (float("inf"), float("-inf")):
            raise OverflowError("high - low range exceeds valid bounds")
        if span < 0:
            raise ValueError("high - low < 0")
        draw = self.bit_generator.next_double
        return low + span * draw() if size is None else [low + span * draw()
                                                         for _ in range(size)]

    def integers(self, low: int, high: int, size: int | None = None,
                 dtype: str = "int64") -> int | list[int]:
        """Integers in ``[low, high)`` of a numpy integer ``dtype`` (a name such as ``"int8"``)."""
        bits, signed = _DTYPES[str(dtype)]
        lowest = -(1 << (bits - 1)) if signed else 0
        highest = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
        if low < lowest:
            raise ValueError(f"low is out of bounds for {dtype}")
        if high - 1 > highest:
            raise ValueError(f"high is out of bounds for {dtype}")
        if low > high - 1:
            raise ValueError("low >= high")
        values = _bounded(self.bit_generator, high - 1 - low, 1 if size is None else size, bits)
        out = [low + v for v in values]
        return out[0] if size is None else out


def _bounded(bits_gen: PCG64, rng: int, count: int, bits: int) -> list[int]:
    """numpy's ``random_bounded_uint{bits}_fill`` (Lemire, unmasked): ``count`` values in 0..rng."""
    if rng == 0:
        return [0] * count
    if bits == 64 and rng > _MASK32:
        if rng == _MASK64:
            return [bits_gen.next_uint64() for _ in range(count)]
        return [_lemire(bits_gen.next_uint64, rng, 64) for _ in range(count)]
    width = 32 if bits == 64 else bits          # 64-bit dtypes with a 32-bit range draw 32 bits
    draw = _buffered(bits_gen, width)
    if rng == (1 << width) - 1:
        return [draw() for _ in range(count)]
    return [_lemire(draw, rng, width) for _ in range(count)]


def _buffered(bits_gen: PCG64, width: int):
    """Draws of ``width`` bits: 8- and 16-bit ones are cut from one 32-bit draw, low bits first."""
    if width == 32:
        return bits_gen.next_uint32
    per_word, mask = 32 // width, (1 << width) - 1
    buffer, left = 0, 0

    def draw() -> int:
        nonlocal buffer, left
        if left == 0:
            buffer, left = bits_gen.next_uint32(), per_word - 1
        else:
            buffer >>= width
            left -= 1
        return buffer & mask

    return draw


def _lemire(draw, rng: int, width: int) -> int:
    """Lemire's nearly divisionless bounded draw, 0..rng, from ``width``-bit draws."""
    mask = (1 << width) - 1
    excl = rng + 1
    m = draw() * excl
    leftover = m & mask
    if leftover < excl:
        threshold = (mask - rng) % excl
        while leftover < threshold:
            m = draw() * excl
            leftover = m & mask
    return m >> width


def default_rng(seed: int | Sequence[int]) -> Generator:
    """``numpy.random.default_rng(seed)`` for a non-negative integer seed (or a list of them).

    >>> default_rng(0).random()
    0.6369616873214543
    """
    return Generator(PCG64(SeedSequence(seed)))
