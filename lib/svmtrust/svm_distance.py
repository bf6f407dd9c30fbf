"""The SVM's signed distance to its hyperplane as strangeness, and a full transductive machine on it.

Proedrou et al. (2002, Sec. 6) close by proposing, as strangeness for an SVM, the distance of an
example from the separating hyperplane instead of its Lagrange multiplier (Saunders et al.
1999). For an SVM ``f(x) = sum_j alpha_j y_j k(x_j, x) + b`` with ``||w||^2 = alpha^T Q alpha``,
the signed distance of a labelled example to the hyperplane, on the side of its own label, is
``y f(x) / ||w||``; the strangeness is its negative,

    a(x, y) = -y f(x) / ||w||,                                                    (D)

so an example deep on its own side is typical and one on the wrong side is strange. With more
than two classes there is one SVM per class, that class against the rest, and an example of
class ``c`` gets ``a = -f_c(x) / ||w_c||`` from the SVM of its own class, as
:class:`svmtrust.transduction.TransductiveSVM` takes multipliers.

:class:`DistanceTCM` is the full transductive machine: for each test example and candidate
label the SVM(s) are trained on the training set plus the labelled test example, and the
strangeness (D) of every example of that bag gives the p-value of eq. (13) of Saunders et al.
(1999) (:func:`svmtrust.conformal.p_values`). The same score around one SVM trained once is the
split (inductive) conformal predictor of :mod:`svmtrust.split_conformal`.

**Margins from the KKT conditions.** A solver places free support vectors on the margin,
``y f(x) = 1``, only to rounding, and the test example is often one of them; ranking that
noise would decide p-values. :func:`kkt_margins` therefore sets the margin of every example on
the margin (``SVMSolution.on_margin``: the free support vectors and any copy of one, whatever
its multiplier) to exactly 1, clips those of non-support vectors to at least 1 and those of
bounded ones to at most 1, as the KKT conditions state. The SVM is the canonical optimum of
:func:`svmtrust.svm.fit_svm`, a function of the bag, so the p-values stay valid and do not
depend on the solver or on the order of the examples; identical examples get identical margins,
and ties at the margin count as equally strange.

**No free support vector, and w = 0.** Without a free support vector the KKT conditions leave
the bias an interval; the canonical solution takes its midpoint, for the training set plus the
test example whichever route computed it (:func:`svmtrust.svm._bias_and_margin`), and the margin
set is read at that bias. An SVM whose canonical ``w`` is 0 has no hyperplane: (D) is undefined
(``||w||^2`` is rounding of either sign), and every example that SVM scores gets strangeness 0.

**Ties.** The strangeness values of one bag are merged by the library's tie rule
(:func:`svmtrust.ties.merged`, the whole bag at once, every class together): values that are
equal in exact arithmetic, such as those of two one-vs-rest SVMs with the same ``||w||``, come
out of different SVMs a few units in the last place apart, and compared by their bits they
would rank by rounding (an integer feature, a linear kernel, 3 classes: -0.49999999999999989
against -0.5000000000000009, and a p-value of 0.585 or 0.829 by the order of the examples).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from . import conformal
from .incremental_svm import METHODS, Additions, IncrementalSVM
from .kernels import named_kernel
from .memory import check_full_transduction_fits
from .one_vs_rest import (
    fit_one_vs_rest,
    own_class_strangeness,
    problem_signs,
    problems,
    w_is_zero,
)
from .optimal_face import _gradient_scale_of
from .progress import steps
from .svm import (
    OUTSIDE_MARGIN_TOL,
    SOLVERS,
    SVMSolution,
    _bias_and_margin,
    check_solution,
    fit_svm,
)
from .ties import merged
from .validation import (
    check_array,
    check_augmented_gram,
    check_augmented_kernel,
    check_bool,
    check_C,
    check_choice,
    check_estimator_X,
    check_estimator_y,
    check_indices,
    check_kernel_gram,
    kernel_block,
)

__all__ = [
    "kkt_margins",
    "DistanceTCM",
]

# --------------------------------------------------------------------------- the score


def kkt_margins(solution: SVMSolution, K_rows) -> np.ndarray:
    """``y_i f(x_i)`` of an SVM's own training examples, set to the values the KKT conditions give.

    Examples on the margin (``solution.on_margin``, the free support vectors among them) get
    exactly 1; non-support vectors at least 1; bounded ones at most 1 (module notes).

    Parameters
    ----------
    solution : SVMSolution
    K_rows : ndarray of shape (n, n)
        The Gram matrix of the SVM's training examples.

    Returns
    -------
    ndarray of shape (n,)
    """
    K_rows = check_array(K_rows, "K_rows", ndim=2)
    if K_rows.shape[0] != K_rows.shape[1]:
        raise ValueError(f"K_rows: must be square (the SVM's training set), got {K_rows.shape}")
    solution = check_solution(solution, K_rows.shape[0], name="solution")
    return _kkt_clipped(solution, solution.y * solution.decision_function(K_rows))


def _kkt_clipped(solution: SVMSolution, margins) -> np.ndarray:
    """The margins ``y_i f(x_i)`` of :func:`kkt_margins`, clipped as the KKT conditions state."""
    alpha = solution.alpha
    margins = np.where(alpha == 0, np.maximum(margins, 1.0), margins)
    margins = np.where(alpha == solution.C, np.minimum(margins, 1.0), margins)
    margins[solution.free] = 1.0
    margins[solution.on_margin] = 1.0
    return margins


def _signed_distances(solution: SVMSolution, decision, diagonal) -> np.ndarray:
    """``y_i f(x_i) / ||w||`` from the decision values ``f(x_i)`` of the bag, the margins set as
    the KKT conditions give them (:func:`kkt_margins`); all 0 when ``w = 0``
    (:func:`svmtrust.one_vs_rest.w_is_zero`, on every example of the bag).

    ``||w||^2`` of an SVM whose canonical ``w`` is 0 is rounding of either sign (about 1e-13),
    and dividing by it would send the distances to +-1e6 or +-1e307 with the order of the
    examples; such an SVM has no hyperplane, and every example it scores gets distance 0 (the
    convention of the module notes).
    """
    if w_is_zero(solution, decision - solution.b, diagonal):
        return np.zeros(solution.alpha.size)
    margins = _kkt_clipped(solution, solution.y * decision)
    return solution.y * margins / np.sqrt(solution.w_norm_squared)


# --------------------------------------------------------------------------- the machine


class DistanceTCM(conformal.ConformalClassifierMixin, ClassifierMixin, BaseEstimator):
    """Full transductive confidence machine with the SVM's distance as strangeness.

    The proposal at the end of Proedrou et al. (2002): strangeness (D) of the module notes,
    every value computed in the SVM(s) of the training set plus the test example under each
    candidate label, and the p-value eq. (13) of Saunders et al. (1999).

    Parameters
    ----------
    kernel : {"rbf", "linear", "poly"} or callable, default "rbf"
        Named as scikit-learn's ``SVC`` names it, with ``gamma``, ``degree`` and ``coef0``
        (:func:`svmtrust.kernels.named_kernel`), or ``kernel(X, Z)``, the matrix of kernel
        values of the rows of ``X`` against the rows of ``Z``.
        E.g. ``functools.partial(rbf_kernel, gamma=0.5)``.
    C : float, default 1.0
        Box constraint (``numpy.inf``: hard margin).
    solver : {"libsvm", "cvxpy"}
    mondrian : bool, default False
        ``True``: label-conditional p-values, the test example labelled ``c`` ranked among the
        training examples of class ``c`` only (Vovk, Gammerman & Shafer 2005, Sec. 4.5).
    method : {"incremental", "retrain"}, default "incremental"
        How the SVM of the training set plus the test example is found
        (:data:`svmtrust.incremental_svm.METHODS`): added to the training SVM
        (:class:`svmtrust.incremental_svm.IncrementalSVM`, once per problem and sign of the
        test example) or solved from scratch. Both give the canonical optimum, so the same
        p-values (tested).
    gamma, degree, coef0 : default "scale", 3, 0.0
        Of a named kernel, as ``SVC`` reads them (:func:`svmtrust.kernels.named_kernel`); one
        the kernel does not read is refused unless it keeps its default.
    smoothing : bool, default False
        Smoothed p-values (:func:`svmtrust.conformal.p_values` with ``tau``; Vovk, Gammerman &
        Shafer 2005, Sec. 2.4): ties broken at random, one draw per test example shared by its
        labels, its own in every calling pattern (:class:`svmtrust.conformal.SmoothingMixin`),
        so that ``P{p <= eps} = eps`` exactly on exchangeable data.
    smoothing_seed : int or None, default None
        The draws' seed (:class:`svmtrust.conformal.SmoothingMixin`): ``None``, fresh entropy,
        clones drawing independently; an integer, reproducible draws. Checked when p-values are computed.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    checked_gram_ : svmtrust.validation.CheckedGram
        The training set's Gram matrix, checked positive semi-definite; each augmented Gram
        matrix is checked against it in :meth:`solve`.
    gram_ : ndarray of shape (l, l)
        That Gram matrix.
    base_ : list of SVMSolution
        The SVMs of the training set alone.
    incremental_ : list of IncrementalSVM
        ``method="incremental"`` only: the SVMs of ``base_``, ready to take one more example.

    Examples
    --------
    Two Gaussian classes of 15 points; the p-values are multiples of 1/31, or with
    ``mondrian=True`` of 1/16 (the test example ranked within its candidate class):

    >>> import numpy as np
    >>> from svmtrust.svm_distance import DistanceTCM
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (15, 2)), rng.normal(1, 1, (15, 2))])
    >>> y = np.repeat(["neg", "pos"], 15)
    >>> new = [[-2.0, -2.0], [2.0, 2.0], [0.0, 0.0]]
    >>> model = DistanceTCM(kernel="rbf", C=1.0).fit(X, y)
    >>> model.predict_p(new).round(3)  # columns: model.classes_
    array([[0.484, 0.032],
           [0.032, 0.677],
           [0.097, 0.065]])
    >>> model.predict_set(new, confidence=0.9)  # the 90% regions: p > 0.1
    array([[ True, False],
           [False,  True],
           [False, False]])
    >>> DistanceTCM(kernel="rbf", C=1.0, mondrian=True).fit(X, y).predict_p(new).round(3)
    array([[0.438, 0.062],
           [0.062, 0.75 ],
           [0.125, 0.062]])

    The third object's region is empty at 90%: neither label makes it conform, which its
    credibility (the largest p-value) reports.
    """

    def __init__(
        self,
        kernel="rbf",
        C=1.0,
        solver="libsvm",
        mondrian=False,
        method="incremental",
        gamma="scale",
        degree=3,
        coef0=0.0,
        smoothing=False,
        smoothing_seed=None,
    ):
        self.kernel = kernel
        self.C = C
        self.solver = solver
        self.mondrian = mondrian
        self.method = method
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.smoothing = smoothing
        self.smoothing_seed = smoothing_seed

    def fit(self, X, y):
        """Store the training set, its Gram matrix and its SVMs.

        Parameters
        ----------
        X : array_like of shape (l, d)
        y : array_like of shape (l,)
            Any labels, at least two classes.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Naming ``kernel``, if its Gram matrix on ``X`` is not symmetric and positive
            semi-definite (:func:`svmtrust.validation.check_kernel_gram`); naming ``X``, before
            any kernel is computed, if the fit's matrices cannot fit in the memory left
            (:func:`svmtrust.memory.check_full_transduction_fits`).
        """
        check_C(self.C)
        check_choice(self.solver, "solver", SOLVERS)
        check_bool(self.mondrian, "mondrian")
        check_choice(self.method, "method", METHODS)
        X = check_estimator_X(self, X, reset=True)
        self.kernel_ = named_kernel(self.kernel, X, self.gamma, self.degree, self.coef0)
        self.classes_, self.codes_ = check_estimator_y(y, n=X.shape[0])
        check_full_transduction_fits(X.shape[0])
        self.X_train_ = X.copy()  # the caller may overwrite their array after fit
        self.checked_gram_ = check_kernel_gram(self.kernel_, X)
        self.gram_ = self.checked_gram_.matrix
        self.base_ = fit_one_vs_rest(
            self.gram_, self.codes_, self.classes_.size, self.C, self.solver
        )
        if self.method == "incremental":
            self.incremental_ = IncrementalSVM.of_solutions(self.gram_, self.base_, self.solver)
        return self

    def _augmented(self, base, gram, signs) -> tuple[SVMSolution, int]:
        """The SVM of the augmented bag and the number of solves it took (0 or 1).

        The training SVM's multipliers are kept when the test example lies outside its margin
        by :data:`svmtrust.svm.OUTSIDE_MARGIN_TOL`: they are then the canonical optimum of the
        augmented bag with a zero multiplier for the test example; the bias and the margin set
        are those of the augmented bag (:func:`svmtrust.svm._bias_and_margin`: without a free
        support vector the test example bounds the bias too). Otherwise the bag is solved
        afresh.
        """
        n = base.alpha.size
        values = gram[:, :n] @ base.coef
        if signs[n] * (values[n] + base.b) < 1.0 + OUTSIDE_MARGIN_TOL:
            return fit_svm(gram, signs, self.C, self.solver, check_input=False), 1
        alpha = np.r_[base.alpha, 0.0]
        scale = _gradient_scale_of(np.diag(gram), 1.0, alpha)
        b, on_margin = _bias_and_margin(signs, alpha, base.C, values, scale, base.exact)
        return replace(base, alpha=alpha, y=signs, b=b, on_margin=on_margin), 0

    def bag_strangeness(self, gram, codes) -> np.ndarray:
        """Strangeness (D) of every example of one labelled bag (training examples first).

        Parameters
        ----------
        gram : ndarray of shape (l + 1, l + 1)
            Gram matrix of the training set plus the test example.
        codes : ndarray of int, shape (l + 1,)
            Class indices, the test example's candidate last.

        Returns
        -------
        strangeness : ndarray of shape (l + 1,)
            Merged by the tie rule (:func:`svmtrust.ties.merged`): the values that are ranked,
            so that ``strangeness[:-1] == strangeness[-1]`` finds the training examples tied
            with the test one.
        solves : int
            SVMs solved (the others were the training SVMs, still optimal).
        """
        if not hasattr(self, "base_"):
            raise ValueError("gram: DistanceTCM is not fitted yet; call fit first")
        n = self.codes_.size + 1
        gram = check_array(gram, "gram", ndim=2)
        if gram.shape != (n, n):
            raise ValueError(f"gram: expected shape {(n, n)}, got {gram.shape}")
        n_classes = self.classes_.size
        codes = check_indices(codes, "codes", n_classes, size=n)
        columns, solves = [], 0
        for c, base in zip(problems(n_classes), self.base_):
            sol, solved = self._augmented(base, gram, problem_signs(codes, c, n_classes))
            solves += solved
            columns.append(_signed_distances(sol, sol.decision_function(gram), np.diag(gram)))
        return merged(own_class_strangeness(np.column_stack(columns), codes, n_classes)), solves

    def _added_distances(self, additions: Additions, problem: int, sign: float):
        """Signed distances ``f(x_i) / ||w||`` of the bag's examples under the SVM of problem
        ``problem`` plus the test example labelled ``sign`` (``method="incremental"``), and
        whether that SVM was solved (every route but ``"outside"``)."""
        added = additions.get(problem, sign)
        distances = _signed_distances(added.solution, added.decision, additions.diagonals)
        return distances, added.route != "outside"

    def _added_strangeness(self, additions: Additions, code: int) -> tuple[np.ndarray, int]:
        """:meth:`bag_strangeness` of the bag whose test example is labelled ``code``, each SVM
        the training SVM plus that example (``method="incremental"``); ``solves`` counts the
        SVMs not on the ``"outside"`` route."""
        n_classes = self.classes_.size
        codes = np.r_[self.codes_, code]
        columns, solves = [], 0
        for problem, c in enumerate(problems(n_classes)):
            sign = problem_signs(codes[-1:], c, n_classes)[0]
            distances, solved = self._added_distances(additions, problem, sign)
            solves += solved
            columns.append(distances)
        return merged(own_class_strangeness(np.column_stack(columns), codes, n_classes)), solves

    def _bags(self, X, what: str):
        """For each test example (with a progress bar named ``what``): the
        :class:`~svmtrust.incremental_svm.Additions` of it to the training SVMs
        (``method="incremental"``), or the Gram matrix of the training set plus it
        (``"retrain"``), each checked positive semi-definite with the training set's."""
        if self.method == "incremental" and not hasattr(self, "incremental_"):
            raise ValueError("method: the model was fitted with method='retrain'; fit it again")
        cross = kernel_block(self.kernel_, self.X_train_, X)
        for i in steps(X.shape[0], what, "test object"):
            x, column = X[i : i + 1], cross[:, i : i + 1]
            new = kernel_block(self.kernel_, x, x)
            if self.method == "incremental":
                new = check_augmented_kernel(self.checked_gram_, column, new, same_kernel=True)
                yield Additions(self.incremental_, column[:, 0], new[0, 0])
            else:
                yield check_augmented_gram(self.checked_gram_, column, new, same_kernel=True)

    def augmented_distances(self, X):
        """The signed distances of every example of every augmented bag, one test example at
        a time: the scores of the full Venn-ABERS predictor (:mod:`svmtrust.venn_abers_svm`).

        Parameters
        ----------
        X : array_like of shape (m, d)

        Yields
        ------
        ndarray of shape (n_problems, 2, l + 1)
            Entry ``[j, s, i]``: ``f_j(x_i) / ||w_j||`` of example ``i`` of the training set
            plus the test example (last), under the SVM of problem ``j``
            (:func:`svmtrust.one_vs_rest.problems`) trained on that bag with the test example
            labelled -1 (``s = 0``) or +1 (``s = 1``); margins set by the KKT conditions, 0
            where ``w = 0`` (module notes).
        """
        X = check_estimator_X(self, X, reset=False)
        n_classes = self.classes_.size
        for bag in self._bags(X, "augmented_distances"):
            out = np.empty((len(self.base_), 2, self.codes_.size + 1))
            for j, (c, base) in enumerate(zip(problems(n_classes), self.base_)):
                for s, sign in enumerate((-1.0, 1.0)):
                    if self.method == "incremental":
                        out[j, s] = self._added_distances(bag, j, sign)[0]
                    else:
                        signs = np.r_[problem_signs(self.codes_, c, n_classes), sign]
                        sol = self._augmented(base, bag, signs)[0]
                        out[j, s] = _signed_distances(sol, sol.decision_function(bag), np.diag(bag))
            yield out

    def solve(self, X) -> tuple[np.ndarray, int]:
        """p-values of every candidate label (eq. (13) on strangeness (D)) and the SVMs solved.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        P : ndarray of shape (m, n_classes)
        solves : int
            Augmented SVMs solved, out of ``m * n_classes * n_problems`` (the rest were skipped).
            With ``method="incremental"``: those in which adding the test example moved its
            multiplier or others (every route but ``"outside"``, where ``y f(x) > 1`` leaves
            them in place; :class:`~svmtrust.incremental_svm.Addition`), each counted every
            time it is used.

        Raises
        ------
        ValueError
            Naming ``kernel``, if the Gram matrix of the training set plus a test example is
            not positive semi-definite (:func:`svmtrust.validation.check_augmented_gram`).
        """
        X = check_estimator_X(self, X, reset=False)
        n = self.codes_.size
        P = np.empty((X.shape[0], self.classes_.size))
        tau = self._smoothing_tau(X.shape[0])
        tau = [None] * X.shape[0] if tau is None else tau
        solves = 0
        for i, bag in enumerate(self._bags(X, "DistanceTCM")):
            for c in range(self.classes_.size):
                if self.method == "incremental":
                    a, solved = self._added_strangeness(bag, c)
                else:
                    a, solved = self.bag_strangeness(bag, np.r_[self.codes_, c])
                solves += solved
                old = a[:n][self.codes_ == c] if self.mondrian else a[:n]
                P[i, c] = conformal._p_value(old, a[n], tau[i])
        return P, solves

    def predict_p(self, X) -> np.ndarray:
        """p-values of every candidate label, shape (m, n_classes): :meth:`solve`'s ``P``."""
        return self.solve(X)[0]
