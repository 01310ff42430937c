"""Issue 28, item 2: ``make release`` checks the source before students get it.

The model solution must pass every visible and hidden test (graded as submissions are, in the
sandbox) and the released stub must fail every test; otherwise the release is refused and the
error names the test.  A check that passed is remembered by the source's hash.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from term_support import A, NB, TEST_ID, ok, run, source_notebook, write_source  # noqa: E402

pytestmark = pytest.mark.nbgrader


@pytest.fixture
def course(tmp_path, monkeypatch):
    from term_support import course_config

    monkeypatch.setenv("COURSE_GRADING_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "course"
    root.mkdir()
    write_source(root)
    (root / "nbgrader_config.py").write_text(course_config(), encoding="utf-8")
    return root


def _source(root: Path) -> Path:
    return root / "solutions" / A / f"{NB}.ipynb"


def test_item2_a_hidden_test_the_model_solution_fails_is_not_released(course):
    notebook = source_notebook()
    test = next(c for c in notebook["cells"] if c["id"] == TEST_ID)
    test["source"] = test["source"].replace("### END HIDDEN TESTS", 'assert False, "broken"\n### END HIDDEN TESTS')
    _source(course).write_text(json.dumps(notebook), encoding="utf-8")
    status, out = run("--root", str(course), "release")
    assert status == 2, out
    assert f"the model solution fails the hidden tests of test {TEST_ID} of square.ipynb (2 points)" in out
    assert not (course / "exercises" / A).exists()                     # nothing released


def test_item2_a_visible_test_the_solution_fails_is_named_with_its_error(course):
    notebook = source_notebook()
    test = next(c for c in notebook["cells"] if c["id"] == TEST_ID)
    test["source"] = test["source"].replace("square(3) == 9", "square(3) == 10")
    _source(course).write_text(json.dumps(notebook), encoding="utf-8")
    status, out = run("--root", str(course), "release")
    assert status == 2 and f"the model solution fails test {TEST_ID}" in out and "AssertionError" in out, out


def test_item2_a_test_the_stub_passes_gives_points_for_nothing_and_is_not_released(course):
    notebook = source_notebook()
    free = dict(next(c for c in notebook["cells"] if c["id"] == TEST_ID), id="t1-free",
                source="assert 1 + 1 == 2\n")
    free["metadata"] = {"nbgrader": dict(free["metadata"]["nbgrader"], grade_id="t1-free", points=1)}
    notebook["cells"].append(free)
    _source(course).write_text(json.dumps(notebook), encoding="utf-8")
    status, out = run("--root", str(course), "release")
    assert status == 2 and "the released stub passes test t1-free of square.ipynb (1 points)" in out, out


def test_item2_a_sound_source_is_released_and_its_check_remembered(course):
    out = ok(course, "release")
    assert "t1_square: the model solution passes all 1 tests, the stub none (in the sandbox)" in out
    assert (course / "exercises" / A / f"{NB}.ipynb").is_file()
    started = time.perf_counter()
    out = ok(course, "release")
    assert "(unchanged since it was checked)" in out
    assert time.perf_counter() - started < 30


@pytest.mark.slow
def test_item2_every_assignment_of_the_course_passes_its_check(tmp_path, monkeypatch):
    """The course's own solutions earn every point and its stubs none (all five assignments)."""
    from course.grading.term.course_dir import course_layout
    from course.grading.term.release_check import check_source
    from test_grading_support import copy_course

    monkeypatch.setenv("COURSE_GRADING_CACHE", str(tmp_path / "cache"))
    layout = course_layout(copy_course(tmp_path / "course"))
    for name in layout.assignments():
        check = check_source(layout, name, use_cache=False)
        assert check.ok and check.tests >= 4, (name, check.problems)
