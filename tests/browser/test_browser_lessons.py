"""Journey 1: every lesson opens in JupyterLab, Run All Cells completes, no output is an error;
and what the cells show is accessible (issue 21): axe-core finds no WCAG 2.1 A/AA violation in
the outputs, and every picture -- static figure, plot or explorer -- has a text alternative."""
from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
LESSONS = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "lessons").glob("*.ipynb")) or [
    pytest.param(None, marks=pytest.mark.skip(reason="no lessons/*.ipynb yet"))]


# Every picture in the outputs and its text alternative, or what lacks one.
_JS_PICTURES = """() => {
  const outs = Array.from(document.querySelectorAll(
      '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output'));
  const found = [], missing = [];
  for (const out of outs) {
    for (const img of out.querySelectorAll('img')) {
      (img.getAttribute('alt') || '').trim() ? found.push('img: ' + img.alt.slice(0, 80))
                                             : missing.push('img without alt');
    }
    for (const svg of out.querySelectorAll('svg')) {
      if (svg.closest('[aria-hidden=true]') || svg.closest('button, summary, .ctv-item')) continue;
      const named = svg.closest('[role=img][aria-label]');
      named ? null : missing.push('svg outside a named image: ' + (svg.id || svg.outerHTML.slice(0, 60)));
    }
    for (const port of out.querySelectorAll('[role=img][aria-label]')) {
      found.push('image: ' + port.getAttribute('aria-label').slice(0, 80));
    }
  }
  return {found, missing};
}"""


@pytest.mark.parametrize("lesson", LESSONS)
def test_lesson_runs_all_cells_without_errors(lab, lesson, axe):
    lab.open_from_file_browser(lesson)
    state = lab.run_all(timeout=240)
    code = [c for c in state["cells"] if c["type"] == "code" and c["source"].strip()]
    assert code, f"{lesson} has no code cells"
    problems = lab.error_report()
    assert not problems, f"{lesson} shows errors after Run All Cells:\n" + "\n".join(problems)
    unnumbered = [i for i, c in enumerate(state["cells"]) if c["type"] == "code"
                  and c["source"].strip() and not any(ch.isdigit() for ch in c["prompt"])]
    assert not unnumbered, \
        f"{lesson}: cells {unnumbered} were not executed by Run All Cells"
    # every explorer has drawn (or said why not) before the outputs are checked
    lab.page.wait_for_function(
        "() => Array.from(document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) "
        ".course-tree-view')).every(v => v.querySelector('.ctv-port svg') || "
        "v.querySelector('.ctv-error').textContent.trim() || "
        "v.querySelector('.ctv-port').getAttribute('aria-label') === 'No picture.')",
        timeout=60_000)
    failed = lab.page.evaluate(
        "() => Array.from(document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) "
        ".course-tree-view .ctv-error')).map(e => e.textContent.trim()).filter(t => t)")
    assert not failed, f"{lesson}: pictures not drawn after Run All: {failed[:3]}"
    pictures = lab.page.evaluate(_JS_PICTURES)
    assert not pictures["missing"], f"{lesson}: pictures without a text alternative: " \
        f"{pictures['missing'][:5]}"
    print(f"{lesson}: {len(pictures['found'])} pictures, each with a text alternative")
    violations = axe.run_axe(lab.page, include=[".jp-NotebookPanel:not(.lm-mod-hidden) "
                                                ".jp-OutputArea-output"])
    assert not violations, f"{lesson}: " + axe.describe_violations(violations)
