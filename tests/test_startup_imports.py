"""The grading commands and workers start without importing what they never use.

jsonschema's ``iri`` format checker (rfc3987-syntax) builds a parser grammar when imported: about
0.8 s of CPU per process.  ``python -m course.grading`` and every grading worker keep it out
(:func:`course._optional.skip_unused_format_checks`); notebooks are still validated.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import runpy, sys
sys.argv = {argv!r}
try:
    runpy.run_module({module!r}, run_name="__main__")
except SystemExit:
    pass
import nbformat
nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")])
nbformat.validate(nb)                                   # a valid notebook passes
nb.cells[0]["cell_type"] = "not a kind of cell"
try:
    nbformat.validate(nb)
    print("invalid notebook accepted")
except nbformat.ValidationError:
    print("invalid notebook refused")
print("jsonschema" in sys.modules, repr(sys.modules.get("rfc3987_syntax", "absent")))
"""


@pytest.mark.parametrize("module, argv", [("course.grading", ["course.grading", "--help"]),
                                          ("course.grading.job.worker", ["worker"])])
def test_a_grading_process_starts_without_the_iri_checker_and_still_validates(module, argv):
    done = subprocess.run([sys.executable, "-c", PROBE.format(module=module, argv=argv)],
                          capture_output=True, text=True, timeout=120)
    lines = done.stdout.strip().splitlines()
    assert lines[-2:] == ["invalid notebook refused", "True None"], done.stdout + done.stderr


def test_a_process_that_imported_jsonschema_first_is_left_as_it_is():
    code = ("import sys, jsonschema\nfrom course._optional import skip_unused_format_checks\n"
            "before = sys.modules.get('rfc3987_syntax', 'absent')\n"
            "print(skip_unused_format_checks(), sys.modules.get('rfc3987_syntax', 'absent') is before)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["False", "True"], done.stdout + done.stderr
