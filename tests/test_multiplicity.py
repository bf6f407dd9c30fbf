"""Holm's adjusted p-values against the step-down procedure run at every level that matters."""

import numpy as np
import pytest
from svmtrust.multiplicity import holm


def _rejected_by_step_down(p, alpha):
    """Holm's procedure as stated: walk the sorted p-values, stop at the first that fails."""
    rejected = np.zeros(p.size, dtype=bool)
    for step, i in enumerate(np.argsort(p, kind="stable")):
        if p[i] > alpha / (p.size - step):
            break
        rejected[i] = True
    return rejected


@pytest.mark.parametrize("seed", range(40))
def test_adjusted_p_values_reject_what_the_procedure_rejects(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 12))
    # Ties, zeros, ones and tiny p-values: the structures a sort or a cap can get wrong.
    p = rng.choice([0.0, 1e-4, 0.003, 0.01, 0.02, 0.05, 0.2, 1.0], size=m)
    p = np.where(rng.random(m) < 0.5, p, rng.random(m))
    adjusted = holm(p)
    # Just beside every level at which some decision can change (at the level itself the two
    # sides compare k * p with alpha and p with alpha / k, which rounding may order apart).
    levels = np.unique(np.concatenate([p * k for k in range(1, m + 1)] + [[0.0, 1.0]]))
    beside = np.concatenate([levels * (1 + 1e-9), levels * (1 - 1e-9), [0.0]])
    for alpha in beside[beside < 1]:  # a level of 1 or more rejects everything by the cap
        np.testing.assert_array_equal(adjusted <= alpha, _rejected_by_step_down(p, alpha))


def test_holm_is_between_the_raw_and_bonferronis():
    p = np.array([0.001, 0.011, 0.02, 0.3, 0.04])
    adjusted = holm(p)
    assert np.all(adjusted >= p) and np.all(adjusted <= np.minimum(1, p.size * p))
    np.testing.assert_allclose(adjusted, [0.005, 0.044, 0.06, 0.3, 0.08])


@pytest.mark.parametrize(
    "bad, message",
    [([], "empty"), ([[0.1]], "dimensions"), ([0.1, 1.5], r"\[0, 1\]"), ([-0.1], r"\[0, 1\]")],
)
def test_bad_p_values(bad, message):
    with pytest.raises(ValueError, match=f"p_values.*{message}"):
        holm(bad)
