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
(``crepes.base.p_values_batch(cal, test, smoothing=False)``, with ``bins`` for Mondrian); the
tests check that they agree.

Hardoon, Hussain & Shawe-Taylor (2009, Sec. 3) do the same with one fixed model and a validation
set, but leave the test example out of its own bag, ``p = #{i : a_i >= a(x, y)} / q``, and keep
the labels with ``p >= eps`` (their Definition 3.1): ``convention="hardoon"``. Under exact
exchangeability without ties its error rate is ``ceil(q eps) / (q + 1)``, which can exceed
``eps`` (``q = 33``, ``eps = 0.05``: ``2 / 34 = 0.059``).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from . import conformal
from .conformal import default_validation_size
from .kernels import named_kernel, rbf_kernel
from .one_vs_rest import fit_one_vs_rest, own_class_strangeness, scaled_decisions
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
    check_significance,
    kernel_block,
)

__all__ = [
    "ClassLeftOut",
    "calibration_count",
    "SplitConformalSVM",
]

#: The two p-value conventions: eq. (S) with the region ``p > eps``, or Hardoon et al.'s.
CONVENTIONS = ("conformal", "hardoon")


class ClassLeftOut(ValueError):
    """The random split left a class out of the proper training set: another ``seed`` may not."""


def calibration_count(n: int, calibration_size) -> int:
    """Number of calibration examples out of ``n``.

    ``calibration_size`` is a fraction in (0, 1), an int count in ``[1, n - 2]``, or ``"hardoon"``
    for ``min(n / 5, 50)`` (:func:`svmtrust.conformal.default_validation_size`).
    """
    n = check_integer(n, "n", low=3)
    if isinstance(calibration_size, str) and calibration_size == "hardoon":
        return default_validation_size(n)
    if isinstance(calibration_size, (float, np.floating)):
        fraction = check_significance(calibration_size, "calibration_size")
        return check_integer(round(fraction * n), "calibration_size", low=1, high=n - 2)
    return check_integer(calibration_size, "calibration_size", low=1, high=n - 2)


class SplitConformalSVM(conformal.ConformalClassifierMixin, ClassifierMixin, BaseEstimator):
    """Split conformal predictor around the SVM distance score (D), eq. (S).

    Parameters
    ----------
    kernel : callable or {"linear", "rbf", "poly"}, default :func:`svmtrust.kernels.rbf_kernel`
        ``kernel(X, Z)`` returns the matrix of kernel values of the rows of ``X`` against the
        rows of ``Z``; or a name, ``"linear"``, ``"rbf"`` or ``"poly"``, with ``gamma``,
        ``degree`` and ``coef0`` as in scikit-learn's ``SVC``
        (:func:`svmtrust.kernels.named_kernel`), so that ``GridSearchCV`` can search ``gamma``.
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

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    proper_index_, calibration_index_ : ndarray of int
        Positions in the training set.
    svms_ : list of SVMSolution
        The SVM(s) of the proper training set (:func:`svmtrust.one_vs_rest.fit_one_vs_rest`).
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
    array([[0.667, 0.095],
           [0.048, 0.857],
           [0.476, 0.095]])

    ``predict_set`` takes a *significance level* (crepes takes a confidence): 0.1 gives the
    90% regions, the labels with ``p > 0.1``:

    >>> model.predict_set(new, 0.1)
    array([[ True, False],
           [False,  True],
           [ True, False]])
    >>> labels, confidence, credibility = model.predict_confidence(new)
    >>> labels.tolist(), confidence.round(3).tolist(), credibility.round(3).tolist()
    (['neg', 'pos', 'neg'], [0.905, 0.952, 0.905], [0.667, 0.857, 0.476])
    """

    def __init__(
        self,
        kernel=rbf_kernel,
        C=1.0,
        calibration_size=1 / 3,
        mondrian=False,
        convention="conformal",
        seed=0,
        solver="libsvm",
        gamma="scale",
        degree=3,
        coef0=0.0,
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

    def _check_params(self) -> None:
        """Validate the constructor's parameters."""
        check_C(self.C)
        check_choice(self.solver, "solver", SOLVERS)
        check_bool(self.mondrian, "mondrian")
        check_choice(self.convention, "convention", CONVENTIONS)
        check_seed(self.seed)

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
        self.X_proper_ = X[self.proper_index_]
        self.kernel_ = named_kernel(
            self.kernel, self.X_proper_, self.gamma, self.degree, self.coef0
        )
        K = check_kernel_gram(self.kernel_, self.X_proper_).matrix
        self.svms_ = fit_one_vs_rest(K, proper, self.classes_.size, self.C, self.solver)
        self.calibration_codes_ = codes[self.calibration_index_]
        self.calibration_scores_ = own_class_strangeness(
            self._distances(X[self.calibration_index_]), self.calibration_codes_, self.classes_.size
        )
        return self

    def _distances(self, X) -> np.ndarray:
        """``f_j(x) / ||w_j||`` of examples under the proper-training SVM(s)."""
        K_rows = kernel_block(self.kernel_, X, self.X_proper_)
        return scaled_decisions(self.svms_, K_rows)

    def test_scores(self, X) -> np.ndarray:
        """Strangeness (D) of every test example under every candidate label, shape (m, n_classes).

        The input of crepes' ``ConformalClassifier.predict_p`` (its ``alphas``).
        """
        X = check_estimator_X(self, X, reset=False)
        values = self._distances(X)
        n_classes = self.classes_.size
        return np.column_stack(
            [
                own_class_strangeness(values, np.full(X.shape[0], c), n_classes)
                for c in range(n_classes)
            ]
        )

    def predict_p(self, X) -> np.ndarray:
        """p-values of every candidate label, shape (m, n_classes): eq. (S), or Hardoon et al.'s.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        ndarray of shape (m, n_classes)
        """
        scores = self.test_scores(X)
        include_new = self.convention == "conformal"
        P = np.empty_like(scores)
        for c in range(self.classes_.size):
            old = self.calibration_scores_
            if self.mondrian:
                old = old[self.calibration_codes_ == c]
                if old.size == 0:
                    raise ValueError(
                        f"y: class {self.classes_[c]!r} has no calibration example,"
                        " so its Mondrian p-value is undefined"
                    )
            P[:, c] = conformal.p_values(old, scores[:, c], include_new=include_new)
        return P

    def predict_set(self, X, significance=None, *, confidence=None) -> np.ndarray:
        """Regions: ``p > eps`` (``convention="conformal"``) or ``p >= eps`` (``"hardoon"``),
        the level given as in :meth:`svmtrust.conformal.ConformalClassifierMixin.predict_set`.

        Returns
        -------
        ndarray of bool, shape (m, n_classes)
        """
        significance = conformal.region_significance(significance, confidence)
        return conformal.predict_set(
            self.predict_p(X), significance, strict=self.convention == "conformal"
        )
