"""The grading package's three parts (issue 32): what runs where is what imports what.

``course/grading/checks/`` runs in the student's kernel (Validate) and in the grader; it must not
reach the grading job (``job/``) or the instructor's bookkeeping (``term/``).  The exercise
notebooks released before the layout import ``course.grading.cases`` and friends; those keep
working.
"""

from __future__ import annotations

import subprocess
import sys

from test_theory_layout import COURSE, course_imports

GRADING = COURSE / "grading"


def test_the_checks_import_neither_the_job_nor_the_term():
    modules = sorted(GRADING.joinpath("checks").glob("*.py"))
    assert len(modules) >= 10
    wrong = {str(p.relative_to(GRADING)): sorted(n for n in course_imports(p)
                                                 if n.startswith(("course.grading.job",
                                                                  "course.grading.term")))
             for p in modules}
    assert not any(wrong.values()), wrong


def test_the_three_parts_and_nothing_else():
    parts = sorted(p.name for p in GRADING.iterdir() if p.is_dir() and p.name != "__pycache__")
    assert parts == ["checks", "job", "term"]
    assert sorted(p.name for p in GRADING.glob("*.py")) == ["__init__.py", "__main__.py"]


def test_a_students_kernel_loads_only_the_checks():
    code = ("import sys, course.grading\n"
            "print(sorted({v.__name__ for k, v in sys.modules.items()"
            " if k.startswith('course.grading.')}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = eval(out.stdout)                      # a list of str printed by our own code
    assert loaded and all(m.startswith("course.grading.checks") for m in loaded), loaded


def test_notebooks_released_before_the_layout_still_import():
    from course.grading.cases import fixed_cases, moves_by_bounds_differ, with_depth_limit
    from course.grading.errorbounds import chen_comparison, check_decision_bound
    from course.grading.evaluation import choice_losses
    import course.grading.checks.cases as cases
    import course.grading.checks.errorbounds as errorbounds
    import course.grading.checks.evaluation as evaluation

    assert (fixed_cases, moves_by_bounds_differ, with_depth_limit) == \
        (cases.fixed_cases, cases.moves_by_bounds_differ, cases.with_depth_limit)
    assert (chen_comparison, check_decision_bound) == \
        (errorbounds.chen_comparison, errorbounds.check_decision_bound)
    assert choice_losses is evaluation.choice_losses
    import course.grading
    assert course.grading.cases is cases


def test_every_import_of_the_grading_package_names_a_module_that_exists():
    """A line merged in from a branch of the old layout (``from ..course_dir import ...`` in
    job/queue.py) fails only when it runs; this finds it at once, in every file of the course.
    """
    root = COURSE.parent
    missing = []
    for path in sorted(COURSE.rglob("*.py")):
        for module in course_imports(path):
            as_path = root.joinpath(*module.split("."))
            if not (as_path.with_suffix(".py").is_file() or (as_path / "__init__.py").is_file()):
                # ``from .x import name``: the module is x, and course_imports says x
                missing.append(f"{path.relative_to(root)}: {module}")
    assert not missing, missing


def test_a_config_written_for_the_old_layout_is_refused_with_the_new_names(tmp_path):
    """A course's nbgrader_config.py from before the layout names the sandboxed step by its old
    module; nbgrader would fail later with a bare ImportError. It is refused, saying what to
    rename."""
    import pytest

    from course.grading.term.course_dir import WorkflowError, load_course_config

    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        "c.Autograde.autograde_preprocessors = ['nbgrader.preprocessors.Execute',\n"
        "    'course.grading.autograde.sandboxed.SandboxedGrade']\n"
        "c.Exchange.exchange_class = 'course.grading.intake.exchange.CourseExchange'\n")
    with pytest.raises(WorkflowError) as found:
        load_course_config(str(tmp_path))
    said = str(found.value)
    assert "course.grading.autograde.sandboxed.SandboxedGrade -> course.grading.job.sandboxed.SandboxedGrade" in said
    assert "course.grading.term.intake.exchange.CourseExchange" in said
    assert "make approve-config" in said
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\nc.Autograde.autograde_preprocessors = "
        "['course.grading.job.sandboxed.SandboxedGrade']\n")
    assert load_course_config(str(tmp_path)).Autograde.autograde_preprocessors
