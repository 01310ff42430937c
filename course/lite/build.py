"""Build the JupyterLite edition of the course: a static site that runs in the browser.

    python -m course.lite.build [--output build/lite] [--pyodide-dist DIR_OR_TARBALL]

(``make lite`` runs it inside the project's virtualenv, with ``PYODIDE_DIST=...`` passed on.)

The site holds JupyterLite with the Pyodide kernel, the lessons, the exercises (the student release
in ``exercises/``, never ``solutions/``), and, for ``piplite``, wheels of the ``course`` package
(with its vendored Viz.js) and of the widget libraries.  Every piece comes from PyPI or npm, so it
builds offline from package caches:

* JupyterLite and the kernel: the ``lite`` extra (``jupyterlite-core``,
  ``jupyterlite-pyodide-kernel``); ``jupyter lite build`` picks up the widget front ends
  (``jupyterlab_widgets``, ``anywidget``) from this environment's labextensions.
* Pyodide's core (``pyodide.mjs``, ``pyodide.asm.wasm``, ``python_stdlib.zip``,
  ``pyodide-lock.json``): the npm package ``pyodide`` at the version the kernel was made for.
* The pure-Python packages the kernel itself loads at start (IPython, jedi, micropip, ...): their
  PyPI wheels, at the versions in Pyodide's lock file, which is rewritten to point at them (with
  their SHA-256: Pyodide's own copies of these wheels differ in bytes), so the kernel starts
  without any CDN.
* Everything else in Pyodide's lock file -- numpy, matplotlib and the other compiled packages,
  which are on neither PyPI nor npm -- is pointed at Pyodide's CDN, fetched when a lesson first
  needs it.  Give ``--pyodide-dist`` (or ``PYODIDE_DIST``) an unpacked official Pyodide release
  (``pyodide-<version>.tar.bz2`` from Pyodide's GitHub releases, or the tarball itself) to ship
  it whole instead: the site then needs no network at all.

Start-up (issue 21: the first cell within 10 s of the page loading on 2 cores).  Pyodide loads
the kernel's packages *and* the course with its widget libraries in one parallel batch while it
starts (``loadPyodideOptions.packages``, entries added to the lock file), instead of the kernel
installing micropip, piplite, ipykernel, ... one after another and the first cell installing the
course with ``%pip``.  The standard library (npm's Pyodide ships it as sources) and every wheel
loaded at start are precompiled to bytecode by Pyodide's own Python, run in Node.js at build time
(cached in ``build/lite-cache/precompiled``): the kernel used to compile ~460 modules at every
start.  Each notebook names the site's kernel (``python``), and the notebook tracker starts the
default kernel for one naming another, so no "Select Kernel" dialog is shown.

Each notebook gets a first cell, added here and only in the site, that checks the course is there
(and installs it with piplite's ``%pip`` if a site was built without preloading); a notebook with
plots or numeric experiments gets, just before the first cell that needs them, a cell loading numpy
and matplotlib (saying so, and that offline those cells each print one line instead of running:
:mod:`course._browser`).  Both run only in the browser: a notebook downloaded from the site and
handed in runs unchanged in JupyterLab and in the sandboxed autograder.  ``!python -m course ...``
shell lines become ``%run -m course ...`` (there is no shell in the browser).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFAULT_OUTPUT = REPO / "build" / "lite"
DEFAULT_CACHE = REPO / "build" / "lite-cache"

#: Wheels served by piplite besides ``course`` (pure Python, same versions as this environment's
#: labextensions, so each widget's Python half matches its front end).
PIPLITE_PACKAGES = ("ipywidgets", "anywidget", "comm", "psygnal", "jupyterlab_widgets")
#: Locked Pyodide packages the kernel and the widgets load (their dependencies are added from the
#: lock file); their PyPI wheels are shipped when identical to Pyodide's.
KERNEL_LOCKED = ("micropip", "ipython", "jedi", "traitlets", "typing-extensions", "packaging")

SETUP_TAG = "lite-setup"
#: The site's kernel as the notebooks name it: JupyterLab starts the kernel whose name matches
#: exactly, where "python3" (the lessons' ipykernel) is only matched by language.
LITE_KERNELSPEC = {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}
#: Code that needs numpy/matplotlib: the notebook's first cell then tries to load them.  (Random
#: trees, Chen's trees and the explorers on them need neither: :mod:`course._pcg64` draws numpy's
#: numbers in pure Python.)
NUMERIC = re.compile(r"\bnumpy\b|\bnp\.|course\.plots|\bplot_|matplotlib|selective_sweep|"
                     r"course\.experiments\.(?!paper\b)")
SHELL_COURSE = re.compile(r"^(\s*)!\{sys\.executable\}\s+-m\s+course\b(.*)$", re.MULTILINE)

SETUP_CODE = '''\
# JupyterLite edition: run this cell first. It checks that the course is in the Python that runs
# in this browser tab (nothing is installed on your computer, and your work stays in this browser:
# use File > Download to keep a copy). Your instructor's nbgrader does the official grading.
import sys

if sys.platform == "emscripten":  # in the browser only; elsewhere this cell does nothing
    try:
        import course  # this site loads it with Python itself, while the page opens
    except ModuleNotFoundError:  # a site built without preloading: install it from the site
        %pip install ipywidgets anywidget
        %pip install --no-deps course
        import course  # also: a cell needing numpy/matplotlib that cannot load says so in one line
'''
NUMERIC_TAG = "lite-numeric"
NUMERIC_CODE = '''\
# JupyterLite edition: the cells below (plots, numeric experiments) need numpy and matplotlib,
# which come from Pyodide's CDN (or from this site, if it ships them). This cell loads them;
# offline, each of those cells prints one line saying so, and the rest of the lesson runs.
import sys

if sys.platform == "emscripten":  # in the browser only; elsewhere this cell does nothing
    try:
        %pip install numpy matplotlib
        import matplotlib, numpy  # a failed download is only logged: check they are here
    except Exception as error:
        print("numpy/matplotlib could not be loaded (offline, or Pyodide's CDN is out of reach), "
              "so the plots and numeric experiments in this notebook will not run "
              f"({type(error).__name__}); everything else does.")
'''


def log(message: str) -> None:
    print(f"[lite] {message}", flush=True)


class BuildError(RuntimeError):
    """A prerequisite is missing; the message says which and how to get it."""


# ---------------------------------------------------------------------------------------------
# notebooks
# ---------------------------------------------------------------------------------------------
def _added_cell(tag: str, code: str, nb: dict) -> dict:
    cell = {"cell_type": "code", "execution_count": None, "id": tag,
            "metadata": {"tags": [tag], "editable": False, "deletable": False},
            "outputs": [], "source": code.splitlines(keepends=True)}
    if nb.get("nbformat", 4) == 4 and nb.get("nbformat_minor", 0) < 5:
        cell.pop("id")
    return cell


def lite_notebook(source: Path, target: Path) -> bool:
    """Copy a notebook for the site; return whether it loads numpy.

    The copy starts with the lite setup cell; numpy and matplotlib, when the notebook needs
    them, are loaded by a cell of their own just before the first cell that does (so the first
    cell stays quick); its kernelspec is the site's kernel (``python``, Pyodide), so JupyterLite
    starts it without asking.
    """
    nb = json.loads(source.read_text(encoding="utf-8"))
    first_numeric = None
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            text = "".join(cell["source"])
            new = SHELL_COURSE.sub(r"\1%run -m course\2", text)
            if new != text:
                cell["source"] = new.splitlines(keepends=True)
            if first_numeric is None and NUMERIC.search(text):
                first_numeric = i
    if first_numeric is not None:
        nb["cells"].insert(first_numeric, _added_cell(NUMERIC_TAG, NUMERIC_CODE, nb))
    nb["cells"].insert(0, _added_cell(SETUP_TAG, SETUP_CODE, nb))
    nb.setdefault("metadata", {})["kernelspec"] = dict(LITE_KERNELSPEC)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return first_numeric is not None


def stage_contents(files: Path) -> list[str]:
    """Lessons and the student release of the exercises, as the site's files."""
    numeric = []
    for folder in ("lessons", "exercises"):
        for path in sorted((REPO / folder).rglob("*")):
            if ".ipynb_checkpoints" in path.parts or not path.is_file():
                continue
            target = files / path.relative_to(REPO)
            if path.suffix == ".ipynb":
                if lite_notebook(path, target):
                    numeric.append(str(path.relative_to(REPO)))
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)
    return numeric


# ---------------------------------------------------------------------------------------------
# wheels
# ---------------------------------------------------------------------------------------------
def run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if done.returncode:
        raise BuildError(f"{' '.join(command)} failed:\n{done.stdout[-2000:]}{done.stderr[-3000:]}")
    return done


def build_course_wheel(pypi: Path, cache: Path) -> Path:
    out = cache / "course-wheel"
    shutil.rmtree(out, ignore_errors=True)
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet",
         "--wheel-dir", str(out), str(REPO)])
    (wheel,) = out.glob("course-*.whl")
    shutil.copy2(wheel, pypi / wheel.name)
    return pypi / wheel.name


def download_pure_wheels(requirements: list[str], dest: Path, python: str) -> None:
    """``pip download`` pure-Python wheels (any platform) into ``dest`` (reusing what is there)."""
    dest.mkdir(parents=True, exist_ok=True)
    run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
         "--platform", "any", "--implementation", "py", "--abi", "none",
         "--python-version", python, "--dest", str(dest), *requirements])


def piplite_wheels(pypi: Path, cache: Path, python: str) -> list[str]:
    requirements = [f"{name}=={metadata.version(name)}" for name in PIPLITE_PACKAGES]
    wheels = cache / "wheels"
    download_pure_wheels(requirements, wheels, python)
    copied = []
    for name in PIPLITE_PACKAGES:
        stem = re.sub(r"[-_.]+", "_", name).lower()
        version = metadata.version(name)
        found = [w for w in wheels.glob("*.whl")
                 if w.name.lower().startswith(f"{stem}-{version}-")]
        if not found:
            raise BuildError(f"no pure-Python wheel of {name} {version} was downloaded")
        shutil.copy2(found[0], pypi / found[0].name)
        copied.append(found[0].name)
    return copied


# ---------------------------------------------------------------------------------------------
# Pyodide
# ---------------------------------------------------------------------------------------------
def kernel_pyodide() -> tuple[str, str]:
    """(Pyodide version, Python version) that the installed Pyodide kernel was made for."""
    try:
        from jupyterlite_pyodide_kernel import constants
    except ImportError as exc:
        raise BuildError("jupyterlite-pyodide-kernel is not installed: pip install -e '.[lite]' "
                         "(or make lite)") from exc
    return constants.PYODIDE_VERSION, constants.PYODIDE_PYTHON_VERSION


def npm_pyodide(version: str, cache: Path) -> Path:
    """The npm package ``pyodide@version``, unpacked in the cache; its folder."""
    unpacked = cache / f"npm-pyodide-{version}" / "package"
    if (unpacked / "pyodide.mjs").exists():
        return unpacked
    npm = shutil.which("npm")
    if npm is None:
        raise BuildError("npm is needed to fetch Pyodide's core (npm package 'pyodide'); install "
                         "Node.js, or give --pyodide-dist an official Pyodide release")
    where = unpacked.parent
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    done = run([npm, "pack", "--silent", f"pyodide@{version}"], cwd=where)
    tgz = where / done.stdout.strip().splitlines()[-1]
    with tarfile.open(tgz) as archive:
        archive.extractall(where, filter="data") if hasattr(tarfile, "data_filter") \
            else archive.extractall(where)
    tgz.unlink()
    return unpacked


def local_pyodide(path: Path, cache: Path) -> Path:
    """An official Pyodide release: an unpacked folder, or its tarball (unpacked into the cache)."""
    if path.is_file():
        target = cache / f"dist-{path.name.split('.tar')[0]}"
        if not (target / "pyodide" / "pyodide-lock.json").exists():
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir(parents=True)
            log(f"unpacking {path} ...")
            with tarfile.open(path) as archive:
                archive.extractall(target, filter="data") if hasattr(tarfile, "data_filter") \
                    else archive.extractall(target)
        path = target
    for candidate in (path, path / "pyodide"):
        if (candidate / "pyodide-lock.json").exists() and (candidate / "pyodide.mjs").exists():
            return candidate
    raise BuildError(f"{path} is not a Pyodide distribution (no pyodide.mjs and pyodide-lock.json)")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def lock_closure(packages: dict, roots: tuple[str, ...]) -> list[str]:
    """The lock file's keys of ``roots`` and all they depend on (names compared normalised)."""
    key = {_norm(k): k for k in packages}
    todo, seen = [key[_norm(r)] for r in roots if _norm(r) in key], set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(key[_norm(d)] for d in packages[name]["depends"] if _norm(d) in key)
    return sorted(seen)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def stage_npm_pyodide(core: Path, target: Path, version: str, python: str,
                      cache: Path) -> dict:
    """Pyodide's core plus the kernel's pure-Python packages; the rest of the lock on the CDN."""
    target.mkdir(parents=True)
    for name in ("pyodide.mjs", "pyodide.js", "pyodide.asm.mjs", "pyodide.asm.wasm",
                 "python_stdlib.zip", "package.json"):
        if (core / name).exists():
            shutil.copy2(core / name, target / name)
    lock = json.loads((core / "pyodide-lock.json").read_text())
    packages = lock["packages"]
    wanted = lock_closure(packages, KERNEL_LOCKED)
    pure = [n for n in wanted if packages[n]["file_name"].endswith("-none-any.whl")]
    wheels = cache / "wheels"
    download_pure_wheels([f"{packages[n]['name']}=={packages[n]['version']}" for n in pure],
                         wheels, python)
    local, missing = [], []
    for name in pure:
        entry = packages[name]
        stem = re.sub(r"[-_.]+", "_", entry["name"]).lower()
        found = [w for w in wheels.glob("*.whl")
                 if w.name.lower().startswith(f"{stem}-{entry['version']}-")]
        if not found:
            missing.append(name)
            continue
        # Pyodide republishes these pure-Python wheels with other bytes (precompiled), so the
        # lock file is given the PyPI wheel's checksum: same package, same version.
        shutil.copy2(found[0], target / entry["file_name"])
        entry["sha256"] = sha256(found[0])
        local.append(name)
    cdn = f"https://cdn.jsdelivr.net/pyodide/v{version}/full/"
    for name, entry in packages.items():
        if name not in local and "://" not in entry["file_name"]:
            entry["file_name"] = cdn + entry["file_name"]
    (target / "pyodide-lock.json").write_text(json.dumps(lock, indent=1) + "\n")
    return {"local": local, "cdn_only_kernel_packages": [n for n in wanted if n not in local],
            "not_on_pypi": missing}


#: Loaded by Pyodide itself while the kernel starts (``loadPyodideOptions.packages``), in one
#: parallel batch, from the lock file: what the kernel would otherwise install one by one after
#: Pyodide started (micropip, then piplite, then ipykernel, comm, pyodide-kernel, jedi, ipython
#: -- the kernel skips each one named here), and the course with its widget libraries, which the
#: first cell would otherwise install with ``%pip``.
PRELOAD = tuple(dict.fromkeys(("micropip", "piplite", "ipykernel", "comm", "pyodide-kernel", "jedi",
                               "ipython", "widgetsnbextension", *PIPLITE_PACKAGES, "course")))
#: Wheels of the Pyodide kernel's own (its labextension's ``static/pypi``).
KERNEL_WHEELS = ("piplite", "ipykernel", "pyodide_kernel", "widgetsnbextension")


def kernel_extension_wheels() -> Path:
    """The folder of the wheels the Pyodide kernel's labextension serves to piplite."""
    from jupyter_core.paths import jupyter_path

    for base in jupyter_path("labextensions"):
        folder = Path(base) / "@jupyterlite" / "pyodide-kernel-extension" / "static" / "pypi"
        if folder.is_dir():
            return folder
    raise BuildError("the Pyodide kernel's labextension (with its wheels) is not installed: "
                     "pip install -e '.[lite]'")


def wheel_metadata(wheel: Path) -> tuple[str, str, list[str], list[str]]:
    """(name, version, required names without extras, top-level import names) of a wheel."""
    import email.parser
    import zipfile

    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        meta_name = next(n for n in names
                         if n.endswith(".dist-info/METADATA") and n.count("/") == 1)
        meta = email.parser.Parser().parsestr(archive.read(meta_name).decode())
    requires = []
    for line in meta.get_all("Requires-Dist") or []:
        requirement, _, marker = line.partition(";")
        if "extra" not in marker:
            requires.append(re.split(r"[\s<>=!~\[(]", requirement.strip(), maxsplit=1)[0])
    tops = set()
    for name in names:
        top = name.split("/")[0]
        if top.endswith((".dist-info", ".data")) or top == "__pycache__":
            continue
        if "/" in name or top.endswith(".py"):
            tops.add(top.removesuffix(".py"))
    return meta["Name"], meta["Version"], requires, sorted(tops)


def preload_wheels(lock: dict, target: Path, wheels: list[Path]) -> list[str]:
    """Add ``wheels`` to the lock file (copied into ``target``, Pyodide's folder), each depending
    on the packages it requires that are preloaded or shipped here (never on one only the CDN has:
    the course requires numpy and matplotlib, which a lesson loads when it needs them)."""
    packages = lock["packages"]
    entries = {}
    for wheel in wheels:
        name, version, requires, imports = wheel_metadata(wheel)
        entries[_norm(name)] = (wheel, name, version, requires, imports)
    here = {k for k, e in packages.items() if "://" not in e["file_name"]} | set(entries)
    key = {_norm(k): k for k in packages}
    for norm, (wheel, name, version, requires, imports) in entries.items():
        shutil.copy2(wheel, target / wheel.name)
        depends = sorted({key.get(_norm(r), _norm(r)) for r in requires
                          if key.get(_norm(r), _norm(r)) in here and _norm(r) != norm})
        packages.pop(key.get(norm, norm), None)
        packages[norm] = {"name": name, "version": version, "file_name": wheel.name,
                          "install_dir": "site", "sha256": sha256(target / wheel.name),
                          "package_type": "package", "imports": imports, "depends": depends,
                          "unvendored_tests": False}
    return sorted(entries)


def newest_wheels(folder: Path, stems: tuple[str, ...]) -> list[Path]:
    """The newest wheel in ``folder`` of each distribution ``stems`` names."""
    def version(wheel: Path) -> tuple:
        return tuple(int(p) if p.isdigit() else 0 for p in wheel.name.split("-")[1].split("."))
    found = []
    for stem in stems:
        wheels = sorted(folder.glob(f"{stem}-*.whl"), key=version)
        if not wheels:
            raise BuildError(f"no {stem} wheel in {folder}")
        found.append(wheels[-1])
    return found


#: Node.js script: load Pyodide's core and run PRECOMPILE_PY in it, with the host's files under
#: /host.  (Only this Pyodide's own Python can write bytecode its kernel reads.)
PRECOMPILE_MJS = """\
import { loadPyodide } from %(mjs)s;
const pyodide = await loadPyodide({ indexURL: %(index)s });
pyodide.FS.mkdirTree("/host");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: "/" }, "/host");
pyodide.runPython(%(code)s);
"""
#: Python run inside Pyodide: rewrite each wheel (or the standard library's zip) with unchecked-hash
#: bytecode, beside its sources or instead of them.
PRECOMPILE_PY = """\
import base64, hashlib, importlib.util, json, sys, zipfile
from importlib._bootstrap_external import _code_to_hash_pyc

def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"

for source, target, keep_sources, prefix in json.loads(%(pairs)r):
    with zipfile.ZipFile("/host" + source) as wheel:
        items = [(info, wheel.read(info)) for info in wheel.infolist()]
    compiled, record = {}, None
    for info, data in items:
        name = info.filename
        if name.endswith(".dist-info/RECORD"):
            record = name
        if not name.endswith(".py") or ".dist-info/" in name or ".data/" in name:
            continue
        try:
            code = compile(data, prefix + name, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            continue                      # templates, Python 2 files: left as they are
        pyc = bytes(_code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False))
        # with its source: __pycache__/x.<tag>.pyc; without (as Pyodide ships): x.pyc in place
        compiled[name] = (importlib.util.cache_from_source(name) if keep_sources else name + "c",
                          pyc)
    kept = [(info, data) for info, data in items if keep_sources or info.filename not in compiled]
    added = list(compiled.values())
    with zipfile.ZipFile("/host" + target, "w", zipfile.ZIP_DEFLATED) as out:
        for info, data in kept:
            if info.filename == record:
                lines = [line for line in data.decode().splitlines()
                         if keep_sources or line.split(",")[0] not in compiled]
                data = "".join(line + "\\n" for line in
                               lines + [record_line(n, d) for n, d in added]).encode()
            out.writestr(info, data)
        for name, data in added:
            out.writestr(name, data)
print(sys.implementation.cache_tag)
"""
#: Wheels that keep their sources beside the bytecode (a student's traceback shows the course's
#: lines); the others ship bytecode only, as Pyodide's own builds of them do (smaller downloads).
KEEP_SOURCES = ("course",)
#: Changes when PRECOMPILE_PY does (cached wheels of another version are not reused).
PRECOMPILE_VERSION = hashlib.sha256(PRECOMPILE_PY.encode()).hexdigest()[:8]


def precompile(core: Path, archives: list[Path], cache: Path, python: str) -> dict[Path, Path]:
    """Wheels (and the standard library's zip) with bytecode compiled by Pyodide's own Python
    (run in Node.js), from the cache when done before; ``{}`` without Node.js (the kernel then
    compiles sources as it imports them, as before).

    npm's Pyodide ships its standard library as sources, and PyPI's wheels are sources: the kernel
    compiled about 160 modules of the standard library and 300 of IPython and its dependencies at
    every start, half of the time ``import pyodide_kernel`` takes.  (Pyodide's own release ships
    bytecode, but only from its CDN.)  The course's wheel keeps its sources beside
    ``__pycache__/*.pyc`` (tracebacks show its lines); the others ship bytecode only, as Pyodide's
    builds of them do.  The bytecode is checked by nothing but its presence (PEP 552, unchecked
    hash): these files never change on the site.
    """
    node = shutil.which("node")
    if node is None:
        log("warning: no Node.js: the kernel will compile its packages' sources as it starts")
        return {}
    out_dir = cache / "precompiled"
    done, todo = {}, []
    keep = {_norm(k) for k in KEEP_SOURCES}
    for archive in archives:
        target = out_dir / f"{sha256(archive)[:20]}-{PRECOMPILE_VERSION}" / archive.name
        done[archive] = target
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            wheel = archive.suffix == ".whl"
            prefix = (f"/lib/python{python}/site-packages/" if wheel
                      else f"/lib/python{python.replace('.', '')}.zip/")
            todo.append((str(archive.resolve()), str(target.resolve()) + ".part",
                         wheel and _norm(archive.name.split("-")[0]) in keep, prefix))
    if todo:
        script = cache / "precompile.mjs"
        script.write_text(PRECOMPILE_MJS % {
            "mjs": json.dumps((core / "pyodide.mjs").resolve().as_uri()),
            "index": json.dumps(str(core.resolve()) + "/"),
            "code": json.dumps(PRECOMPILE_PY % {"pairs": json.dumps(todo)})})
        started = time.perf_counter()
        try:
            run([node, str(script)], timeout=900)
        except (BuildError, subprocess.TimeoutExpired) as exc:
            log(f"warning: precompiling failed, the kernel will compile sources instead: {exc}")
            return {}
        for _, part, _, _ in todo:
            Path(part).chmod(0o644)
            Path(part).rename(part.removesuffix(".part"))
        log(f"precompiled {len(todo)} archives in {time.perf_counter() - started:.0f} s")
    return done


def check_dist_matches(dist: Path, version: str, python: str) -> None:
    info = json.loads((dist / "pyodide-lock.json").read_text()).get("info", {})
    found = str(info.get("python", ""))
    if not found.startswith(python + ".") and found != python:
        raise BuildError(f"the Pyodide distribution in {dist} runs Python {found or '?'}, but "
                         f"jupyterlite-pyodide-kernel expects Pyodide {version} (Python {python})")
    mjs = (dist / "pyodide.mjs").read_text(errors="replace")
    if version not in mjs:
        log(f"warning: {dist} may not be Pyodide {version} (the kernel's version)")


# ---------------------------------------------------------------------------------------------
# the build
# ---------------------------------------------------------------------------------------------
def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def build(output: Path = DEFAULT_OUTPUT, cache: Path = DEFAULT_CACHE,
          pyodide_dist: Path | None = None) -> dict:
    start = time.perf_counter()
    try:
        import jupyterlite_core  # noqa: F401
    except ImportError as exc:
        raise BuildError("jupyterlite-core is not installed: pip install -e '.[lite]' "
                         "(or make lite)") from exc
    version, python = kernel_pyodide()
    cache.mkdir(parents=True, exist_ok=True)
    stage = cache / "lite-dir"
    shutil.rmtree(stage, ignore_errors=True)
    (stage / "pypi").mkdir(parents=True)

    numeric = stage_contents(stage / "files")
    log(f"notebooks staged; numpy/matplotlib loaded by a cell of their own in: "
        f"{', '.join(numeric) or 'none'}")
    course_wheel = build_course_wheel(stage / "pypi", cache)
    others = piplite_wheels(stage / "pypi", cache, python)
    log(f"piplite wheels: {course_wheel.name}, {', '.join(others)}")

    report: dict = {"pyodide": version, "python": python}
    pyodide_dir = stage / "static" / "pyodide"
    if pyodide_dist is not None:
        dist = local_pyodide(Path(pyodide_dist).resolve(), cache)
        check_dist_matches(dist, version, python)
        pyodide_dir.mkdir(parents=True)
        for item in dist.iterdir():      # the distribution as it is, but for its lock file
            if item.name != "pyodide-lock.json":
                os.symlink(item, pyodide_dir / item.name, target_is_directory=item.is_dir())
        shutil.copy2(dist / "pyodide-lock.json", pyodide_dir / "pyodide-lock.json")
        report["pyodide_source"] = f"local distribution {dist}"
    else:
        core = npm_pyodide(version, cache)
        report.update(stage_npm_pyodide(core, pyodide_dir, version, python, cache))
        report["pyodide_source"] = f"npm pyodide@{version} + PyPI wheels; other packages: CDN"
        if report["cdn_only_kernel_packages"]:
            log(f"warning: the kernel will load these from the CDN: "
                f"{report['cdn_only_kernel_packages']}")
    lock_path = pyodide_dir / "pyodide-lock.json"
    lock = json.loads(lock_path.read_text())
    report["preloaded"] = preload_wheels(
        lock, pyodide_dir, [course_wheel, *(stage / "pypi" / name for name in others),
                            *newest_wheels(kernel_extension_wheels(), KERNEL_WHEELS)])
    missing = [name for name in PRELOAD if _norm(name) not in
               {_norm(k) for k, e in lock["packages"].items() if "://" not in e["file_name"]}]
    if missing:
        raise BuildError(f"these packages would be preloaded but the site does not have them: "
                         f"{missing}")
    loaded_at_start = set(lock_closure(lock["packages"], PRELOAD))
    local = {name: e for name, e in lock["packages"].items()
             if "://" not in e["file_name"] and e["file_name"].endswith(".whl")
             and name in loaded_at_start}
    stdlib = pyodide_dir / "python_stdlib.zip"
    with zipfile.ZipFile(stdlib) as archive:
        stdlib_sources = any(n.endswith(".py") for n in archive.namelist())
    wheels = [pyodide_dir / e["file_name"] for e in local.values()]
    compiled = precompile(pyodide_dir, wheels + ([stdlib] if stdlib_sources else []), cache,
                          python)
    for archive, done in compiled.items():
        archive.unlink()                  # (a link into a Pyodide distribution: not changed)
        shutil.copy2(done, archive)
    for entry in local.values():
        entry["sha256"] = sha256(pyodide_dir / entry["file_name"])
    report["precompiled"] = sorted(p.name for p in compiled)
    lock_path.write_text(json.dumps(lock, indent=1) + "\n")
    log(f"preloaded with the kernel: {', '.join(PRELOAD)}")

    (stage / "jupyter-lite.json").write_text(json.dumps({
        "jupyter-lite-schema-version": 0,
        "jupyter-config-data": {
            "appName": "Game-tree search course",
            # nbgrader's front end (installed here for the instructor) needs its server
            "disabledExtensions": ["@jupyter/nbgrader"],
            # a notebook naming another kernel (one uploaded by a student) starts this one, the
            # only one, instead of asking ("Select Kernel"); the site's own notebooks name it
            "settingsOverrides": {
                "@jupyterlab/notebook-extension:tracker": {"autoStartDefaultKernel": True},
            },
            "litePluginSettings": {
                "@jupyterlite/pyodide-kernel-extension:kernel": {
                    "disablePyPIFallback": True,
                    "loadPyodideOptions": {"packages": list(PRELOAD)},
                },
            },
        },
    }, indent=2) + "\n")

    if output.exists():
        shutil.rmtree(output)
    log("jupyter lite build ...")
    run([sys.executable, "-m", "jupyterlite_core", "build", "--lite-dir", str(stage),
         "--output-dir", str(output), "--contents", str(stage / "files"),
         "--apps", "lab", "--apps", "notebook", "--no-sourcemaps", "--no-unused-shared-packages"],
        cwd=stage)
    settings = json.loads((output / "jupyter-lite.json").read_text())
    kernel = settings["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"]
    if not str(kernel.get("pyodideUrl", "")).startswith("./static/pyodide/"):
        raise BuildError(f"the site's kernel does not use the shipped Pyodide: {kernel}")
    report.update(output=str(output), seconds=round(time.perf_counter() - start, 1),
                  megabytes=round(folder_size(output) / 1e6, 1), pyodide_url=kernel["pyodideUrl"])
    (output / "course-lite-build.json").write_text(json.dumps(report, indent=1) + "\n")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course.lite.build", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT,
                        help="the site's folder (default: build/lite); replaced")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help="downloads and staging (default: build/lite-cache)")
    parser.add_argument("--pyodide-dist", type=Path, default=os.environ.get("PYODIDE_DIST") or None,
                        help="an official Pyodide release (folder or .tar.bz2) to ship whole, "
                             "numpy and matplotlib included (default: $PYODIDE_DIST)")
    args = parser.parse_args(argv)
    try:
        report = build(args.output.resolve(), args.cache.resolve(), args.pyodide_dist)
    except BuildError as exc:
        print(f"[lite] cannot build: {exc}", file=sys.stderr)
        return 1
    log(f"built {report['output']} in {report['seconds']} s, {report['megabytes']} MB "
        f"(Pyodide {report['pyodide']}: {report['pyodide_source']})")
    log(f"serve it with: python -m http.server -d {report['output']} 8000")
    return 0


if __name__ == "__main__":
    sys.exit(main())
