# The benchmarks are scripts run on demand (`make benchmark`), not tests: keep pytest
# (and its --doctest-modules collection) out of this folder.
collect_ignore_glob = ["*.py"]
