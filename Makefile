# One command per job.  Everything runs inside .venv, created on first use
# from the Python on PATH (>= 3.10).  Nothing else needs installing by hand.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
ASSIGNMENT ?=
SUBMISSIONS ?= submitted

# nbgrader runs commands installed beside it (alembic, for the gradebook): the venv's bin goes
# on PATH for every recipe, so `make lab` works from a shell that never activated .venv.
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: help lab test test-fast test-explore install install-test release student-bundle autograde feedback grades \
        collect-zip grading-summary example-class due-date remove-student benchmark experiments vendor-viz lite clean test-hub approve-config docs

help:
	@echo "Students:     make lab          start JupyterLab on the lessons"
	@echo "Developers:   make test         install the test extra and run the whole suite"
	@echo "              make docs         build the documentation site into build/docs"
	@echo "              make test-fast    the suite without browser and notebook tests"
	@echo "              make test-explore property tests on new random trees each run"
	@echo "              make test-hub     a class on a real JupyterHub (as root; course/hub/)"
	@echo "Instructors:  make install      install the course only (to grade: no JupyterLab start)"
	@echo "              make example-class   grade a throw-away class of four (build/example-class)"
	@echo "              make lab          JupyterLab with nbgrader's formgrader (Nbgrader > Formgrader);"
	@echo "                                LAB_DIR=build/example-class another course, LAB_ARGS=--port=8890"
	@echo "              make release      regenerate exercises/ from solutions/ (nbgrader)"
	@echo "              make student-bundle   the students' copy of the course (dist/*-student.zip)"
	@echo "              make collect-zip ZIP=submissions.zip ASSIGNMENT=a1_minimax [TIMEZONE=Europe/Berlin]"
	@echo "                                unpack an LMS zip (TIMEZONE: how to read its dates)"
	@echo "              make approve-config   show how nbgrader_config.py changed; approve it for grading"
	@echo "              make autograde    autograde every submission in $(SUBMISSIONS)/, each in a sandbox"
	@echo "                                (JOBS=n parallel workers; AUTOGRADE_ARGS=--unsafe-no-sandbox)"
	@echo "              make feedback     write feedback HTML for every graded submission"
	@echo "              make grades       export grades.csv (FORMAT=canvas|moodle: the LMS's import file)"
	@echo "              make due-date ASSIGNMENT=a1_minimax DUE='2026-12-04 17:00 UTC'   set a due date"
	@echo "              make remove-student STUDENT=id   list (YES=1: remove) a student who left"
	@echo "              make grading-summary   scores and every question: grading-summary/summary.html"
	@echo "Research:     make experiments  reproduce the papers' experiments (small sizes)"
	@echo "              make benchmark    print speed benchmarks"

$(PY):
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' || \
	  { echo "Python >= 3.10 is needed (found: $$($(PYTHON) --version 2>&1)); set PYTHON=..."; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e .
	@touch $@

$(VENV)/.installed-test: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[test]'
	@touch $(VENV)/.installed $@

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

# --allow-root only when run as root (containers); a student's laptop never needs it.
# `prepare` first: the nbgrader exchange (Assignment List) and a complete gradebook (Formgrader).
# course/jupyter_config first on JUPYTER_CONFIG_PATH: nbgrader's formgrader only behind the course's
# guard (course/formgrader_guard), also with an editable install.
# LAB_DIR: the course directory to serve (default: this one), e.g. LAB_DIR=build/example-class.
# LAB_ARGS: more options for jupyter lab, e.g. LAB_ARGS='--port=8890 --no-browser' (the address and
# its token are printed at start: "http://localhost:8888/lab?token=...").
LAB_DIR ?= .
lab: $(VENV)/.installed
	cd "$(LAB_DIR)" && "$(abspath $(PY))" -m course.grading prepare
	cd "$(LAB_DIR)" && JUPYTER_CONFIG_PATH="$(CURDIR)/course/jupyter_config$(if $(JUPYTER_CONFIG_PATH),:$(JUPYTER_CONFIG_PATH))" \
	"$(abspath $(BIN))/jupyter" lab --ServerApp.root_dir="$(abspath $(LAB_DIR))" \
	  $(if $(wildcard $(LAB_DIR)/lessons),--ServerApp.default_url=/lab/tree/lessons) \
	  $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root) $(LAB_ARGS)

test: $(VENV)/.installed-test
	$(PY) -m pytest

# Property tests with fresh random trees each run (make test draws the same trees every time).
test-explore: $(VENV)/.installed-test
	HYPOTHESIS_PROFILE=explore $(PY) -m pytest tests/test_search_properties.py tests/test_chance_floats.py tests/test_random_trees.py

# A class on a real JupyterHub with real Unix accounts (root; node/npm; bubblewrap): tests/test_hub.py.
test-hub: $(VENV)/.installed-test
	$(PY) -m pytest tests/test_hub.py -rs

test-fast: $(VENV)/.installed-test
	$(PY) -m pytest -m "not browser and not notebooks and not nbgrader"

release: $(VENV)/.installed
	$(PY) -m course.grading release

# The students' copy of the course (no solutions/, gradebook or secret); EXCHANGE= the exchange
# folder their nbgrader uses (default: nbgrader_config.py's), BUNDLE= the zip to write.
student-bundle: $(VENV)/.installed
	$(PY) -m course.grading student-bundle $(if $(BUNDLE),--output "$(BUNDLE)") \
	  $(if $(EXCHANGE),--exchange "$(EXCHANGE)")

collect-zip: $(VENV)/.installed
	@test -n "$(ZIP)" || { echo "usage: make collect-zip ZIP=submissions.zip [SUBMISSIONS=submitted]"; exit 2; }
	$(PY) -m course.grading collect-zip "$(ZIP)" --submissions "$(SUBMISSIONS)" $(if $(ASSIGNMENT),--assignment $(ASSIGNMENT)) $(if $(TIMEZONE),--timezone "$(TIMEZONE)")

# Grading refuses an nbgrader_config.py the instructor has not approved (it decides how students'
# code runs): this shows the difference with the approved one and approves it.
approve-config: $(VENV)/.installed
	$(PY) -m course.grading approve-config

autograde: $(VENV)/.installed
	$(PY) -m course.grading autograde --submissions "$(SUBMISSIONS)" $(if $(ASSIGNMENT),--assignment $(ASSIGNMENT)) \
	  $(if $(JOBS),--jobs $(JOBS)) $(AUTOGRADE_ARGS)

feedback: $(VENV)/.installed
	$(PY) -m course.grading feedback $(if $(ASSIGNMENT),--assignment $(ASSIGNMENT))

grades: $(VENV)/.installed
	$(PY) -m course.grading grades $(if $(FORMAT),--format $(FORMAT),--output grades.csv)

due-date: $(VENV)/.installed
	@test -n "$(ASSIGNMENT)" -a -n "$(DUE)" || { echo "usage: make due-date ASSIGNMENT=a1_minimax DUE='2026-12-04 17:00 UTC'"; exit 2; }
	$(PY) -m course.grading due-date "$(ASSIGNMENT)" "$(DUE)"

remove-student: $(VENV)/.installed
	@test -n "$(STUDENT)" || { echo "usage: make remove-student STUDENT=id [YES=1]"; exit 2; }
	$(PY) -m course.grading remove-student "$(STUDENT)" $(if $(YES),--yes)

# A throw-away class of four students (build/example-class), graded end to end: try the term's
# commands on it before the real class (docs/instructor/adopt.md).
EXAMPLE_CLASS ?= build/example-class
example-class: $(VENV)/.installed
	rm -rf "$(EXAMPLE_CLASS)"
	$(PY) -m course.grading example-class "$(EXAMPLE_CLASS)"
	$(PY) -m course.grading --root "$(EXAMPLE_CLASS)" autograde
	$(PY) -m course.grading --root "$(EXAMPLE_CLASS)" feedback
	$(PY) -m course.grading --root "$(EXAMPLE_CLASS)" grades --output "$(EXAMPLE_CLASS)/grades.csv"
	@echo "open $(EXAMPLE_CLASS)/grades.csv, $(EXAMPLE_CLASS)/feedback/ and $(EXAMPLE_CLASS)/autograded/.course-grading/copies.html"

grading-summary: $(VENV)/.installed
	$(PY) -m course.grading summary

experiments: $(VENV)/.installed
	$(PY) -m course experiment all --small

$(VENV)/.installed-bench: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[test,bench]'
	@touch $(VENV)/.installed $(VENV)/.installed-test $@

benchmark: $(VENV)/.installed-bench
	$(PY) tests/benchmarks/run_all.py

# The JupyterLite edition (a static site, nothing to install): needs npm for Pyodide's core, or
# PYODIDE_DIST=path/to/an/unpacked/official/pyodide/release (then numpy and matplotlib are shipped
# too and the site needs no network at all).  See README, "The course in a browser (JupyterLite)".
PYODIDE_DIST ?=
LITE_OUT ?= build/lite
$(VENV)/.installed-lite: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[lite]'
	@touch $(VENV)/.installed $@

# The documentation site, built from docs/ into build/docs (open build/docs/index.html); offline,
# warnings are errors.  The lessons are executed (cached in build/docs-cache), MathJax is served by
# the site (npm once: `npm pack mathjax`, then cached), and the browser edition is built into
# build/docs/lite/ when `make lite` could build it (COURSE_DOCS_LITE=off leaves it out).
DOCS_OUT ?= build/docs
$(VENV)/.installed-docs: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[docs]'
	@touch $(VENV)/.installed $@

docs: $(VENV)/.installed-docs
	$(PY) -m sphinx -W --keep-going -q -b html docs "$(DOCS_OUT)"
	@echo "the site: $(DOCS_OUT)/index.html"

lite: $(VENV)/.installed-lite
	$(PY) -m course.lite.build --output "$(LITE_OUT)" $(if $(PYODIDE_DIST),--pyodide-dist "$(PYODIDE_DIST)")

# Re-vendor Viz.js (Graphviz in WebAssembly) for the explorers: needs npm; see its NOTICE.md.
VIZ_VERSION ?= 3.31.0
vendor-viz:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	  (cd "$$tmp" && npm pack --silent "@viz-js/viz@$(VIZ_VERSION)" >/dev/null && tar xzf viz-js-viz-*.tgz) && \
	  cp "$$tmp/package/dist/viz.js" course/widgets/vendor/viz.js && \
	  head -c 200 course/widgets/vendor/viz.js | sed -n 2p && \
	  sha256sum course/widgets/vendor/viz.js && \
	  echo "now update the version and sha256 in course/widgets/vendor/NOTICE.md"

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
