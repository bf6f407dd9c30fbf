"""The SVM fitted from the data, with kernel values only where its optimum needs them.

:func:`svmtrust.svm.fit_svm` takes a Gram matrix: ``n^2`` kernel values before the solver
starts, where libsvm computing its own kernel (``SVC(kernel="rbf")``) visits the columns of
the examples it moves and keeps a cache of them. For the RBF kernel of
:mod:`svmtrust.kernels`, which libsvm computes with the same formula, :func:`fit_from_data`
lets libsvm find the support vectors ``S`` from the data, then computes the kernel's columns
``K[:, S]`` (``n |S|`` values, by this library's kernel) and makes the answer exact on them
with the one bordered solve of :func:`svmtrust.svm.fit_svm`'s fast route: the free multipliers
solved from the KKT conditions, every KKT condition checked on all ``n`` examples, and the
tests that the optimum is the only one (``svm._unique_optimum``). When they pass, the result is
the optimum :func:`~svmtrust.svm.fit_svm` returns (the only one, to rounding); when they do not
(an optimum that is not unique: copies on the margin, conflicting copies; libsvm short of the
accuracy; a box so small or so large that ``fit_svm`` solves it another way), the whole Gram
matrix is computed and ``fit_svm`` solves the problem as always, so the canonical optimum is
returned either way.

Used by the split and cross-conformal machines (:mod:`svmtrust.split_conformal`), whose SVMs
are trained once and then only score new examples, against the support vectors' columns. A
private module: its functions trust their arguments, checked at the machines' door.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from . import svm
from .certificate import _certify_values
from .kernels import _base_and_options, rbf_kernel


def _libsvm_kernel(kernel) -> dict | None:
    """libsvm's settings for ``kernel`` when libsvm computes it itself with the same formula:
    the RBF kernel :func:`svmtrust.kernels.rbf_kernel` (as named by
    :func:`svmtrust.kernels.named_kernel`, or as the function with its default ``gamma``);
    ``None`` for any other kernel."""
    base, options = _base_and_options(kernel)
    if base is not rbf_kernel or getattr(kernel, "args", ()) or set(options) - {"gamma"}:
        return None
    return {"kernel": "rbf", "gamma": float(options.get("gamma", 1.0))}


def libsvm_computes(kernel) -> bool:
    """Whether :func:`fit_from_data` can let libsvm compute ``kernel`` (the RBF kernel of
    :mod:`svmtrust.kernels`)."""
    return _libsvm_kernel(kernel) is not None


def fit_from_data(X, labels, C, kernel, gram) -> list[svm.SVMSolution]:
    """The canonical optima of SVMs on the data ``X``, computing ``K[:, S]`` only when it can.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The training data, checked by the caller (finite float64).
    labels : list of ndarray of shape (n,)
        One problem per entry: labels in {-1, +1}, both present (the caller's; the problems of
        :mod:`svmtrust.one_vs_rest`).
    C : float
        The box, checked by the caller.
    kernel : callable
        ``kernel(A, B)``; the route through libsvm's own kernel is taken for the RBF kernel of
        :mod:`svmtrust.kernels` (:func:`libsvm_computes`) and a box ``1 / n < C <=``
        :data:`svmtrust.svm.LARGE_BOX` (at ``C <= 1 / n`` ``fit_svm`` takes its closed form for
        a small box, above ``LARGE_BOX`` its hard margin within the box).
    gram : callable
        ``gram()`` returns the Gram matrix ``kernel(X)``, checked: called only when the whole
        matrix is needed, and then by every problem that needs it (cache it).

    Returns
    -------
    list of SVMSolution
        For each problem the optimum ``fit_svm(gram(), y, C, "libsvm")`` returns: to rounding
        where it is unique (the multipliers of libsvm's run on its own kernel made exact on
        this library's kernel), with the same bits where it is not (``fit_svm`` itself).
    """
    settings = _libsvm_kernel(kernel)
    n = X.shape[0]
    if settings is None or not (1.0 / n < C <= svm.LARGE_BOX):
        return [_with_gram(gram, y, C) for y in labels]
    starts = []
    for y in labels:
        alpha, status, n_iter = svm._libsvm_box(X, y, C, None, 1.0, settings)
        starts.append(None if alpha is None else svm._start(y, C, alpha, status, "libsvm", n_iter))
    supports = [start.support for start in starts if start is not None]
    support = np.unique(np.concatenate(supports)) if supports else np.zeros(0, dtype=int)
    if support.size == 0:  # libsvm failed, or w = 0 with no support vector: nothing to settle
        return [_with_gram(gram, y, C) for y in labels]

    columns = _SupportColumns(X, kernel, support)
    return [
        _certified(start, columns) or _with_gram(gram, labels[k], C)
        for k, start in enumerate(starts)
    ]


#: Largest block of kernel values, in float64 entries, that :class:`_SupportColumns` keeps:
#: 2^25 (256 MB, about libsvm's own cache of 200 MB). Beyond it the support vectors' columns
#: are computed again, a block of rows at a time, at every product: split conformal's fit at
#: 20,000 rows then stays within twice ``SVC``'s memory, for about one more pass of kernel
#: values per product.
KEPT_ENTRIES = 2**25
#: Kernel values computed at a time beyond it (32 MB, with the kernel's own temporaries).
BLOCK_ENTRIES = 2**22


class _SupportColumns:
    """The kernel's columns ``K[:, S]`` of the support vectors ``S``, with ``k(x, x) = 1`` as on
    the Gram matrix's diagonal: kept while ``n |S|`` is at most :data:`KEPT_ENTRIES`, computed
    in blocks of rows at every use beyond. Products never copy columns out of the kept block."""

    def __init__(self, X, kernel, support):
        self.X, self.kernel, self.support = X, kernel, support
        n = X.shape[0]
        self.position = np.full(n, -1)
        self.position[support] = np.arange(support.size)
        self.kept = self.columns(support) if n * support.size <= KEPT_ENTRIES else None

    def _block(self, start: int, stop: int, index) -> np.ndarray:
        """``K[start:stop, index]``, with 1 where a row is its own column."""
        out = self.kernel(self.X[start:stop], self.X[index])
        own = np.flatnonzero((index >= start) & (index < stop))
        out[index[own] - start, own] = 1.0
        return out

    def columns(self, index) -> np.ndarray:
        """``K[:, index]``, computed (a face's columns, or the kept block)."""
        return self._block(0, self.X.shape[0], index)

    def face(self, face) -> np.ndarray:
        """``K[:, face]`` for a certificate's face: the support vectors' columns from the kept
        block (the bits the products saw), an example at 0 on the margin computed afresh."""
        if self.kept is None:
            return self.columns(face)
        out = np.empty((self.X.shape[0], face.size))
        known = self.position[face] >= 0
        out[:, known] = self.kept[:, self.position[face[known]]]
        if not np.all(known):
            out[:, ~known] = self.columns(face[~known])
        return out

    def block(self, rows) -> np.ndarray:
        """``K[rows][:, rows]`` of support vectors ``rows``."""
        if self.kept is not None:
            return self.kept[np.ix_(rows, self.position[rows])]
        out = self.kernel(self.X[rows], self.X[rows])
        np.fill_diagonal(out, 1.0)
        return out

    def product(self, rows, coef) -> np.ndarray:
        """``K[:, rows] @ coef`` of support vectors ``rows``, shape (n,)."""
        if self.kept is not None:
            weights = np.zeros(self.support.size)
            weights[self.position[rows]] = coef
            return self.kept @ weights
        n, step = self.X.shape[0], max(1, BLOCK_ENTRIES // max(rows.size, 1))
        return np.concatenate(
            [self._block(i, min(i + step, n), rows) @ coef for i in range(0, n, step)]
        )


def _certified(start, columns: _SupportColumns) -> svm.SVMSolution | None:
    """libsvm's answer ``start`` made exact on the kernel's ``columns`` of the support vectors,
    if it is the only optimum (``svm._unique_given``) and its certificate passes at the exact
    level (:func:`svmtrust.certificate._certify_values`, with the face's columns for the face
    conditions), as ``fit_svm`` judges its own answers; ``None`` when libsvm failed, found no
    support vector, or the tests fail."""
    if start is None or start.support.size == 0:
        return None
    sol = svm._unique_given(
        start,
        columns.product(start.support, start.coef[start.support]),
        np.ones(start.y.size),
        columns.block,
        columns.product,
    )
    if sol is None:
        return None
    values = columns.product(sol.support, sol.coef[sol.support])
    cert = _certify_values(
        sol.y, sol.C, sol.alpha, sol.b, values, np.ones(sol.y.size), columns=columns.face
    )
    return replace(sol, certificate=cert) if cert.exact else None


def _with_gram(gram, y, C) -> svm.SVMSolution:
    """``fit_svm`` on the whole Gram matrix: the route of every problem the columns cannot
    settle."""
    return svm.fit_svm(gram(), y, C, "libsvm", check_input=False)
