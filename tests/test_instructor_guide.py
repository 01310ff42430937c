"""The instructor guide's worked examples, run as the guide says (docs/instructor/customise.md,
docs/instructor/term.md): changed points and a new question with a hidden test, a due date with a
late penalty that grades.csv shows, an unreleased assignment left out of the grades, and a student
who left removed from grades and feedback."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from course.grading.__main__ import main
from test_grading_support import ROOT, copy_course

pytestmark = pytest.mark.nbgrader

A1 = "a1_minimax"
NB = "minimax.ipynb"
GUIDE = [ROOT / "docs" / "instructor" / page for page in ("customise.md", "term.md")]

# The guide's new question: its answer cell and its test cell (a visible test, a hidden one).
NEW_ANSWER = '''def leaf_count(game, state):
    "The number of terminal states below `state` (`state` itself if it is terminal)."
    ### BEGIN SOLUTION
    if game.is_terminal(state):
        return 1
    return sum(leaf_count(game, game.result(state, move)) for move in game.moves(state))
    ### END SOLUTION'''
NEW_TEST = '''# Tests: AIMA figure 5.2 has 9 leaves.
game = aima_figure_5_2()
assert leaf_count(game, game.initial_state()) == 9, "AIMA figure 5.2 has 9 leaves"
### BEGIN HIDDEN TESTS
deep = parse_tree({"max": [{"min": [{"max": [1, 2]}, 3]}]})
assert leaf_count(deep, deep.initial_state()) == 3, "a tree three moves deep has its leaves counted at every depth"
lone = parse_tree(5)
assert leaf_count(lone, lone.initial_state()) == 1, "a terminal state counts itself"
### END HIDDEN TESTS'''
# A wrong answer that passes the visible test and fails the hidden one.
WRONG_ANSWER = '''def leaf_count(game, state):
    "The number of terminal states below `state`."
    if game.is_terminal(state):
        return 1
    return sum(len(game.moves(game.result(state, m))) or 1 for m in game.moves(state))'''


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        status = main(list(argv))
    return status, out.getvalue()


def _cell(kind: str, source: str, **nbgrader) -> dict:
    cell = {"cell_type": kind, "id": f"guide-{abs(hash(source)) % 10**8}", "metadata": {"nbgrader": {"schema_version": 3, **nbgrader}} if nbgrader else {},
            "source": source}
    if kind == "code":
        cell.update(outputs=[], execution_count=None)
    return cell


def _edit_source(path: Path) -> None:
    """What the guide has the instructor do in JupyterLab: 2 -> 3 points for the first test cell,
    and a new question (prose, answer cell, test cell worth 2 points) after Part 1's tests."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells = notebook["cells"]
    ids = [c["metadata"].get("nbgrader", {}).get("grade_id") for c in cells]
    cells[ids.index("a1-test-value-textbook")]["metadata"]["nbgrader"]["points"] = 3
    at = ids.index("a1-test-value-random") + 1
    cells[at:at] = [
        _cell("markdown", "## Part 1b — Counting leaves\n\nWrite `leaf_count(game, state)`.",
              grade=False, solution=False, locked=True, grade_id="a1-part1b"),
        _cell("code", NEW_ANSWER, grade=False, solution=True, locked=False, grade_id="a1-leaf-count"),
        _cell("code", NEW_TEST, grade=True, solution=False, locked=True, points=2, grade_id="a1-test-leaf-count"),
    ]
    setup = cells[ids.index("a1-setup")]
    setup["source"] = "".join(setup["source"]).replace("from course import Player, parse_tree",
                                                       "from course import Player, parse_tree  # used by the tests")
    path.write_text(json.dumps(notebook, indent=1), encoding="utf-8")


def _submit(root: Path, student: str, when: str, answer: str | None = None) -> None:
    """A student's submission as collect leaves it: the source with its solutions (the new
    question's answer replaced by ``answer``), and nbgrader's timestamp.txt."""
    folder = root / "submitted" / student / A1
    folder.mkdir(parents=True)
    notebook = json.loads((root / "solutions" / A1 / NB).read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "a1-leaf-count" and answer:
            cell["source"] = answer
    (folder / NB).write_text(json.dumps(notebook), encoding="utf-8")
    (folder / "timestamp.txt").write_text(when + "\n", encoding="utf-8")


def _grades(root: Path) -> dict[tuple[str, str], dict]:
    status, out = _run("--root", str(root), "grades", "--output", str(root / "grades.csv"))
    assert status == 0, out
    with open(root / "grades.csv", encoding="utf-8") as handle:
        return {(r["student"], r["assignment"]): r for r in csv.DictReader(handle)}


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    root = copy_course(tmp_path_factory.mktemp("course"))
    _edit_source(root / "solutions" / A1 / NB)
    status, out = _run("--root", str(root), "release", "--assignment", A1)
    assert status == 0, out
    # the late penalty, chosen in nbgrader_config.py and approved (as the guide shows)
    with open(root / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write('\nc.AssignLatePenalties.plugin_class = "course.grading.term.PercentPerDay"\n'
                     "c.PercentPerDay.percent_per_day = 10\n")
    approve_status, approve_out = _run("--root", str(root), "approve-config")
    assert approve_status == 0, approve_out
    due_status, due_out = _run("--root", str(root), "due-date", A1, "2026-12-01 17:00 UTC")
    assert due_status == 0, due_out
    _submit(root, "ada", "2026-12-01 16:59:00 UTC")                       # on time
    _submit(root, "grace", "2026-12-03 10:00:00 UTC")                     # 41 hours late: 2 days
    _submit(root, "linus", "2026-11-30 12:00:00 UTC", WRONG_ANSWER)       # passes the visible test only
    status, graded = _run("--root", str(root), "autograde", "--jobs", "2")
    assert status == 0, graded
    return root, out, due_out, graded


def test_changed_points_are_graded_and_stated_in_the_release(term):
    root, release_out, _, _ = term
    # 9 automatic points, +1 (the first test is now worth 3), +2 (the new test): 12
    assert 'minimax.ipynb: "Points: 9 checked automatically, 2 for a written answer" is now ' \
           '"Points: 12 checked automatically, 2 for a written answer"' in release_out
    released = (root / "exercises" / A1 / NB).read_text(encoding="utf-8")
    assert "Points: 12 checked automatically" in released
    assert "leaf_count" in released and "BEGIN HIDDEN TESTS" not in released
    assert "three moves deep" not in released                  # the hidden test stays hidden


def test_a_due_date_and_late_penalty_show_in_grades_csv(term):
    root, _, due_out, _ = term
    assert "a1_minimax: due 2026-12-01 17:00 UTC" in due_out
    rows = _grades(root)
    ada, grace = rows[("ada", A1)], rows[("grace", A1)]
    assert float(ada["max_score"]) == 14                                 # 12 automatic + 2 by hand
    assert (ada["hours_late"], ada["late_penalty"], ada["score"]) == ("0", "0", "12")
    assert grace["due"] == "2026-12-01 17:00 UTC" and grace["submitted_at"] == "2026-12-03 10:00:00 UTC"
    assert float(grace["hours_late"]) == 41
    # two (started) days late at 10 % a day: 20 % of 12
    assert float(grace["late_penalty"]) == pytest.approx(2.4) and float(grace["score"]) == pytest.approx(9.6)


def test_the_new_questions_hidden_test_counts(term):
    root, _, _, graded = term
    rows = _grades(root)
    assert float(rows[("linus", A1)]["autograded_score"]) == 10          # the 2 points of leaf_count lost
    linus = (root / "autograded" / "linus" / A1 / NB).read_text(encoding="utf-8")
    assert "three moves deep" in linus


def test_assignments_not_released_are_not_in_the_grades(term):
    root, _, _, _ = term
    rows = _grades(root)
    assert {a for _, a in rows} == {A1}
    status, out = _run("--root", str(root), "grades", "--output", str(root / "grades.csv"))
    assert "not released yet" in out and "a2_alphabeta" in out


def test_a_student_who_left_is_removed_from_grades_and_feedback(term):
    root, _, _, _ = term
    assert _run("--root", str(root), "feedback")[0] == 0
    assert (root / "feedback" / "linus").is_dir()
    (root / "roster.csv").write_text("id,first_name,last_name\nada,Ada,Lovelace\ngrace,Grace,Hopper\n"
                                     "linus,Linus,Torvalds\n", encoding="utf-8")
    status, dry = _run("--root", str(root), "remove-student", "linus")
    assert status == 0 and "nothing removed: add --yes" in dry and (root / "submitted" / "linus").is_dir()
    status, out = _run("--root", str(root), "remove-student", "linus", "--yes")
    assert status == 0, out
    assert "removed their line of roster.csv" in out
    for folder in ("submitted", "autograded", "feedback"):
        assert not (root / folder / "linus").exists()
    assert ("linus", A1) not in _grades(root)
    assert _run("--root", str(root), "feedback")[0] == 0
    assert not (root / "feedback" / "linus").exists()                   # not recreated from the report
    assert "linus" not in (root / "roster.csv").read_text(encoding="utf-8")
    assert _run("--root", str(root), "remove-student", "linus", "--yes")[0] == 2


def test_the_guide_shows_these_commands():
    text = "\n".join(page.read_text(encoding="utf-8") for page in GUIDE)
    for command in ("make release", "python -m course.grading due-date a1_minimax",
                    "course.grading.term.PercentPerDay", "make approve-config", "make autograde",
                    "make grades", "remove-student", "### BEGIN HIDDEN TESTS"):
        assert command in text, command
    assert re.search(r"hours_late.*late_penalty", text)


def test_the_example_class_prints_commands_that_run_from_a_plain_shell(tmp_path, monkeypatch):
    """``example-class`` ends with the commands that grade the class: they must run as printed
    from a shell that never activated ``.venv`` (``make install`` activates nothing), where a bare
    ``python`` is not the course's."""
    import subprocess

    from test_instructor_lab import clean_env

    monkeypatch.chdir(tmp_path)
    status, out = _run("example-class", "class")
    assert status == 0, out
    commands = out.split("Grade it:\n", 1)[1].splitlines()
    assert commands and all(line.startswith("  ") for line in commands), out
    # the grades command alone (autograde's sandboxes are tested elsewhere): it reads the class
    script = " && ".join(line.strip() for line in commands if " autograde" not in line and " feedback" not in line)
    done = subprocess.run(script, shell=True, cwd=tmp_path, env=clean_env(tmp_path / "home"),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (script, done.stdout, done.stderr)
    rows = (tmp_path / "class" / "grades.csv").read_text(encoding="utf-8").splitlines()
    assert sorted(row.split(",")[0] for row in rows[1:]) == ["ada", "alan", "barbara", "grace"]


def test_the_example_class_grades_as_the_adoption_page_says(tmp_path):
    from course.grading.term.example_class import example_class

    root = example_class(tmp_path / "class")
    status, out = _run("--root", str(root), "autograde", "--jobs", "2")
    assert status == 0, out
    lines = {line.split()[0]: line for line in out.splitlines() if line.split() and line.split()[0] in
             ("ada", "grace", "alan", "barbara")}
    page = (ROOT / "docs" / "instructor" / "adopt.md").read_text(encoding="utf-8")
    for student, line in lines.items():
        assert line.split("[")[0].rstrip() in page, line
    audit = [line for line in out.splitlines() if line.startswith("copy audit:")]
    assert len(audit) == 1 and audit[0] in page, audit
    rows = _grades(root)
    assert float(rows[("barbara", A1)]["late_penalty"]) == pytest.approx(1.8)
    assert set(rows) == {(s, A1) for s in ("ada", "grace", "alan", "barbara")}
