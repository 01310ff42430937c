"""The chance-pruning explorer: the CS 520 note's game, its early-termination rule, and Star1."""

from __future__ import annotations

from fractions import Fraction

import ipywidgets as widgets

from ..draw import draw_tree
from ..examples import chance_note_game, chance_note_thresholds
from ..search import star1
from ._common import Explorer, fmt

__all__ = ["ChancePruningExplorer", "chance_pruning_explorer"]

#: Path of the chance outcome c2 below MAX's move a2 in :func:`course.examples.chance_note_game`.
A2_C2 = (1, 1)


def _exact(value: float) -> Fraction:
    """A slider's float as the decimal it shows (so thresholds compare exactly)."""
    return Fraction(str(round(float(value), 6)))


class ChancePruningExplorer(Explorer):
    """Widget state of :func:`chance_pruning_explorer`; drive it through its sliders' ``value``.

    Attributes
    ----------
    p_c1_a2, u_a2_c1, u_a2_c2 : ipywidgets.FloatSlider
        P(c1 | a2), U(a2, c1) and U(a2, c2).
    p_c1_a1, u_a1_c1, u_a1_c2 : ipywidgets.FloatSlider
        The a1 branch: P(c1 | a1), U(a1, c1), U(a1, c2).
    thresholds : course.examples.ChanceNoteThresholds
        U(a1) and the two thresholds on U(a2, c1), for the current sliders.
    note_skips, star1_skips : bool
        Whether the note's rule, and Star1, skip branch c2 below a2.
    result : SearchResult
        The Star1 search (traced).
    """

    def __init__(self, *, p_c1_a1: float, p_c1_a2: float, u_a1_c1: float, u_a1_c2: float,
                 u_a2_c1: float, u_a2_c2: float) -> None:
        def prob(value: float, text: str) -> widgets.FloatSlider:
            return widgets.FloatSlider(value=value, min=0.05, max=0.95, step=0.05, description=text,
                                       continuous_update=False, readout_format=".2f",
                                       style={"description_width": "90px"},
                                       layout=widgets.Layout(width="330px"))

        def util(value: float, text: str) -> widgets.FloatSlider:
            return widgets.FloatSlider(value=value, min=-1.0, max=1.0, step=0.025, description=text,
                                       continuous_update=False, readout_format=".3f",
                                       style={"description_width": "90px"},
                                       layout=widgets.Layout(width="330px"))

        self.p_c1_a2 = prob(p_c1_a2, "P(c1 | a2)")
        self.u_a2_c1 = util(u_a2_c1, "U(a2, c1)")
        self.u_a2_c2 = util(u_a2_c2, "U(a2, c2)")
        self.p_c1_a1 = prob(p_c1_a1, "P(c1 | a1)")
        self.u_a1_c1 = util(u_a1_c1, "U(a1, c1)")
        self.u_a1_c2 = util(u_a1_c2, "U(a1, c2)")
        # one column of sliders with the picture beside it: a drag and its effect are seen together
        controls = [widgets.HTML("<b>move a2</b>"), self.p_c1_a2, self.u_a2_c1, self.u_a2_c2,
                    widgets.HTML("<b>move a1</b>"), self.p_c1_a1, self.u_a1_c1, self.u_a1_c2]
        super().__init__(controls, beside=True, max_height=500)
        self.watch(self.p_c1_a2, self.u_a2_c1, self.u_a2_c2, self.p_c1_a1, self.u_a1_c1, self.u_a1_c2)
        self.refresh()

    def compute(self):
        p1, p2 = _exact(self.p_c1_a1.value), _exact(self.p_c1_a2.value)
        u11, u12 = _exact(self.u_a1_c1.value), _exact(self.u_a1_c2.value)
        u21, u22 = _exact(self.u_a2_c1.value), _exact(self.u_a2_c2.value)
        self.thresholds = t = chance_note_thresholds(p_c1_a1=p1, p_c1_a2=p2, u_a1_c1=u11, u_a1_c2=u12)
        take_a1 = u21 <= t.prune_at_or_below           # a2's upper bound cannot beat U(a1)
        take_a2 = u21 >= t.prune_at_or_above           # a2's lower bound already reaches U(a1)
        self.note_skips = take_a1 or take_a2
        game = chance_note_game(p_c1_a1=p1, p_c1_a2=p2, u_a1_c1=u11, u_a1_c2=u12,
                                u_a2_c1=u21, u_a2_c2=u22)
        self.result = result = star1(game, trace=True)
        self.star1_skips = not any(leaf[:2] == A2_C2 for leaf in result.leaves)
        picture = draw_tree(game, result)

        def yes(flag: bool) -> str:
            return "<b>yes</b>" if flag else "no"

        def threshold(x: Fraction) -> str:
            outside = " (outside [-1, 1]: never met)" if not -1 <= x <= 1 else ""
            return f"{fmt(x)}{outside}"

        upper = 1 - p2 * (1 - u21)
        lower = -1 + p2 * (1 + u21)
        rows = [
            ("U(a1) = P(c1|a1) U(a1,c1) + P(c2|a1) U(a1,c2)", fmt(t.u_a1)),
            ("after c1, U(a2) lies in", f"[{fmt(lower)}, {fmt(upper)}]"),
            ("(12) upper end ≤ U(a1), i.e. U(a2,c1) ≤", threshold(t.prune_at_or_below)),
            ("(13) lower end ≥ U(a1), i.e. U(a2,c1) ≥", threshold(t.prune_at_or_above)),
            ("U(a2, c1) now", fmt(u21)),
            ("the note's rule skips c2 under a2", yes(self.note_skips)
             + (" — take a1" if take_a1 else " — take a2" if take_a2 else "")),
            ("Star1 skips c2 under a2", yes(self.star1_skips)),
        ]
        table = "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in rows)
        if take_a2 and not self.star1_skips:
            why = ("<p><b>They differ.</b> Only the note's second condition (13) holds: a2 is at "
                   "least as good as a1 whatever c2 gives, so the <i>move</i> is decided. But "
                   "a2's <i>value</i> still depends on U(a2, c2), and Star1 computes the root's "
                   "value, so it searches c2; it prunes only on the first condition (12).</p>")
        elif take_a1 and self.star1_skips:
            why = ("<p>Both skip c2: even if c2 gave the maximum, a2 could not beat a1 "
                   "(condition 12), which is Star1's cut-off β ≤ α at a2.</p>")
        elif not self.note_skips and not self.star1_skips:
            why = "<p>Neither skips c2: a2 might still be better or worse than a1.</p>"
        else:
            why = ""
        return picture, f"<table>{table}</table>{why}"


def chance_pruning_explorer(
    *,
    p_c1_a1: float = 0.5,
    p_c1_a2: float = 0.8,
    u_a1_c1: float = -1.0,
    u_a1_c2: float = 0.0,
    u_a2_c1: float = 0.0,
    u_a2_c2: float = 0.0,
) -> ChancePruningExplorer:
    """Explore pruning below a chance node on the CS 520 note's game.

    MAX picks a1 or a2, chance picks c1 or c2, MIN picks b1 or b2; utilities
    lie in [-1, 1] (:func:`course.examples.chance_note_game`).  Sliders set
    P(c1 | a2) and U(a2, c1) (and U(a2, c2) and the a1 branch).  The widget
    shows U(a1), the note's two thresholds on U(a2, c1) (equations 12-14,
    :func:`course.examples.chance_note_thresholds`), whether the note's rule
    skips branch c2 under a2, whether Star1 does, and the Star1 search drawn.
    They differ exactly when only the note's second, move-deciding condition
    holds: it settles the move but not the value that Star1 computes.

    Parameters
    ----------
    p_c1_a1, p_c1_a2 : float
        Starting probabilities of c1 after a1 and after a2 (sliders 0.05-0.95).
    u_a1_c1, u_a1_c2, u_a2_c1, u_a2_c2 : float
        Starting values of the four MIN nodes (sliders -1 to 1).  The defaults
        are the note's example, with U(a2, c1) = 0.

    Returns
    -------
    ChancePruningExplorer
        A VBox; set e.g. ``.u_a2_c1.value`` to update it.

    Examples
    --------
    >>> explorer = chance_pruning_explorer()
    >>> float(explorer.thresholds.prune_at_or_below), float(explorer.thresholds.prune_at_or_above)
    (-0.875, -0.375)
    >>> explorer.note_skips, explorer.star1_skips   # U(a2, c1) = 0 >= -0.375: only (13) holds
    (True, False)
    >>> explorer.u_a2_c1.value = -0.9
    >>> explorer.note_skips, explorer.star1_skips
    (True, True)

    References
    ----------
    CS 520, *alpha-beta Pruning with Chance* (seed 002), equations 11-18;
    B. W. Ballard (1983): Star1, the basic member of the ``*-minimax`` family;
    Atzmon et al. (2018), seed 000, build their conditions C1-C6 on it.
    """
    return ChancePruningExplorer(p_c1_a1=p_c1_a1, p_c1_a2=p_c1_a2, u_a1_c1=u_a1_c1, u_a1_c2=u_a1_c2,
                                 u_a2_c1=u_a2_c1, u_a2_c2=u_a2_c2)
