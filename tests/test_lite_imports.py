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
        from course.theory import Table
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
        from course.grading.compare import TASKS, run_student

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

    from course.lite.build import NUMERIC_CODE, SETUP_CODE, lite_notebook
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
    assert lite_notebook(REPO / "lessons" / "01_minimax.ipynb", tmp_path / "l1.ipynb")
