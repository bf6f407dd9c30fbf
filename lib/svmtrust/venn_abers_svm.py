"""Venn-ABERS probabilities for the SVM: inductive, cross and full (transductive).

:class:`VennAbersSVM` turns the SVM's signed distance to its hyperplane, ``f(x) / ||w||`` (the
score of :mod:`svmtrust.svm_distance`; isotonic regression sees only its order, so ``f`` itself
would give the same probabilities), into the pair ``(p0, p1)`` of :mod:`svmtrust.venn_abers` and
merges the pair into one probability. Three predictors share it:

- ``predictor="inductive"`` (IVAP, Vovk, Petej & Fedorova 2015): the SVM is trained on a proper
  training set, and a calibration set (``calibration_size``, drawn with ``seed``) gives the
  isotonic table;
- ``predictor="cross"`` (CVAP, the same paper): ``n_folds`` stratified folds (the folds of
  :class:`svmtrust.split_conformal.CrossConformalSVM`), each fold the calibration set of the SVM
  trained on the others, the folds' pairs merged by :func:`svmtrust.venn_abers.cross_merge`;
- ``predictor="full"`` (the Venn-ABERS predictor of Vovk & Petej 2014): for each test object
  and each hypothetical label the SVM is trained on the whole training set plus the labelled
  test object, and the isotonic fit of the bag's labels on that SVM's scores is read at the test
  object (:func:`svmtrust.venn_abers.isotonic_at_last`). The SVMs are the canonical optima of
  the bags (:func:`svmtrust.svm.fit_svm`), reached by the incremental route
  (``method="incremental"``, :mod:`svmtrust.incremental_svm`) or by retraining
  (``method="retrain"``), with the same scores: the margins set by the KKT conditions, ties by
  the library's rule. The scores are then a function of the bag, the condition of the validity
  proof (the chapter "Probabilities you can trust").

**Several classes** by the one-vs-rest reduction of Zadrozny & Elkan (2002): one binary
Venn-ABERS predictor for each class against the rest, on the score of that class's SVM
(:mod:`svmtrust.one_vs_rest`), the merged probabilities divided by their sum. With two classes
there is one SVM (class index 1 against 0) and class 0's pair is ``(1 - p1, 1 - p0)``. The
guarantee is the binary one, class by class; the normalised vector has none.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from . import venn_abers
from .conformal import calibration_count
from .incremental_svm import METHODS
from .one_vs_rest import problems
from .split_conformal import ClassLeftOut, _folds, _ProperSVM
from .svm import SOLVERS
from .svm_distance import DistanceTCM
from .validation import (
    check_C,
    check_choice,
    check_estimator_X,
    check_estimator_y,
    check_integer,
    check_seed,
)

__all__ = ["VennAbersSVM", "PREDICTORS", "MERGES"]

#: The three Venn-ABERS predictors (module notes).
PREDICTORS = ("inductive", "cross", "full")

#: The merges of a pair into one probability (:mod:`svmtrust.venn_abers`).
MERGES = ("log_loss", "brier")


def _targets(codes, n_classes: int) -> np.ndarray:
    """0/1 labels of every one-vs-rest problem, shape (n_problems, n): class index 1 with two
    classes, class ``j`` for problem ``j`` otherwise."""
    return np.array([np.asarray(codes) == c for c in problems(n_classes)], dtype=float)


def _by_class(p0, p1, n_classes: int):
    """The problems' pairs, shape (..., n_problems), as pairs of every class, shape
    (..., n_classes): with two classes class 0's pair is ``(1 - p1, 1 - p0)``."""
    if n_classes == 2:
        return np.stack([1 - p1[..., 0], p0[..., 0]], -1), np.stack(
            [1 - p0[..., 0], p1[..., 0]], -1
        )
    return p0, p1


class VennAbersSVM(ClassifierMixin, BaseEstimator):
    """Venn-ABERS probabilities on the SVM's signed distance (module notes).

    Parameters
    ----------
    kernel : {"rbf", "linear", "poly"} or callable, default "rbf"
        Named as scikit-learn's ``SVC`` names it, with ``gamma``, ``degree`` and ``coef0``
        (:func:`svmtrust.kernels.named_kernel`), or ``kernel(X, Z)``.
    C : float, default 1.0
        The SVM's box constraint.
    predictor : {"inductive", "cross", "full"}, default "inductive"
    calibration_size : float or int, default 1/3
        The inductive predictor's calibration set (:func:`svmtrust.conformal.calibration_count`);
        the other predictors refuse a value other than the default.
    n_folds : int, default 5
        The cross predictor's folds (the others refuse a value other than 5).
    merge : {"log_loss", "brier"}, default "log_loss"
        How a pair becomes the probability of :meth:`predict_proba`.
    method : {"incremental", "retrain"}, default "incremental"
        The full predictor's route to the augmented SVMs (the same scores); the others refuse
        ``"retrain"``.
    seed : int, default 0
        Seeds the calibration split and the folds.
    solver, gamma, degree, coef0
        As :class:`svmtrust.split_conformal.SplitConformalSVM`.

    Attributes
    ----------
    classes_ : ndarray
    calibration_ : list of (scores, targets)
        The inductive and cross predictors' calibration sets, one per fold: the scores, shape
        (q, n_problems), and the problems' 0/1 labels, shape (n_problems, q).

    Examples
    --------
    >>> import numpy as np
    >>> from svmtrust.venn_abers_svm import VennAbersSVM
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2))
    >>> y = np.where(X[:, 0] + rng.normal(scale=0.7, size=60) > 0, "yes", "no")
    >>> model = VennAbersSVM(C=1.0, predictor="full").fit(X, y)
    >>> model.predict_proba([[2.0, 0.0], [0.0, 0.0]]).round(3)
    array([[0.2  , 0.8  ],
           [0.533, 0.467]])
    """

    def __init__(
        self,
        kernel="rbf",
        C=1.0,
        predictor="inductive",
        calibration_size=1 / 3,
        n_folds=5,
        merge="log_loss",
        method="incremental",
        seed=0,
        solver="libsvm",
        gamma="scale",
        degree=3,
        coef0=0.0,
    ):
        self.kernel = kernel
        self.C = C
        self.predictor = predictor
        self.calibration_size = calibration_size
        self.n_folds = n_folds
        self.merge = merge
        self.method = method
        self.seed = seed
        self.solver = solver
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0

    def fit(self, X, y):
        """Train the SVM(s) and score the calibration sets (inductive, cross), or keep the
        training set and its SVMs (full).

        Parameters
        ----------
        X : array_like of shape (l, d)
        y : array_like of shape (l,)
            Any labels, at least two classes.

        Returns
        -------
        self
        """
        check_C(self.C)
        check_choice(self.solver, "solver", SOLVERS)
        check_seed(self.seed)
        check_choice(self.predictor, "predictor", PREDICTORS)
        check_choice(self.merge, "merge", MERGES)
        check_choice(self.method, "method", METHODS)
        self._check_unread()
        X = check_estimator_X(self, X, reset=True)
        self.classes_, codes = check_estimator_y(y, n=X.shape[0])
        n_classes = self.classes_.size
        if self.predictor == "full":
            self.machine_ = DistanceTCM(
                kernel=self.kernel,
                C=self.C,
                solver=self.solver,
                method=self.method,
                gamma=self.gamma,
                degree=self.degree,
                coef0=self.coef0,
            ).fit(X, codes)
            self.targets_ = _targets(codes, n_classes)
            return self
        if self.predictor == "inductive":
            q = calibration_count(X.shape[0], self.calibration_size)
            order = np.random.default_rng(self.seed).permutation(X.shape[0])
            fold = np.ones(X.shape[0], dtype=int)
            fold[order[:q]] = 0
            parts = [0]
        else:
            n_folds = check_integer(self.n_folds, "n_folds", low=2, high=X.shape[0])
            fold = _folds(codes, n_folds, self.seed)
            parts = range(n_folds)
        self.models_, self.calibration_ = [], []
        for k in parts:
            inside, outside = fold == k, fold != k
            if np.unique(codes[outside]).size != n_classes:
                raise ClassLeftOut(
                    "y: every class needs an example in every proper training set; "
                    f"the split with seed {self.seed} leaves a class out"
                )
            model = _ProperSVM.train(self, X[outside], codes[outside], n_classes)
            self.models_.append(model)
            self.calibration_.append((model.alone(X[inside]), _targets(codes[inside], n_classes)))
        return self

    def _check_unread(self) -> None:
        """Refuse a parameter the chosen predictor does not read, set away from its default:
        ``calibration_size`` (inductive only), ``n_folds`` (cross only), ``method`` (full
        only). A value that would change nothing is refused, as
        :func:`svmtrust.kernels.named_kernel` refuses kernel parameters the kernel ignores."""
        defaults = {"calibration_size": 1 / 3, "n_folds": 5, "method": "incremental"}
        readers = {"calibration_size": "inductive", "n_folds": "cross", "method": "full"}
        for name, default in defaults.items():
            value = getattr(self, name)
            if readers[name] != self.predictor and not (
                type(value) is type(default) and value == default
            ):
                raise ValueError(
                    f"{name}: the {self.predictor} predictor does not read it; it is read by "
                    f"predictor={readers[name]!r}, got {value!r}"
                )

    def predict_pairs(self, X):
        """``(p0, p1)`` of every class against the rest.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        p0, p1 : ndarray of shape (m, n_classes), or (n_folds, m, n_classes) for the cross
            predictor (one pair per fold)
            Entry ``[i, c]``: the isotonic fit's value at test object ``i`` with the label
            "class ``c``" set to 0 and to 1. ``p0 <= p1`` for the inductive and cross
            predictors; the full one's two values come from two SVMs and need not be ordered.
        """
        X = check_estimator_X(self, X, reset=False)
        if self.predictor == "full":
            p0, p1 = self._full_pairs(X)
        else:
            pairs = [
                self._inductive_pairs(model, part, X)
                for model, part in zip(self.models_, self.calibration_)
            ]
            p0, p1 = (np.array([p[s] for p in pairs]) for s in (0, 1))
            if self.predictor == "inductive":
                p0, p1 = p0[0], p1[0]
        return _by_class(p0, p1, self.classes_.size)

    @staticmethod
    def _inductive_pairs(model, calibration, X):
        """The problems' pairs, shape (m, n_problems), from one SVM and its calibration set."""
        scores, targets = calibration
        test = model.distances(X)
        pairs = [
            venn_abers.venn_abers_pairs(scores[:, j], targets[j], test[:, j])
            for j in range(scores.shape[1])
        ]
        return np.column_stack([p[0] for p in pairs]), np.column_stack([p[1] for p in pairs])

    def _full_pairs(self, X):
        """The problems' pairs, shape (m, n_problems), each from the SVMs of the augmented bags."""
        n_problems = self.targets_.shape[0]
        p0, p1 = np.empty((X.shape[0], n_problems)), np.empty((X.shape[0], n_problems))
        bags = self.machine_.augmented_distances(X)
        for i, distances in enumerate(bags):
            for j in range(n_problems):
                for s, out in enumerate((p0, p1)):
                    labels = np.r_[self.targets_[j], float(s)]
                    out[i, j] = venn_abers.isotonic_at_last(distances[j, s], labels)
        return p0, p1

    def predict_proba(self, X) -> np.ndarray:
        """Merged probabilities, shape (m, n_classes), columns in the order of ``classes_``.

        Each class's pair is merged (``merge``; the cross predictor merges its folds' pairs by
        :func:`svmtrust.venn_abers.cross_merge`); with more than two classes the merged values
        are divided by their sum (Zadrozny & Elkan 2002).
        """
        p0, p1 = self.predict_pairs(X)
        if self.predictor == "cross":
            flat0, flat1 = (p.reshape(p.shape[0], -1) for p in (p0, p1))
            p = venn_abers.cross_merge(flat0, flat1, loss=self.merge).reshape(p0.shape[1:])
        elif self.merge == "log_loss":
            p = venn_abers.log_loss_merge(p0, p1)
        else:
            p = venn_abers.brier_merge(p0, p1)
        if self.classes_.size == 2:
            return np.column_stack([1.0 - p[:, 1], p[:, 1]])
        return p / p.sum(axis=1, keepdims=True)

    def predict(self, X) -> np.ndarray:
        """The class of largest merged probability (the first of equal ones)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]
