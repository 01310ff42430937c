"""Tests of course.draw: pictures of trees and searches, the engine, the legend and the CLI.

Fixture trees (MAX triangles up, MIN down, leaves boxed):

AIMA figure 5.2 (alpha-beta cuts C after C1 = 2 <= alpha = 3)::

                 A
        B        C        D
      3 12 8   2 4 6   14 5 2
"""

from __future__ import annotations

import html
import os
import random
import re
import stat
import sys
from pathlib import Path

import pytest

from course import Game, Player, alphabeta, bab, expectimax, minimax, parse_tree, star1
from course.cli import main as cli_main
from course.draw import RenderError, TreePicture, describe_event, draw_tree, find_engine, legend
from course.draw import engine as engine_module
from course.errors import ParameterError
from course.examples import aima_figure_5_2, bab_figure3, chance_note_game

NODE_GROUP = re.compile(r'<g id="([^"]+)" class="node"')


def node_groups(svg: str) -> list[str]:
    """Ids of the SVG's node groups, in document order."""
    return NODE_GROUP.findall(svg)


def group(svg: str, node_id: str) -> str:
    """The SVG of one node's group, entities decoded (Graphviz writes "-" as "&#45;")."""
    start = svg.index(f'<g id="{node_id}" class="node"')
    end = svg.find('<g id="', start + 10)
    while end != -1 and svg.startswith('<g id="a_', end):   # the tooltip's inner <a> group
        end = svg.find('<g id="', end + 10)
    return html.unescape(svg[start:end if end != -1 else len(svg)])


def uniform_tree(b: int, d: int, seed: int = 0, low: int = 0, high: int = 100):
    """A uniform random tree (MAX root), built here so the test needs no generator."""
    rng = random.Random(seed)

    def node(depth: int):
        if depth == d:
            return rng.randint(low, high)
        return [node(depth + 1) for _ in range(b)]

    return parse_tree({"tree": node(0), "bounds": [low, high]})


@pytest.fixture(scope="module")
def aima():
    game = aima_figure_5_2()
    return game, alphabeta(game, trace=True)


@pytest.fixture
def no_dot(monkeypatch, tmp_path):
    """PATH holds nothing: no system `dot` (graphviz-pure is still found beside python)."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    return empty


# -- the engine ---------------------------------------------------------------------------------

def test_renders_without_dot_on_path(no_dot, aima):
    import shutil

    assert shutil.which("dot") is None
    kind, program = find_engine()
    assert kind == "graphviz-pure"
    assert Path(program).parent == Path(sys.executable).parent
    game, result = aima
    picture = draw_tree(game, result)
    svg = picture.svg()
    assert svg.lstrip().startswith("<?xml") and "</svg>" in svg
    assert picture.png().startswith(b"\x89PNG\r\n\x1a\n")


def _fake_dot(folder: Path, real: str) -> Path:
    """A `dot` program that forwards to graphviz-pure (stands in for a system Graphviz)."""
    script = folder / "dot"
    script.write_text(f'#!/bin/sh\nexec "{real}" "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


@pytest.mark.skipif(os.name == "nt", reason="uses a shell script as a fake dot")
def test_falls_back_to_system_dot(monkeypatch, tmp_path):
    _, real = find_engine()
    folder = tmp_path / "bin"
    folder.mkdir()
    fake = _fake_dot(folder, real)
    monkeypatch.setattr(engine_module, "_candidates", lambda: [])
    monkeypatch.setenv("PATH", str(folder))
    assert find_engine() == ("dot", str(fake))
    assert node_groups(TreePicture("digraph { a -> b }").svg()) == ["node1", "node2"]


def test_no_engine_is_a_clear_error(monkeypatch, no_dot):
    monkeypatch.setattr(engine_module, "_candidates", lambda: [])
    with pytest.raises(RenderError, match="pip install"):
        find_engine()
    with pytest.raises(RenderError):
        TreePicture("digraph { a }").svg()


def test_notebook_display_falls_back_to_the_browser_without_an_engine(monkeypatch, no_dot, aima):
    game, result = aima
    picture = draw_tree(game, result)
    bundle = picture._repr_mimebundle_()                                      # engine installed
    assert bundle["image/svg+xml"] == picture.svg()
    assert 'role="img"' in bundle["text/html"] and bundle["text/plain"] == picture.describe()
    monkeypatch.setattr(engine_module, "_candidates", lambda: [])              # ... and now none
    import course.widgets.tree_view as tree_view

    made = []

    class Recorded(tree_view.TreeView):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(tree_view, "TreeView", Recorded)
    fresh = draw_tree(game, result)
    assert fresh._repr_svg_() is None
    alone = fresh._repr_mimebundle_()            # the drawing layer alone: its text, and why
    assert "image/svg+xml" not in alone and not made
    assert "not drawn here" in alone["text/html"] and alone["text/plain"] == fresh.describe()

    from IPython.core.interactiveshell import InteractiveShell

    import course

    shell = InteractiveShell.instance()        # a kernel's shell: `import course` wires display
    try:
        course._register_display()
        bundle, _ = shell.display_formatter.format(fresh)
    finally:
        InteractiveShell.clear_instance()
    assert "image/svg+xml" not in bundle
    view, = made                                         # the browser widget, given the same DOT
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == view.model_id
    assert view.dot == fresh.source and view.nodes == dict(fresh.nodes)


def test_the_drawing_layer_never_imports_the_widget_layer():
    """Data flows one way: course.draw knows nothing of course.widgets (the package root wires
    the browser display), and the models of drills and play know nothing of their widgets."""
    import course

    root = Path(course.__file__).parent
    paths = [p for folder in ("draw", "drills", "search", "games") for p in (root / folder).rglob("*.py")]
    paths += [root / name for name in ("play.py", "trees.py", "game.py", "plots.py")]
    for path in paths:
        code = re.sub(r'""".*?"""|#[^\n]*', "", path.read_text(encoding="utf-8"), flags=re.S)
        assert "widgets" not in code, path


def test_engine_failure_is_reported():
    with pytest.raises(RenderError, match="failed"):
        engine_module.run_engine("digraph { this is not dot ")
    with pytest.raises(ValueError, match="unknown picture format"):
        engine_module.run_engine("digraph { a }", "gif")


def test_source_fixes_fonts_and_layout(aima):
    source = draw_tree(*aima).source
    for kind in ("graph", "node", "edge"):
        assert re.search(rf'^{kind} \[fontname="Helvetica"', source, re.M), kind
    assert 'ordering="out"' in source


# -- one Graphviz node per tree node -------------------------------------------------------------

def test_one_svg_node_group_per_tree_node(aima):
    game, result = aima
    for picture in (draw_tree(game), draw_tree(game, result), draw_tree(game, result, upto=5)):
        ids = node_groups(picture.svg())
        assert sorted(ids) == sorted(picture.nodes)
        assert len(ids) == game.root.size == 13
        assert picture.svg().count('class="node"') == 13


def test_node_ids_follow_paths(aima):
    game, result = aima
    ids = set(draw_tree(game, result).nodes)
    expected = {"n" + "".join(f"_{i}" for i in node.path) for node in game.root.iter_nodes()}
    assert ids == expected


def test_legend_adds_only_legend_nodes(aima):
    game, result = aima
    alone = node_groups(legend().svg())
    assert alone and all(i.startswith("legend_") for i in alone)
    with_legend = node_groups(draw_tree(game, result, legend=True).svg())
    tree_ids = [i for i in with_legend if not i.startswith("legend_")]
    assert len(tree_ids) == 13
    assert sorted(i for i in with_legend if i.startswith("legend_")) == sorted(alone)


def _font_sizes(svg: str) -> list[float]:
    return [float(v) for v in re.findall(r'<text\b[^>]*font-size="([\d.]+)"', svg)]


def test_legend_text_is_as_big_as_the_trees(aima):
    """The legend's samples write their values and windows as the tree does: no text below the
    tree's smallest (10 pt, 13 px; it was 7 pt, 9 px, for "α=3 β=9" and "#3")."""
    game, result = aima
    smallest = min(_font_sizes(draw_tree(game, result).svg()))
    assert smallest * 4 / 3 >= 10                              # WCAG-minded floor: 10 px
    sizes = _font_sizes(legend().svg())
    assert sizes and min(sizes) >= smallest, sorted(set(sizes))
    bab_game = bab_figure3()
    with_legend = draw_tree(bab_game, bab(bab_game, epsilon=2, trace=True), legend=True).svg()
    assert min(_font_sizes(with_legend)) >= smallest


def test_the_legend_says_every_entry_in_its_text_alternative():
    from course.draw.legend import LEGEND_ENTRIES, ROWS

    picture = legend()
    assert picture.summary != "Picture: Legend." and "legend" in picture.summary.lower()
    assert str(len(LEGEND_ENTRIES)) in picture.summary
    meanings = [" ".join(text.split()) for _, _, _, text in LEGEND_ENTRIES]
    order = [key for row in ROWS for key in row]
    assert sorted(order) == sorted(key for key, *_ in LEGEND_ENTRIES)
    rows = [text for _, text in picture.outline]
    assert len(rows) == len(LEGEND_ENTRIES)                # one line per entry, in drawn order
    for key, row in zip(order, rows):
        meaning = meanings[[k for k, *_ in LEGEND_ENTRIES].index(key)]
        symbol, _, said = row.partition(" → ")
        assert said == meaning and symbol.strip(), row     # symbol → meaning
    described = {key: row.partition(" → ")[0] for key, row in zip(order, rows)}
    assert "triangle" in described["max"] and "line" in described["cut"]
    assert "dashed" in described["pruned"] and "dotted" in described["pending"]
    assert '"cut"' in described["cut"] and "α=3 β=9" in described["value"]
    assert len(set(described.values())) == len(described)  # no two symbols described alike
    text = picture.describe()
    assert all(meaning in text for meaning in meanings)
    html = picture.html()
    assert html.count("<li>") == len(LEGEND_ENTRIES) and "The legend in text" in html


# -- what a search looks like ----------------------------------------------------------------------

def test_pruned_nodes_are_dashed_and_faded(aima):
    game, result = aima
    picture = draw_tree(game, result)
    assert picture.nodes["n_1_1"] == picture.nodes["n_1_2"] == "pruned"
    svg = picture.svg()
    pruned, visited = group(svg, "n_1_1"), group(svg, "n_1_0")
    assert "stroke-dasharray" in pruned and 'stroke="#6a6a6a"' in pruned.lower()
    assert "stroke-dasharray" not in visited and 'stroke="#000000"' in visited.lower()
    assert "pruned:" in pruned and "visited:" in visited          # tooltips say so
    edge = svg[svg.index('id="e_1_1"'):]
    assert "stroke-dasharray" in edge.split("</g>")[0]


def test_values_windows_order_and_cut(aima):
    game, result = aima
    svg = draw_tree(game, result).svg()
    root = group(svg, "n")
    assert ">3<" in root and "α=-∞ β=+∞" in root
    # C returned 2 <= alpha = 3: only a bound, written ≤2, searched with alpha = 3
    c = group(svg, "n_1")
    assert ">≤2<" in c and "α=3 β=+∞" in c
    # leaves carry their evaluation order
    orders = {leaf: f"#{k + 1}" for k, leaf in enumerate(result.leaves)}
    for path, tag in orders.items():
        assert f">{tag}<" in group(svg, "n" + "".join(f"_{i}" for i in path))
    assert ">cut<" in svg
    # the chosen root move is bold
    chosen = svg[svg.index('id="e_0"'):].split("</g>")[0]
    assert 'stroke-width="4"' in chosen


def test_bounded_search_shows_bounds():
    game = bab_figure3()
    picture = draw_tree(game, bab(game, epsilon=1, trace=True))
    svg = picture.svg()
    assert ">[7, 8]<" in group(svg, "n")
    assert picture.title == "bab (ε=1): value in [7, 8], 3 leaves evaluated"
    assert picture.nodes["n_1_1"] == "pruned"


def test_chance_edges_carry_probabilities():
    game = chance_note_game()
    svg = draw_tree(game, star1(game, trace=True)).svg()
    labels = re.findall(r'<g id="e_(\d)_(\d)" class="edge">.*?>([0-9/]+)</text>', svg, re.S)
    assert {(a, b): p for a, b, p in labels} == {("0", "0"): "1/2", ("0", "1"): "1/2",
                                                 ("1", "0"): "4/5", ("1", "1"): "1/5"}


def test_exact_searches_show_values():
    game = parse_tree({"chance": [[0.5, [1, 5]], [0.5, 3]]})
    svg = draw_tree(game, expectimax(game, trace=True)).svg()
    assert ">4<" in group(svg, "n") and ">5<" in group(svg, "n_0")
    picture = draw_tree(parse_tree([[1, 2], [3, 4]]), minimax(parse_tree([[1, 2], [3, 4]]), trace=True))
    assert set(picture.nodes.values()) == {"visited"}


# -- stepping through a trace -----------------------------------------------------------------------

def positions(svg: str) -> dict[str, tuple[float, float]]:
    """Node id -> its shape's first point, relative to the root's (the title may shift all)."""
    out = {}
    for node_id in node_groups(svg):
        body = group(svg, node_id)
        match = re.search(r'points="([-0-9.]+),([-0-9.]+)|cx="([-0-9.]+)" cy="([-0-9.]+)"', body)
        x, y = (float(v) for v in match.groups() if v is not None)
        out[node_id] = (x, y)
    x0, y0 = out["n"]
    return {k: (round(x - x0, 1), round(y - y0, 1)) for k, (x, y) in out.items()}


def test_step_through_states(aima):
    game, result = aima
    events = result.trace.events
    start = draw_tree(game, result, upto=0)
    assert set(start.nodes.values()) == {"pending"}
    assert start.title == "alphabeta: after step 0 of 26"
    for k in (1, 3, 9, 14, 20):
        picture = draw_tree(game, result, upto=k)
        current = "n" + "".join(f"_{i}" for i in events[k - 1].path)
        assert picture.nodes[current] == "current"
        assert list(picture.nodes.values()).count("current") == 1
        svg = picture.svg()
        assert 'stroke-width="3.5"' in group(svg, current)
        # every edge on the path from the root to the current node is thick
        path = events[k - 1].path
        for depth in range(1, len(path) + 1):
            edge_id = "e" + "".join(f"_{i}" for i in path[:depth])
            edge = svg[svg.index(f'id="{edge_id}"'):].split("</g>")[0]
            assert 'stroke-width="3"' in edge
    # after C1 is cut (event 14 is the cut-off), C2 and C3 are pruned; before it, pending
    cut_at = next(i for i, e in enumerate(events) if e.kind == "cutoff")
    assert draw_tree(game, result, upto=cut_at).nodes["n_1_1"] == "pending"
    assert draw_tree(game, result, upto=cut_at + 1).nodes["n_1_1"] == "pruned"
    # the chosen move is shown only once the search is over
    assert 'stroke-width="4"' not in draw_tree(game, result, upto=len(events) - 1).svg()
    assert 'stroke-width="4"' in draw_tree(game, result, upto=len(events)).svg()


def test_live_window_while_inside_a_node(aima):
    game, result = aima
    events = result.trace.events
    # after B returns 3, the root's live window is alpha = 3 (it was entered with -inf)
    k = next(i for i, e in enumerate(events) if e.kind == "update" and e.path == ()) + 1
    svg = draw_tree(game, result, upto=k).svg()
    assert "α=3 β=+∞" in group(svg, "n") and ">v=3<" in group(svg, "n")
    assert "α=-∞ β=+∞" in group(draw_tree(game, result).svg(), "n")


def test_step_layout_does_not_move(aima):
    game, result = aima
    layouts = [positions(draw_tree(game, result, upto=k).svg()) for k in (0, 5, 12, 26)]
    assert all(layout == layouts[0] for layout in layouts)
    bounded = bab_figure3()
    traced = bab(bounded, epsilon=2, trace=True)
    layouts = [positions(draw_tree(bounded, traced, upto=k).svg())
               for k in range(0, len(traced.trace) + 1, 3)]
    assert all(layout == layouts[0] for layout in layouts)


def test_describe_event(aima):
    _, result = aima
    texts = [describe_event(e, index=i) for i, e in enumerate(result.trace)]
    assert texts[0] == "step 1: enter MAX node root with window α=-∞ β=+∞"
    assert texts[2] == "step 3: evaluate leaf (0, 0): 3"
    assert any(t.startswith("step") and "cut-off at (1,): v=2 <= alpha=3; skipping children 1, 2" in t
               for t in texts)
    assert texts[-1] == "step 26: root returns 3"
    assert describe_event(result.trace[1], name="B") == "enter MIN node B (0,) with window α=-∞ β=+∞"


# -- big trees ---------------------------------------------------------------------------------------

def summaries(picture: TreePicture) -> dict[str, int]:
    """Summary node id -> the number of leaves it stands for (read from the SVG)."""
    svg = picture.svg()
    out = {}
    for node_id in node_groups(svg):
        if node_id.startswith("s"):
            out[node_id] = int(re.search(r">… (\d+) lea", group(svg, node_id)).group(1))
    return out


def test_big_tree_is_summarised():
    game = uniform_tree(4, 5)                       # 1365 nodes, 1024 leaves
    picture = draw_tree(game)
    assert len(picture.nodes) <= 200
    assert len(node_groups(picture.svg())) == len(picture.nodes)
    shown_leaves = sum(1 for s in picture.nodes if s.startswith("n") and s.count("_") == 5)
    assert sum(summaries(picture).values()) + shown_leaves == 1024
    small = draw_tree(game, max_nodes=20)
    assert len(small.nodes) <= 20
    assert set(summaries(small).values()) == {256}     # "... 256 leaves" under each root child


def test_search_on_big_tree_draws_visited_part_first():
    game = uniform_tree(4, 4, seed=3)
    result = alphabeta(game, trace=True)
    picture = draw_tree(game, result, max_nodes=120)
    assert len(picture.nodes) <= 120
    statuses = picture.nodes
    # every drawn non-summary node is visited or pruned, and the root's children are all drawn
    assert {statuses[f"n_{i}"] for i in range(4)} <= {"visited", "pruned"}
    assert "summary" in statuses.values()


def test_max_depth_collapses(aima):
    game, result = aima
    picture = draw_tree(game, result, max_depth=1)
    assert sorted(picture.nodes) == ["n", "n_0", "n_1", "n_2", "s_0", "s_1", "s_2"]
    assert summaries(picture) == {"s_0": 3, "s_1": 3, "s_2": 3}
    assert draw_tree(game, max_depth=0).nodes.keys() == {"n", "s"}


def test_subtree_from_state(aima):
    game, _ = aima
    node = game.node((2,))
    picture = draw_tree(game, state=node)
    assert sorted(picture.nodes) == ["n", "n_0", "n_1", "n_2"]
    result = alphabeta(game, node, trace=True)
    assert draw_tree(game, result, state=node).nodes["n"] == "visited"


# -- games that are not explicit trees ----------------------------------------------------------------

class CountDown(Game):
    """Players alternately take 1 or 2 from a counter; whoever takes the last one wins (+1 for MAX)."""

    vmin, vmax = -1, 1

    def initial_state(self):
        return (4, Player.MAX)

    def turn(self, state):
        return state[1]

    def moves(self, state):
        return [k for k in (1, 2) if k <= state[0]]

    def result(self, state, move):
        return (state[0] - move, state[1].opponent())

    def is_terminal(self, state):
        return state[0] == 0

    def utility(self, state):
        return -1 if state[1] is Player.MAX else 1   # the player to move has just lost

    def describe_move(self, state, move):
        return f"take {move}"


def test_any_game_is_expanded_with_move_labels():
    game = CountDown()
    picture = draw_tree(game, minimax(game, trace=True))
    svg = picture.svg()
    assert "take 1" in svg and "take 2" in svg
    assert set(picture.nodes.values()) == {"visited"}
    shallow = draw_tree(game, max_depth=2)
    assert max(i.count("_") for i in shallow.nodes) == 2


# -- saving, errors ------------------------------------------------------------------------------

def test_save_by_suffix(tmp_path, aima):
    picture = draw_tree(*aima)
    assert picture.save(tmp_path / "a.svg").read_text().count('class="node"') == 13
    png = picture.save(tmp_path / "a.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    width = int.from_bytes(png[16:20], "big")
    assert width > 400                                  # 144 dpi by default
    with pytest.raises(ParameterError, match=r"\*\.svg or \*\.png"):
        picture.save(tmp_path / "a.pdf")
    assert picture._repr_svg_() == picture.svg()


@pytest.mark.parametrize("kwargs, message", [
    ({"upto": 3}, "needs a search result"),
    ({"max_nodes": 0}, "max_nodes must be an integer >= 1"),
    ({"max_depth": -1}, "max_depth must be an integer >= 0"),
])
def test_bad_arguments(kwargs, message, aima):
    game, _ = aima
    with pytest.raises(ParameterError, match=message):
        draw_tree(game, **kwargs)


def test_bad_results(aima):
    game, result = aima
    with pytest.raises(ParameterError, match="trace=True"):
        draw_tree(game, alphabeta(game))
    with pytest.raises(ParameterError, match="past the end"):
        draw_tree(game, result, upto=len(result.trace) + 1)
    with pytest.raises(ParameterError, match=r"visits node \(2,\), which this tree does not have"):
        draw_tree(parse_tree([[1, 2], [3, 4]]), alphabeta(parse_tree([[1], [2], [3, 4, 5, 6]]),
                                                          trace=True))
    with pytest.raises(ParameterError, match="course Game"):
        draw_tree([[1, 2]])


# -- command line ------------------------------------------------------------------------------------

@pytest.fixture
def tree_file(tmp_path):
    path = tmp_path / "tree.json"
    path.write_text('{"tree": [[3, 12, 8], [2, 4, 6], [14, 5, 2]], "bounds": [0, 20]}')
    return path


def test_cli_render(tree_file, tmp_path, no_dot):
    out = tmp_path / "ab.svg"
    assert cli_main(["render", str(tree_file), "-o", str(out), "--algorithm", "alphabeta"]) == 0
    svg = out.read_text()
    assert len(node_groups(svg)) == 13 and "alphabeta: value 3" in svg
    png = tmp_path / "bab.png"
    assert cli_main(["render", str(tree_file), "-o", str(png), "--algorithm", "bab",
                     "--epsilon", "2", "--legend"]) == 0
    assert png.read_bytes().startswith(b"\x89PNG")
    plain = tmp_path / "plain.svg"
    assert cli_main(["render", str(tree_file), "-o", str(plain)]) == 0
    assert "alphabeta" not in plain.read_text()


@pytest.mark.parametrize("extra, message", [
    (["-o", "x.gif"], "name it *.svg or *.png"),
    (["-o", "x.svg", "--epsilon", "1"], "--epsilon needs --algorithm"),
    (["-o", "x.svg", "--algorithm", "alphabeta", "--epsilon", "1"], "--epsilon applies to"),
    (["-o", "x.svg", "--algorithm", "alphabeta", "--upto", "99"], "past the end"),
])
def test_cli_errors(tree_file, extra, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli_main(["render", str(tree_file), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_labels_that_only_repeat_the_index_are_not_drawn():
    from course.games import random_tree, stochastic_random_tree

    expanded = random_tree(2, 2, seed=1).to_tree()           # every node labelled "0" or "1"
    assert expanded.root.children[1].label == "1"
    assert "<B>" not in draw_tree(expanded).source             # no node names
    game = stochastic_random_tree(2, 1, seed=1)                # outcomes described "k (p)"
    edge_labels = re.findall(r'-> n_\d_\d \[.*?label="([^"]*)"', draw_tree(game).source)
    assert sorted(edge_labels) == ["0.2", "0.2", "0.8", "0.8"]
    named = parse_tree({"label": "A", "max": [{"label": "B", "value": 1}, {"label": "0", "value": 2}]})
    source = draw_tree(named).source
    assert "<B>A</B>" in source and "<B>B</B>" in source     # real names stay
    assert "xlabel" not in source             # a leaf's name is inside its box, not beside it


def _node_sizes(source: str) -> dict[str, tuple[str, str]]:
    return dict((m[0], (m[1], m[2])) for m in
                re.findall(r'^(\w+) \[.*?width=([\d.]+), height=([\d.]+)', source, re.M))


def test_sizes_make_nodes_only_grow():
    """A ``sizes`` dict passed to successive pictures of one tree: no node ever gets smaller
    than it was, so pictures that only change labels keep their layout."""
    from course.draw.render import room_for_bounds
    from course.games import random_tree

    game = random_tree(3, 3, seed=4)
    sizes: dict = {}
    seen: dict[str, float] = {}
    for eps in (0, 30, 5, 60, 0):
        source = draw_tree(game, bab(game, epsilon=eps, trace=True), show_window=False,
                           sizes=sizes).source
        for nid, (width, _) in _node_sizes(source).items():
            assert float(width) >= seen.get(nid, 0.0), (eps, nid)
            seen[nid] = float(width)
    assert sizes and all(isinstance(path, tuple) for path in sizes)
    # room for any [L, U] from the start: ε changes then never resize a node
    room = room_for_bounds(game, game.vmin, game.vmax)
    shapes = {_node_sizes(draw_tree(game, bab(game, epsilon=eps, trace=True), show_window=False,
                                    sizes=room).source).__repr__() for eps in (0, 7, 19, 33, 80)}
    assert len(shapes) == 1


def test_triangles_hold_every_combination_of_their_lines(aima):
    """A step-through shows a node's window before its value: the lines then sit higher, where a
    triangle pointing up is narrower; the triangle is wide enough for that too."""
    from course.draw.render import _FONT_SLACK, _triangle_width
    from course.draw.style import text_width

    game, result = aima
    source = draw_tree(game, result, upto=9).source
    width = float(_node_sizes(source)["n"][0]) * 72
    note = [(text_width("α=-∞ β=+∞", 8) * _FONT_SLACK["note"], 8 * 1.22)]
    name = [(text_width("A", 9) * _FONT_SLACK["name"], 9 * 1.22)]
    height = float(_node_sizes(source)["n"][1]) * 72
    assert width >= _triangle_width(name + note, height, up=True) - 0.5


def test_expand_from_keeps_the_drawn_nodes():
    """With ``expand_from`` (one search for all pictures), a cut-down tree draws the same nodes
    whatever the pictured search pruned; without it, the drawn part follows each search."""
    from course.games import random_tree
    from course.trees import game_to_tree

    game = game_to_tree(random_tree(4, 4, seed=0))
    base = bab(game, epsilon=0, trace=True)
    fixed, own = set(), set()
    for eps in (0, 3, 20, 100):
        result = bab(game, epsilon=eps, trace=True)
        fixed.add(frozenset(draw_tree(game, result, max_nodes=60, expand_from=base).nodes))
        own.add(frozenset(draw_tree(game, result, max_nodes=60).nodes))
    assert len(fixed) == 1 and len(own) > 1
    with pytest.raises(ParameterError, match="expand_from"):
        draw_tree(game, base, expand_from=bab(game, epsilon=0))


# --- the picture in words (issue 21: a text alternative for every picture) -----------------------

def test_every_drawn_node_has_a_line_in_the_outline(aima):
    game, result = aima
    picture = draw_tree(game, result)
    assert len(picture.outline) == len(picture.nodes) == 13
    assert picture.summary == ("Search tree, alphabeta: value 3, 7 leaves evaluated. "
                               "13 nodes drawn: 11 visited, 2 pruned.")
    depths = [depth for depth, _ in picture.outline]
    assert depths[0] == 0 and all(b <= a + 1 for a, b in zip(depths, depths[1:]))
    lines = dict((text.split(";")[0], text) for _, text in picture.outline)
    assert "cut-off" in lines["visited: MIN node (1,) (C)"]          # why the search stopped there
    assert lines["pruned: leaf node (1, 1) (C2)"].endswith("value 4")


# What JupyterLab 4's HTML sanitiser (@jupyterlab/apputils Sanitizer, used for outputs of a
# notebook it did not sign) keeps: these tags, and these attributes besides the global ones
# (class, id, style, title, lang, dir, ...).  An <svg> is dropped; so are role and aria-*
# everywhere, and tabindex but on a few tags (a, button, input, select, textarea, area).  img src
# keeps any scheme (only href and cite are checked for schemes).
SANITISER_TAGS = {"figure", "div", "a", "img", "details", "summary", "ul", "li", "p", "figcaption"}
SANITISER_ATTRIBUTES = {"*": {"class", "id", "style", "title", "lang", "dir"}, "details": {"open"},
                        "a": {"href", "rel", "tabindex", "target", "type"},
                        "img": {"alt", "src", "width", "height"}}


def _sanitised(root):
    """The element tree as JupyterLab shows an untrusted output: unknown tags and attributes gone."""
    import copy

    root = copy.deepcopy(root)
    for parent in root.iter():
        for child in list(parent):
            assert child.tag in SANITISER_TAGS, f"<{child.tag}> would be dropped"
    for element in root.iter():
        allowed = SANITISER_ATTRIBUTES["*"] | SANITISER_ATTRIBUTES.get(element.tag, set())
        for name in list(element.attrib):
            if name not in allowed:
                del element.attrib[name]
    return root


def test_the_html_figure_is_one_named_image_with_a_walkable_list(aima):
    import base64
    import xml.etree.ElementTree as ET

    game, result = aima
    picture = draw_tree(game, result)
    html = picture.html()
    root = ET.fromstring(html)                      # well formed, so lists nest as intended
    view = root.find("a")                           # focusable, scrolls a wide tree sideways
    assert view.get("role") == "img" and view.get("aria-label") == picture.summary
    assert view.get("tabindex") == "0" and "overflow-x:auto" in view.get("style")
    # the picture is an image of the SVG, named by its alt: what survives JupyterLab's sanitiser
    image, = list(view)
    assert image.tag == "img" and image.get("alt") == picture.summary
    assert image.get("aria-hidden") == "true"       # the box says it, once
    src = image.get("src")
    assert src.startswith("data:image/svg+xml;base64,")
    assert base64.b64decode(src.split(",", 1)[1]).decode("utf-8") == picture.svg()
    # at its natural size (Graphviz's points as CSS pixels), never shrunk to the pane's width
    points = re.search(r'<svg[^>]* width="([\d.]+)pt" height="([\d.]+)pt"', picture.svg())
    assert (int(image.get("width")), int(image.get("height"))) == tuple(
        round(float(v) * 4 / 3) for v in points.groups())
    assert "max-width:none" in image.get("style")
    assert "<svg" not in html and "<title>" not in html
    items = root.findall(".//details/ul/li")
    assert len(items) == 1 and len(root.findall(".//details//li")) == 13
    assert root.find(".//details/summary").text == "The tree in text"
    # untrusted (sanitised): the same image with the same name, and the same list
    shown = _sanitised(root)
    image, = shown.iter("img")
    assert image.get("alt") == picture.summary and image.get("src") == src
    assert image.get("aria-hidden") is None and shown.find("a").get("role") is None
    assert shown.find("a").get("tabindex") == "0" and shown.find("a").get("href") is None
    assert "max-width:none" in image.get("style") and image.get("width")
    assert len(shown.findall(".//details//li")) == 13


def test_names_in_the_text_alternative_are_escaped():
    from course import minimax, parse_tree

    tree = parse_tree({"label": "<b>A</b>", "max": [{"label": "<img src=x onerror=alert(1)>",
                                                      "value": 3}, 5]})
    picture = draw_tree(tree, minimax(tree, trace=True))
    html = picture.html()
    assert "<img src=x" not in html and "&lt;img src=x" in html


def test_a_bare_tree_and_a_step_are_described_too(aima):
    game, result = aima
    assert draw_tree(game).summary == "Game tree. 13 nodes drawn."
    step = draw_tree(game, result, upto=3)
    assert "current" in step.summary and "not reached yet" in step.summary


# -- the embedded font (issue 21) -----------------------------------------------------------------

def _embedded_fonts(svg: str) -> dict[str, object]:
    """The fonts of an SVG's ``@font-face`` rules by weight, read with fontTools."""
    import base64
    import io

    from fontTools.ttLib import TTFont

    style = re.search(r"<style>(.*?)</style>", svg, re.S)
    assert style, "the picture carries no <style>"
    fonts = {}
    for rule in re.findall(r"@font-face\{([^}]*)\}", style.group(1)):
        weight = re.search(r"font-weight:(\w+)", rule).group(1)
        data = re.search(r"base64,([A-Za-z0-9+/=]+)", rule).group(1)
        fonts[weight] = TTFont(io.BytesIO(base64.b64decode(data)))
    return fonts


def _texts_by_weight(svg: str) -> dict[str, set[str]]:
    chars: dict[str, set[str]] = {"normal": set(), "bold": set()}
    for attrs, body in re.findall(r"<text\b([^>]*)>(.*?)</text>", svg, re.S):
        weight = "bold" if 'font-weight="bold"' in attrs else "normal"
        chars[weight] |= set(html.unescape(re.sub(r"<[^>]*>", "", body)))
    return chars


def test_svg_carries_the_course_font_with_every_glyph_it_writes():
    from fontTools.ttLib import TTFont

    from course.fonts import FAMILY, covers, font_file

    game = bab_figure3()
    svg = draw_tree(game, bab(game, epsilon=2, trace=True), legend=True).svg()
    family = re.search(r'<svg class="(CourseSans-[0-9a-f]{10})"', svg).group(1)
    # the text uses it first, then the shipped family, then Helvetica's metric twins
    assert (f'{{font-family:"{family}",{FAMILY},Helvetica,Arial,sans-serif}}' in svg)
    assert svg.count("@font-face") == 2 and svg.count(f'font-family:"{family}"') == 3
    fonts = _embedded_fonts(svg)
    used = _texts_by_weight(svg)
    assert used["bold"] and "α" in used["normal"] and "…" in used["normal"]
    for weight, font in fonts.items():
        chars = used[weight]
        assert covers("".join(chars), bold=weight == "bold")       # the shipped font has them all
        cmap = font.getBestCmap()
        assert {ord(c) for c in chars} <= set(cmap), f"{weight}: glyphs missing"
        assert len(cmap) == len(chars)                               # and nothing else
        # same advance widths as the shipped font: the metrics the layout used
        full = TTFont(font_file(bold=weight == "bold"))
        full_cmap, full_hmtx = full.getBestCmap(), full["hmtx"]
        assert all(font["hmtx"][cmap[cp]][0] == full_hmtx[full_cmap[cp]][0] for cp in cmap)
        assert "GPOS" not in font and "kern" not in font             # no kerning: plain advances
        notices = {n.nameID: str(n) for n in font["name"].names}
        assert "Red Hat" in notices[0] and "Open Font License" in notices[13]   # the OFL's terms
        assert font.flavor == "woff"


def test_font_subsets_are_small_and_named_per_picture(aima):
    game, result = aima
    plain, searched = draw_tree(game).svg(), draw_tree(game, result).svg()
    name = re.compile(r'<svg class="(CourseSans-[0-9a-f]+)"')
    assert name.search(plain).group(1) != name.search(searched).group(1)
    style = re.search(r"<style>.*?</style>", searched, re.S).group(0)
    assert len(style) < 9000                          # a few kB for a picture of 13 nodes
    # html() shows the SVG as an image: the style goes with it (a data: URI loads inside it)
    image = re.search(r'base64,([^"]+)"', draw_tree(game, result).html()).group(1)
    import base64

    assert style in base64.b64decode(image).decode("utf-8")
    bare = draw_tree(parse_tree([[3, 12], [2, 4]])).svg()     # no names: no bold text
    assert bare.count("@font-face") == 1 and "font-weight:normal" in bare


def test_font_is_embedded_once_and_png_is_untouched(aima):
    from course.fonts import embed_font

    game, result = aima
    picture = draw_tree(game, result)
    svg = picture.svg()
    assert embed_font(svg) == svg
    assert picture.png()[:8] == b"\x89PNG\r\n\x1a\n"   # drawn by graphviz-pure with Arimo's metrics
    assert embed_font("<svg><rect/></svg>") == "<svg><rect/></svg>"
    # the same picture is the same bytes, also when its font is subset again (no timestamps)
    from course import fonts

    fonts.subset_font.cache_clear()
    assert draw_tree(game, result).svg() == svg


def test_the_text_alternative_writes_numbers_as_the_picture_does():
    """A cut-off's reason in "The tree in text" reads v=3.36 <= alpha=22.7, not seventeen digits
    (what a screen reader would otherwise read out, digit by digit)."""
    rng = random.Random(5)
    tree = [[[rng.uniform(0, 30) for _ in range(3)] for _ in range(3)] for _ in range(3)]
    game = parse_tree(tree)
    picture = draw_tree(game, alphabeta(game, trace=True))
    text = picture.describe()
    assert "cut-off (" in text
    assert not re.search(r"\d\.\d{4,}", text), text
