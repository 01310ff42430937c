"""The copy audit's groups on a class of 29 (issue 28): small groups, short answers set apart.

The class (tests/copy_audit_class.py) has what the trial's class had: honest answers written
independently (many following the textbook's idioms), students who wrote only the textbook's
five lines of ``minimax_value``, untouched releases, and copies.  Grouped as before (every pair
at the threshold, joined transitively) it makes one group of 18 -- the trial's 28 of 29 -- and
the test shows that first; grouped now, every group is small and every copy ring is one group.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from copy_audit_class import KINDS, SHORT, copy_groups, pair_kind, write_class
from course.grading.term.results.copy_groups import Pair, complete_linkage, group_copies, pairs_of
from course.grading.term.results.similarity import DEFAULT_THRESHOLD, Finding, audit_assignment

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def submitted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("class") / "submitted"
    write_class(folder, ROOT / "exercises")
    return folder


@pytest.fixture(scope="module")
def audit(submitted):
    return audit_assignment(ROOT, submitted, "a1_minimax")


def _transitive(findings) -> list[set[str]]:
    """The grouping before: connected components of the findings (union-find)."""
    groups: list[set[str]] = []
    for f in findings:
        if f.kind != "student":
            continue
        linked = [g for g in groups if f.who in g or f.other in g]
        merged = set().union({f.who, f.other}, *linked)
        groups = [g for g in groups if g not in linked] + [merged]
    return groups


def test_transitive_grouping_put_most_of_the_class_in_one_group(audit):
    biggest = max(_transitive(audit.findings), key=len)
    assert len(biggest) >= 15, sorted(biggest)
    assert {s for s in biggest if KINDS[s] == "short"} == {f"s{k:02d}" for k in range(len(SHORT))}


def test_groups_are_small_and_every_copy_ring_is_one_group(audit):
    found = group_copies(audit.findings)
    assert max(len(g) for g in found.groups) <= 3
    for truth in copy_groups():
        if len(truth) >= 2 and all(min(p.shares) >= DEFAULT_THRESHOLD for p in found.pairs
                                   if {p.a, p.b} <= truth):
            assert tuple(sorted(truth)) in found.groups, (truth, found.groups)
    # every student of a group is mutually alike with every other member (complete linkage)
    for group in found.groups:
        for pair in found.pairs_in(group):
            assert pair.mutual >= DEFAULT_THRESHOLD
        assert len(found.pairs_in(group)) == len(group) * (len(group) - 1) // 2
    # a partial copy stays visible as a ranked pair, with both directions
    partial = next(p for p in found.pairs if {p.a, p.b} == {"c05", "h14"})
    assert partial.similarity >= DEFAULT_THRESHOLD > partial.mutual
    assert partial in found.other_pairs() or any({"c05", "h14"} <= set(g) for g in found.groups)


def test_short_textbook_answers_are_common_code_not_groups(audit):
    found = group_copies(audit.findings)
    shorts = {s for s in KINDS if KINDS[s] == "short"}
    assert {s for s, _ in found.common} == shorts
    assert not any(shorts & set(g) for g in found.groups)
    for student, classmates in found.common:
        assert len(classmates) >= 3
        for pair in found.pairs:
            if student in (pair.a, pair.b) and pair.other(student) in classmates:
                assert pair.shorter == student and pair.share_of(student) >= DEFAULT_THRESHOLD


def test_the_threshold_separates_what_it_should_on_this_class(submitted):
    """The numbers docs/instructor/copy-audit.md quotes (bench_copy_audit.py prints them all)."""
    every = audit_assignment(ROOT, submitted, "a1_minimax", threshold=0.0)
    kinds: dict[str, list[Finding]] = {}
    for f in every.findings:
        if f.kind == "student":
            kinds.setdefault(pair_kind(f.who, f.other), []).append(f)
    full_copies = [f for f in kinds["copy"] if {f.who, f.other} != {"c05", "h14"}]
    assert min(min(f.shares) for f in full_copies) >= 0.8          # copies: alike both ways
    assert max(min(f.shares) for f in kinds["short"]) < 0.4        # a short answer in a long one: one way
    assert max(max(f.shares) for f in kinds["short"]) >= 0.9       # ... which is what grouped them before
    honest = sorted(min(f.shares) for f in kinds["honest"])
    assert sum(v >= DEFAULT_THRESHOLD for v in honest) == 3 and len(honest) == 223


def test_the_page_shows_groups_pairs_both_ways_and_common_code(audit, tmp_path):
    from course.grading.term.results.copy_report import summary_line, write_copy_report

    json_path, html_path = write_copy_report(tmp_path, [audit])
    page = html_path.read_text(encoding="utf-8")
    assert "Other pairs" in page and "Common code" in page
    assert "code in the other" in page and "tokens in common" in page
    assert re.search(r"s00: inside the answers of 9 classmates", page)
    document = json.loads(json_path.read_text())["assignments"]["a1_minimax"]
    assert all(len(g["students"]) <= 3 for g in document["groups"])
    assert {c["student"] for c in document["common"]} == {s for s in KINDS if KINDS[s] == "short"}
    line = summary_line([audit], "copies.html")
    assert line == "copy audit: 5 groups (12 students) and 3 more pairs to review: copies.html"


def test_complete_linkage_never_chains():
    pairs = [Pair("a", "b", (0.95, 0.95)), Pair("b", "c", (0.9, 0.9)), Pair("c", "d", (0.9, 0.9)),
             Pair("a", "c", (0.1, 0.1))]
    groups = complete_linkage(pairs, 0.7)
    assert all(len(g) == 2 for g in groups)
    assert {"a", "b"} in groups
    assert sorted(map(sorted, complete_linkage(list(reversed(pairs)), 0.7))) == sorted(map(sorted, groups))


def test_pairs_keep_both_directions_and_name_the_shorter():
    f = Finding("sam", "hal", 0.91, "student", "", (0.91, 0.25), 116)
    (pair,) = pairs_of([f])
    assert (pair.similarity, pair.mutual, pair.shorter, pair.overlap) == (0.91, 0.25, "sam", 116)
    old = Finding("ann", "bob", 0.8, "student", "")          # an audit before both directions
    assert pairs_of([old])[0].shares == (0.8, 0.8)


def _complete_linkage_by_definition(pairs, cut):
    """Complete linkage as its definition says, every link recomputed from the members (slow)."""
    alike = {}
    for pair in pairs:
        if not pair.reference:
            key = frozenset((pair.a, pair.b))
            alike[key] = max(alike.get(key, 0.0), pair.mutual)
    members = sorted({s for key, value in alike.items() if value >= cut for s in key})
    clusters = [frozenset([s]) for s in members]

    def link(x, y):
        return min(alike.get(frozenset((i, j)), 0.0) for i in x for j in y)

    while True:
        best = None
        for i in range(len(clusters)):
            for j in range(i + 1, len(clusters)):
                value = link(clusters[i], clusters[j])
                if value >= cut:
                    key = (-value, sorted(clusters[i] | clusters[j]))
                    if best is None or key < best[0]:
                        best = (key, i, j)
        if best is None:
            break
        _, i, j = best
        merged = clusters[i] | clusters[j]
        clusters = [c for k, c in enumerate(clusters) if k not in (i, j)] + [merged]
    return [set(c) for c in clusters if len(c) > 1]


@pytest.mark.parametrize("seed", range(40))
def test_complete_linkage_equals_its_definition(seed):
    """The grouping keeps only links at the cut and updates them on each merge; on random classes
    (few distinct values, so many ties; pairs given twice; references) it groups exactly as the
    definition, which recomputes every link from the members."""
    import random

    rng = random.Random(seed)
    students = [f"s{k:02d}" for k in range(rng.randint(2, 16))]
    values = [0.2, 0.7, 0.75, 0.8, 0.9, 1.0][: rng.randint(2, 6)]
    pairs = []
    for _ in range(rng.randint(1, 60)):
        a, b = rng.sample(students, 2)
        m = rng.choice(values)
        pairs.append(Pair(a, b, (m, m), reference=rng.random() < 0.05))
    for cut in (0.7, 0.8, 0.0):
        got = sorted(map(sorted, complete_linkage(pairs, cut)))
        assert got == sorted(map(sorted, _complete_linkage_by_definition(pairs, cut))), (seed, cut)


def test_complete_linkage_of_a_large_alike_class_is_quick():
    """300 students all alike (a class handing in the model answer): the definition took minutes."""
    import time

    students = [f"s{k:03d}" for k in range(300)]
    pairs = [Pair(a, b, (1.0, 1.0)) for i, a in enumerate(students) for b in students[i + 1:]]
    start = time.process_time()
    (group,) = complete_linkage(pairs, 0.7)
    assert group == set(students)
    assert time.process_time() - start < 20
