"""The grading summary's page (``make grading-summary``: ``grading-summary/summary.html``) in Chromium.

The page is built from the class's results, and the names of the errors the students' code
raised are the students' to choose, so a hostile name is in every test here.  Checked: axe-core
finds nothing (WCAG 2.1 A and AA), every picture has its text alternative in Chromium's
accessibility tree, the keyboard reaches every link, and nothing a student wrote runs or loads.
"""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

HOSTILE = '"><script>window.__ran = 1</script><img src=x onerror="window.__ran = 2">'


@pytest.fixture
def report(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from course.grading.term.results.summary import (AssignmentSummary, QuestionSummary, _png,
                                                _questions_figure, _scores_figure, summary_html)

    questions = [
        QuestionSummary("minimax", "a1-test-value", 3.0, False, [3.0, 3.0, 0.0, 0.0],
                        failures=[("WrongValue", 1), (HOSTILE, 1)]),
        QuestionSummary("minimax", "a1-test-decision", 3.0, False, [3.0, 0.0, 0.0, 0.0],
                        failures=[("not attempted", 2), ("SearchCrashed", 1)]),
        QuestionSummary("minimax", "a1-written", 2.0, True, [2.0, 1.0], pending=2),
    ]
    item = AssignmentSummary("a1_minimax", 8.0, [8.0, 4.0, 0.0, 0.0], [], not_attempted=["alan"],
                             crashed=["mallory"], autograded_points=6.0, hand_points=2.0,
                             hand_pending=["ada", "grace"], questions=questions,
                             groups={"attempted": [8.0, 4.0], "not attempted": [0.0], "crashed": [0.0]})
    pictures = {}
    for make, name in ((_scores_figure, "scores"), (_questions_figure, "questions")):
        fig = make(item)
        pictures[name] = _png(fig, tmp_path / f"{name}.png")
        plt.close(fig)
    page = tmp_path / "summary.html"
    page.write_text(summary_html([item], {"a1_minimax": (pictures["scores"], pictures["questions"])},
                                 when="2026-12-02 10:00"), encoding="utf-8")
    return page


def _ax_nodes(page):
    """Chromium's full accessibility tree as (role, name) pairs."""
    session = page.context.new_cdp_session(page)
    try:
        tree = session.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        session.detach()
    return [((n.get("role") or {}).get("value", ""), (n.get("name") or {}).get("value", "")) for n in tree]


def test_the_summary_page_runs_nothing_a_student_wrote(browser, report):
    page = browser.new_page()
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    try:
        page.goto(report.as_uri())
        assert page.evaluate("window.__ran") is None
        assert [u for u in requests if not u.startswith(("file:", "data:"))] == []
        assert HOSTILE in page.inner_text("main")              # shown as text
        # the page's own policy: a script put into it anyway does not run
        page.evaluate("""() => { const s = document.createElement('script');
                                 s.textContent = 'window.__ran = 3'; document.body.append(s); }""")
        assert page.evaluate("window.__ran") is None
    finally:
        page.close()


def test_the_summary_page_passes_axe_and_names_its_pictures(browser, axe, report):
    # axe is a script: this context ignores the page's policy so that it can be injected
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    try:
        page.goto(report.as_uri())
        violations = axe.run_axe(page)
        assert not violations, axe.describe_violations(violations)
        alts = page.eval_on_selector_all("img", "els => els.map(e => e.alt)")
        assert len(alts) == 2
        assert alts[0].startswith("Histogram of the total scores of a1_minimax: 4 submissions")
        assert "a1-test-value (autograded, 3 points): 2 submissions 0, 2 submissions 3." in alts[1]
        assert ("a1-written (graded by hand, 2 points): 1 submission 1, 1 submission 2, "
                "2 still to grade by hand.") in alts[1]
        images = [name for role, name in _ax_nodes(page) if role in ("image", "img")]
        print("accessibility tree, pictures:", *images, sep="\n  ")
        assert images == alts                                  # a screen reader reads them
        # the keyboard reaches the page's links (the assignment index), and they lead there
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.getAttribute('href')") == "#a-a1_minimax"
        page.keyboard.press("Enter")
        assert page.evaluate("location.hash") == "#a-a1_minimax"
    finally:
        context.close()
