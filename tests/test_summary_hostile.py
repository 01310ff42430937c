"""The grading summary shows the names of the errors a student's code raised: a student chooses
them (``type("\\x1b[2J<img src=x onerror=...>", (Exception,), {})``), so they are cleaned for the
console and escaped for the page."""

from __future__ import annotations

import json

from course.grading.term.course_dir import CourseLayout
from course.grading.term.results import summary as summary_module

HOSTILE = "\x1b[2J\x1b]0;pwned\x07<img src=x onerror=alert(1)>" + "A" * 200


def test_a_hostile_error_name_is_cleaned_for_the_console_and_escaped_on_the_page(tmp_path):
    folder = tmp_path / "autograded" / "mallory" / "a1_minimax"
    folder.mkdir(parents=True)
    cell = {"cell_type": "code", "metadata": {"nbgrader": {"grade_id": "a1-test"}}, "source": "",
            "execution_count": 1,
            "outputs": [{"output_type": "error", "ename": HOSTILE, "evalue": "", "traceback": []}]}
    (folder / "minimax.ipynb").write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4,
                                                       "nbformat_minor": 5}))
    layout = CourseLayout(tmp_path, tmp_path / "solutions", tmp_path / "exercises", tmp_path / "submitted",
                          tmp_path / "autograded", tmp_path / "feedback", "sqlite://", "course", 30)
    kinds = summary_module._error_names(layout, "mallory", "a1_minimax")
    kind = kinds["a1-test"]
    assert "\x1b" not in kind and "\x07" not in kind and len(kind) <= 60
    q = summary_module.QuestionSummary("minimax", "a1-test", 1.0, False, [0.0], failures=[(kind, 1)])
    item = summary_module.AssignmentSummary("a1_minimax", 1.0, [0.0], [], questions=[q],
                                            groups={"attempted": [0.0]})
    page = summary_module.summary_html([item])
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    lines = summary_module._summary_lines([item])
    assert all("\x1b" not in line for line in lines)
