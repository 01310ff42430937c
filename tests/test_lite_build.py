"""Pieces of the JupyterLite build that make a lesson start quickly and without a kernel dialog
(issue 21), checked without building a site: the notebooks name the site's kernel, the lock file
entries of preloaded wheels, the bytecode Pyodide's own Python writes (when Node.js is here).

The whole site, in a browser, is tests/browser/test_browser_lite.py.
"""
from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from course.lite import build

REPO = Path(__file__).resolve().parents[1]


def _wheel(path: Path, name: str, files: dict[str, str], requires: tuple[str, ...] = ()) -> Path:
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n" + "".join(
        f"Requires-Dist: {r}\n" for r in requires)
    wheel = path / f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for member, text in files.items():
            archive.writestr(member, text)
        archive.writestr(f"{name}-1.0.dist-info/METADATA", meta)
        archive.writestr(f"{name}-1.0.dist-info/RECORD", "")
    return wheel


def test_site_notebooks_name_the_pyodide_kernel(tmp_path):
    """The lessons name ipykernel's "python3"; the site's copies name the Pyodide kernel."""
    source = json.loads((REPO / "lessons" / "01_minimax.ipynb").read_text())
    assert source["metadata"]["kernelspec"]["name"] == "python3"
    build.lite_notebook(REPO / "lessons" / "01_minimax.ipynb", tmp_path / "l1.ipynb")
    copy = json.loads((tmp_path / "l1.ipynb").read_text())
    assert copy["metadata"]["kernelspec"] == build.LITE_KERNELSPEC
    assert copy["metadata"]["language_info"]["name"] == "python"


def test_preloaded_wheels_depend_only_on_what_the_site_has(tmp_path):
    """A preloaded wheel becomes a lock entry with its checksum and import names; it depends on
    what it requires among the site's own packages, never on one only Pyodide's CDN serves
    (the course requires numpy: loading it with the kernel would fail offline)."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    site = tmp_path / "pyodide"
    site.mkdir()
    mine = _wheel(wheels, "mine", {"mine/__init__.py": "X = 1\n", "mine_extra.py": ""},
                  ("numpy>=1.24", "helper_pkg~=1.0", "docs-only; extra == 'docs'"))
    helper = _wheel(wheels, "helper_pkg", {"helper_pkg/__init__.py": ""})
    lock = {"packages": {
        "numpy": {"name": "numpy", "file_name": "https://cdn.example/numpy.whl", "depends": []},
    }}
    assert build.preload_wheels(lock, site, [mine, helper]) == ["helper-pkg", "mine"]
    entry = lock["packages"]["mine"]
    assert entry["depends"] == ["helper-pkg"]
    assert entry["imports"] == ["mine", "mine_extra"]
    assert entry["sha256"] == build.sha256(site / mine.name) and entry["file_name"] == mine.name
    assert build.lock_closure(lock["packages"], ("mine",)) == ["helper-pkg", "mine"]


def test_setup_cell_installs_only_when_nothing_was_preloaded():
    """The first cell imports the preloaded course; ``%pip`` only on a site without it."""
    code = build.SETUP_CODE
    assert code.index("import course") < code.index("except ModuleNotFoundError")
    assert code.index("except ModuleNotFoundError") < code.index("%pip install --no-deps course")
    assert "course" in build.PRELOAD and "pyodide-kernel" in build.PRELOAD


@pytest.mark.slow
def test_precompiled_wheels_carry_unchecked_bytecode(tmp_path):
    """Pyodide's own Python (Node.js) writes unchecked-hash bytecode its kernel reads: beside
    the sources for the course, instead of them for the others.  Skipped without Node.js or
    without the cached npm Pyodide of an earlier build, and without the ``lite`` extra."""
    pytest.importorskip("jupyterlite_pyodide_kernel", reason="needs the lite extra (pip install -e '.[lite]')")
    version, python = build.kernel_pyodide()
    core = build.DEFAULT_CACHE / f"npm-pyodide-{version}" / "package"
    if shutil.which("node") is None or not (core / "pyodide.mjs").exists():
        pytest.skip("needs Node.js and npm's Pyodide in build/lite-cache (make lite)")
    course = _wheel(tmp_path, "course", {"course/__init__.py": "VALUE = 41 + 1\n"})
    other = _wheel(tmp_path, "other", {"other/__init__.py": "def f():\n    return 2\n",
                                      "other/broken.py": "print 'python 2'\n"})
    done = build.precompile(core, [course, other], tmp_path / "cache", python)
    tag = f"cpython-{python.replace('.', '')}"
    with zipfile.ZipFile(done[course]) as archive:
        names = set(archive.namelist())
        record = archive.read("course-1.0.dist-info/RECORD").decode()
    assert {"course/__init__.py", f"course/__pycache__/__init__.{tag}.pyc"} <= names
    assert f"course/__pycache__/__init__.{tag}.pyc,sha256=" in record
    with zipfile.ZipFile(done[other]) as archive:
        names = set(archive.namelist())
        record = archive.read("other-1.0.dist-info/RECORD").decode()
        pyc = archive.read("other/__init__.pyc")
    assert "other/__init__.pyc" in names and "other/__init__.py" not in names
    assert "other/broken.py" in names            # not Python 3: left as it was
    assert "other/__init__.pyc,sha256=" in record and "other/__init__.py," not in record
    assert int.from_bytes(pyc[4:8], "little") == 0b01  # PEP 552: hash-based, not checked
    # cached: the same wheels are not compiled again
    assert build.precompile(core, [course, other], tmp_path / "cache", python) == done
