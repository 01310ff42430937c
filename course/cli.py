"""The ``python -m course`` command line.

Subcommands:

``search``      run a reference search on a tree file and print its result
``render``      draw a tree, or a search on it, to SVG or PNG (:mod:`course.draw.cli`)
``experiment``  reproduce the papers' experiments (:mod:`course.experiments.cli`)

Bad input ends with exit status 2 and one line on standard error, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence

from .errors import CourseError
from .search import ALGORITHMS, ORDERINGS

__all__ = ["main", "build_parser", "load_game_for_cli", "run_search_for_cli"]

# Subcommands that live beside the code they drive: name -> (module, help).
_PLUGINS = {
    "render": ("course.draw.cli", "draw a tree or a search on it to SVG/PNG"),
    "experiment": ("course.experiments.cli", "reproduce the papers' experiments"),
}


class UsageError(Exception):
    """A command-line usage problem (exit status 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, no usage dump
        raise UsageError(f"{self.prog}: {message} (see --help)")


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    return int(value) if value.is_integer() and "." not in text and "e" not in text.lower() else value


def add_search_options(parser: argparse.ArgumentParser, *, algorithm_required: bool = True) -> None:
    """The options shared by ``search`` and ``render``: algorithm, epsilon, bounds, ordering."""
    parser.add_argument("--epsilon", type=_number, default=None,
                        help="error bound for bab and naive-epsilon (default 0)")
    parser.add_argument("--vmin", type=_number, default=None, help="lower utility bound")
    parser.add_argument("--vmax", type=_number, default=None, help="upper utility bound")
    parser.add_argument("--order", choices=ORDERINGS, default=None,
                        help="move ordering (default: the search's own, given; star2: probability)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random ordering")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m course", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    search = sub.add_parser("search", help="run a reference search on a tree file",
                            description="Run a reference search on a tree in the JSON tree format.")
    search.add_argument("algorithm", choices=sorted(ALGORITHMS), metavar="ALGORITHM",
                        help="one of: " + ", ".join(ALGORITHMS))
    search.add_argument("tree", metavar="TREE", help="JSON tree file, or - for standard input")
    add_search_options(search)
    search.add_argument("--json", action="store_true", help="print one JSON object")
    search.set_defaults(handler=_cmd_search)
    for name, (module, help_text) in _PLUGINS.items():
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name is not None and module.startswith(exc.name):
                continue  # that part of the course is not installed
            raise
        sp = sub.add_parser(name, help=help_text, description=help_text)
        mod.add_arguments(sp)
        sp.set_defaults(handler=mod.run)
    return parser


def load_game_for_cli(tree: str, vmin=None, vmax=None):
    """Read a tree file, applying --vmin/--vmax over the file's bounds."""
    from .trees import read_tree

    try:
        game = read_tree(tree)
    except OSError as exc:
        raise UsageError(f"cannot read {tree!r}: {exc.strerror or exc}") from None
    if vmin is not None or vmax is not None:
        from .trees import TreeGame

        game = TreeGame(game.root, (game.vmin if vmin is None else vmin,
                                    game.vmax if vmax is None else vmax))
    return game


def run_search_for_cli(algorithm: str, game, *, epsilon=None, order=None, seed=0, trace=False):
    """Run the named search with the CLI's rules (epsilon only where it means something).

    ``order=None`` leaves the search its own default ordering.
    """
    options = {"seed": seed, "trace": trace}
    if order is not None:
        options["order"] = order
    if algorithm in ("bab", "naive-epsilon"):
        options["epsilon"] = 0 if epsilon is None else epsilon
    elif epsilon is not None:
        raise UsageError(f"--epsilon applies to bab and naive-epsilon, not {algorithm}")
    return ALGORITHMS[algorithm](game, **options)


def _fmt(x) -> str:
    return "-" if x is None else (f"{x:g}" if isinstance(x, float) else str(x))


def _cmd_search(args: argparse.Namespace) -> int:
    game = load_game_for_cli(args.tree, args.vmin, args.vmax)
    result = run_search_for_cli(args.algorithm, game, epsilon=args.epsilon,
                                order=args.order, seed=args.seed)
    if args.json:
        print(json.dumps(result.to_dict(), default=float))
        return 0
    if result.value is not None:
        print(f"{result.algorithm}: value {_fmt(result.value)}")
    else:
        print(f"{result.algorithm}: value in [{_fmt(result.lower)}, {_fmt(result.upper)}]"
              f" (width {_fmt(result.width)}, epsilon {_fmt(result.epsilon)})")
    print(f"root move: {_fmt(result.move)}")
    print(f"expanded {result.expanded} internal nodes, evaluated {result.evaluated} leaves")
    shown = ", ".join("(" + ",".join(map(str, p)) + ")" for p in result.leaves[:20])
    more = f", ... ({result.evaluated - 20} more)" if result.evaluated > 20 else ""
    print(f"leaves in order: {shown}{more}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    try:
        args = build_parser().parse_args(argv)
        return int(args.handler(args) or 0)
    except (UsageError, CourseError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except RecursionError:
        print("error: the tree is too deep to search recursively", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
