"""An assignment's pruning rule, chosen by the instructor: the setting, and the text that states it.

The course's searches prune on equality (alpha-beta cuts when ``v >= beta``); UC Berkeley's CS188
autograder requires the strict rule (``v > beta``: never on equality).  An instructor chooses the
rule an assignment is graded by with one line of its locked setup cell::

    STRICT_RULE = True

The test cells pass it to the checks (``check_alphabeta(..., strict=STRICT_RULE)``), so it is
what the tests compare with -- in the student's Validate and in the grader, which runs the
instructor's locked cells from the gradebook, and the released notebook (part of every grade's
key) carries it.  The assignment's text states the rule between two markers::

    <!-- rule:alphabeta -->
    ...
    <!-- /rule -->

and :func:`sync_rule_text` (run by ``make release`` on every source notebook) rewrites what lies
between them to :data:`RULE_TEXTS`' text for the setting, so the text never disagrees with what is
graded.  ``docs/instructor/customise.md`` says how to switch; ``tests/test_grading_strict_setting.py``
grades a strict student and a course-rule student under both settings.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

__all__ = ["RULE_TEXTS", "STRICT_SETTING", "strict_setting", "sync_rule_text"]

#: The line of a locked setup cell that chooses the rule (``True`` or ``False``).
STRICT_SETTING = re.compile(r"^STRICT_RULE\s*=\s*(True|False)\s*(#.*)?$", re.MULTILINE)

_BLOCK = re.compile(r"(<!-- rule:(?P<search>[a-z0-9_]+) -->\n)(?P<body>.*?)(\n<!-- /rule -->)",
                    re.DOTALL)

#: What the rules paragraph says, by search and setting (``False``: the course's rule).
RULE_TEXTS: dict[tuple[str, bool], str] = {
    ("alphabeta", False): """\
* at a MAX node: `v = max(v, value of the child)`; **if `v >= beta`, stop and return `v`**;
  otherwise `alpha = max(alpha, v)`;
* at a MIN node: `v = min(v, value of the child)`; **if `v <= alpha`, stop and return `v`**;
  otherwise `beta = min(beta, v)`.

`v` starts at `-math.inf` at a MAX node and at `math.inf` at a MIN node. Note the two details the
tests check: the test comes *before* the window is updated, and it **cuts on equality** too
(`>=`, `<=`): a child worth exactly `beta` cannot help MAX, because MIN already has a way to hold
MAX to `beta`.

**At a cut, return `v` or the bound.** The rule above returns `v`, which may lie beyond the window
("fail-soft"). Returning the bound instead, `beta` at a MAX node and `alpha` at a MIN node
("fail-hard"), is accepted too: with cuts on equality the node above treats both alike (both are at
or beyond its bound, on the same side), so the root's value and move and every node visited are
the same.""",
    ("alphabeta", True): """\
* at a MAX node: `v = max(v, value of the child)`; **if `v > beta`, stop and return `v`**;
  otherwise `alpha = max(alpha, v)`;
* at a MIN node: `v = min(v, value of the child)`; **if `v < alpha`, stop and return `v`**;
  otherwise `beta = min(beta, v)`.

`v` starts at `-math.inf` at a MAX node and at `math.inf` at a MIN node. Note the two details the
tests check: the test comes *before* the window is updated, and it **never cuts on equality**
(`>`, `<`: the rule of UC Berkeley's CS188 autograder, which your instructor chose for this
assignment): a node whose value equals the bound goes on to its next child.

**At a cut, return `v`.** Return `v` itself, not the bound ("fail-hard" returns `beta` at a MAX
node): under this rule a value equal to the bound does not cut, so the node above could go on
where the reference stops, and the tests would fail.""",
}


def strict_setting(source: str) -> bool | None:
    """The ``STRICT_RULE`` a setup cell's source sets, or None if it sets none.

    >>> strict_setting("import math\\nSTRICT_RULE = True  # CS188"), strict_setting("x = 1")
    (True, None)
    """
    found = STRICT_SETTING.findall(source)
    if not found:
        return None
    return found[-1][0] == "True"


def sync_rule_text(notebook_path: str | os.PathLike) -> str | None:
    """Make a source notebook's rule text agree with its ``STRICT_RULE`` setting; say what changed.

    Parameters
    ----------
    notebook_path : path
        A notebook of ``solutions/``.

    Returns
    -------
    str or None
        What was changed (the notebook is rewritten), or None if it agreed, or sets no rule.

    Raises
    ------
    ValueError
        If the notebook sets ``STRICT_RULE`` but states no rule between the markers, or a
        marker names a search :data:`RULE_TEXTS` does not know.
    """
    path = Path(notebook_path)
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells = notebook.get("cells", [])

    def text(cell: dict) -> str:
        source = cell.get("source", "")
        return "".join(source) if isinstance(source, list) else source

    strict = None
    for cell in cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") == "code" and meta.get("locked") and not meta.get("grade"):
            found = strict_setting(text(cell))
            if found is not None:
                strict = found
    if strict is None:
        return None
    changed, blocks = [], 0
    for cell in cells:
        if cell.get("cell_type") != "markdown":
            continue
        old = text(cell)

        def put(match: re.Match) -> str:
            nonlocal blocks
            blocks += 1
            key = (match["search"], strict)
            if key not in RULE_TEXTS:
                raise ValueError(f"{path.name}: no rule text for {match['search']!r}")
            return match.group(1) + RULE_TEXTS[key] + match.group(4)

        new = _BLOCK.sub(put, old)
        if new != old:
            cell["source"] = new.splitlines(keepends=True) if isinstance(cell.get("source"), list) else new
            changed.append(cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "?"))
    if not blocks:
        raise ValueError(f"{path.name} sets STRICT_RULE but states no rule: put the rule between "
                         "<!-- rule:alphabeta --> and <!-- /rule --> in its rules cell")
    if not changed:
        return None
    path.write_text(json.dumps(notebook, sort_keys=True, indent=1, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    rule = "the strict rule (never on equality)" if strict else "the course's rule (cut on equality)"
    return f"{path.name}: the rules text of {', '.join(changed)} now states {rule} (STRICT_RULE = {strict})"
