"""The pure-Python generator draws exactly numpy's numbers (random trees without numpy)."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from course import _pcg64
from course._optional import Values
from course.games import chen as chen_module
from course.games import random_trees
from course.games.chen import ChenTree
from course.games.random_trees import random_tree, stochastic_random_tree

seeds = st.integers(0, 2 ** 70)
sizes = st.integers(0, 300)
DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@given(entropy=st.one_of(seeds, st.lists(st.integers(0, 2 ** 40), max_size=9)),
       words=st.integers(1, 10))
def test_seed_sequence_matches_numpy(entropy, words):
    ours = _pcg64.SeedSequence(entropy)
    theirs = np.random.SeedSequence(entropy)
    assert ours.pool == theirs.pool.tolist()
    for dtype in ("uint32", "uint64"):
        assert ours.generate_state(words, dtype) == theirs.generate_state(words, dtype).tolist()


@given(seed=seeds)
def test_pcg64_state_and_raw_draws_match_numpy(seed):
    theirs = np.random.PCG64(seed)
    ours = _pcg64.PCG64(_pcg64.SeedSequence(seed))
    assert (ours.state, ours.inc) == (theirs.state["state"]["state"], theirs.state["state"]["inc"])
    assert [ours.next_uint64() for _ in range(5)] == theirs.random_raw(5).tolist()


@given(seed=seeds, size=sizes,
       low=st.floats(-1e6, 1e6, allow_nan=False), span=st.floats(1e-6, 1e6, allow_nan=False))
def test_uniform_and_random_match_numpy(seed, size, low, span):
    high = low + span
    assert _pcg64.default_rng(seed).uniform(low, high, size=size) == \
        np.random.default_rng(seed).uniform(low, high, size=size).tolist()
    assert _pcg64.default_rng(seed).uniform(0, 100, size=size) == \
        np.random.default_rng(seed).uniform(0, 100, size=size).tolist()
    assert _pcg64.default_rng(seed).random(size) == \
        np.random.default_rng(seed).random(size).tolist()
    assert _pcg64.default_rng(seed).random() == np.random.default_rng(seed).random()


@given(seed=seeds, size=sizes, dtype=st.sampled_from(DTYPES), data=st.data())
def test_integers_match_numpy(seed, size, dtype, data):
    info = np.iinfo(dtype)
    width = data.draw(st.sampled_from([1, 2, 3, 10, 100, 128, 255, 256, 257, 2 ** 15, 2 ** 16,
                                       2 ** 31 + 5, 2 ** 32, 2 ** 32 + 1, 2 ** 63, 2 ** 64])
                      | st.integers(1, 2 ** 64))
    low = data.draw(st.integers(int(info.min), int(info.max)))
    high = min(low + width, int(info.max) + 1)
    ours = _pcg64.default_rng(seed).integers(low, high, size=size, dtype=dtype)
    theirs = np.random.default_rng(seed).integers(low, high, size=size, dtype=dtype)
    assert ours == theirs.tolist()


def test_integers_refuse_what_numpy_refuses():
    for low, high, dtype in [(0, 0, "int8"), (-1, 5, "uint8"), (0, 129, "int8"), (5, 3, "int64")]:
        with pytest.raises(ValueError):
            np.random.default_rng(0).integers(low, high, dtype=dtype)
        with pytest.raises(ValueError):
            _pcg64.default_rng(0).integers(low, high, dtype=dtype)


@given(b=st.integers(1, 5), d=st.integers(0, 4), seed=seeds,
       low=st.floats(-50, 50), span=st.floats(0.5, 200))
def test_random_trees_identical_without_numpy(b, d, seed, low, span):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(random_trees, "optional_import", lambda name: None)
        pure = random_tree(b, d, seed=seed, low=low, high=low + span)
        pure_stochastic = stochastic_random_tree(max(b, 2), d, seed=seed)
    assert isinstance(pure.leaf_values, Values)
    assert pure.leaf_values.tolist() == random_tree(b, d, seed=seed, low=low,
                                                    high=low + span).leaf_values.tolist()
    assert pure_stochastic.leaf_values.tolist() == \
        stochastic_random_tree(max(b, 2), d, seed=seed).leaf_values.tolist()


@given(b=st.integers(2, 5), h=st.integers(1, 4), seed=seeds,
       max_arc=st.sampled_from([0, 1, 9, 127, 128, 300, 40_000, 2 ** 31, 5 * 10 ** 9]))
def test_chen_trees_identical_without_numpy(b, h, seed, max_arc):
    tree = ChenTree(b, h, max_arc=max_arc, seed=seed)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(chen_module, "optional_import", lambda name: None)
        pure = ChenTree(b, h, max_arc=max_arc, seed=seed)
        heights = pure.nodes_at_height(1)
    for name in ("arcs", "evals", "values"):
        assert isinstance(getattr(pure, name), Values)
        assert list(getattr(pure, name)) == getattr(tree, name).tolist(), name
    assert list(heights) == tree.nodes_at_height(1).tolist()
    assert pure.describe_move(0, 0) == tree.describe_move(0, 0)


def test_pure_generator_is_fast_enough_for_the_lessons():
    """The largest trees the lessons draw (about 20 000 leaves) in well under a second."""
    import time
    start = time.perf_counter()
    _pcg64.default_rng(0).uniform(0, 100, size=20_000)
    assert time.perf_counter() - start < 1.0
