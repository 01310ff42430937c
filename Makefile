# One command per job.  Everything runs inside .venv, created on first use
# from the Python on PATH (>= 3.10).  Nothing else needs installing by hand.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
ASSIGNMENT ?=
SUBMISSIONS ?= submitted

.PHONY: help lab test test-fast test-explore install install-test release autograde feedback grades \
        collect-zip grading-summary benchmark experiments clean test-hub

help:
	@echo "Students:     make lab          start JupyterLab on the lessons"
	@echo "Developers:   make test         install the test extra and run the whole suite"
	@echo "              make test-fast    the suite without browser and notebook tests"
	@echo "              make test-explore property tests on new random trees each run"
	@echo "              make test-hub     a class on a real JupyterHub (as root; course/hub/)"
	@echo "Instructors:  make release      regenerate exercises/ from solutions/ (nbgrader)"
	@echo "              make collect-zip ZIP=submissions.zip   unpack a zip of submissions"
	@echo "              make autograde    autograde every submission in $(SUBMISSIONS)/"
	@echo "              make feedback     write feedback HTML for every graded submission"
	@echo "              make grades       export grades.csv"
	@echo "              make grading-summary   score histograms and most-failed tests"
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
lab: $(VENV)/.installed
	$(BIN)/jupyter lab --ServerApp.root_dir="$(CURDIR)" --ServerApp.default_url=/lab/tree/lessons \
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

collect-zip: $(VENV)/.installed
	$(PY) -m course.grading collect-zip "$(ZIP)" --submissions "$(SUBMISSIONS)"

autograde: $(VENV)/.installed
	$(PY) -m course.grading autograde --submissions "$(SUBMISSIONS)" $(if $(ASSIGNMENT),--assignment $(ASSIGNMENT)) \
	  $(if $(JOBS),--jobs $(JOBS)) $(AUTOGRADE_ARGS)

feedback: $(VENV)/.installed
	$(PY) -m course.grading feedback $(if $(ASSIGNMENT),--assignment $(ASSIGNMENT))

grades: $(VENV)/.installed
	$(PY) -m course.grading grades --output grades.csv

grading-summary: $(VENV)/.installed
	$(PY) -m course.grading summary

experiments: $(VENV)/.installed
	$(PY) -m course experiment all --small

$(VENV)/.installed-bench: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[test,bench]'
	@touch $(VENV)/.installed $(VENV)/.installed-test $@

benchmark: $(VENV)/.installed-bench
	$(PY) tests/benchmarks/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
