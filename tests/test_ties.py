"""The library's one tie rule (:mod:`svmtrust.ties`): the fast counts of every new score against
one set of old scores equal the counts on each merged bag, the merge is a symmetric function of
the bag, and rounding-size differences always merge while differences above the resolution
never do."""

import numpy as np
import pytest
from svmtrust import ties

#: Values of the bags: ties, infinities, zeros of either sign.
BASES = np.array([0.0, -0.0, 1.0, -1.0, 2.0, np.inf, -np.inf, 1e-3, 5.0])
#: Offsets: rounding-size ones, some near the resolution 1e-9 of a bag whose largest is 5.
OFFSETS = np.array([0.0, 1e-16, -1e-16, 4e-15, 1e-10, 1e-9, 2e-9, 6e-9, -3e-9])


def _bags(rng, count):
    """``count`` pairs (old, new) of structured scores, with a tolerance each."""
    for _ in range(count):
        n, m = int(rng.integers(1, 12)), int(rng.integers(1, 6))
        values = rng.choice(BASES, n + m) + rng.choice(OFFSETS, n + m) * rng.choice([1, 10])
        yield values[:n], values[n:], float(rng.choice([0.0, 1e-9, 1e-8]))


def test_bag_counts_equal_the_counts_on_each_merged_bag():
    """3000 bags, about 9000 new scores: ``bag_counts`` equals ranking the new score in
    ``merged(old + [new])``, the definition."""
    rng = np.random.default_rng(5)
    compared = 0
    for old, new, tol in _bags(rng, 3000):
        greater, tied = ties.bag_counts(old, new, tol)
        for j in range(new.size):
            bag = ties.merged(np.r_[old, new[j]], tol)
            assert greater[j] == np.sum(bag[:-1] > bag[-1])
            assert tied[j] == np.sum(bag[:-1] == bag[-1])
            compared += 1
    assert compared > 8000


def test_merge_is_a_symmetric_function_of_the_bag():
    """Permuting a bag permutes its merged values the same way (the validity argument of
    :mod:`svmtrust.ties`)."""
    rng = np.random.default_rng(6)
    for old, new, tol in _bags(rng, 500):
        bag = np.r_[old, new]
        order = rng.permutation(bag.size)
        assert np.array_equal(ties.merged(bag, tol)[order], ties.merged(bag[order], tol))


def test_rounding_merges_and_the_resolution_separates():
    """Copies a few units in the last place apart are one group; values 1e-8 of the bag's
    largest apart are not; a chain of rounding-size steps is one group."""
    one = 1.0
    near = np.nextafter(np.nextafter(one, 2.0), 2.0)
    assert np.unique(ties.merged(np.array([one, near, -0.5, 2.0]))).size == 3
    assert np.unique(ties.merged(np.array([1.0, 1.0 + 2e-8, 2.0]))).size == 3
    chain = 1.0 + 1e-15 * np.arange(50)
    assert np.unique(ties.merged(chain)).size == 1
    assert np.array_equal(ties.merged(np.array([1.0, 1.0]), 0.0), [1.0, 1.0])
    assert np.unique(ties.merged(np.array([one, near]), 0.0)).size == 2


def test_is_zero_at_the_scale_of_the_terms():
    """A margin of 7.4e-16 summed from terms of size 10 is 0; 1e-6 is not."""
    assert ties.is_zero([7.4e-16, -3e-15], 10.0).all()
    assert not ties.is_zero(1e-6, 10.0)


@pytest.mark.parametrize("bad", [-1e-9, np.nan, np.inf, "1e-9", True])
def test_check_tie_tol_names_the_argument(bad):
    with pytest.raises(ValueError, match="tie_tol"):
        ties.check_tie_tol(bad)


def test_smallest_ties_values_equal_in_exact_arithmetic():
    """Two objectives 7e-15 apart (equal in exact arithmetic) are both the smallest; ``+inf``
    entries are not candidates."""
    values = np.array([[1.0, 1.0 + 7e-15, 2.0], [np.inf, 3.0, 3.0 - 4e-16], [np.inf, np.inf, 0.5]])
    expected = [[True, True, False], [False, True, True], [False, False, True]]
    assert np.array_equal(ties.smallest(values), expected)
