"""The copy audit's threshold and groups, re-checked on a class of 29 (run it, it is not a test).

Writes the class of ``tests/copy_audit_class.py`` (honest answers written independently, short
textbook-idiom answers, untouched releases, copies), compares every pair (threshold 0), and
prints per kind of pair the distribution of the two numbers the audit keeps: the larger
direction (the audit's similarity: the shorter submission's coverage) and the smaller one (the
mutual similarity groups are cut on); then the groups as the audit made them before (connected
components of every pair at the threshold) and now (:mod:`course.grading.term.results.copy_groups`).

Usage::

    .venv/bin/python tests/benchmarks/bench_copy_audit.py [--threshold 0.7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))


def connected_components(findings) -> list[tuple[str, ...]]:
    """The audit's grouping before issue 28: students linked by any finding, transitively."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            x = parent[x]
        return x

    for f in findings:
        find(f.who)
        if f.kind == "student":
            a, b = find(f.who), find(f.other)
            if a != b:
                parent[max(a, b)] = min(a, b)
    groups: dict[str, list[str]] = {}
    for s in parent:
        groups.setdefault(find(s), []).append(s)
    return sorted((tuple(sorted(g)) for g in groups.values() if len(g) > 1), key=lambda g: (-len(g), g))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threshold", type=float, default=0.7)
    args = parser.parse_args(argv)

    from copy_audit_class import KINDS, copy_groups, pair_kind, write_class
    from course.grading.term.results.copy_groups import group_copies
    from course.grading.term.results.similarity import audit_assignment

    with tempfile.TemporaryDirectory(prefix="bench-copy-audit-") as tmp:
        write_class(Path(tmp) / "submitted", ROOT / "exercises")
        start = time.process_time()
        every = audit_assignment(ROOT, Path(tmp) / "submitted", "a1_minimax", threshold=0.0)
        cpu = time.process_time() - start
        flagged = audit_assignment(ROOT, Path(tmp) / "submitted", "a1_minimax", threshold=args.threshold)
    print(f"{len(KINDS)} students, {len(every.codes)} compared, {len(every.findings)} pairs in "
          f"{cpu:.1f} s of CPU")
    by_kind: dict[str, list] = {}
    for f in every.findings:
        if f.kind == "student":
            by_kind.setdefault(pair_kind(f.who, f.other), []).append(f)
    print(f"{'pairs':<10}{'n':>5}  {'larger direction (min-median-max)':<36}{'mutual (min-median-max)':<28}"
          f"tokens in common")
    for kind, found in sorted(by_kind.items()):
        big = sorted(max(f.shares) for f in found)
        small = sorted(min(f.shares) for f in found)
        tokens = sorted(f.overlap for f in found)
        print(f"{kind:<10}{len(found):>5}  {big[0]:.2f} - {statistics.median(big):.2f} - {big[-1]:.2f}"
              f"{'':<17}{small[0]:.2f} - {statistics.median(small):.2f} - {small[-1]:.2f}"
              f"{'':<9}{tokens[0]}-{tokens[-1]}")
        above = [f for f in found if max(f.shares) >= args.threshold]
        print(f"{'':<15}at the threshold {args.threshold:.2f} one way: {len(above)}; both ways: "
              f"{sum(1 for f in found if min(f.shares) >= args.threshold)}")
    print("\ncopies (larger, mutual, tokens):")
    for f in sorted(by_kind.get("copy", []), key=lambda f: (f.who, f.other)):
        print(f"  {f.who} ~ {f.other}: {max(f.shares):.2f} {min(f.shares):.2f} {f.overlap}")
    print("\nhonest pairs, the most alike:")
    for f in sorted(by_kind.get("honest", []), key=lambda f: -max(f.shares))[:6]:
        print(f"  {f.who} ~ {f.other}: {max(f.shares):.2f} {min(f.shares):.2f} {f.overlap}")
    before = connected_components(flagged.findings)
    now = group_copies(flagged.findings, threshold=args.threshold)
    print(f"\nthe truth: {[sorted(g) for g in copy_groups()]}")
    print(f"before: {len(before)} groups, {sum(map(len, before))} students: "
          + "; ".join(f"{len(g)}: {' '.join(g)}" for g in before))
    print(f"now:    {len(now.groups)} groups, {sum(map(len, now.groups))} students: "
          + "; ".join(" ".join(g) for g in now.groups))
    print(f"        other pairs: " + ", ".join(f"{p.a}~{p.b} ({p.shares[0]:.2f}/{p.shares[1]:.2f})"
                                                for p in now.other_pairs()))
    print(f"        common code: " + "; ".join(f"{s} inside {len(c)}" for s, c in now.common))


if __name__ == "__main__":
    main()
