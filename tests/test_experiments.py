"""The experiments: the fast path equals the reference searches, and every experiment runs.

* ``fast_search`` must return *the same* SearchResult as course.search (same
  leaves in the same order, same counts, same bounds) on random trees, with and
  without chance, at epsilon 0 and above.
* Each experiment runs end to end at a tiny size through the command line and
  writes its CSV and PNG.
* The papers' numbers in course.experiments.paper match the seed texts.
"""

import csv
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course.cli import main
from course.errors import BoundsError, ParameterError
from course.experiments.common import derive_seed, format_table, mean_ci, parallel_map
from course.experiments.fast import fast_search
from course.experiments import paper
from course.experiments.chen import paper_simulations
from course.games.random_trees import random_tree, stochastic_random_tree
from course.search import alphabeta, bab, star1

PROPERTY = settings(max_examples=300, deadline=None)
EPSILONS = st.one_of(st.just(0), st.sampled_from([1, 5, 10, 25, 50, 99.5, 100, 150]),
                     st.floats(0, 120, allow_nan=False))


@st.composite
def rt_games(draw, max_leaves=600):
    b = draw(st.integers(1, 5))
    d = draw(st.integers(0, 6))
    while b ** d > max_leaves:
        d -= 1
    low = draw(st.sampled_from([0, -50, 10]))
    high = low + draw(st.sampled_from([1, 100, 7.5]))
    return random_tree(b, d, seed=draw(st.integers(0, 2 ** 32 - 1)), low=low, high=high)


@st.composite
def stochastic_games(draw):
    b = draw(st.integers(2, 4))
    d = draw(st.integers(0, 3 if b < 4 else 2))
    p = draw(st.sampled_from([0.8, 0.5, 0.25, 0.95]))
    low = draw(st.sampled_from([0, -20]))
    return stochastic_random_tree(b, d, seed=draw(st.integers(0, 2 ** 32 - 1)), p=p, low=low,
                                  high=low + 100)


# -- the fast path is the reference ---------------------------------------------------------------
@PROPERTY
@given(rt_games())
def test_fast_alphabeta_and_star1_equal_reference_on_rt(game):
    assert fast_search("alphabeta", game) == alphabeta(game)
    assert fast_search("star1", game) == star1(game)


@PROPERTY
@given(rt_games(), EPSILONS)
def test_fast_bab_equals_reference_on_rt(game, eps):
    fast, ref = fast_search("bab", game, epsilon=eps), bab(game, epsilon=eps)
    assert fast == ref
    assert fast.leaves == ref.leaves and fast.expanded == ref.expanded  # spelled out


@PROPERTY
@given(stochastic_games(), EPSILONS)
def test_fast_bab_equals_reference_on_stochastic_rt(game, eps):
    assert fast_search("bab", game, epsilon=eps) == bab(game, epsilon=eps)
    assert fast_search("star1", game) == star1(game)


def test_fast_without_leaves_keeps_the_counts():
    game = random_tree(4, 6, seed=3)
    full, light = fast_search("bab", game, epsilon=16), fast_search("bab", game, epsilon=16, leaves=False)
    assert light.leaves == () and light.evaluated == full.evaluated == len(full.leaves)
    assert (light.lower, light.upper, light.expanded, light.move) == (full.lower, full.upper,
                                                                      full.expanded, full.move)


def test_fast_on_the_experiment_size():
    game = random_tree(4, 9, seed=derive_seed(0, 4, 9, 0))
    for eps in (0, 32):
        assert fast_search("bab", game, epsilon=eps) == bab(game, epsilon=eps)


@pytest.mark.parametrize("call, error, fragment", [
    (lambda: fast_search("minimax", random_tree(2, 2)), ParameterError, "implements"),
    (lambda: fast_search("bab", object()), ParameterError, "random_tree"),
    (lambda: fast_search("alphabeta", stochastic_random_tree(2, 2)), ParameterError, "chance"),
    (lambda: fast_search("bab", random_tree(2, 2), epsilon=-1), ParameterError, ">= 0"),
    (lambda: fast_search("alphabeta", random_tree(2, 2), epsilon=3), ParameterError, "bab only"),
])
def test_fast_rejects_bad_input(call, error, fragment):
    with pytest.raises(error, match=fragment):
        call()


def test_fast_checks_bounds():
    game = random_tree(2, 3, seed=1)
    game.vmax = 10                                        # leaves go up to 100
    with pytest.raises(BoundsError):
        fast_search("bab", game)


# -- plumbing -----------------------------------------------------------------------------------------
def _square(x):
    return x * x


def test_parallel_map_keeps_task_order():
    assert parallel_map(_square, list(range(7)), jobs=2) == [x * x for x in range(7)]
    assert parallel_map(_square, [3], jobs=1) == [9]
    with pytest.raises(ParameterError):
        parallel_map(_square, [1], jobs=0)


def test_mean_ci_and_table():
    mean, half = mean_ci([2, 2, 2, 2])
    assert (mean, half) == (2.0, 0.0)
    assert "1.500" in format_table(["x"], [[1.5]])


# -- the papers' numbers match the seed texts ---------------------------------------------------------
SEEDS = Path(__file__).resolve().parents[1].parent / "shared" / "seeds"
needs_seeds = pytest.mark.skipif(not SEEDS.is_dir(), reason="shared/seeds is not beside the repository")


def _seed(prefix):
    return next(SEEDS.glob(f"{prefix}_*.txt")).read_text(encoding="utf-8")


@needs_seeds
def test_bab_numbers_are_the_papers():
    text = _seed("000")
    numbers = (list(paper.BAB_RT_ER_AT_EPS32.values()) + list(paper.BAB_RT_AMB_DEPTH9.values())[1:]
               + [x for pair in paper.BAB_STOCHASTIC_RT_B4.values() for x in pair][2:]
               + [x for pair in paper.BAB_CR_STOCHASTIC.values() for x in pair][2:])
    for x in numbers:
        assert f"{x:g}" in text, x
    assert "0.67, 0.37, 0.18, and 0.05" in text
    assert "the ER is 1, 0.79, and 0.4" in text and "0, 6.58, and 20.71" in text
    assert "the er is 1, 0.25, and 0.07" in text and "0, 3.17, and 7.19" in text


def _seed_table(text, number):
    start = text.index(f"Table {number}.")
    lines = text[start:].splitlines()
    header = next(i for i, line in enumerate(lines) if line.replace(" ", "").startswith("d\\s"))
    grid = {}
    for line in lines[header + 1:]:
        cells = line.split()
        if not cells or not re.fullmatch(r"\d+", cells[0]):
            break
        for s, value in enumerate(cells[1:]):
            grid[int(cells[0]), s] = float(value)
    return grid


@needs_seeds
@pytest.mark.parametrize("number, table, kind", [(1, "table1", "errors"), (2, "table2", "nodes"),
                                                 (3, "table3", "errors"), (4, "table4", "nodes")])
def test_chen_tables_are_the_papers(number, table, kind):
    ours = (paper.CHEN_ERRORS if kind == "errors" else paper.CHEN_NODES)[table]
    assert _seed_table(_seed("003"), number) == {k: float(v) for k, v in ours.items()}


@needs_seeds
def test_chen_node_values_are_the_papers():
    text = _seed("003")
    for value in paper.CHEN_NODE_VALUE.values():
        assert f"average game theoretic node value is {value}" in text


def test_chen_simulation_counts_from_precision():
    assert paper_simulations("table1") == 1000
    assert paper_simulations("table3") == 200


# -- every experiment runs end to end ------------------------------------------------------------------
TINY = {
    "bab-rt": ["--depths", "2,3", "--instances", "3", "--eps", "0,8,32", "--bin-depth", "3"],
    "bab-stochastic-rt": ["--depth", "2", "--branchings", "2,3", "--instances", "2", "--eps", "0:20:10"],
    "bab-cops-robbers": ["--depths", "1", "--eps", "0,2", "--stochastic-depth", "1",
                         "--stochastic-eps", "0,4", "--instances", "2"],
    "chen": ["--case", "3/4/3", "--simulations", "9"],
    "alphabeta-ordering": ["--branching", "2", "--depths", "1,2,3", "--instances", "2"],
}


@pytest.mark.parametrize("name", sorted(TINY))
def test_experiment_runs_and_writes_csv_and_png(name, tmp_path, capsys):
    status = main(["experiment", name, *TINY[name], "--out", str(tmp_path), "--jobs", "1", "--quiet"])
    assert status == 0
    out = capsys.readouterr().out
    assert "wrote" in out
    csvs, pngs = sorted(tmp_path.glob("*.csv")), sorted(tmp_path.glob("*.png"))
    assert csvs and pngs
    for path in csvs:
        rows = list(csv.DictReader(path.open()))
        assert rows, path
    assert pngs[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bab_rt_is_reproducible_and_independent_of_jobs(tmp_path):
    args = ["experiment", "bab-rt", *TINY["bab-rt"], "--quiet"]
    assert main(args + ["--out", str(tmp_path / "a"), "--jobs", "1"]) == 0
    assert main(args + ["--out", str(tmp_path / "b"), "--jobs", "2"]) == 0
    assert main(args + ["--out", str(tmp_path / "c"), "--jobs", "1", "--engine", "reference"]) == 0
    a = (tmp_path / "a" / "bab-rt.csv").read_text()
    assert a == (tmp_path / "b" / "bab-rt.csv").read_text() == (tmp_path / "c" / "bab-rt.csv").read_text()


def test_bab_rt_summary_obeys_theorem_1(tmp_path):
    from course.experiments.bab_rt import run_bab_rt

    out = run_bab_rt(out=tmp_path, depths=(3, 4), instances=4, epsilons=(0, 5, 20, 60), bin_depth=3,
                     quiet=True)
    assert out.summary["max_amb_minus_eps"] <= 0
    assert all(out.summary["er"][d, 0] == 1.0 and out.summary["amb"][d, 0] == 0 for d in (3, 4))
    assert sum(b["runs"] for b in out.summary["bins"]) == 4 * 4


def test_chen_experiment_counts_match_the_formula(tmp_path):
    from course.experiments.chen import run_chen
    from course.theory import nodes_generated

    out = run_chen(out=tmp_path, cases=[(4, 5, 4)], simulations=8, quiet=True)
    nodes = out.summary["b4-h5-h1_4"]["nodes"]
    assert nodes == {(d, s): nodes_generated(4, d, s) for d in range(1, 5) for s in range(3)}


@pytest.mark.parametrize("args", [
    ["experiment", "bab-rt", "--eps", "zero"],
    ["experiment", "chen", "--case", "table9"],
    ["experiment", "bab-rt", "--depths", "3", "--instances", "1", "--jobs", "0"],
    ["experiment", "nonsense"],
])
def test_bad_flags_exit_2(args, tmp_path, capsys):
    assert main(args + ["--out", str(tmp_path)] if args[1] != "nonsense" else args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "Traceback" not in err


def test_help_documents_every_experiment(capsys):
    with pytest.raises(SystemExit):
        main(["experiment", "--help"])
    text = capsys.readouterr().out
    for name in list(TINY) + ["all"]:
        assert name in text


def test_chen_experiment_compares_depths_decision_by_decision(tmp_path, capsys):
    """The paired difference (deepest minus middle depth) is in the summary and the printed table,
    and --last-level max runs on tree tops with the same node counts."""
    from course.experiments.chen import paired_difference, run_chen

    out = run_chen(out=tmp_path, cases=[(3, 5, 5)], simulations=30, quiet=True)
    summary = out.summary["b3-h5-h1_5"]
    assert set(summary["deeper"]) == {0, 1}
    assert "searching deeper, decision by decision: error at d=5 minus error at d=3" in out.table
    assert main(["experiment", "chen", "--case", "3/5/5", "--simulations", "30", "--last-level", "max",
                 "--out", str(tmp_path / "max"), "--jobs", "1", "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "leaf level drawn as best arcs" in printed and "s=0: " in printed
    assert paired_difference([2, 2], [1, 3]) == (0.0, 1.0)
