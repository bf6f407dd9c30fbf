"""Split (inductive) conformal prediction around an SVM, and Hardoon et al.'s fixed-model p-values.

Today's practice (Vovk, Gammerman & Shafer 2005, Sec. 4.1; crepes, MAPIE) trains the model once,
on a *proper training set*, and ranks the strangeness of a test example among the strangeness
values of a separate *calibration set*:

    p(x, y) = (#{i in cal : a_i >= a(x, y)} + 1) / (q + 1),                          (S)

with ``q`` calibration examples and the strangeness (D) of :mod:`svmtrust.svm_distance`, the
negative signed distance to the SVM's hyperplane on the side of the label. Given the proper
training set, the calibration examples and the test example are exchangeable, so (S) is valid:
``P{p(x, y) <= eps} <= eps``. The label-conditional (Mondrian) version ranks ``a(x, c)`` among
the calibration examples of class ``c`` only. crepes computes the same p-values
(``crepes.base.p_values_batch(cal, test, smoothing=False)``, with ``bins`` for Mondrian), bit
for bit where the scores of a bag are distinct at the library's tie rule (:mod:`svmtrust.ties`);
the tests check that they agree. Where they are not, scores equal in exact arithmetic (copies of
a free support vector all score ``-1/||w||``, copies of a calibration example score alike) are
merged here before they are counted, and crepes counts their bits.

Hardoon, Hussain & Shawe-Taylor (2009, Sec. 3) do the same with one fixed model and a validation
set, but leave the test example out of its own bag, ``p = #{i : a_i >= a(x, y)} / q``, and keep
the labels with ``p >= eps`` (their Definition 3.1): ``convention="hardoon"``. Under exact
exchangeability without ties its error rate is ``ceil(q eps) / (q + 1)``, which can exceed
``eps`` (``q = 33``, ``eps = 0.05``: ``2 / 34 = 0.059``).

Cross-conformal prediction (Vovk 2015, eq. (2)) splits the training set into K folds; the SVM(s)
trained on all folds but fold ``k`` score fold ``k`` and the test example, and the counts of the
K folds are added:

    p(x, y) = (sum_k #{i in fold k : a_i >= a^k(x, y)} + 1) / (n + 1).                 (CC)

Every example calibrates, and each model trains on ``(K - 1) / K`` of the data; but the scores
of different folds come from different models, so (CC) is *not* guaranteed valid: Vovk (2015,
Appendix) shows that it is not provably valid and finds it valid in experiments. (CC) is nearly
the mean of the folds' split conformal p-values, and a mean of valid p-values is guaranteed
valid only once doubled (Rüschendorf's bound), so the error probability can reach about
``2 eps``; Gasparin & Ramdas (2025) prove ``2 eps + 2 (1 - eps) (K - 1) / (n + K)``.

Every machine here takes ``smoothing=True`` for smoothed p-values
(:func:`svmtrust.conformal.p_values` with ``tau``; Vovk, Gammerman & Shafer 2005, Sec. 2.4),
one draw per test example from a generator the machine owns and advances
(:class:`svmtrust.conformal.SmoothingMixin`), so that every test example gets its own draw:
in any calling pattern with the default ``smoothing_seed=None`` (fresh OS entropy, not
reproducible); with an integer seed, reproducibly, except that a clone or a new machine per
test example with the same seed repeats the same draw.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from . import conformal
from ._kernel_columns import BLOCK_ENTRIES, fit_from_data, libsvm_computes
from .conformal import ClassLeftOut, calibration_count
from .kernels import named_kernel, rows_alone
from .memory import check_gram_route_fits
from .one_vs_rest import (
    fit_one_vs_rest,
    own_class_strangeness,
    problem_signs,
    problems,
    scaled_decisions,
    w_is_zero,
)
from .progress import steps
from .svm import SOLVERS
from .validation import (
    check_bool,
    check_C,
    check_choice,
    check_estimator_X,
    check_estimator_y,
    check_integer,
    check_kernel_gram,
    check_seed,
    kernel_block,
)

__all__ = [
    "ClassLeftOut",
    "calibration_count",
    "SplitConformalSVM",
    "CrossConformalSVM",
]

#: The two p-value conventions: eq. (S) with the region ``p > eps``, or Hardoon et al.'s.
CONVENTIONS = ("conformal", "hardoon")


@dataclass(frozen=True)
class _ProperSVM:
    """The SVM(s) of one proper training set and the strangeness (D) they give new examples.

    Shared by :class:`SplitConformalSVM` (one proper training set) and
    :class:`CrossConformalSVM` (one per fold). New examples are scored against the support
    vectors only (``columns``: every SVM's support vectors, positions in ``X``).
    """

    X: np.ndarray
    kernel: object
    svms: list
    n_classes: int
    columns: np.ndarray
    flat: np.ndarray

    @classmethod
    def train(cls, estimator, X, codes, n_classes: int) -> _ProperSVM:
        """Train on ``(X, codes)`` with the estimator's kernel, ``C`` and solver.

        The SVMs are the canonical optima (:func:`svmtrust.svm.fit_svm`), though the
        validity of (S) needs only that one fitted scorer, a function of the proper training
        set alone, score the calibration and test examples alike: any optimum would do
        (``canonical=False``, which skips the minimum-norm step where the optimum is not
        unique; where it is unique both are the same point and cost one bordered solve). The
        canonical optimum is kept because p-values count ties, and where the optimum is not
        unique another optimum scores the examples otherwise, so that the p-values would depend
        on the solver and on the order of the rows.

        With libsvm and the RBF kernel of :mod:`svmtrust.kernels`, libsvm computes the kernel
        itself and the Gram matrix is computed only for a problem whose optimum is not unique
        (:func:`svmtrust._kernel_columns.fit_from_data`): the same optima, without the ``n^2``
        kernel values (``make bench`` compares the time with ``SVC(kernel="rbf")``'s; with
        thousands of free support vectors, the factorisation of their block that makes the
        optimum exact costs more than libsvm's run).

        Raises ``ValueError`` naming ``kernel`` if its Gram matrix on ``X`` is not symmetric
        and positive semi-definite.
        """
        kernel = named_kernel(
            estimator.kernel, X, estimator.gamma, estimator.degree, estimator.coef0
        )
        gram = functools.cache(lambda: _checked_gram(kernel, X))
        if estimator.solver == "libsvm" and libsvm_computes(kernel):
            labels = [problem_signs(codes, c, n_classes) for c in problems(n_classes)]
            svms = fit_from_data(X, labels, estimator.C, kernel, gram)
        else:
            svms = fit_one_vs_rest(gram(), codes, n_classes, estimator.C, estimator.solver)
        columns = np.unique(np.concatenate([s.support for s in svms]))
        flat = np.array([_flat(kernel, X, s) for s in svms], dtype=bool)
        return cls(X, kernel, svms, n_classes, columns, flat)

    def _in_blocks(self, X, score) -> np.ndarray:
        """``score(rows)`` of ``X``'s rows, :data:`~svmtrust._kernel_columns.BLOCK_ENTRIES`
        kernel values at a time, so that a large batch never holds its whole block against
        the support vectors (6,667 calibration rows against 4,589 support vectors: 245 MB)."""
        step = max(1, BLOCK_ENTRIES // max(self.columns.size, 1))
        parts = [score(X[i : i + step]) for i in range(0, X.shape[0], step)]
        return np.concatenate(parts) if parts else score(X)

    def distances(self, X) -> np.ndarray:
        """``f_j(x) / ||w_j||`` of examples under the SVM(s), computed in blocks of rows, each
        distinct row once (copies in a batch get the same bits)."""
        distinct, inverse = np.unique(X, axis=0, return_inverse=True)

        def score(rows):
            block = kernel_block(self.kernel, rows, self.X[self.columns])
            return scaled_decisions(self.svms, block, columns=self.columns, flat=self.flat)

        return self._in_blocks(distinct, score)[inverse.reshape(-1)]

    def alone(self, X) -> np.ndarray:
        """:meth:`distances` of one example at a time: the same bits in every batch, computed
        together (:func:`svmtrust.kernels.rows_alone`, ``scaled_decisions(alone=True)``)."""

        def score(rows):
            block = rows_alone(self.kernel, rows, self.X[self.columns])
            return scaled_decisions(
                self.svms, block, alone=True, columns=self.columns, flat=self.flat
            )

        return self._in_blocks(X, score)

    def _scores(self, values) -> np.ndarray:
        """Strangeness (D) under every candidate label from :meth:`distances`."""
        codes = np.zeros(values.shape[0], dtype=int)
        return np.column_stack(
            [
                own_class_strangeness(values, codes + c, self.n_classes)
                for c in range(self.n_classes)
            ]
        )

    def own_scores(self, X, codes) -> np.ndarray:
        """Strangeness (D) of calibration examples under their own labels ``codes``, shape
        (m,), each computed alone (:meth:`alone`)."""
        return own_class_strangeness(self.alone(X), codes, self.n_classes)

    def all_scores(self, X) -> np.ndarray:
        """Strangeness (D) of every test example under every candidate label, shape
        (m, n_classes), computed for the batch.

        BLAS sums a kernel block, and its product with the multipliers, in an order that
        depends on the number of rows: one example's score in a batch of 3 and in a batch of 6
        can differ in the last bits (1.8e-15), and a test example equal to a calibration example
        or to a free support vector scores a few units in the last place away from it. The
        p-values do not see those bits: they rank each test score in its bag merged by the
        library's tie rule (:mod:`svmtrust.ties`, resolution ``1e-9`` of the bag's largest
        score), so the same test example gets the same p-values in every batch.
        """
        return self._scores(self.distances(X))


def _checked_gram(kernel, X) -> np.ndarray:
    """The Gram matrix of ``X``, checked positive semi-definite, after checking that it fits
    in memory (:func:`svmtrust.memory.check_gram_route_fits`): at once for a kernel libsvm
    does not compute, and only when an optimum needs it for the RBF kernel."""
    check_gram_route_fits(X.shape[0])
    return check_kernel_gram(kernel, X).matrix


#: Rows of the support vectors' kernel block computed at a time by :func:`_flat`.
FLAT_BLOCK = 1024


def _flat(kernel, X, solution) -> bool:
    """Whether the SVM's ``w`` is 0 (:func:`svmtrust.one_vs_rest.w_is_zero`), from the kernel
    values among its support vectors, ``|S|^2`` of them, computed :data:`FLAT_BLOCK` rows at a
    time (at most the ``n |S|`` values the fit itself takes); an SVM with no support vector has
    ``w = 0``. Such an SVM scores every example 0 (:mod:`svmtrust.svm_distance`): dividing by
    its rounding-size ``||w||`` would rank noise."""
    support = solution.support
    if support.size == 0:
        return True
    values, diagonal = [], []
    for start in range(0, support.size, FLAT_BLOCK):
        rows = support[start : start + FLAT_BLOCK]
        block = kernel_block(kernel, X[rows], X[support])
        values.append(block @ solution.coef[support])
        diagonal.append(block[np.arange(rows.size), start + np.arange(rows.size)])
    return w_is_zero(solution, np.concatenate(values), np.concatenate(diagonal), support)


def _check_svm_params(model) -> None:
    """The parameters :class:`SplitConformalSVM` and :class:`CrossConformalSVM` share: ``C``,
    ``solver``, ``mondrian`` and ``seed`` (each refused with a ``ValueError`` naming it)."""
    check_C(model.C)
    check_choice(model.solver, "solver", SOLVERS)
    check_bool(model.mondrian, "mondrian")
    check_seed(model.seed)


class SplitConformalSVM(conformal.SplitConformalMixin, ClassifierMixin, BaseEstimator):
    """Split conformal predictor around the SVM distance score (D), eq. (S).

    Parameters
    ----------
    kernel : {"rbf", "linear", "poly"} or callable, default "rbf"
        Named as scikit-learn's ``SVC`` names it, with ``gamma``, ``degree`` and ``coef0``
        (:func:`svmtrust.kernels.named_kernel`), or ``kernel(X, Z)``, the matrix of kernel
        values of the rows of ``X`` against the rows of ``Z``.
    C : float, default 1.0
    calibration_size : float, int or "hardoon", default 1/3
        Calibration examples: a fraction of the training set, a count, or Hardoon et al.'s
        ``min(l / 5, 50)`` (:func:`calibration_count`).
    mondrian : bool, default False
        Label-conditional p-values: ``a(x, c)`` ranked among calibration examples of class ``c``.
    convention : {"conformal", "hardoon"}, default "conformal"
        ``"conformal"``: eq. (S) and regions ``p > eps``. ``"hardoon"``: ``#{a_i >= a} / q``
        and regions ``p >= eps`` (Hardoon et al. 2009, Sec. 3 and Definition 3.1).
    seed : int, default 0
        Seeds the random split into proper training and calibration sets.
    solver : {"libsvm", "cvxpy"}
    gamma, degree, coef0 : default "scale", 3, 0.0
        Of a named kernel, as ``SVC`` reads them (:func:`svmtrust.kernels.named_kernel`); one
        the kernel does not read is refused unless it keeps its default.
    smoothing : bool, default False
        Smoothed p-values (:func:`svmtrust.conformal.p_values` with ``tau``; Vovk, Gammerman &
        Shafer 2005, Sec. 2.4): ties broken at random, one draw per test example shared by its
        labels, its own in every calling pattern (:class:`svmtrust.conformal.SmoothingMixin`),
        so that ``P{p <= eps} = eps`` exactly on exchangeable data. Hardoon's
        convention only breaks its ties at random, ``(#{a_i > a} + tau #{a_i = a}) / q``, which
        is not valid (:func:`svmtrust.conformal.p_values`).
    smoothing_seed : int or None, default None
        The draws' seed (:class:`svmtrust.conformal.SmoothingMixin`): ``None``, fresh entropy,
        clones drawing independently; an integer, reproducible draws. Checked when p-values are computed.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    proper_index_, calibration_index_ : ndarray of int
        Positions in the training set.
    svms_ : list of SVMSolution
        The SVM(s) of the proper training set (:func:`svmtrust.one_vs_rest.fit_one_vs_rest`).
    support_columns_ : ndarray of int
        Positions in the proper training set of every SVM's support vectors: the examples new
        ones are scored against.
    flat_svms_ : ndarray of bool
        Which SVMs have ``w = 0`` (:func:`svmtrust.one_vs_rest.w_is_zero`): no hyperplane, so
        they score every example 0 (the middle class of three bands on an integer grid, against
        the rest, with a linear kernel).
    calibration_scores_ : ndarray of shape (q,)
        Strangeness (D) of the calibration examples under their own labels.

    Examples
    --------
    Two Gaussian classes of 30 points; a third of them (q = 20) calibrate, so the p-values
    of eq. (S) are multiples of 1/21:

    >>> import numpy as np
    >>> from svmtrust.split_conformal import SplitConformalSVM
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (30, 2)), rng.normal(1, 1, (30, 2))])
    >>> y = np.repeat(["neg", "pos"], 30)
    >>> model = SplitConformalSVM(C=1.0, seed=0).fit(X, y)
    >>> new = [[-2.0, -2.0], [2.0, 2.0], [0.0, 0.0]]
    >>> model.predict_p(new).round(3)  # columns: model.classes_
    array([[0.524, 0.048],
           [0.048, 0.857],
           [0.238, 0.143]])

    ``predict_set`` takes a *significance level* (crepes takes a confidence): 0.1 gives the
    90% regions, the labels with ``p > 0.1``:

    >>> model.predict_set(new, 0.1)
    array([[ True, False],
           [False,  True],
           [ True,  True]])
    >>> labels, confidence, credibility = model.predict_confidence(new)
    >>> labels.tolist(), confidence.round(3).tolist(), credibility.round(3).tolist()
    (['neg', 'pos', 'neg'], [0.952, 0.952, 0.857], [0.524, 0.857, 0.238])
    """

    def __init__(
        self,
        kernel="rbf",
        C=1.0,
        calibration_size=1 / 3,
        mondrian=False,
        convention="conformal",
        seed=0,
        solver="libsvm",
        gamma="scale",
        degree=3,
        coef0=0.0,
        smoothing=False,
        smoothing_seed=None,
    ):
        self.kernel = kernel
        self.C = C
        self.calibration_size = calibration_size
        self.mondrian = mondrian
        self.convention = convention
        self.seed = seed
        self.solver = solver
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.smoothing = smoothing
        self.smoothing_seed = smoothing_seed

    def _check_params(self) -> None:
        """Validate the constructor's parameters."""
        _check_svm_params(self)
        check_choice(self.convention, "convention", CONVENTIONS)

    def fit(self, X, y):
        """Split, train the SVM(s) on the proper training set, score the calibration set.

        Parameters
        ----------
        X : array_like of shape (l, d)
        y : array_like of shape (l,)
            Any labels, at least two classes, each present in the proper training set.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Naming ``kernel``, if its Gram matrix on the proper training set is not symmetric
            and positive semi-definite (:func:`svmtrust.validation.check_kernel_gram`).
        """
        self._check_params()
        X = check_estimator_X(self, X, reset=True)
        self.classes_, codes = check_estimator_y(y, n=X.shape[0])
        q = calibration_count(X.shape[0], self.calibration_size)
        order = np.random.default_rng(self.seed).permutation(X.shape[0])
        self.calibration_index_, self.proper_index_ = order[:q], order[q:]
        proper = codes[self.proper_index_]
        if np.unique(proper).size != self.classes_.size:
            raise ClassLeftOut(
                "y: every class needs an example in the proper training set; "
                f"the split with seed {self.seed} leaves a class out"
            )
        model = _ProperSVM.train(self, X[self.proper_index_], proper, self.classes_.size)
        self.X_proper_, self.kernel_, self.svms_ = model.X, model.kernel, model.svms
        self.support_columns_, self.flat_svms_ = model.columns, model.flat
        self.calibration_codes_ = codes[self.calibration_index_]
        self.calibration_scores_ = model.own_scores(
            X[self.calibration_index_], self.calibration_codes_
        )
        return self

    def test_scores(self, X) -> np.ndarray:
        """Strangeness (D) of every test example under every candidate label, shape (m, n_classes).

        The input of crepes' ``ConformalClassifier.predict_p`` (its ``alphas``).
        """
        X = check_estimator_X(self, X, reset=False)
        model = _ProperSVM(
            self.X_proper_,
            self.kernel_,
            self.svms_,
            self.classes_.size,
            self.support_columns_,
            self.flat_svms_,
        )
        return model.all_scores(X)

    def _include_new(self) -> bool:
        """Eq. (S) counts the test example in its own bag, Hardoon et al.'s p-value does not."""
        return self.convention == "conformal"

    def _strict_regions(self) -> bool:
        """Regions ``p > eps`` (``convention="conformal"``) or ``p >= eps`` (``"hardoon"``)."""
        return self.convention == "conformal"


def _folds(codes, n_folds: int, seed: int) -> np.ndarray:
    """Fold index of each example: a seeded shuffle, then dealt round-robin class by class, so
    every class is spread as evenly as it can be over the folds (stratified).

    scikit-learn's ``StratifiedKFold(shuffle=True)`` would serve as well (it deals other folds
    from the same seed; :class:`~svmtrust.nonconformity_selection.CrossValidationSelector` uses
    it). This rule stays because every cross-conformal p-value of the recorded paper-scale run of
    the confidence_compared chapter (``book/recorded/``, 600 trials on each of 11 data sets)
    depends on it: a change of folds is a re-recording of that run."""
    order = np.random.default_rng(seed).permutation(codes.size)
    order = order[np.argsort(codes[order], kind="stable")]
    fold = np.empty(codes.size, dtype=int)
    fold[order] = np.arange(codes.size) % n_folds
    return fold


class CrossConformalSVM(conformal.ConformalClassifierMixin, ClassifierMixin, BaseEstimator):
    """Cross-conformal predictor around the SVM distance score (D), eq. (CC) (Vovk 2015).

    The training set is split into ``n_folds`` folds, stratified by class and shuffled with
    ``seed``. For each fold ``k`` the SVM(s) of :class:`SplitConformalSVM` are trained on the
    other folds and score the examples of fold ``k`` and the test example; the p-value adds the
    counts of eq. (2) of Vovk (2015) over the folds:

    ``p(x, y) = (sum_k #{i in fold k : a_i >= a^k(x, y)} + 1) / (n + 1)``,

    and the label-conditional (Mondrian) version counts, in every fold, the examples of class
    ``y`` only, over ``n_y + 1``. Cross-conformal p-values are **not guaranteed valid**: the
    folds' scores come from different models, so the test example is not exchangeable with the
    calibration examples. Vovk (2015) finds them valid in experiments; the guarantee is only
    about ``2 eps`` (module notes). The tests measure the error rate on exchangeable data.

    Parameters
    ----------
    kernel : {"rbf", "linear", "poly"} or callable, default "rbf"
        Named as scikit-learn's ``SVC`` names it, with ``gamma``, ``degree`` and ``coef0``
        (:func:`svmtrust.kernels.named_kernel`), or ``kernel(X, Z)``, the matrix of kernel
        values of the rows of ``X`` against the rows of ``Z``.
    C : float, default 1.0
    n_folds : int, default 5
        K, at least 2 and at most the number of training examples.
    mondrian : bool, default False
        Label-conditional p-values.
    seed : int, default 0
        Seeds the folds.
    solver : {"libsvm", "cvxpy"}
    gamma, degree, coef0 : default "scale", 3, 0.0
        Of a named kernel, as ``SVC`` reads them (:func:`svmtrust.kernels.named_kernel`); one
        the kernel does not read is refused unless it keeps its default.
    smoothing : bool, default False
        Smoothed p-values: ``(sum_k #{a_i > a^k} + tau (sum_k #{a_i = a^k} + 1)) / (n + 1)``,
        one draw ``tau`` per test example, its own (in any calling pattern with
        ``smoothing_seed=None``; see ``smoothing_seed`` for an integer; the cross-conformal
        p-value is not guaranteed valid, smoothed or not).
    smoothing_seed : int or None, default None
        The draws' seed (:class:`svmtrust.conformal.SmoothingMixin`): ``None``, fresh entropy,
        clones drawing independently; an integer, reproducible draws. Checked at fit.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    fold_ : ndarray of int, shape (n,)
        The fold of each training example.
    models_ : list
        Per fold, the SVM(s) trained on the other folds.
    codes_ : ndarray of int, shape (n,)
        Class index of each training example.
    calibration_scores_ : ndarray of shape (n,)
        Strangeness (D) of each training example under its own label, from the model of the
        folds it is not in.

    Examples
    --------
    The data of :class:`SplitConformalSVM`'s example; every one of the 60 examples calibrates,
    so the p-values are multiples of 1/61:

    >>> import numpy as np
    >>> from svmtrust.split_conformal import CrossConformalSVM
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (30, 2)), rng.normal(1, 1, (30, 2))])
    >>> y = np.repeat(["neg", "pos"], 30)
    >>> model = CrossConformalSVM(C=1.0, n_folds=5, seed=0).fit(X, y)
    >>> new = [[-2.0, -2.0], [2.0, 2.0], [0.0, 0.0]]
    >>> (model.predict_p(new) * 61).round().astype(int)  # columns: model.classes_
    array([[30,  1],
           [ 1, 36],
           [ 9,  4]])
    >>> model.predict_set(new, 0.1)
    array([[ True, False],
           [False,  True],
           [ True, False]])

    Smoothed, the ties are broken at random and the p-values are no longer on the grid:

    >>> smooth = CrossConformalSVM(smoothing=True, smoothing_seed=1).fit(X, y)
    >>> smooth.predict_p(new).round(3)
    array([[0.484, 0.008],
           [0.016, 0.589],
           [0.134, 0.052]])
    """

    def __init__(
        self,
        kernel="rbf",
        C=1.0,
        n_folds=5,
        mondrian=False,
        seed=0,
        solver="libsvm",
        gamma="scale",
        degree=3,
        coef0=0.0,
        smoothing=False,
        smoothing_seed=None,
    ):
        self.kernel = kernel
        self.C = C
        self.n_folds = n_folds
        self.mondrian = mondrian
        self.seed = seed
        self.solver = solver
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.smoothing = smoothing
        self.smoothing_seed = smoothing_seed

    def fit(self, X, y):
        """Split into folds; per fold, train on the others and score the fold.

        Parameters
        ----------
        X : array_like of shape (n, d)
        y : array_like of shape (n,)
            Any labels, at least two classes, each present outside every fold.

        Returns
        -------
        self
        """
        _check_svm_params(self)
        conformal.check_smoothing(self.smoothing, self.smoothing_seed)
        X = check_estimator_X(self, X, reset=True)
        self.classes_, codes = check_estimator_y(y, n=X.shape[0])
        n_folds = check_integer(self.n_folds, "n_folds", low=2, high=X.shape[0])
        fold = _folds(codes, n_folds, self.seed)
        n_classes = self.classes_.size
        models, scores = [], np.empty(X.shape[0])
        for k in steps(n_folds, "CrossConformalSVM.fit", "fold"):
            inside, outside = fold == k, fold != k
            if np.unique(codes[outside]).size != n_classes:
                raise ClassLeftOut(
                    f"y: every class needs an example outside fold {k}; "
                    f"with {n_folds} folds a class has too few examples"
                )
            model = _ProperSVM.train(self, X[outside], codes[outside], n_classes)
            scores[inside] = model.own_scores(X[inside], codes[inside])
            models.append(model)
        self.fold_, self.models_, self.codes_, self.calibration_scores_ = (
            fold,
            models,
            codes,
            scores,
        )
        return self

    def predict_p(self, X) -> np.ndarray:
        """p-values of every candidate label, shape (m, n_classes): eq. (CC).

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        ndarray of shape (m, n_classes)
        """
        X = check_estimator_X(self, X, reset=False)
        n_classes = self.classes_.size
        tau = self._smoothing_tau(X.shape[0])
        greater = np.zeros((X.shape[0], n_classes), dtype=int)
        ties = np.zeros_like(greater)
        for k, model in enumerate(self.models_):
            new = model.all_scores(X)
            for c in range(n_classes):
                old = self.calibration_scores_[
                    (self.fold_ == k) & ((self.codes_ == c) | (not self.mondrian))
                ]
                if old.size:
                    above, equal = conformal.rank_counts(old, new[:, c])
                    greater[:, c] += above
                    ties[:, c] += equal
        P = np.empty(greater.shape)
        for c in range(n_classes):
            n = np.count_nonzero(self.codes_ == c) if self.mondrian else self.codes_.size
            P[:, c] = conformal.counts_p_values(greater[:, c], ties[:, c], n, tau=tau)
        return P
