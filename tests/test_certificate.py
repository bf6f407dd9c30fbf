"""The certificate's face conditions and its register of thresholds (issue 50).

The face conditions of :func:`svmtrust.certificate._face_conditions` judge what the KKT
conditions cannot: whether the data fix the free multipliers to ``MULTIPLIER_TOL``, and whether,
along the exact directions of the face (copies), the answer is the face's point of smallest
norm. The register in the module's notes lists every threshold of the library.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest
import svmtrust.certificate
from svmtrust.certificate import certify
from svmtrust.kernels import linear_kernel
from svmtrust.svm import InexactWarning, fit_svm

from tests.certified_grid import gram, near_copies

PACKAGE = Path(__file__).resolve().parents[1] / "lib" / "svmtrust"

#: Module-level names that are thresholds (with every float literal below 1e-2): the register
#: must list each.
THRESHOLD = re.compile(
    r"^(?:[A-Z][A-Z0-9_]*_)?(TOL|RCOND|AMBIGUITY|BAND|LEVEL|GAP|RIDGE|SAFETY|ROUNDINGS|BOX"
    r"|BOX_FACTOR|MARGIN_C)$"
)


def _thresholds():
    """``{name: value or None}`` of every module-level threshold assignment in the package."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    value = node.value
                    literal = value.value if isinstance(value, ast.Constant) else None
                    tiny = isinstance(literal, float) and 0.0 < literal < 1e-2
                    if isinstance(target, ast.Name) and (THRESHOLD.match(target.id) or tiny):
                        found[target.id] = literal
    return found


def _register() -> str:
    doc = svmtrust.certificate.__doc__
    return doc[doc.index("Every threshold, and what it decides") :]


def test_every_threshold_is_in_the_register():
    """Each threshold of the library is named in the register, each name there exists, and a
    number the register quotes for a literal threshold is its value."""
    thresholds, register = _thresholds(), _register()
    assert len(thresholds) >= 25
    missing = sorted(name for name in thresholds if f"``{name}``" not in register)
    assert missing == []
    listed = set(re.findall(r"``([A-Z][A-Z0-9_]+)``", register))
    assert sorted(name for name in listed if name not in thresholds) == []
    for name, quoted in re.findall(r"``([A-Z][A-Z0-9_]+)`` \(([0-9.e+-]+)[ ,:)]", register):
        if thresholds[name] is not None:
            assert float(quoted) == thresholds[name], name


def test_near_copies_leave_free_multipliers_unfixed():
    """The grid suite's near-copies problem of seed 1 (n = 30, RBF gamma 2^-9, C = 2^15): on
    the main of 2 December 2026 two row orders gave two answers certified exact whose
    multipliers were 0.10 of the largest apart (twins at 0.43 C each, or one at C and its
    twins at 0.33 C). Their columns differ by up to 2e-11 while ``K_ii + K_jj - 2 K_ij`` is
    0, so no order's answer is exact now: the directions between twins are unfixed, and every
    answer comes back accurate."""
    X, y = near_copies(1, 30)
    K, C = gram(X, "rbf", 2.0**-9), 2.0**15
    for seed in range(4):
        order = np.random.default_rng(seed).permutation(y.size) if seed else np.arange(y.size)
        with pytest.warns(InexactWarning):
            sol = fit_svm(K[np.ix_(order, order)], y[order], C, solver="libsvm")
        assert not sol.exact and sol.certificate.unfixed > 0, seed
        assert sol.certificate.accurate, seed


def test_copies_split_unequally_are_not_canonical():
    """Two exact copies of a free support vector: the canonical answer splits their mass
    equally (``off_canonical`` 0, exact); the same optimum with the split moved, every KKT
    condition unchanged, is measured off the point of smallest norm and not exact."""
    X = np.array([[0.0, 0.0], [1.0, 0.2], [1.0, 0.2], [2.0, 1.0], [3.0, 0.0], [3.5, 1.5]])
    y = np.array([-1.0, -1.0, -1.0, 1.0, 1.0, 1.0])
    K = linear_kernel(X)
    sol = fit_svm(K, y, 10.0, solver="cvxpy")
    assert sol.exact and sol.alpha[1] == sol.alpha[2] > 0
    assert sol.certificate.off_canonical <= 1e-15
    moved = sol.alpha.copy()
    shift = 0.5 * sol.alpha[1]
    moved[1] += shift
    moved[2] -= shift
    cert = certify(K, y, 10.0, moved, sol.b)
    assert cert.kkt <= 1e-12 and cert.balance <= 1e-15
    assert cert.off_canonical > 0.1 and not cert.exact
