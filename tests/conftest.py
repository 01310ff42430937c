import os
import sys

from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(__file__))

# "thorough" is the default: thousands of random trees per property in `make test`.
settings.register_profile(
    "thorough", max_examples=1500, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "quick", max_examples=100, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "thorough"))

# conftest files are loaded as plugins; keep --doctest-modules from importing them a
# second time as test modules (two files named conftest.py would clash).
collect_ignore_glob = ["conftest.py", "*/conftest.py", "benchmarks/*"]
