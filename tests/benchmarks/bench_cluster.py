"""The cluster path's cost per job against the local pool's (issue 32).

    python tests/benchmarks/bench_cluster.py [--students 20] [--workers 1]

Grades the same small class (tests/term_support.py's one-assignment course, every student the
model answer) twice on copies of one course: with the local pool (``--jobs WORKERS``) and with
``--cluster`` on a ``dask scheduler`` and WORKERS ``dask worker`` processes started here (one
thread each).  The CPU of every process (the scheduler and workers included, idle or not) is
read from a cgroup of the script's own where it can make one (see bench_autograde.py's
CpuMeter); the load average is printed, since the machine may be shared.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from bench_autograde import CpuMeter, load  # noqa: E402
from term_support import due_date, ok, tiny_class  # noqa: E402
from cluster_support import Cluster  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    meter = CpuMeter()
    base = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    try:
        when = due_date() - dt.timedelta(hours=2)
        template = tiny_class(base / "template", {f"s{i:03d}": ("right", "x times x.", when)
                                                  for i in range(args.students)})
        (template / ".grading-secret").write_text("bench\n", encoding="utf-8")
        rows = {}
        for how in ("local", "cluster"):
            root = base / how
            shutil.copytree(template, root)
            ok(root, "approve-config")
            cluster = Cluster(args.workers) if how == "cluster" else None
            try:
                time.sleep(1)
                before, wall, start_load = meter.total(), time.perf_counter(), load()
                extra = ["--cluster", cluster.address] if cluster else ["--jobs", str(args.workers)]
                out = ok(root, "autograde", *extra)
                cpu, wall = meter.total() - before, time.perf_counter() - wall
            finally:
                if cluster is not None:
                    cluster.close()
            graded = out.count(" s]")
            assert graded == args.students, out
            rows[how] = (cpu, wall, start_load, load())
            print(f"{how:8} {args.students} submissions, {args.workers} worker(s): CPU {cpu:.1f} s "
                  f"({cpu / args.students:.2f} s each), wall {wall:.1f} s ({wall / args.students:.2f} s "
                  f"each); load {start_load} -> {load()}  [{meter.kind}]", flush=True)
        (lc, lw, *_), (cc, cw, *_) = rows["local"], rows["cluster"]
        print(f"cluster - local per job: CPU {(cc - lc) / args.students:+.2f} s, "
              f"wall {(cw - lw) / args.students:+.2f} s")
    finally:
        meter.close()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
