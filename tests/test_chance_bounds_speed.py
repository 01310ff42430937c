"""ChanceBounds with exact numbers: the same bounds as term by term, at a cost that does not grow.

A chance node of Cops & Robbers has 125 outcomes (the three cops' joint moves). Adding the
unexplored probability term by term after each child made such a node cost 125 times more
than it needs; lesson 5's stochastic Cops & Robbers cell spent most of its time there.
"""

import random
from fractions import Fraction

from course.search.chance import ChanceBounds


class CountingFraction(Fraction):
    """A probability that counts how often it is multiplied."""

    products = 0

    def __mul__(self, other):
        CountingFraction.products += 1
        return Fraction.__mul__(self, other)

    __rmul__ = __mul__


def _term_by_term(probabilities, children, vmin, vmax):
    """C3 from scratch after each child, as expectimax adds the terms."""
    out = []
    for k in range(1, len(children) + 1):
        L = sum((p * low for p, (low, _) in zip(probabilities, children[:k])), Fraction(0))
        U = sum((p * up for p, (_, up) in zip(probabilities, children[:k])), Fraction(0))
        L += sum((p * vmin for p in probabilities[k:]), Fraction(0))
        U += sum((p * vmax for p in probabilities[k:]), Fraction(0))
        out.append((L, U))
    return out


def test_exact_bounds_equal_the_term_by_term_sums():
    rng = random.Random(3)
    for _ in range(200):
        n = rng.randint(1, 12)
        weights = [rng.randint(1, 9) for _ in range(n)]
        probabilities = [Fraction(w, sum(weights)) for w in weights]
        vmin, vmax = rng.choice([(0, 12), (-1, 1), (Fraction(-3, 2), 7)])
        children = []
        for _ in range(n):
            a, b = sorted(Fraction(rng.randint(0, 60), rng.randint(1, 5)) for _ in range(2))
            children.append((max(vmin, min(vmax, a)), max(vmin, min(vmax, b))))
        bounds = ChanceBounds(probabilities, vmin, vmax)
        assert [bounds.add(low, up) for low, up in children] == _term_by_term(probabilities, children, vmin, vmax)


def test_exact_bounds_cost_the_same_after_every_child():
    n = 125
    probabilities = [CountingFraction(4, 5)] + [CountingFraction(1, 5 * (n - 1))] * (n - 1)
    bounds = ChanceBounds(probabilities, 0, 12)
    CountingFraction.products = 0
    for _ in range(n):
        bounds.add(Fraction(3), Fraction(5))
    # two products per child (its L and U); term by term it was about n * n
    assert CountingFraction.products <= 2 * n + 4, CountingFraction.products
