"""The copy audit's findings made readable: pairs ranked, small groups, common code set apart.

:mod:`.similarity` finds *pairs*: two students whose code is at least the threshold alike,
where "alike" is the larger of the two directions (the fraction of A's code found in B's, and of
B's in A's), so that a copy padded with code of the copier's own is still found.  That choice
has a cost the course met in a class of 29 (issue 28): a student who wrote only the textbook's
five lines of ``minimax_value`` is "91 % alike" with every classmate whose longer answer
contains the same five lines, and joining every pair into groups (connected components) put 28
of the 29 students into one.

Here the pairs stay pairs, and groups are cut strictly:

* every pair keeps **both directions** (:attr:`Pair.shares`), and which side is the
  **shorter** submission: its coverage (the larger direction) says "the short answer is inside
  the long one", the other says how much of the long one is shared;
* pairs are **ranked** by their *mutual* similarity (the smaller direction: how much of *both*
  is shared), then by the larger one;
* a **group** is a set of students in which *every* pair is mutually alike at the threshold
  (complete linkage, :func:`complete_linkage`): a copy ring whose members share most of their
  code with each other, never a chain of students linked through a short answer;
* **common code**: a student whose code lies inside :data:`COMMON_AFTER` or more classmates'
  longer answers, and only inside (mutually alike with none of them: the textbook's idiom,
  written by many), is named once with those classmates instead of one pair per classmate,
  and is in no group (two students who both wrote only the idiom are alike through it).

The threshold was re-checked on a class built for it (``tests/copy_audit_class.py``: 16 honest
students choosing among independently written implementations, 5 who wrote only a textbook
form of ``minimax_value``, 2 untouched releases, 6 copiers: a pair, a padded copy, a trio, a
copy of a copy, a partial copy); ``tests/benchmarks/bench_copy_audit.py`` prints the
distributions, and ``docs/instructor/copy-audit.md`` quotes them.

Only sees findings (student ids, references, numbers); renders nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .similarity import DEFAULT_THRESHOLD, Finding

__all__ = ["Pair", "CopyGroups", "COMMON_AFTER", "pairs_of", "complete_linkage", "group_copies"]

#: A student whose code is inside this many classmates' (and mutually alike with none) is
#: reported as common code, not as that many pairs.
COMMON_AFTER = 3


@dataclass(frozen=True)
class Pair:
    """Two students whose code is alike (a student and a reference: ``b`` is the reference)."""

    a: str
    """One student."""
    b: str
    """The other student, or the reference."""
    shares: tuple[float, float]
    """``(a's code found in b's, b's code found in a's)``, each in [0, 1]."""
    overlap: int = 0
    """Fingerprinted tokens the two have in common."""
    reference: bool = False
    """``b`` is a reference (the course's searches, the model answers), not a student."""

    @property
    def similarity(self) -> float:
        """The larger direction (the audit's similarity: the shorter submission's coverage)."""
        return self.shares[0] if self.reference else max(self.shares)

    @property
    def mutual(self) -> float:
        """The smaller direction: how much of *both* is shared (a reference: ``a``'s share)."""
        return self.shares[0] if self.reference else min(self.shares)

    @property
    def shorter(self) -> str:
        """The student whose code is the shorter of the two (the larger share is theirs)."""
        return self.a if self.reference or self.shares[0] >= self.shares[1] else self.b

    def share_of(self, student: str) -> float:
        """The fraction of ``student``'s code found in the other's."""
        return self.shares[0] if student == self.a else self.shares[1]

    def other(self, student: str) -> str:
        return self.b if student == self.a else self.a


def pairs_of(findings: Iterable[Finding]) -> list[Pair]:
    """The findings as pairs with both directions, ranked: mutual similarity first, then the
    larger direction, then the names.

    A finding without both directions (from an older audit) keeps its one number in both.

    >>> f = lambda a, b, s, shares: Finding(a, b, s, "student", "", shares, 100)
    >>> ranked = pairs_of([f("sam", "hal", 0.91, (0.91, 0.25)), f("ann", "bob", 0.95, (0.9, 0.95))])
    >>> [(p.a, p.b, p.mutual, p.shorter) for p in ranked]
    [('ann', 'bob', 0.9, 'bob'), ('sam', 'hal', 0.25, 'sam')]
    """
    pairs = []
    for f in findings:
        shares = tuple(f.shares) if f.shares is not None else (f.similarity, f.similarity)
        pairs.append(Pair(f.who, f.other, (float(shares[0]), float(shares[1])), int(f.overlap),
                          f.kind == "reference"))
    return sorted(pairs, key=lambda p: (p.reference, -p.mutual, -p.similarity, p.a, p.b))


def complete_linkage(pairs: Sequence[Pair], cut: float) -> list[set[str]]:
    """Groups of students in which every two are mutually alike at ``cut`` or more.

    Agglomerative clustering with complete linkage: start with each student alone, merge the
    two groups whose *least* alike members are the most alike, stop when that is below
    ``cut``.  Ties merge the groups whose sorted names come first, so the result does not
    depend on the order of ``pairs``.  Students in no pair at ``cut`` are left out.

    >>> p = lambda a, b, m: Pair(a, b, (m, m))
    >>> sorted(map(sorted, complete_linkage([p("a", "b", .9), p("b", "c", .9), p("a", "c", .2),
    ...                                       p("d", "e", .8)], 0.7)))
    [['a', 'b'], ['d', 'e']]
    """
    alike: dict[frozenset, float] = {}
    for pair in pairs:
        if not pair.reference:
            key = frozenset((pair.a, pair.b))
            alike[key] = max(alike.get(key, 0.0), pair.mutual)
    members = sorted({s for key, value in alike.items() if value >= cut for s in key})
    clusters: dict[int, frozenset] = {k: frozenset([s]) for k, s in enumerate(members)}
    # the link of two groups (their least alike members) is kept only where it reaches the cut:
    # merging takes the smaller of two links, so a link below the cut never rises to it again
    index = {s: k for k, s in enumerate(members)}
    links: dict[tuple[int, int], float] = {}
    for key, value in alike.items():
        if value >= cut and len(key) == 2:
            i, j = sorted(index[s] for s in key)
            links[(i, j)] = value
    if cut <= 0:                         # then even students in no pair (alike 0) are linked
        for i in range(len(members)):
            for j in range(i + 1, len(members)):
                links.setdefault((i, j), 0.0)
    neighbours: dict[int, set[int]] = {k: set() for k in clusters}
    for i, j in links:
        neighbours[i].add(j)
        neighbours[j].add(i)
    firsts = {k: s for k, s in enumerate(members)}
    fresh = len(members)
    while links:
        top = max(links.values())
        # ties: the groups whose sorted names come first (compared in full only among those
        # whose first names are first)
        tied = [pair for pair, value in links.items() if value == top]
        if len(tied) > 1:
            first = min(min(firsts[i], firsts[j]) for i, j in tied)
            tied = [(i, j) for i, j in tied if min(firsts[i], firsts[j]) == first]
        i, j = tied[0] if len(tied) == 1 else min(
            tied, key=lambda pair: sorted(clusters[pair[0]] | clusters[pair[1]]))
        merged, fresh = fresh, fresh + 1
        clusters[merged] = clusters.pop(i) | clusters.pop(j)
        firsts[merged] = min(firsts.pop(i), firsts.pop(j))
        neighbours[merged] = set()
        for k in (neighbours.pop(i) | neighbours.pop(j)) - {i, j}:
            a = links.pop((min(i, k), max(i, k)), None)
            b = links.pop((min(j, k), max(j, k)), None)
            neighbours[k] -= {i, j}
            if a is not None and b is not None:
                links[(k, merged)] = min(a, b)
                neighbours[k].add(merged)
                neighbours[merged].add(k)
        links.pop((min(i, j), max(i, j)), None)
    clusters_left = list(clusters.values())
    return [set(c) for c in clusters_left if len(c) > 1]


@dataclass(frozen=True)
class CopyGroups:
    """The findings of one assignment, made readable (:func:`group_copies`)."""

    groups: tuple[tuple[str, ...], ...]
    """Students every two of whom are mutually alike (largest group first)."""
    pairs: tuple[Pair, ...]
    """Every student pair found, ranked (:func:`pairs_of`)."""
    common: tuple[tuple[str, tuple[str, ...]], ...]
    """``(student, classmates)``: code found inside many classmates' longer answers; in no group."""
    references: dict[str, tuple[Pair, ...]] = field(default_factory=dict)
    """Per student, the references their code is found in."""

    def pairs_in(self, students: Iterable[str]) -> list[Pair]:
        """The ranked pairs between members of ``students``."""
        chosen = set(students)
        return [p for p in self.pairs if p.a in chosen and p.b in chosen]

    def other_pairs(self) -> list[Pair]:
        """The ranked pairs not inside a group, and not involving a common-code student."""
        grouped = [set(g) for g in self.groups]
        common = {s for s, _ in self.common}
        return [p for p in self.pairs if not any(p.a in g and p.b in g for g in grouped)
                and p.a not in common and p.b not in common]


def group_copies(findings: Sequence[Finding], *, threshold: float = DEFAULT_THRESHOLD,
                 common_after: int = COMMON_AFTER) -> CopyGroups:
    """Pairs ranked, groups by complete linkage on mutual similarity, common code set apart.

    Parameters
    ----------
    findings : sequence of Finding
        One assignment's findings (:func:`.similarity.find_copies`).
    threshold : float
        The mutual similarity every two members of a group reach.
    common_after : int
        A student whose code is found (at the audit's threshold) in this many classmates',
        mutually alike with none of them, is *common code*.

    Returns
    -------
    CopyGroups

    Examples
    --------
    The issue's class in small: sam wrote only the textbook's five lines, which are inside the
    longer answers of three classmates; ann and bob share most of their code.

    >>> f = lambda a, b, shares: Finding(a, b, max(shares), "student", "", shares, 100)
    >>> found = group_copies([f("ann", "bob", (0.95, 0.9)), f("sam", "ann", (0.91, 0.2)),
    ...                       f("sam", "bob", (0.91, 0.2)), f("sam", "cat", (0.9, 0.3))])
    >>> found.groups, found.common
    ((('ann', 'bob'),), (('sam', ('ann', 'bob', 'cat')),))
    """
    pairs = pairs_of(findings)
    students = [p for p in pairs if not p.reference]
    # common code first: a student whose code lies inside many classmates' longer answers (and
    # only inside: little of theirs is in it) wrote what many write; two such students alike
    # are alike through it, so they form no group
    inside: dict[str, list[str]] = {}
    for pair in students:
        short = pair.shorter
        if pair.share_of(short) >= threshold and pair.mutual < threshold:
            inside.setdefault(short, []).append(pair.other(short))
    common = tuple((s, tuple(sorted(others))) for s, others in sorted(inside.items())
                   if len(others) >= common_after)
    apart = {s for s, _ in common}
    groups = sorted((tuple(sorted(g)) for g in complete_linkage(
        [p for p in students if p.a not in apart and p.b not in apart], threshold)),
        key=lambda g: (-len(g), g))
    references: dict[str, tuple[Pair, ...]] = {}
    for pair in pairs:
        if pair.reference:
            references[pair.a] = references.get(pair.a, ()) + (pair,)
    return CopyGroups(tuple(groups), tuple(students), common, references)
