"""Transduction with confidence and credibility (Saunders, Gammerman & Vovk 1999).

The training examples and the test example(s) are put into one SVM, the augmented dual of
eqs. (8)-(11), once for every candidate labelling of the test examples. The Lagrange multiplier
of an example measures how strange it is: an example that the others explain well is not a
support vector (multiplier 0), one that the margin has to bend around gets a large multiplier.

* One test example: its p-value under a candidate label is eq. (13), the fraction of the
  ``l + 1`` examples whose multiplier is at least its own, computed by
  :func:`svmtrust.conformal.p_values`; the prediction, its confidence and its credibility are
  eq. (14) (:func:`svmtrust.conformal.confidence_credibility`).
* Several test examples (Section 3.2): the p-value of a labelling is the probability that the
  ranks of ``k`` examples drawn at random without replacement from the ``l + k`` sum to at least
  the observed sum; :func:`svmtrust.rank_sum.rank_sum_p_value` computes it exactly by dynamic
  programming over rank sums.
* Vapnik's margin transduction, eq. (16): the labelling whose augmented SVM has the smallest
  optimal objective, ``1/2 ||w||^2 + C sum_i xi_i`` (:func:`margin_transduction`). With the
  paper's hard margin (``C = inf``) that is the largest margin, the smallest ``||w||^2``; with a
  finite ``C`` the slack term counts, and ranking by ``||w||^2`` alone would be a different rule.
* Label-conditional (Mondrian) p-values (``TransductiveSVM(mondrian=True)``): the test example
  labelled ``c`` is ranked in the SVM of class ``c`` against the rest, among the training
  examples of class ``c`` only; one SVM per candidate label.

Choices the paper leaves open, made here and explained in the chapter:

* **Soft margin.** The paper treats the separable case (``C = inf``). With ``C = inf`` a
  candidate label that makes the augmented set non-separable raises
  :class:`~svmtrust.svm.SolveError`; with a finite ``C`` the multiplier of such an example is
  ``C``, the largest value it can take, and ties at ``C`` count as equally strange.
* **Multi-class.** For more than two classes, the augmented set with the test example labelled
  ``c`` is given one SVM per class, one against the rest (that class +1, all others -1), and the
  strangeness of every example is its multiplier in the problem of its *own* class (for the test
  example, of class ``c``). This is a function of the bag, so eq. (13) stays valid, and with two
  classes it is the binary SVM (the dual is unchanged when every label changes sign). Ranking the
  test example's multiplier in the problem of ``c`` against the *other* examples' multipliers in
  that same problem would be simpler, but it is not valid: the recoding would then depend on the
  test example's label, and the chapter measures 35% errors at significance 20% on three digits.
* **Ties.** Multipliers that agree within the solvers' accuracy are made equal
  (:func:`svmtrust.svm.merge_multiplier_ties`) before they are ranked, and ranks with ties are those
  of :mod:`svmtrust.rank_sum`; its docstring says why.
* **Tied p-values.** Eq. (14) predicts the label with the largest p-value and says nothing when
  two labels share it. By default (``tie_break="objective"``) the label whose augmented SVM has
  the smallest optimal value wins, the quantity of Vapnik's rule (16): the p-values, the
  confidence and the credibility are unchanged, only the point prediction moves. The chapter
  measures that the first label in ``classes_`` (``tie_break="first"``) accounts for most of the
  gap between p-value transduction and the standard SVM on the optical digits.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from . import conformal
from .incremental_svm import METHODS, Additions, IncrementalSVM
from .kernels import KERNEL_NAMES, named_kernel
from .memory import check_full_transduction_fits
from .one_vs_rest import problem_signs, problems
from .progress import steps
from .rank_sum import rank_sum_p_value
from .svm import (
    OUTSIDE_MARGIN_TOL,
    SOLVERS,
    SolveError,
    _merged_multipliers,
    fit_svm,
)
from .ties import smallest
from .validation import (
    check_array,
    check_augmented_gram,
    check_augmented_kernel,
    check_bool,
    check_C,
    check_choice,
    check_estimator_X,
    check_estimator_y,
    check_integer,
    check_kernel_gram,
    kernel_block,
)

__all__ = [
    "Hypotheses",
    "JointHypotheses",
    "TransductiveSVM",
    "break_ties",
    "margin_transduction",
]

#: Rules for a tie of the largest p-value (:attr:`TransductiveSVM.tie_break`).
TIE_BREAKS = ("objective", "first")

#: Default largest number of test examples :meth:`TransductiveSVM.solve_joint` accepts: ``k``
#: examples cost ``2^k`` SVM solves (1024 at the default).
DEFAULT_MAX_JOINT = 10


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Hypotheses:
    """The augmented SVMs of single test examples, one per candidate label.

    Attributes
    ----------
    p_values : ndarray of shape (m, n_classes)
        Eq. (13) for each test example and candidate label, from the multipliers with ties
        merged (:func:`~svmtrust.svm.merge_multiplier_ties`).
    alpha_new : ndarray of shape (m, n_classes)
        The multiplier of the test example in each augmented SVM (``C`` when it violates the
        margin of a soft-margin SVM).
    w_norm_squared : ndarray of shape (m, n_classes)
        ``||w||^2`` of each augmented SVM (for more than two classes, summed over the
        one-against-the-rest SVMs).
    objective : ndarray of shape (m, n_classes)
        The optimal value of each augmented SVM, ``1/2 ||w||^2 + C sum_i xi_i`` (the primal
        optimum, equal to the dual optimum ``W(alpha)`` of eq. (8) by strong duality; ``1/2
        ||w||^2`` when ``C = inf``), summed over the SVMs for more than two classes: the quantity
        Vapnik's rule, eq. (16), minimises.
    """

    p_values: np.ndarray
    alpha_new: np.ndarray
    w_norm_squared: np.ndarray
    objective: np.ndarray

    def predicted_index(self, tie_break: str = "objective") -> np.ndarray:
        """Column of the label p-value transduction predicts: the largest p-value, eq. (14).

        Parameters
        ----------
        tie_break : {"objective", "first"}
            Among labels that share the largest p-value: the smallest optimal value
            (:attr:`objective`, the first of those on a further tie), or the first column.

        Returns
        -------
        ndarray of int, shape (m,)
        """
        return break_ties(self.p_values, self.objective, tie_break)

    @property
    def margin_index(self) -> np.ndarray:
        """Column of the label Vapnik's rule, eq. (16), predicts: the smallest optimal objective.

        The first column on a tie (objectives equal by the tie rule, :func:`svmtrust.ties.smallest`).
        With ``C = inf`` this is the smallest ``||w||^2``.
        """
        return np.argmax(smallest(self.objective), axis=1)


@dataclass(frozen=True)
class JointHypotheses:
    """The ``2^k`` augmented SVMs of ``k`` test examples labelled jointly (Section 3.2).

    Attributes
    ----------
    labellings : ndarray of shape (2^k, k)
        Every labelling of the test examples, in the model's class labels.
    p_values : ndarray of shape (2^k,)
        The rank-sum p-value of each labelling (:func:`~svmtrust.rank_sum.rank_sum_p_value`).
    w_norm_squared : ndarray of shape (2^k,)
        ``||w||^2`` of each augmented SVM.
    objective : ndarray of shape (2^k,)
        The optimal value ``1/2 ||w||^2 + C sum_i xi_i`` of each augmented SVM (eq. (16)).
    alphas : ndarray of shape (2^k, l + k)
        All multipliers of each augmented SVM, the test examples last, with ties merged
        (:func:`~svmtrust.svm.merge_multiplier_ties`): the values that were ranked.
    """

    labellings: np.ndarray
    p_values: np.ndarray
    w_norm_squared: np.ndarray
    objective: np.ndarray
    alphas: np.ndarray


# --------------------------------------------------------------------------- the estimator


class TransductiveSVM(conformal.ConformalClassifierMixin, ClassifierMixin, BaseEstimator):
    """Transductive SVM with p-values, confidence and credibility (Saunders et al. 1999).

    For a test example and a candidate label, the SVM dual (eqs. (8)-(11)) is solved on the
    training set plus the labelled test example; the test example's Lagrange multiplier,
    ranked among all multipliers, gives the p-value of eq. (13). With more than two classes,
    one SVM per class (one against the rest) is solved, and each example's multiplier is taken
    from the SVM of its own class.

    Parameters
    ----------
    kernel : {"rbf", "linear", "poly"} or callable, default "rbf"
        Named as scikit-learn's ``SVC`` names it, with ``gamma``, ``degree`` and ``coef0``
        (:func:`svmtrust.kernels.named_kernel`), or ``kernel(X, Z)``, the matrix of kernel
        values of the rows of ``X`` against the rows of ``Z``.
        E.g. ``functools.partial(polynomial_kernel, degree=3, scale=256)``, the paper's.
    C : float, default 1.0
        Box constraint, as ``SVC``'s. ``numpy.inf`` is the paper's hard margin, which exists
        only for data that are separable in the kernel's feature space. On other data
        :meth:`fit` raises a :class:`~svmtrust.svm.SolveError` whose message asks for a finite
        ``C``, and the estimator stays unfitted (``cross_val_score`` then reports NaN for that
        fold, with the message in its warning).
    solver : {"libsvm", "cvxpy"}
        Passed to :func:`svmtrust.svm.fit_svm`. The p-values do not depend on it: both solvers'
        answers are made the canonical (minimum-norm) optimum, a function of the bag
        (Theorem "One optimum per bag" of the SVM chapter; tested on data with copies).
    max_joint : int, default :data:`DEFAULT_MAX_JOINT`
        Largest number of test examples :meth:`solve_joint` labels jointly.
    reuse_outside_margin : bool, default True
        Take the training SVM's solution, without solving, for an augmented set whose test
        examples lie outside its margin (:data:`OUTSIDE_MARGIN_TOL`); the p-values are the same
        either way, only faster. ``method="retrain"`` only: the incremental method never moves
        anything for such an example, and refuses ``False``, which would change nothing.
    mondrian : bool, default False
        ``False``: :meth:`predict_p` returns eq. (13) with every example's strangeness taken
        from the SVM of its own class (``c^2`` SVMs per test example for ``c > 2`` classes).
        ``True``: label-conditional (Mondrian) p-values, :meth:`solve_mondrian` (``c`` SVMs).
    tie_break : {"objective", "first"}, default "objective"
        The label :meth:`predict` and :meth:`predict_confidence` choose among labels that share
        the largest p-value: the one whose augmented SVM(s) gain the least optimal value from
        the labelled test example (for ``mondrian=False`` the smallest
        :attr:`Hypotheses.objective`, Vapnik's quantity (16); for ``mondrian=True`` the
        smallest increase over the training SVM of that label's problem), or ``"first"``, the
        first label in ``classes_`` (eq. (14) with no tie rule). p-values, confidence,
        credibility and regions do not depend on it.
    method : {"incremental", "retrain"}, default "incremental"
        How the SVM of the training set plus one test example is found
        (:data:`svmtrust.incremental_svm.METHODS`): ``"incremental"`` adds the example to the
        training SVM (:class:`svmtrust.incremental_svm.IncrementalSVM`, once per problem and
        sign of the test example), ``"retrain"`` solves the augmented dual from scratch. Both
        give the canonical optimum, so the same p-values (tested); joint labellings of several
        test examples are always retrained.
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
        Joint p-values (:meth:`solve_joint`) are not smoothed.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    X_train_ : ndarray of shape (l, d)
    gram_ : ndarray of shape (l, l)
        The training Gram matrix, computed once and reused for every test example.
    base_ : list of SVMSolution
        The SVMs of the training set alone: the binary SVM (``classes_[1]`` = +1), or one per
        class, one against the rest.
    incremental_ : list of IncrementalSVM
        ``method="incremental"`` only: the SVMs of ``base_``, ready to take one more example.

    Examples
    --------
    Two Gaussian classes of 15 points, an RBF kernel and a soft margin. Each p-value ranks the
    test example's multiplier among the 31 of its augmented SVM, so it is a multiple of 1/31:

    >>> import numpy as np
    >>> from svmtrust.transduction import TransductiveSVM
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (15, 2)), rng.normal(1, 1, (15, 2))])
    >>> y = np.repeat(["neg", "pos"], 15)
    >>> model = TransductiveSVM(kernel="rbf", C=1.0).fit(X, y)
    >>> new = [[-2.0, -2.0], [2.0, 2.0], [0.0, 0.0]]
    >>> model.predict_p(new).round(3)  # columns: model.classes_
    array([[1.   , 0.29 ],
           [0.258, 1.   ],
           [0.226, 0.258]])
    >>> model.predict_set(new, 0.25)  # the labels with p > 0.25
    array([[ True,  True],
           [ True,  True],
           [False,  True]])
    >>> labels, confidence, credibility = model.predict_confidence(new)
    >>> labels.tolist(), confidence.round(3).tolist(), credibility.round(3).tolist()
    (['neg', 'pos', 'pos'], [0.71, 0.742, 0.774], [1.0, 1.0, 0.258])

    The paper's hard margin needs separable data; a copy of a point with the other label
    makes the set inseparable, and :meth:`fit` says what to pass:

    >>> TransductiveSVM(kernel="linear", C=np.inf).fit(np.vstack([X, X[:1]]), np.append(y, "pos"))
    Traceback (most recent call last):
    ...
    svmtrust.qp.SolveError: libsvm solve failed with status 'unbounded': the training set is not separable, so the hard margin (C = inf) has no solution; use a finite C
    """

    def __init__(
        self,
        kernel="rbf",
        C=1.0,
        solver="libsvm",
        max_joint=DEFAULT_MAX_JOINT,
        reuse_outside_margin=True,
        mondrian=False,
        tie_break="objective",
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
        self.max_joint = max_joint
        self.reuse_outside_margin = reuse_outside_margin
        self.mondrian = mondrian
        self.tie_break = tie_break
        self.method = method
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.smoothing = smoothing
        self.smoothing_seed = smoothing_seed

    # -- fitting -----------------------------------------------------------------------

    def _check_params(self):
        """Validate the constructor's parameters (scikit-learn checks them in ``fit``)."""
        if not (
            callable(self.kernel) or (isinstance(self.kernel, str) and self.kernel in KERNEL_NAMES)
        ):
            raise ValueError(
                f"kernel: must be a callable kernel(X, Z) or one of {KERNEL_NAMES}, "
                f"got {self.kernel!r}"
            )
        check_C(self.C)
        if self.solver not in SOLVERS:
            raise ValueError(f"solver: must be one of {SOLVERS}, got {self.solver!r}")
        check_integer(self.max_joint, "max_joint")
        check_choice(self.tie_break, "tie_break", TIE_BREAKS)
        for name in ("reuse_outside_margin", "mondrian"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"{name}: must be True or False, got {getattr(self, name)!r}")
        check_choice(self.method, "method", METHODS)
        if self.method == "incremental" and not self.reuse_outside_margin:
            raise ValueError(
                "reuse_outside_margin: read by method='retrain' only; the incremental method "
                "never moves anything for a test example outside the margin, so False would "
                "change nothing"
            )

    def _kernel_block(self, A, B) -> np.ndarray:
        """``kernel(A, B)``, checked (:func:`svmtrust.validation.kernel_block`)."""
        return kernel_block(self.kernel_, A, B, "kernel")

    def fit(self, X, y):
        """Store the training set and its Gram matrix, checked once to be PSD.

        Parameters
        ----------
        X : array_like of shape (l, d)
        y : array_like of shape (l,)
            Class labels of any type, at least two classes.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Naming ``X``, before any kernel is computed, if the fit's matrices cannot fit in the
            memory left (:func:`svmtrust.memory.check_full_transduction_fits`).
        """
        self._check_params()
        try:
            self._fit(X, y)
        except Exception:
            # A failed fit (a hard margin on data that are not separable, say) leaves the
            # estimator unfitted, so that predict raises NotFittedError, not AttributeError.
            for name in [a for a in vars(self) if a.endswith("_") and not a.startswith("_")]:
                delattr(self, name)
            raise
        return self

    def _fit(self, X, y) -> None:
        """The fitted attributes of :meth:`fit`."""
        X = check_estimator_X(self, X, reset=True)
        self.classes_, self.codes_ = check_estimator_y(y, n=X.shape[0])
        check_full_transduction_fits(X.shape[0])
        # Every augmented Gram matrix is checked against this one (_augmented_gram).
        self.kernel_ = named_kernel(self.kernel, X, self.gamma, self.degree, self.coef0)
        self.checked_gram_ = check_kernel_gram(self.kernel_, X)
        self.gram_ = self.checked_gram_.matrix
        self.X_train_ = X.copy()  # the caller may overwrite their array after fit
        n_classes = self.classes_.size
        signs = [problem_signs(self.codes_, c, n_classes) for c in problems(n_classes)]
        self.base_ = [
            self._solve(self.gram_, signs[k], "the training set")
            for k in steps(len(signs), "TransductiveSVM.fit", "SVM")
        ]
        if self.method == "incremental":
            self.incremental_ = IncrementalSVM.of_solutions(self.gram_, self.base_, self.solver)

    # -- the augmented problems ----------------------------------------------------------

    def _check_test(self, X) -> np.ndarray:
        """Validate test examples against the fitted training set (NotFittedError if unfitted)."""
        return check_estimator_X(self, X, reset=False)

    def _augmented_gram(self, cross, new) -> np.ndarray:
        """The Gram matrix of the training set plus new examples, checked to be PSD.

        Only the new rows are computed: ``cross`` (l, k) and ``new`` (k, k). The augmented
        matrix plus ``delta I`` is positive definite exactly when the Schur complement
        ``new + delta I - V^T V``, ``V = L^{-1} cross``, has a Cholesky factor (``L`` from
        :meth:`fit`): the test of :func:`svmtrust.validation.check_kernel_matrix` at the cost
        of a triangular solve, which is why :func:`fit_svm` may skip its own check.
        """
        return check_augmented_gram(self.checked_gram_, cross, new, same_kernel=True)

    def _one_more(self, cross, x):
        """The augmented Gram matrix of one test example ``x`` (``method="retrain"``) or its
        :class:`~svmtrust.incremental_svm.Additions` (``"incremental"``), as
        ``(gram, additions)`` with the other ``None``; checked PSD either way."""
        new = self._kernel_block(x, x)
        if self.method == "retrain":
            return self._augmented_gram(cross, new), None
        if not hasattr(self, "incremental_"):
            raise ValueError("method: the model was fitted with method='retrain'; fit it again")
        new = check_augmented_kernel(self.checked_gram_, cross, new, same_kernel=True)
        return None, Additions(self.incremental_, cross[:, 0], new[0, 0])

    def _solve_augmented(self, gram, y, problem: int, what: str, additions=None):
        """Multipliers, ``||w||^2`` and optimal value of one augmented SVM.

        The optimal value is the dual value ``W(alpha)``, equal to the primal optimum
        ``1/2 ||w||^2 + C sum_i xi_i`` (strong duality).

        ``base_[problem]`` solves the training part; when every test example lies outside its
        margin by :data:`OUTSIDE_MARGIN_TOL`, it is optimal for the augmented set with zero
        multipliers for the test examples (Exercise "Skipping a solve" of the chapter). With
        ``additions`` (one test example, ``method="incremental"``) the test example is added to
        that SVM instead (:class:`~svmtrust.incremental_svm.IncrementalSVM`).
        """
        base = self.base_[problem]
        n = base.alpha.size
        if additions is not None:  # y: the test example's sign alone (_strangeness)
            sol = self._named(what, additions.get, problem, y[-1]).solution
            return sol.alpha, sol.w_norm_squared, sol.objective
        if self.reuse_outside_margin:
            margins = y[n:] * base.decision_function(gram[n:, :n])
            if np.all(margins >= 1.0 + OUTSIDE_MARGIN_TOL):
                return (
                    np.r_[base.alpha, np.zeros(y.size - n)],
                    base.w_norm_squared,
                    base.objective,
                )
        sol = self._solve(gram, y, what)
        return sol.alpha, sol.w_norm_squared, sol.objective

    def _strangeness(self, gram, codes, what: str, additions=None):
        """Strangeness of every example of one augmented set, its ``||w||^2`` and optimal value.

        ``codes`` holds the class index of every example, the test examples' hypothesised ones
        last. Two classes: one binary SVM, ``classes_[1]`` = +1. More: one SVM per class ``c``,
        one against the rest (class ``c`` = +1), and each example's strangeness is its
        multiplier in the problem of its own class; ``||w||^2`` and the optimal value are sums
        over the problems. With two classes the two one-against-the-rest problems are this binary
        SVM up to sign. ``additions``: see :meth:`_solve_augmented`.
        """
        strangeness, w2, objective = np.empty(codes.size), 0.0, 0.0
        signed = codes if additions is None else codes[-1:]  # an addition needs one sign
        for problem, c in enumerate(problems(self.classes_.size)):
            alpha, w2_c, obj_c = self._solve_augmented(
                gram, problem_signs(signed, c, self.classes_.size), problem, what, additions
            )
            own = codes == c if self.classes_.size > 2 else slice(None)
            strangeness[own] = alpha[own]
            w2 += w2_c
            objective += obj_c
        return strangeness, w2, objective

    def _solve(self, gram, y, what: str):
        """Solve one augmented dual, eqs. (8)-(11); failures name the set (``what``)."""
        return self._named(what, fit_svm, gram, y, self.C, self.solver, check_input=False)

    def _named(self, what: str, func, *args, **kwargs):
        """``func(*args, **kwargs)``, a :class:`~svmtrust.svm.SolveError` naming the set."""
        try:
            return func(*args, **kwargs)
        except SolveError as err:
            if np.isinf(check_C(self.C)) and err.status == "unbounded":
                detail = (
                    f"{what} is not separable, so the hard margin (C = inf) has no "
                    "solution; use a finite C"
                )
            else:
                detail = f"{what}: {err}"
            raise SolveError(err.solver, err.status, detail) from err

    def solve_hypotheses(self, X) -> Hypotheses:
        """Solve the augmented SVM of each test example under each candidate label.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        Hypotheses

        Raises
        ------
        SolveError
            With ``C = inf``, if a candidate label makes the augmented set non-separable.
        """
        X = self._check_test(X)
        cross = self._kernel_block(self.X_train_, X)
        shape = (X.shape[0], self.classes_.size)
        p, alpha_new = np.empty(shape), np.empty(shape)
        w2, objective = np.empty(shape), np.empty(shape)
        n = self.X_train_.shape[0]
        tau = self._tau(X.shape[0])
        for i in steps(X.shape[0], "TransductiveSVM", "test object"):
            gram, additions = self._one_more(cross[:, i : i + 1], X[i : i + 1])
            for code, label in enumerate(self.classes_):
                what = f"the training set plus test example {i} labelled {label}"
                alpha, w2[i, code], objective[i, code] = self._strangeness(
                    gram, np.r_[self.codes_, code], what, additions
                )
                alpha_new[i, code] = alpha[n]
                merged = _merged_multipliers(alpha)
                p[i, code] = conformal._p_value(merged[:n], merged[n], tau[i])
        return Hypotheses(p_values=p, alpha_new=alpha_new, w_norm_squared=w2, objective=objective)

    def _tau(self, m: int) -> list:
        """Each test example's smoothing draw (``None`` for each without smoothing)."""
        tau = self._smoothing_tau(m)
        return [None] * m if tau is None else list(tau)

    def solve_mondrian(self, X) -> np.ndarray:
        """Label-conditional (Mondrian) p-values: one SVM per candidate label.

        For the candidate label ``c`` the augmented set (test example labelled ``c``) is given the
        SVM of class ``c`` against the rest (for two classes, the binary SVM, whose multipliers
        are the same), and the test example's multiplier is ranked among those of the training
        examples of class ``c`` only:

        ``p(c) = (#{i <= l : y_i = c, alpha_i >= alpha_new} + 1) / (l_c + 1)``,

        eq. (13) of Saunders et al. (1999) restricted to one class, as in the label-conditional
        conformal predictors of Vovk, Gammerman & Shafer (2005, Section 4.5). Given the bag, the
        multipliers of the class-``c`` examples in that SVM are a function of the bag, and a test
        example of true class ``c`` is exchangeable with the training examples of class ``c``, so
        ``P{p(y) <= eps | y = c} <= eps`` for every class.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        ndarray of shape (m, n_classes)
        """
        return self._mondrian(X)[0]

    def _mondrian(self, X):
        """Mondrian p-values and, for each label, the optimal value its SVM gains.

        Returns
        -------
        p : ndarray of shape (m, n_classes)
            :meth:`solve_mondrian`.
        gain : ndarray of shape (m, n_classes)
            The optimal value of the augmented SVM of each candidate label minus that of the
            same problem on the training set alone (the tie-break of :meth:`predict`).
        """
        X = self._check_test(X)
        cross = self._kernel_block(self.X_train_, X)
        p = np.empty((X.shape[0], self.classes_.size))
        gain = np.empty_like(p)
        n = self.X_train_.shape[0]
        binary = self.classes_.size == 2
        tau = self._tau(X.shape[0])
        for i in steps(X.shape[0], "TransductiveSVM (Mondrian)", "test object"):
            gram, additions = self._one_more(cross[:, i : i + 1], X[i : i + 1])
            for code, label in enumerate(self.classes_):
                codes = np.r_[self.codes_, code]
                problem = 0 if binary else code
                signs = problem_signs(codes, code, self.classes_.size)
                what = f"the training set plus test example {i} labelled {label}"
                base = self.base_[problem]
                alpha, _, objective = self._solve_augmented(gram, signs, problem, what, additions)
                gain[i, code] = objective - base.objective
                merged = _merged_multipliers(alpha)
                same = self.codes_ == code
                p[i, code] = conformal._p_value(merged[:n][same], merged[n], tau[i])
        return p, gain

    def joint_p_value(self, X, y) -> float:
        """The rank-sum p-value of one labelling ``y`` of ``k`` test examples (Section 3.2).

        Solves the one augmented set of that labelling (not all ``2^k``): what a test of
        validity needs, since only the true labelling's p-value is bounded by the theorem.

        Parameters
        ----------
        X : array_like of shape (k, d)
        y : array_like of shape (k,)
            Labels from ``classes_``.

        Returns
        -------
        float
            :func:`rank_sum_p_value` of the test examples' multipliers (own-class strangeness
            for more than two classes).
        """
        X = self._check_test(X)
        labels = np.asarray(y)
        if labels.shape != (X.shape[0],):
            raise ValueError(f"y: expected shape ({X.shape[0]},), got {labels.shape}")
        codes = np.searchsorted(self.classes_, labels)
        codes = np.clip(codes, 0, self.classes_.size - 1)
        if not np.array_equal(self.classes_[codes], labels):
            raise ValueError(f"y: labels must be among {self.classes_.tolist()}")
        gram = self._augmented_gram(self._kernel_block(self.X_train_, X), self._kernel_block(X, X))
        n, k = self.codes_.size, X.shape[0]
        alpha, _, _ = self._strangeness(
            gram,
            np.r_[self.codes_, codes],
            f"the training set plus the test examples labelled {labels.tolist()}",
        )
        return rank_sum_p_value(_merged_multipliers(alpha), np.arange(n, n + k))

    def solve_joint(self, X) -> JointHypotheses:
        """Solve the ``2^k`` augmented SVMs of ``k`` test examples labelled jointly.

        Section 3.2 of Saunders et al. (1999); the p-value of a labelling is
        :func:`rank_sum_p_value` of the test examples' multipliers. Two classes only.

        Parameters
        ----------
        X : array_like of shape (k, d)
            ``k <= max_joint`` test examples.

        Returns
        -------
        JointHypotheses
        """
        X = self._check_test(X)
        k = X.shape[0]
        if self.classes_.size != 2:
            raise ValueError(
                f"X: joint labelling needs a two-class model, this one has "
                f"{self.classes_.size} classes"
            )
        if k > self.max_joint:
            raise ValueError(
                f"X: {k} test examples need 2^{k} = {2**k} SVM solves, above "
                f"max_joint = {self.max_joint} (raise max_joint to allow it)"
            )
        gram = self._augmented_gram(self._kernel_block(self.X_train_, X), self._kernel_block(X, X))
        n = self.codes_.size
        labellings = np.array(list(itertools.product((0, 1), repeat=k)))
        solved = [
            self._strangeness(
                gram,
                np.r_[self.codes_, lab],
                f"the training set plus the test examples labelled {self.classes_[lab].tolist()}",
            )
            for lab in labellings
        ]
        alphas = np.array([_merged_multipliers(alpha) for alpha, _, _ in solved])
        return JointHypotheses(
            labellings=self.classes_[labellings],
            p_values=np.array([rank_sum_p_value(a, np.arange(n, n + k)) for a in alphas]),
            w_norm_squared=np.array([w2 for _, w2, _ in solved]),
            objective=np.array([obj for _, _, obj in solved]),
            alphas=alphas,
        )

    # -- the scikit-learn interface ------------------------------------------------------

    def inductive_decision_function(self, X) -> np.ndarray:
        """Decision values of the SVM of the training set alone (the standard, inductive SVM).

        The baseline of the paper's Table 2. Two classes only; positive values favour
        ``classes_[1]``.

        Returns
        -------
        ndarray of shape (m,)
        """
        X = self._check_test(X)
        if self.classes_.size != 2:
            raise ValueError(
                f"X: the inductive SVM here is binary, the model has {self.classes_.size} classes"
            )
        return self.base_[0].decision_function(self._kernel_block(X, self.X_train_))

    def predict_p(self, X) -> np.ndarray:
        """p-values of every candidate label, shape (m, n_classes).

        Eq. (13) (:meth:`solve_hypotheses`), or the label-conditional p-values of
        :meth:`solve_mondrian` when the model was built with ``mondrian=True``.
        """
        if self.mondrian:
            return self.solve_mondrian(X)
        return self.solve_hypotheses(X).p_values

    def _forced(self, X):
        """The p-values of ``X`` and the column of each forced prediction, eq. (14): the
        largest p-value, ties decided by :attr:`tie_break`."""
        if self.mondrian:
            p, gain = self._mondrian(X)
            return p, break_ties(p, gain, self.tie_break)
        hyp = self.solve_hypotheses(X)
        return hyp.p_values, hyp.predicted_index(self.tie_break)

    def predict_p_joint(self, X):
        """The rank-sum p-value of every labelling of ``k`` test examples (Section 3.2).

        Returns
        -------
        labellings : ndarray of shape (2^k, k)
        p_values : ndarray of shape (2^k,)
        """
        joint = self.solve_joint(X)
        return joint.labellings, joint.p_values


def break_ties(p_values, cost, tie_break: str = "objective") -> np.ndarray:
    """Column of the largest p-value in each row, ties broken by ``tie_break``.

    Parameters
    ----------
    p_values : array_like of shape (m, n_labels)
    cost : array_like of shape (m, n_labels)
        A secondary quantity, smaller for a better label (the optimal values of the augmented
        SVMs); read only where a row's largest p-value is shared.
    tie_break : {"objective", "first"}
        ``"objective"``: among the labels with the largest p-value, the one with the smallest
        ``cost`` (the first of those if that ties too, costs equal by the library's tie rule,
        :func:`svmtrust.ties.smallest`: two augmented SVMs whose optimal values are equal in
        exact arithmetic tie whatever their last bits). ``"first"``: the first of them.

    Returns
    -------
    ndarray of int, shape (m,)
    """
    tie_break = check_choice(tie_break, "tie_break", TIE_BREAKS)
    p_values = check_array(p_values, "p_values", ndim=2)
    cost = check_array(cost, "cost", ndim=2)
    if cost.shape != p_values.shape:
        raise ValueError(f"cost: expected shape {p_values.shape}, got {cost.shape}")
    top = p_values == p_values.max(axis=1, keepdims=True)
    if tie_break == "first":
        return np.argmax(top, axis=1)
    return np.argmax(smallest(np.where(top, cost, np.inf)), axis=1)


def margin_transduction(model: TransductiveSVM, X, joint: bool = False) -> np.ndarray:
    """Vapnik's margin transduction, eq. (16) of Saunders et al. (1999).

    Predicts the labelling whose augmented SVM has the smallest optimal value
    ``min_{w, b, xi} 1/2 ||w||^2 + C sum_i xi_i`` (for more than two classes, the smallest sum over
    the one-against-the-rest SVMs). With ``C = inf`` (the paper's case) every ``xi_i`` is 0 and
    this is the largest margin, the smallest ``||w||^2``. With a finite ``C`` a labelling can have
    the smaller ``||w||^2`` only because it pays for margin violations in the slack term;
    comparing ``||w||^2`` alone would prefer it, the rule (16) does not.

    Parameters
    ----------
    model : TransductiveSVM
        A fitted model (its kernel, C and solver are used).
    X : array_like of shape (m, d)
    joint : bool
        ``False``: each test example on its own. ``True``: one labelling of all ``m`` examples
        together (``2^m`` SVMs, ``m <= model.max_joint``, two classes only).

    Returns
    -------
    ndarray of shape (m,)
        Predicted labels (the first labelling on a tie).
    """
    if not isinstance(model, TransductiveSVM) or not hasattr(model, "gram_"):
        raise ValueError(f"model: expected a fitted TransductiveSVM, got {model!r}")
    if check_bool(joint, "joint"):
        hyp = model.solve_joint(X)
        return hyp.labellings[int(np.argmax(smallest(hyp.objective[None, :])))]
    return model.classes_[model.solve_hypotheses(X).margin_index]
