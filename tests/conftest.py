import os
import sys
import tempfile

from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(__file__))

# "thorough" is the default: thousands of random trees per property in `make test`, drawn
# *deterministically* (derandomize): every run, on every machine, tests the same trees, so
# `make test` and CI cannot fail at random.  A failure prints the blob that reproduces it.
# `make test-explore` (profile "explore") draws new random trees each run, to look for bugs.
_COMMON = dict(deadline=None, print_blob=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("thorough", max_examples=1500, derandomize=True, **_COMMON)
settings.register_profile("quick", max_examples=100, derandomize=True, **_COMMON)
settings.register_profile("explore", max_examples=5000, derandomize=False, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "thorough"))

# conftest files are loaded as plugins; keep --doctest-modules from importing them a
# second time as test modules (two files named conftest.py would clash).
collect_ignore_glob = ["conftest.py", "*/conftest.py", "benchmarks/*"]

# Approvals of nbgrader_config.py (course/grading/job/approval.py) made by the tests go to a
# folder of this run, never to the developer's ~/.local/share; subprocesses inherit it.
os.environ.setdefault("COURSE_GRADING_APPROVALS", tempfile.mkdtemp(prefix="course-test-approvals-"))

# Source checks remembered by `release` (course/grading/term/release_check.py) go to a folder of this
# run too: every run checks the sources it releases at least once.
os.environ.setdefault("COURSE_GRADING_CACHE", tempfile.mkdtemp(prefix="course-test-cache-"))
