"""``python -m course render``: draw a tree file, or a search on it, to SVG or PNG.

Examples (shell)::

    python -m course render tree.json -o tree.svg
    python -m course render tree.json -o ab.png --algorithm alphabeta --legend
    python -m course render tree.json -o bab.svg --algorithm bab --epsilon 2 --vmin 0 --vmax 10
    python -m course render tree.json -o step.svg --algorithm alphabeta --upto 7

The subcommand is loaded by :mod:`course.cli`, which turns a
:class:`~course.errors.CourseError` or usage problem into exit status 2 and one
line on standard error.  A missing Graphviz program ends with status 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["add_arguments", "run"]

_SUFFIXES = (".svg", ".png")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the ``render`` subcommand's arguments on ``parser``."""
    from ..cli import add_search_options
    from ..search import ALGORITHMS

    parser.add_argument("tree", metavar="TREE", help="JSON tree file, or - for standard input")
    parser.add_argument("-o", "--output", required=True, metavar="OUT",
                        help="picture to write: OUT.svg or OUT.png")
    parser.add_argument("--algorithm", choices=sorted(ALGORITHMS), default=None, metavar="ALGO",
                        help="draw this search on the tree: " + ", ".join(ALGORITHMS))
    add_search_options(parser)
    parser.add_argument("--upto", type=int, default=None, metavar="K",
                        help="draw the search after its first K trace events")
    parser.add_argument("--max-nodes", type=int, default=200, metavar="N",
                        help="summarise the tree beyond about N drawn nodes (default 200)")
    parser.add_argument("--max-depth", type=int, default=None, metavar="D",
                        help="summarise subtrees below depth D")
    parser.add_argument("--legend", action="store_true", help="add the legend")
    parser.add_argument("--no-window", action="store_true", help="leave out the (alpha, beta) windows")
    parser.add_argument("--title", default=None, help='caption (default: the search and its result; "" for none)')
    parser.add_argument("--dpi", type=float, default=144, help="resolution of a PNG (default 144)")


def run(args: argparse.Namespace) -> int:
    """Draw and save the picture; return the exit status."""
    from ..cli import UsageError, load_game_for_cli, run_search_for_cli
    from .engine import RenderError
    from .render import draw_tree

    output = Path(args.output)
    if output.suffix.lower() not in _SUFFIXES:
        raise UsageError(f"cannot tell the picture format from {args.output!r}: name it *.svg or *.png")
    if args.algorithm is None:
        if args.epsilon is not None:
            raise UsageError("--epsilon needs --algorithm (bab or naive-epsilon)")
        if args.upto is not None:
            raise UsageError("--upto needs --algorithm")
        if args.order is not None:
            raise UsageError("--order needs --algorithm")
    game = load_game_for_cli(args.tree, args.vmin, args.vmax)
    result = None
    if args.algorithm is not None:
        result = run_search_for_cli(args.algorithm, game, epsilon=args.epsilon, order=args.order,
                                    seed=args.seed, trace=True)
    picture = draw_tree(game, result, upto=args.upto, max_nodes=args.max_nodes,
                        max_depth=args.max_depth, legend=args.legend,
                        show_window=not args.no_window, title=args.title)
    try:
        picture.save(output, dpi=args.dpi)
    except RenderError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        raise UsageError(f"cannot write {args.output!r}: {exc.strerror or exc}") from None
    return 0
