"""The course's core works without numpy, matplotlib or Graphviz (as in the JupyterLite edition).

In the browser (Pyodide) numpy and matplotlib come from Pyodide's CDN, which a site built without
a local Pyodide distribution may not reach, and there is no Graphviz program nor nbgrader.  The
game model, trees, searches, DOT drawing, widgets and the exercises' visible checks must still
import and run.  Each test runs a script in a fresh interpreter whose import system refuses those
packages (an import hook), so nothing imported earlier in the test session can hide a top-level
import.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BLOCKED = ("numpy", "matplotlib", "graphviz", "graphviz_pure", "nbgrader", "nbformat",
           "copydetect", "scipy", "pandas")

HOOK = textwrap.dedent(f"""
    import importlib.abc, sys

    class Refuse(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in {BLOCKED!r}:
                raise ModuleNotFoundError(f"No module named {{name!r}} (blocked by the test)",
                                          name=name)
            return None

    sys.meta_path.insert(0, Refuse())
    for name in list(sys.modules):
        if name.split(".")[0] in {BLOCKED!r}:
            del sys.modules[name]
""")


def run_blocked(body: str, timeout: float = 120) -> str:
    """Run ``body`` in a new interpreter with the blocked packages unimportable; return stdout."""
    script = HOOK + textwrap.dedent(body) + textwrap.dedent(f"""
        leaked = sorted(n for n in sys.modules if n.split(".")[0] in {BLOCKED!r})
        assert not leaked, leaked
        print("OK")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout.rstrip().endswith("OK"), done.stdout
    return done.stdout


def test_hook_really_blocks():
    out = run_blocked("""
        try:
            import numpy
        except ModuleNotFoundError as exc:
            print("blocked:", exc)
    """)
    assert "blocked" in out


def test_core_searches_and_dot_without_numeric_packages():
    out = run_blocked("""
        import course
        from course import alphabeta, bab, expectimax, minimax, parse_tree, star1
        from course.examples import aima_figure_5_2, expectimax_example
        from course.games import TicTacToe, Pig
        from course.draw import draw_tree, legend
        from course.analysis import node_values
        from course.text import Table
        from course.theory import best_case_leaves
        import course.search, course.trees, course.game, course.errors

        game = parse_tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
        assert minimax(game).value == 3 and alphabeta(game).value == 3
        assert bab(game, epsilon=1).lower <= 3 <= bab(game, epsilon=1).upper
        assert expectimax(expectimax_example()).value == 14
        picture = draw_tree(aima_figure_5_2(), alphabeta(aima_figure_5_2(), trace=True))
        assert picture.source.lstrip().startswith(("digraph", "strict digraph")), picture.source[:80]
        print(expectimax(Pig(target=3, faces=2, turn_limit=2)).value is not None)
    """)
    assert "OK" in out


def test_widgets_without_numeric_packages():
    run_blocked("""
        from course.examples import aima_figure_5_2
        from course.widgets import step_through, chance_pruning_explorer, epsilon_explorer
        from course.widgets.tree_view import TreeView
        from course.draw import draw_tree
        TreeView(draw_tree(aima_figure_5_2()))
        step_through(aima_figure_5_2(), algorithm="alphabeta")
    """)


def test_grading_checks_without_numeric_packages():
    out = run_blocked("""
        import course.grading
        from course.grading import check_minimax_value, check_alphabeta, textbook_cases, exercise_cases

        def minimax_value(game, state):
            if game.is_terminal(state):
                return game.utility(state)
            values = [minimax_value(game, game.result(state, m)) for m in game.moves(state)]
            return max(values) if game.turn(state).name == "MAX" else min(values)

        check_minimax_value(minimax_value, textbook_cases("minimax"))
        check_minimax_value(minimax_value, exercise_cases(7, 3))
    """)
    assert "matches the reference search" in out or "match the reference search" in out


def test_grading_step_budget_stops_endless_search_without_signals():
    """Where there is no SIGALRM (Pyodide), a search that never ends is stopped by a budget."""
    out = run_blocked("""
        import signal
        del signal.setitimer                      # as if on a platform without interval timers
        from course.grading import textbook_cases
        from course.grading.checks.compare import TASKS, run_student

        def forever(game, state):
            while True:
                game.moves(state)

        run = run_student(TASKS["minimax_value"], forever, textbook_cases("minimax")[0],
                          time_limit=1.0)
        assert run.timed_out, (run.error, run.tampered)
        assert run.tampered is None, run.tampered
        print("stopped after", round(run.seconds, 1), "s")
    """, timeout=60)
    assert "stopped after" in out


def test_command_line_search_without_numeric_packages(tmp_path):
    """``python -m course search`` (lesson 0 runs it with ``%run -m course`` in JupyterLite)."""
    tree = tmp_path / "aima.json"
    tree.write_text("[[3, 12, 8], [2, 4, 6], [14, 5, 2]]")
    out = run_blocked(f"""
        import sys
        from course.cli import main
        try:
            main(["search", "alphabeta", {str(tree)!r}])
        except SystemExit as exc:
            assert not exc.code, exc.code
        import concurrent.futures
        assert "multiprocessing" not in sys.modules, "processes do not exist in Pyodide"
    """)
    assert "3" in out


def test_lite_setup_cell_is_inert_outside_the_browser(tmp_path):
    """The first cell the JupyterLite build adds runs as a no-op in JupyterLab (IPython) and in
    the sandboxed autograder (magics become ``pass``), so a notebook downloaded from the site can
    be handed in as it is; in the browser it installs the course."""
    import json

    from IPython.core.inputtransformer2 import TransformerManager

    from course.lite.build import NUMERIC, NUMERIC_CODE, SETUP_CODE, lite_notebook
    from course.sandbox.inside import plain_python

    for code in (SETUP_CODE, SETUP_CODE + NUMERIC_CODE):
        as_ipython = TransformerManager().transform_cell(code)
        namespace: dict = {}
        exec(compile(as_ipython, "<ipython>", "exec"), namespace)  # sys.platform != emscripten
        exec(compile(plain_python(code), "<sandbox>", "exec"), {})
        assert "piplite" not in namespace and "numpy" not in namespace

    target = tmp_path / "lesson.ipynb"
    numeric = lite_notebook(REPO / "lessons" / "00_how_to_use.ipynb", target)
    cells = json.loads(target.read_text())["cells"]
    assert not numeric and "lite-setup" in cells[0]["metadata"]["tags"]
    sources = ["".join(c["source"]) for c in cells]
    assert "%pip install --no-deps course" in sources[0]
    assert not any("!{sys.executable}" in s for s in sources)
    assert any("%run -m course search alphabeta {tree_file}" in s for s in sources)
    # random trees need no numpy now: lesson 1 does not load it, the lessons with plots do
    assert not lite_notebook(REPO / "lessons" / "01_minimax.ipynb", tmp_path / "l1.ipynb")
    assert not lite_notebook(REPO / "lessons" / "04_chance.ipynb", tmp_path / "l4.ipynb")
    for lesson in ("02_alpha_beta", "03_heuristics_selective", "05_bounded_suboptimal"):
        assert lite_notebook(REPO / "lessons" / f"{lesson}.ipynb", tmp_path / f"{lesson}.ipynb")
        cells = json.loads((tmp_path / f"{lesson}.ipynb").read_text())["cells"]
        # numpy/matplotlib: not in the first cell (it must stay quick) but in a cell of its own
        # just before the first cell that needs them
        assert "%pip install numpy" not in "".join(cells[0]["source"])
        (loader,) = [i for i, c in enumerate(cells)
                     if "lite-numeric" in c["metadata"].get("tags", [])]
        assert "offline, each of those cells prints" in "".join(cells[loader]["source"])
        assert NUMERIC.search("".join(cells[loader + 1]["source"]))
        assert not any(NUMERIC.search("".join(c["source"])) for c in cells[1:loader]
                       if c["cell_type"] == "code")


def test_random_trees_and_chen_without_numpy_are_numpys_trees():
    """Seeded random trees and Chen trees are the very trees numpy draws, numpy or not."""
    import json

    import numpy as np

    from course.games import ChenTree, random_tree, stochastic_random_tree

    out = run_blocked("""
        import json
        from course import alphabeta, bab, minimax, selective, star1
        from course.games import ChenTree, random_tree, stochastic_random_tree

        rt, srt = random_tree(3, 4, seed=7), stochastic_random_tree(2, 3, seed=1)
        chen = ChenTree(3, 3, seed=4)
        assert alphabeta(rt).value == minimax(rt).value
        assert bab(srt, epsilon=0).lower <= bab(srt, epsilon=0).upper
        assert star1(srt).lower is not None and selective(chen, depth=2, skip=1).value is not None
        assert minimax(chen).value == chen.value(0)
        rt.to_tree(); chen.to_tree()
        print(json.dumps({"rt": rt.leaf_values.tolist(), "srt": list(srt.leaf_values),
                          "chen": [list(chen.arcs), list(chen.evals), list(chen.values)],
                          "heights": list(chen.nodes_at_height(1))}))
    """)
    got = json.loads(out.splitlines()[-2])
    chen = ChenTree(3, 3, seed=4)
    assert got["rt"] == random_tree(3, 4, seed=7).leaf_values.tolist()
    assert got["rt"] == np.random.default_rng(7).uniform(0, 100, 81).tolist()
    assert got["srt"] == stochastic_random_tree(2, 3, seed=1).leaf_values.tolist()
    assert got["chen"] == [chen.arcs.tolist(), chen.evals.tolist(), chen.values.tolist()]
    assert got["heights"] == chen.nodes_at_height(1).tolist()


def test_epsilon_and_ordering_explorers_on_random_trees_without_numpy():
    run_blocked("""
        from course.widgets import epsilon_explorer, ordering_explorer
        eps = epsilon_explorer(epsilon=10, branching=3, depth=4, seed=0)
        eps.epsilon.value = 20                     # redraws
        eps.stochastic.value = True                # a stochastic RT
        order = ordering_explorer(order="random", branching=3, depth=4)
        order.seed.value = 3
    """)


def test_numeric_parts_still_say_what_they_need():
    """Off the browser, a missing numpy or matplotlib is an error naming the package."""
    out = run_blocked("""
        from course.games.chen import ChenTree, selective_sweep
        try:
            selective_sweep(ChenTree(3, 3), [0], depths=[1], skips=[0])
        except ModuleNotFoundError as exc:
            print("sweep:", exc)
        from course.plots import plot_leaves_vs_depth
        try:
            plot_leaves_vs_depth({"random": {1: 3, 2: 7}}, branching=3)
        except ModuleNotFoundError as exc:
            print("plot:", exc)
    """)
    assert "sweep: this part of the course needs 'numpy'" in out, out
    assert "plot:" in out and "matplotlib" in out, out


def test_offline_cells_print_one_line_and_count_as_run():
    """The browser edition's handler (``course._browser``), on IPython with numpy blocked: a cell
    needing numpy or matplotlib prints one line, shows no traceback, and so does a later cell using
    what it would have defined; other errors still show their traceback."""
    out = run_blocked("""
        from IPython.core.interactiveshell import InteractiveShell
        from course._browser import install_offline_notices

        shell = InteractiveShell.instance()
        shown = []
        shell._showtraceback = lambda etype, value, stb: shown.append(etype.__name__)
        install_offline_notices(shell)
        install_offline_notices(shell)                        # idempotent
        cells = [
            "from course.games import random_tree\\nrt = random_tree(3, 3, seed=1)",
            "from course.games.chen import ChenTree, selective_sweep\\n"
            "sweep = selective_sweep(ChenTree(3, 3), [0], depths=[1], skips=[0])",
            "print(sweep)",
            "from course.plots import plot_leaves_vs_depth\\n"
            "plot_leaves_vs_depth({'random': {1: 3, 2: 7}}, branching=3)",
            "import numpy as np",
            "print(undefined_name)",
            "print('still running', len(rt.leaf_values))",
        ]
        for i, cell in enumerate(cells):
            print(f"[{i}]", end=" ")
            shell.run_cell(cell)
            print(f"errors shown: {shown}")
    """)
    lines = out.splitlines()
    assert "[0] errors shown: []" in lines, out
    assert any(l.startswith("[1] This numeric experiment needs numpy") for l in lines), out
    assert any(l.startswith("[2] Skipped: this cell uses 'sweep'") for l in lines), out
    assert any(l.startswith("[3] This plot needs matplotlib, which the browser edition loads "
                            "from Pyodide's CDN; you are offline") for l in lines), out
    assert any(l.startswith("[4] This numeric experiment needs numpy") for l in lines), out
    assert "errors shown: ['NameError']" in out and "still running 27" in out, out
    assert "Traceback" not in out.replace("NameError", ""), out
