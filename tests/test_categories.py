"""A multiplier is 0, free or C by one rule (``svm._assembled``, at the rounding of the box),
for both solvers (issue 49, the span rule's categories; issue 50, item 3).

On binary features with a linear kernel and copies, the face step left multipliers of rounding
size (3.4e-17 at C = 1 on one processor, none on another), counted as free support vectors: the
span rule then took them as its free set, the two solvers reported other support sets, and the
span QP of a lone free vector was infeasible. The generated problems of tests/test_span_ties.py
(binary features with copies and conflicting labels, and integer grids; C in {1, 10}) are fitted
by both solvers: no multiplier lies within 1e-9 C of a bound without being on it, and where both
fits are exact they have the same support, free and bounded sets.
"""

import warnings

import numpy as np
from svmtrust.svm import InexactWarning, fit_svm

from tests.test_span_ties import STRUCTURES


def test_no_rounding_size_multipliers_and_one_set_of_categories():
    compared = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InexactWarning)
        for structure, (generator, count) in STRUCTURES.items():
            for seed in range(count):
                (X, y), C = generator(np.random.default_rng([seed, len(structure)]))
                X = X.astype(float)
                K = X @ X.T
                fits = [fit_svm(K, y, C, solver=solver) for solver in ("libsvm", "cvxpy")]
                for sol in fits:
                    inside = sol.alpha[(sol.alpha > 0) & (sol.alpha < C)]
                    assert not np.any(inside <= 1e-9 * C), (structure, seed, sol.solver)
                    assert not np.any(inside >= (1 - 1e-9) * C), (structure, seed, sol.solver)
                if all(sol.exact for sol in fits):
                    for name in ("support", "free", "bounded"):
                        a, b = (getattr(sol, name) for sol in fits)
                        assert np.array_equal(a, b), (structure, seed, name)
                    compared += 1
    print(f"\ncategories of both solvers compared on {compared} problems", end="")
    assert compared >= 40
