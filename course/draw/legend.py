"""The legend: every shape and line style of :func:`course.draw.draw_tree`, explained."""

from __future__ import annotations

import html
import re

from ..errors import ParameterError
from .picture import TreePicture
from .render import EDGE_PT, NOTE_PT, SUMMARY_PT, VALUE_PT
from .style import FONT, PALETTE

__all__ = ["legend", "legend_cluster", "symbol", "LEGEND_ENTRIES", "ROWS"]

# samples write their text at the tree's sizes (values 12 pt, notes 10 pt: never below 13 px)
_SAMPLE = {"fixedsize": "true", "fontname": FONT, "fontsize": VALUE_PT, "margin": 0}

# (id, sample attributes or None for an edge sample, edge attributes, explanation)
LEGEND_ENTRIES: tuple[tuple[str, dict | None, dict | None, str], ...] = (
    ("max", {"shape": "triangle", "width": 0.42, "height": 0.34, "label": "",
             "style": "filled", "fillcolor": PALETTE["max_fill"]}, None,
     "MAX node (triangle pointing up)"),
    ("min", {"shape": "invtriangle", "width": 0.42, "height": 0.34, "label": "",
             "style": "filled", "fillcolor": PALETTE["min_fill"]}, None,
     "MIN node (triangle pointing down)"),
    ("chance", {"shape": "circle", "width": 0.3, "height": 0.3, "label": "",
                "style": "filled", "fillcolor": PALETTE["chance_fill"]}, None,
     "CHANCE node; its edges carry the probabilities"),
    ("leaf", {"shape": "box", "width": 0.42, "height": 0.5,
              "label": f'<7<BR/><FONT POINT-SIZE="{NOTE_PT}" COLOR="{PALETTE["note"]}">#3</FONT>>'},
     None,
     "leaf with its utility; #3: the 3rd leaf evaluated"),
    ("value", {"shape": "triangle", "width": 1.4, "height": 0.8,
               "label": f'<[3, 7]<BR/><FONT POINT-SIZE="{NOTE_PT}" COLOR="{PALETTE["note"]}">'
                        'α=3 β=9</FONT>>',
               "style": "filled", "fillcolor": PALETTE["max_fill"]}, None,
     "value, or bounds [L, U], and the window (α, β) it was searched with;\n"
     "alpha-beta writes ≤v or ≥v for a value that is only a bound"),
    ("pruned", {"shape": "box", "width": 0.36, "height": 0.32, "label": "5", "style": "dashed,filled",
                "fillcolor": PALETTE["faded_fill"], "color": PALETTE["faded"],
                "fontcolor": PALETTE["faded"]}, None,
     "pruned: the search never looked at it (dashed, faded)"),
    ("pending", {"shape": "box", "width": 0.36, "height": 0.32, "label": "5", "style": "dotted",
                 "color": PALETTE["pending"], "fontcolor": PALETTE["pending"], "penwidth": 1.4}, None,
     "not reached yet (step-through; dotted)"),
    ("current", {"shape": "triangle", "width": 0.42, "height": 0.34, "label": "", "style": "filled",
                 "fillcolor": PALETTE["max_fill"], "color": PALETTE["current"], "penwidth": 3.5},
     None, "the node the step-through is at (thick outline)"),
    ("summary", {"shape": "box3d", "fixedsize": "false", "margin": "0.05,0.02",
                 "fontsize": SUMMARY_PT,
                 "label": "… 64 leaves  ", "style": "filled", "fillcolor": PALETTE["summary_fill"]},
     None, "a collapsed subtree, summarised"),
    ("chosen", None, {"color": PALETTE["chosen"], "penwidth": 4.0, "style": "bold"},
     "the root move the search chose (bold)"),
    ("path", None, {"color": PALETTE["current"], "penwidth": 3.0},
     "path from the root to the current node (thick)"),
    # "cut" beside the head, turned a right angle off the line: above it (at angle 0 it sat on
    # the line; as the edge's own label it widened the legend by 90 pt)
    ("cut", None, {"style": "dashed", "color": PALETTE["faded"], "fontsize": EDGE_PT,
                   "headlabel": f'<<FONT COLOR="{PALETTE["cut"]}"><B>cut</B></FONT>>',
                   "labelangle": -90, "labeldistance": 1.2},
     "cut-off at the node above: this edge and those right of it are skipped"),
)
"""The legend's rows: id, sample node (None: an edge sample), edge style, explanation."""


def _fmt(key: str, value: object) -> str:
    if isinstance(value, str) and value.startswith("<") and value.endswith(">"):
        return f"{key}={value}"
    if isinstance(value, (int, float)):
        return f"{key}={value:g}"
    text = str(value).replace('"', '\\"')
    return f'{key}="{text}"'


def _stmt(name: str, attrs: dict) -> str:
    return f"{name} [" + ", ".join(_fmt(k, v) for k, v in attrs.items()) + "];"


ROWS = (("max", "min"), ("chance", "leaf"), ("value", "summary"), ("pruned", "pending"),
        ("current", "chosen"), ("path", "cut"))
"""How the entries are arranged: two per row, so the legend fits a notebook pane (about 968 px)."""


def _body() -> list[str]:
    entries = {key: (sample, edge, text) for key, sample, edge, text in LEGEND_ENTRIES}
    lines: list[str] = []
    row_heads: list[str] = []
    for row in ROWS:
        same: list[str] = []
        for key in row:
            sample, edge, text = entries[key]
            if sample is not None:
                ends = [f"legend_{key}"]
                attrs = {**_SAMPLE, **sample, "id": ends[0], "tooltip": text}
                lines.append(_stmt(ends[0], attrs))
            else:
                ends = [f"legend_{key}", f"legend_{key}_end"]
                for end in ends:
                    lines.append(_stmt(end, {"shape": "point", "width": 0.06, "height": 0.06,
                                             "fixedsize": "true", "id": end, "tooltip": text}))
                attrs = {**edge, "minlen": 3, "arrowhead": "none", "id": f"legend_{key}_edge",
                         "tooltip": text}
                lines.append(f"{ends[0]} -> {ends[1]} [" + ", ".join(
                    _fmt(k, v) for k, v in attrs.items()) + "];")
            label = f"legend_{key}_text"
            lines.append(_stmt(label, {"shape": "plaintext", "fixedsize": "false", "margin": "0.04,0",
                                       "height": 0.2, "width": 0.2, "fontname": FONT, "fontsize": 10,
                                       "label": text.replace("\n", "\\l") + "\\l",
                                       "id": label, "tooltip": text}))
            if same:
                lines.append(f"{same[-1]} -> {ends[0]} [style=invis, minlen=2];")
            lines.append(f"{ends[-1]} -> {label} [style=invis, minlen=1];")
            same.extend(ends + [label])
        lines.append("{rank=same; " + "; ".join(same) + ";}")
        row_heads.append(same[0])
    for upper, lower in zip(row_heads, row_heads[1:]):
        lines.append(f"{upper} -> {lower} [style=invis];")
    return lines


def legend_cluster(anchor: str | None = None) -> list[str]:
    """The legend as DOT statements of a cluster, to add to a tree's picture.

    ``anchor`` (a node id of the tree's deepest rank) puts the legend below the tree.
    """
    return (["subgraph cluster_legend {",
             _stmt("graph", {"label": "Legend", "fontname": FONT, "fontsize": 11, "style": "rounded",
                             "color": "#BBBBBB", "labeljust": "l", "id": "legend"})]
            + _body() + ["}"]
            + ([] if anchor is None else [f"{anchor} -> legend_{ROWS[0][0]} [style=invis];"]))


_SHAPE_WORDS = {"triangle": "triangle", "invtriangle": "upside-down triangle",
                "circle": "circle", "box": "box", "box3d": "3-D box"}


def _words(label: object) -> str:
    """The text a DOT label draws: HTML-like markup and escapes removed."""
    text = str(label or "")
    if text.startswith("<") and text.endswith(">"):
        text = re.sub(r"<BR\s*/?>", " ", text[1:-1])
        text = html.unescape(re.sub(r"<[^>]*>", "", text))
    return " ".join(text.split())


def symbol(key: str) -> str:
    """How the legend draws entry ``key`` of :data:`LEGEND_ENTRIES`, in words.

    Made from the entry's drawing attributes (shape, line style, outline width, text), so the
    words cannot drift from the picture.

    Examples
    --------
    >>> symbol("pruned")
    'box with "5", dashed'
    >>> symbol("cut")
    'line, dashed, marked "cut"'
    """
    entries = {k: (sample, edge) for k, sample, edge, _ in LEGEND_ENTRIES}
    if key not in entries:
        raise ParameterError(f"no legend entry {key!r}; the entries are {', '.join(entries)}")
    sample, edge = entries[key]
    attrs = sample if sample is not None else edge
    words = [_SHAPE_WORDS.get(attrs.get("shape"), attrs.get("shape")) if sample is not None
             else "line"]
    text = _words(attrs.get("label")) if sample is not None else ""
    if text:
        words[0] += f' with "{text}"'
    styles = [s for s in str(attrs.get("style", "")).split(",") if s in ("dashed", "dotted", "bold")]
    words += styles
    width = float(attrs.get("penwidth", 1))
    if width >= 3 and "bold" not in styles:
        words.append("thick outline" if sample is not None else "thick")
    if sample is None:
        mark = " ".join(_words(attrs.get(k)) for k in ("label", "headlabel", "taillabel")
                        if attrs.get(k))
        if mark:
            words.append(f'marked "{mark}"')
    return ", ".join(words)


def legend() -> TreePicture:
    """A picture explaining the shapes and line styles of :func:`course.draw.draw_tree`.

    Returns
    -------
    TreePicture
        Its ``nodes`` mapping is empty (it draws no tree); every legend node has
        an id starting with ``legend_``.

    Examples
    --------
    >>> pic = legend()
    >>> pic.svg().count('id="legend_max"')
    1

    Notes
    -----
    Shapes and line styles carry the meaning; the colours (Okabe-Ito) repeat it.
    """
    head = ["digraph legend {",
            _stmt("graph", {"fontname": FONT, "bgcolor": "white", "pad": 0.1, "nodesep": 0.12,
                            "ranksep": 0.25, "label": "Legend", "labelloc": "t", "labeljust": "l",
                            "fontsize": 12}),
            _stmt("edge", {"arrowhead": "none", "fontname": FONT})]
    source = "\n".join(head + _body() + ["}"]) + "\n"
    meanings = {key: " ".join(text.split()) for key, _, _, text in LEGEND_ENTRIES}
    order = [key for row in ROWS for key in row]
    summary = (f"Legend of the course's tree pictures: {len(order)} shapes and line styles "
               "of draw_tree and what each means.")
    outline = tuple((0, f"{symbol(key)} → {meanings[key]}") for key in order)
    return TreePicture(source, title="Legend", summary=summary, outline=outline,
                       heading="The legend in text")
