"""Nonconformity model selection for SVMs, Hardoon, Hussain & Shawe-Taylor (2009).

The paper trains M Gaussian-kernel SVMs ``f_1, ..., f_M`` (a grid of ``gamma`` and ``C``) on a
training part ``S_trn`` of the data and keeps a validation part ``S_val`` of size n aside. The
nonconformity of an example is its functional margin, eq. (1), ``A(S_val, z) = y f(x)``, and
its p-value counts the validation examples with a margin no larger,

    p_A(S_val, (x, y)) = #{j : y_j f(x_j) <= y f(x)} / n,

with *no* ``+1``: the test example is not counted in its own bag, unlike the conformal
convention of :func:`svmtrust.conformal.p_values` (this module calls it with
``include_new=False`` on the strangeness ``-y f(x)``). For a test point, Algorithm 1 finds the
smallest p-value over models and labels, eq. (2)::

    epsilon_crit = min_k min_{y in {-1, +1}} p_k(x, y),

realised by ``(k_crit, y_crit)`` (ties broken at random, by a draw that depends on the seed and
the test point only, so a point gets the same label alone and in a batch), and predicts
``-y_crit``: the label that is *not* the strangest one. Proposition 4.2 states the bound
``epsilon_crit + 5.66 sqrt((ln(e n) + ln(8 M / delta)) / n)`` (:func:`nonconformity_bound`,
which also offers the DKW-Massart deviation ``sqrt(ln(2 M / delta) / (2 n))``); what the
union bound proves is a joint statement, ``P(error and epsilon_crit <= eps) <= M (eps +
Delta)``, not a bound on each point's own error probability (see the chapter).

Two baselines share the grid: b-fold cross-validation (:class:`CrossValidationSelector`) and the
SVM-L_inf rule of Ozogur-Akyuz, Hussain & Shawe-Taylor, which predicts each test point with the
model whose hyperplane lies farthest from it (:class:`TestMarginSelector`).

Every selector computes each ``gamma``'s Gram matrix once and trains through the libsvm path of
:func:`svmtrust.svm.fit_svm`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import StratifiedKFold

from . import conformal
from .conformal import default_validation_size
from .kernels import rbf_kernel
from .svm import LIBSVM_MAX_ITER, SolveError, SVMSolution, fit_svm
from .ties import smallest
from .validation import (
    check_array,
    check_binary_labels,
    check_choice,
    check_estimator_X,
    check_estimator_y,
    check_integer,
    check_positive,
    check_seed,
    check_significance,
)

__all__ = [
    "GAMMAS",
    "CS",
    "SELECTION_TOL",
    "LABELS",
    "ModelGrid",
    "fit_grid",
    "nonconformity_p_values",
    "critical",
    "vc_deviation",
    "dkw_deviation",
    "nonconformity_bound",
    "point_keys",
    "TIE_BREAKS",
    "BOUND_KINDS",
    "default_validation_size",
    "NonconformityModelSelector",
    "CrossValidationSelector",
    "TestMarginSelector",
]

#: Table 2 of Hardoon et al. (2009): gamma = 2^-15, 2^-13, ..., 2^3 (10 values).
GAMMAS = tuple(2.0**p for p in range(-15, 4, 2))

#: Table 2 of Hardoon et al. (2009): C = 2^-5, 2^-3, ..., 2^15 (11 values).
CS = tuple(2.0**p for p in range(-5, 16, 2))

#: The candidate labels, in the order of the last axis of every p-value array.
LABELS = np.array([-1.0, 1.0])

#: The distances :class:`TestMarginSelector` can maximise.
MARGINS = ("functional", "geometric")

#: libsvm's stopping tolerance for every model of a grid: libsvm's own default ``eps``, the
#: setting of the paper's LibSVM 2.85 runs. What it moves against the accurate default of
#: :func:`svmtrust.svm.fit_svm` is measured in the chapter (section "The exact problem,
#: checked"): on one outer fold the large-C models' decision values move in the first or second
#: decimal, and with them p-values and critical levels, while the accurate solves cost several
#: times as long on those models.
SELECTION_TOL = 1e-3

#: The constant of Theorem 4.1 (Devroye, Gyorfi & Lugosi 1996), as the paper states it.
VC_CONSTANT = 5.66

#: How :func:`critical` chooses among tied (model, label) pairs: ``"random"`` (the paper's
#: rule) or ``"credibility"`` (beyond the paper: the pair whose model gives the predicted label
#: the largest p-value, then at random).
TIE_BREAKS = ("random", "credibility")

#: The uniform deviations :func:`nonconformity_bound` can add: Theorem 4.1 (``"vc"``) or the
#: Dvoretzky-Kiefer-Wolfowitz inequality with Massart's constant (``"dkw"``).
BOUND_KINDS = ("vc", "dkw")


# --------------------------------------------------------------------------- input checks


def _check_grid(values, name: str) -> tuple[float, ...]:
    """A non-empty grid of positive finite numbers, as a tuple of floats.

    Each value is checked by :func:`~svmtrust.validation.check_positive`, so booleans and
    strings, which a conversion to float would read as numbers (``True`` as 1), are refused.
    """
    try:
        grid = np.asarray(values, dtype=object).ravel()
    except (TypeError, ValueError):
        raise ValueError(
            f"{name}: expected a sequence of positive numbers, got {values!r}"
        ) from None
    if grid.size == 0:
        raise ValueError(f"{name}: the grid is empty")
    return tuple(check_positive(v, name) for v in grid)


def _check_data(X, y) -> tuple[np.ndarray, np.ndarray]:
    """Features (finite, 2-D) and labels (in {-1, +1}, both present) of equal length."""
    X = check_array(X, "X", ndim=2)
    return X, check_binary_labels(y, "y", n=X.shape[0])


# --------------------------------------------------------------------------- the grid of SVMs


@dataclass(frozen=True)
class ModelGrid:
    """M = len(gammas) * len(Cs) SVMs trained on the same data, gamma-major order.

    Model ``k`` has ``gamma = gammas[k // len(Cs)]`` and ``C = Cs[k % len(Cs)]``.

    Attributes
    ----------
    X : ndarray of shape (m, d)
        The training points.
    gammas, Cs : tuple of float
    solutions : tuple of SVMSolution or None
        One per model, in model order; ``None`` where libsvm stopped at its iteration limit
        (:class:`svmtrust.svm.SolveError`, seen at ``C = 2^15`` on Haberman, whose duplicated
        points with opposite labels make the largest boxes very hard). Such a model takes no
        part in any selection.
    """

    X: np.ndarray
    gammas: tuple
    Cs: tuple
    solutions: tuple

    @property
    def params(self) -> list[tuple[float, float]]:
        """``(gamma, C)`` of every model, in model order."""
        return [(g, c) for g in self.gammas for c in self.Cs]

    @property
    def usable(self) -> np.ndarray:
        """Indices of the models whose solve succeeded."""
        return np.array([k for k, s in enumerate(self.solutions) if s is not None], dtype=int)

    def decision_values(self, X) -> np.ndarray:
        """``f_k(x)`` of the usable models, one Gram block per gamma: shape (len(usable), len(X))."""
        X = check_array(X, "X", ndim=2)
        if X.shape[1] != self.X.shape[1]:
            raise ValueError(f"X: has {X.shape[1]} features, the grid was fit on {self.X.shape[1]}")
        rows = []
        for i, gamma in enumerate(self.gammas):
            block = self.solutions[i * len(self.Cs) : (i + 1) * len(self.Cs)]
            if any(s is not None for s in block):
                K_rows = rbf_kernel(X, self.X, gamma)
                rows += [s.decision_function(K_rows) for s in block if s is not None]
        return np.vstack(rows)

    @property
    def n_iter(self) -> int:
        """libsvm iterations summed over the grid (a failed solve counts its iteration cap)."""
        return int(sum(_iterations(s) for s in self.solutions))

    @property
    def work(self) -> int:
        """``sum_k n_iter_k * m``: iterations times the training size, summed over the grid.

        Each SMO iteration updates the gradient with two kernel columns of length ``m``, so
        this is proportional to the solver's arithmetic and, unlike a time, deterministic.
        """
        return self.n_iter * self.X.shape[0]

    def w_norms(self) -> np.ndarray:
        """``||w_k||`` of the usable models: shape (len(usable),)."""
        return np.sqrt(
            [max(s.w_norm_squared, np.finfo(float).tiny) for s in self.solutions if s is not None]
        )


def fit_grid(X, y, gammas=GAMMAS, Cs=CS) -> ModelGrid:
    """Train one SVM for every ``(gamma, C)`` (step 2 of Algorithm 1 of Hardoon et al. 2009).

    Each gamma's Gram matrix is computed once and shared by every C; each model is the SVM
    dual solved by libsvm (:func:`svmtrust.svm.fit_svm`) at libsvm's default tolerance
    :data:`SELECTION_TOL`.

    Parameters
    ----------
    X : array_like of shape (m, d)
    y : array_like of shape (m,)
        Labels in {-1, +1}, both present.
    gammas, Cs : sequence of float
        Positive, non-empty.

    Returns
    -------
    ModelGrid
    """
    X, y = _check_data(X, y)
    gammas, Cs = _check_grid(gammas, "gammas"), _check_grid(Cs, "Cs")
    solutions = []
    for gamma in gammas:
        solutions += _fit_block(rbf_kernel(X, gamma=gamma), y, Cs)
    grid = ModelGrid(X, gammas, Cs, tuple(solutions))
    if grid.usable.size == 0:
        raise SolveError("libsvm", "max_iter_reached", "no model of the grid could be trained")
    return grid


def _fit_one(K, y, C) -> SVMSolution | None:
    """The libsvm solve of one model, ``None`` if libsvm stops at its iteration limit."""
    try:
        return fit_svm(K, y, C, solver="libsvm", check_kernel=False, tol=SELECTION_TOL)
    except SolveError:
        return None


def _fit_block(K, y, Cs) -> list[SVMSolution | None]:
    """Every C on one precomputed Gram matrix (``None`` for a failed solve)."""
    return [_fit_one(K, y, C) for C in Cs]


def _iterations(solution: SVMSolution | None) -> int:
    """libsvm iterations of one solve; :data:`svmtrust.svm.LIBSVM_MAX_ITER` for a failed one."""
    return LIBSVM_MAX_ITER if solution is None else int(solution.n_iter)


# --------------------------------------------------------------------------- Algorithm 1


def nonconformity_p_values(validation_margins, test_values, tau=None) -> np.ndarray:
    """The p-values of eq. (2) for every model, test point and candidate label.

    ``p_k(x, y) = #{j : y_j f_k(x_j) <= y f_k(x)} / n`` (Hardoon et al. 2009, Sec. 3), computed
    by :func:`svmtrust.conformal.p_values` with ``include_new=False`` on the strangeness
    ``-y f(x)``; with ``tau``, its ties broken at random:
    ``(#{j : y_j f_k(x_j) < y f_k(x)} + tau #{j : y_j f_k(x_j) = y f_k(x)}) / n``.
    Equality is the library's tie rule (:mod:`svmtrust.ties`): the n validation margins and the
    test value of one model form a bag whose values within ``1e-9`` of its largest ``|value|``
    are equal, so a test point equal to a validation row ties with it exactly, and a point's
    p-values are the same alone and in any batch, though its decision values differ in their
    last bits from one batch to another.

    That is not a smoothed conformal p-value. Eq. (2) leaves the test point out of its own bag,
    so there is no share of it to smooth, and no randomisation of eq. (2) that stays below it can
    be exactly valid: with untied margins eq. (2) is 0 with probability ``1 / (n + 1)`` (with
    ties, at most that: a test margin tied with the smallest is not below it). With continuous
    margins ``P{p <= eps} = (floor(eps n) + 1) / (n + 1)`` for one model (0.0588 at
    ``eps = 0.05``, ``n = 50``), and ties broken at random make it larger. The smoothed
    conformal p-value of one model, ``(#{<} + tau (#{=} + 1)) / (n + 1)``, is
    :func:`svmtrust.conformal.p_values` with ``tau`` and ``include_new=True``.

    Parameters
    ----------
    validation_margins : array_like of shape (M, n)
        ``y_j f_k(x_j)`` of the n validation examples under each model (eq. (1)).
    test_values : array_like of shape (M, m)
        ``f_k(x)`` of the m test points.
    tau : float or array_like of shape (m,) in [0, 1], optional
        One draw per test point, shared by every model and label; ``None`` (the default)
        leaves the ties as eq. (2) counts them.

    Returns
    -------
    ndarray of shape (m, M, 2)
        The last axis in the order of :data:`LABELS` (-1, then +1).
    """
    margins = check_array(validation_margins, "validation_margins", ndim=2)
    values = check_array(test_values, "test_values", ndim=2)
    if values.shape[0] != margins.shape[0]:
        raise ValueError(
            f"test_values: has {values.shape[0]} models, validation_margins {margins.shape[0]}"
        )
    P = np.empty((values.shape[1], margins.shape[0], 2))
    for k in range(margins.shape[0]):
        for col, label in enumerate(LABELS):
            P[:, k, col] = conformal.p_values(
                -margins[k], -label * values[k], include_new=False, tau=tau
            )
    return P


def point_keys(X) -> np.ndarray:
    """A 128-bit fingerprint of each row of ``X``: BLAKE2b of its float64 bytes, as 4 uint32.

    Two rows get the same key exactly when they are bitwise equal (up to hash collisions,
    probability about ``2^-128``). :func:`critical` seeds each point's tie-breaking draw with
    ``(seed, key)``, so the draw depends on the point and not on the batch it comes in.

    Parameters
    ----------
    X : array_like of shape (m, d)

    Returns
    -------
    ndarray of uint32, shape (m, 4)
    """
    X = np.ascontiguousarray(check_array(X, "X", ndim=2))
    X = X + 0.0  # -0.0 and 0.0 are the same point
    digests = [hashlib.blake2b(row.tobytes(), digest_size=16).digest() for row in X]
    return np.frombuffer(b"".join(digests), dtype="<u4").reshape(len(X), 4).copy()


def _keyed_uniforms(seed: int, keys: np.ndarray, width: int) -> np.ndarray:
    """``width`` uniforms per row, row ``i`` from ``SeedSequence([seed, *keys[i]])``."""
    return (
        np.vstack(
            [
                np.random.default_rng(np.random.SeedSequence([seed, *map(int, key)])).random(width)
                for key in keys
            ]
        )
        if len(keys)
        else np.empty((0, width))
    )


def critical(P, seed=0, keys=None, tie_break="random") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``epsilon_crit`` of eq. (2) and the ``(k_crit, y_crit)`` realising it, per test point.

    With ``tie_break="random"`` (the paper's rule) a pair is drawn uniformly among all the
    (model, label) pairs that reach the minimum. Row ``i``'s draw comes from a generator seeded
    by ``(seed, keys[i])`` (:func:`point_keys`), so it depends on the seed and the point only:
    the same point gets the same choice alone or in any batch. ``tie_break="credibility"``
    goes beyond the paper: among the tied pairs it keeps those whose model gives the
    *predicted* label ``-y`` the largest p-value (the largest credibility, equivalently the
    largest gap ``p_k(x, -y) - epsilon_crit``), and draws among those as above.

    Parameters
    ----------
    P : array_like of shape (m, M, 2)
        From :func:`nonconformity_p_values`.
    seed : int
        Non-negative.
    keys : array_like of shape (m, d), optional
        A per-point key, normally the test points themselves; ``None`` keys each row by its
        own p-values ``P[i]`` (equal p-values, equal choice).
    tie_break : {"random", "credibility"}

    Returns
    -------
    epsilon : ndarray of shape (m,)
    k : ndarray of int, shape (m,)
        Model index (gamma-major order of :class:`ModelGrid`).
    y : ndarray of shape (m,)
        The strange label ``y_crit`` in {-1, +1}; Algorithm 1 predicts ``-y_crit``.
    """
    P = check_array(P, "P", ndim=3)
    if P.shape[2] != 2 or np.any((P < 0) | (P > 1)):
        raise ValueError(f"P: expected p-values in [0, 1] of shape (m, M, 2), got {P.shape}")
    tie_break = check_choice(tie_break, "tie_break", TIE_BREAKS)
    seed = check_seed(seed)
    flat = P.reshape(P.shape[0], -1)
    keys = point_keys(flat if keys is None else check_array(keys, "keys", ndim=2))
    if len(keys) != len(flat):
        raise ValueError(f"keys: has {len(keys)} rows, P has {len(flat)} test points")
    tied = flat <= flat.min(axis=1, keepdims=True)
    if tie_break == "credibility":
        other = P[:, :, ::-1].reshape(P.shape[0], -1)  # p-value of the label not dropped
        score = np.where(tied, other, -np.inf)
        tied &= score >= score.max(axis=1, keepdims=True)
    choice = _keyed_argmax(tied, seed, keys)
    return flat[np.arange(len(flat)), choice], choice // 2, LABELS[choice % 2]


def _keyed_argmax(allowed: np.ndarray, seed: int, keys: np.ndarray) -> np.ndarray:
    """A column of each row among the ``allowed`` ones, uniformly at random (keyed draws)."""
    draws = _keyed_uniforms(seed, keys, allowed.shape[1])
    draws[~allowed] = -1.0
    return np.argmax(draws, axis=1)


def _random_argmin(scores: np.ndarray, seed, keys) -> np.ndarray:
    """Column of a row minimum of ``scores``, uniformly at random among ties (keyed draws),
    scores equal by the library's tie rule (:func:`svmtrust.ties.smallest`) tied."""
    return _keyed_argmax(smallest(scores), seed, point_keys(keys))


def vc_deviation(m, d, delta) -> float:
    """The uniform deviation of Theorem 4.1: ``5.66 sqrt((d ln(e m / d) + ln(8 / delta)) / m)``.

    With probability at least ``1 - delta`` over an i.i.d. m-sample, the empirical frequency of
    every set of a class of VC dimension ``d`` is within this of its probability (Hardoon et
    al. 2009, Theorem 4.1, after Devroye, Gyorfi & Lugosi 1996).

    Parameters
    ----------
    m : int
        Sample size, positive.
    d : int
        VC dimension, positive.
    delta : float
        Confidence parameter in (0, 1).

    Returns
    -------
    float
    """
    m = check_integer(m, "m")
    d = check_integer(d, "d", 1, m)
    delta = check_significance(delta, "delta")
    return VC_CONSTANT * float(np.sqrt((d * np.log(np.e * m / d) + np.log(8.0 / delta)) / m))


def dkw_deviation(m, delta) -> float:
    """The Dvoretzky-Kiefer-Wolfowitz deviation with Massart's constant: ``sqrt(ln(2/delta)/(2m))``.

    With probability at least ``1 - delta`` over an i.i.d. m-sample of a real variable, its
    empirical distribution function is within this of the true one at every threshold
    (Massart 1990). The sets ``(-inf, a]`` are exactly the class of Theorem 4.1 with d = 1, so
    this replaces the VC deviation of Proposition 4.2 by a far smaller one.

    Parameters
    ----------
    m : int
        Sample size, positive.
    delta : float
        Confidence parameter in (0, 1).

    Returns
    -------
    float
    """
    m = check_integer(m, "m")
    delta = check_significance(delta, "delta")
    return float(np.sqrt(np.log(2.0 / delta) / (2.0 * m)))


def nonconformity_bound(epsilon_crit, n, n_models, delta, kind="vc") -> np.ndarray:
    """Proposition 4.2's quantity ``epsilon_crit + Delta``, ``Delta`` uniform over M models.

    ``kind="vc"`` is the paper's ``Delta = 5.66 sqrt((ln(e n) + ln(8 M / delta)) / n)``
    (Theorem 4.1 with VC dimension 1, the sets ``(-inf, a]``, and ``delta / M`` per model);
    ``kind="dkw"`` is ``Delta = sqrt(ln(2 M / delta) / (2 n))`` (:func:`dkw_deviation` with
    ``delta / M``). With probability ``1 - delta`` over the validation set every model's
    empirical margin distribution is within ``Delta`` of the true one. What follows is the
    joint statement ``P(error and epsilon_crit <= eps) <= M (eps + Delta)`` for a fresh test
    example; the paper reads the quantity as a bound on each point's own error probability,
    which does not follow (the chapter gives a counterexample).

    Parameters
    ----------
    epsilon_crit : array_like
        Eq. (2) for each test point.
    n : int
        Size of the validation set.
    n_models : int
        M, the number of models.
    delta : float in (0, 1)
    kind : {"vc", "dkw"}

    Returns
    -------
    ndarray
        Same shape as ``epsilon_crit``; it can exceed 1, where it says nothing.
    """
    kind = check_choice(kind, "kind", BOUND_KINDS)
    epsilon_crit = _check_epsilon(epsilon_crit)
    n, n_models = check_integer(n, "n"), check_integer(n_models, "n_models")
    delta = check_significance(delta, "delta") / n_models
    deviation = vc_deviation(n, 1, delta) if kind == "vc" else dkw_deviation(n, delta)
    return epsilon_crit + deviation


def _check_epsilon(epsilon_crit) -> np.ndarray:
    """Critical significance levels (a number or an array), each in [0, 1]."""
    try:
        eps = np.asarray(epsilon_crit, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"epsilon_crit: expected numbers in [0, 1], got {epsilon_crit!r}"
        ) from None
    if not np.all((eps >= 0) & (eps <= 1)):
        raise ValueError("epsilon_crit: every value must lie in [0, 1] (NaN does not)")
    return eps


# --------------------------------------------------------------------------- the estimators


class _GridEstimator(ClassifierMixin, BaseEstimator):
    """What the three selectors share: binary classifiers of any two labels over a grid.

    ``fit`` encodes the labels as signs, ``classes_[0]`` as -1 and ``classes_[1]`` as +1 (so
    labels -1 and +1 keep their signs), and every prediction decodes them.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _grid(self) -> tuple[tuple, tuple]:
        """The checked grid ``(gammas, Cs)``, after checking ``seed`` (every selector has one)."""
        check_seed(self.seed)
        return _check_grid(self.gammas, "gammas"), _check_grid(self.Cs, "Cs")

    def _check_data(self, X, y) -> tuple[np.ndarray, np.ndarray]:
        """Validate the training data, set ``classes_`` and return ``X`` and the signs of ``y``."""
        X = check_estimator_X(self, X, reset=True)
        self.classes_, index = check_estimator_y(y, n=X.shape[0], binary=True)
        return X, LABELS[index]

    def _check_X(self, X) -> np.ndarray:
        """Validate test points (NotFittedError if the selector is not fitted)."""
        return check_estimator_X(self, X, reset=False)

    def _decode(self, signs) -> np.ndarray:
        """The labels of signs in {-1, +1}: ``classes_[0]`` for -1, ``classes_[1]`` for +1."""
        return self.classes_[(np.asarray(signs) > 0).astype(int)]


class NonconformityModelSelector(conformal.SmoothingMixin, _GridEstimator):
    """Algorithm 1 of Hardoon, Hussain & Shawe-Taylor (2009): nonconformity model selection.

    Parameters
    ----------
    gammas : sequence of float
        RBF widths (:func:`svmtrust.kernels.rbf_kernel`); default :data:`GAMMAS`.
    Cs : sequence of float
        Box constraints; default :data:`CS`.
    validation_size : int, optional
        Size n of the validation set; ``None`` uses ``min(l / 5, 50)``
        (:func:`default_validation_size`).
    seed : int
        Seeds the one training/validation split and the tie-breaking of eq. (2).
    tie_break : {"random", "credibility"}
        :func:`critical`'s rule among tied pairs: the paper's ``"random"`` (a draw keyed by the
        seed and the point) or ``"credibility"`` (beyond the paper).
    smoothing : bool, default False
        Eq. (2) with its ties broken at random in :meth:`predict_p`, :meth:`predict_p_all` and
        the regions and confidences built on them (:func:`nonconformity_p_values` with
        ``tau``, ``(#{<} + tau #{=}) / n``, one draw per test point, its own in any calling
        pattern with ``smoothing_seed=None``). Without the test point in its own bag this is
        not a smoothed conformal p-value, and it is not valid even for one fixed model
        (:func:`nonconformity_p_values`). The choice of ``k_crit`` (:meth:`epsilon_crit_`,
        :meth:`predict`, :meth:`bound`) stays the paper's, on the p-values without smoothing.
        Each p-value of :meth:`predict_p` is one of the model chosen for that test point, and
        the choice depends on the test point, so no validity guarantee holds for the selector
        as a whole, smoothed or not (on Pima, ten random halves held out, the true label got
        ``p <= 0.05`` for 14.4% of the test points on average, 9.4% to 20.3% over the halves,
        where a valid p-value allows 5%: the nonconformity chapter, section "The selector's
        p-values, smoothed or not").
    smoothing_seed : int or None, default None
        The draws' seed (:class:`svmtrust.conformal.SmoothingMixin`): ``None``, fresh entropy,
        clones drawing independently; an integer, reproducible draws. Checked when p-values are computed.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the positive class of every SVM.
    grid_ : ModelGrid
        The M models trained on the training part.
    train_index_, validation_index_ : ndarray of int
        Rows of the data passed to :meth:`fit` in each part.
    validation_margins_ : ndarray of shape (M, n)
        ``y_j f_k(x_j)`` over the validation set (eq. (1)).
    n_iter_, work_ : int
        libsvm iterations of the training, summed, and ``sum n_iter * m``
        (:attr:`ModelGrid.work`).

    Examples
    --------
    Two Gaussian classes of 30 points and a grid of K = 4 models; the default validation set
    holds ``min(60 / 5, 50) = 12`` examples, so the p-values are multiples of 1/12, and 0 is
    possible (the test point is not counted in its own bag):

    >>> import numpy as np
    >>> from svmtrust.nonconformity_selection import NonconformityModelSelector
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (30, 2)), rng.normal(1, 1, (30, 2))])
    >>> y = np.repeat(["neg", "pos"], 30)
    >>> model = NonconformityModelSelector(gammas=(0.1, 1.0), Cs=(1.0, 10.0)).fit(X, y)
    >>> new = [[-2.0, -2.0], [2.0, 2.0], [0.0, 0.0]]
    >>> model.predict(new).tolist()
    ['neg', 'pos', 'neg']
    >>> model.predict_p(new).round(3)  # under each point's model k_crit; columns: classes_
    array([[0.417, 0.   ],
           [0.   , 0.917],
           [0.167, 0.   ]])

    ``predict_set`` takes a significance level and keeps the labels with ``p >= eps``
    (Definition 3.1):

    >>> model.predict_set(new, 0.1)
    array([[ True, False],
           [False,  True],
           [ True, False]])
    """

    def __init__(
        self,
        gammas=GAMMAS,
        Cs=CS,
        validation_size=None,
        seed=0,
        tie_break="random",
        smoothing=False,
        smoothing_seed=None,
    ):
        self.gammas = gammas
        self.Cs = Cs
        self.validation_size = validation_size
        self.seed = seed
        self.tie_break = tie_break
        self.smoothing = smoothing
        self.smoothing_seed = smoothing_seed

    def fit(self, X, y):
        """Split once into training and validation parts and train every model (steps 1-2)."""
        gammas, Cs = self._grid()
        if self.tie_break not in TIE_BREAKS:
            raise ValueError(f"tie_break: must be one of {TIE_BREAKS}, got {self.tie_break!r}")
        X, y = self._check_data(X, y)
        n = self.validation_size
        n = default_validation_size(len(y)) if n is None else n
        n = check_integer(n, "validation_size", 1, len(y) - 2)
        order = np.random.default_rng(self.seed).permutation(len(y))
        self.validation_index_, self.train_index_ = np.sort(order[:n]), np.sort(order[n:])
        train = self.train_index_
        if np.unique(y[train]).size < 2:
            raise ValueError("y: the training part holds one class only; use more data")
        self.grid_ = fit_grid(X[train], y[train], gammas, Cs)
        val = self.validation_index_
        self.validation_margins_ = self.grid_.decision_values(X[val]) * y[val]
        self.n_iter_, self.work_ = self.grid_.n_iter, self.grid_.work
        return self

    def predict_p_all(self, X) -> np.ndarray:
        """p-values of every usable model and label, shape (m, M', 2).

        See :func:`nonconformity_p_values`; the models are ``grid_.usable`` (all M unless a
        solve failed).
        """
        X = self._check_X(X)
        return self._p_all(X, self._smoothing_tau(len(X)))

    def _p_all(self, X, tau=None) -> np.ndarray:
        """:meth:`predict_p_all` of test points already checked (each public method checks
        ``X`` once: a second check of the converted array would lose a DataFrame's names);
        smoothed with ``tau``."""
        return nonconformity_p_values(self.validation_margins_, self.grid_.decision_values(X), tau)

    def epsilon_crit_(self, X):
        """``epsilon_crit``, ``k_crit`` and ``y_crit`` of eq. (2) for every test point.

        Returns
        -------
        epsilon, k, y : ndarray of shape (m,)
            See :func:`critical`; ties are broken by ``tie_break`` with ``seed`` and the point.
            ``y`` is the strange label, a value of ``classes_``.
        """
        epsilon, k, y = self._critical(self._check_X(X))
        return epsilon, self.grid_.usable[k], self._decode(y)

    def _critical(self, X):
        """:func:`critical` of checked test points: ``k`` among the usable models, ``y`` a sign."""
        return critical(self._p_all(X), self.seed, X, self.tie_break)

    def predict(self, X) -> np.ndarray:
        """Algorithm 1, step 4: the label other than ``y_crit``."""
        return self._decode(-self._critical(self._check_X(X))[2])

    def bound(self, X, delta=0.05, kind="vc") -> np.ndarray:
        """Proposition 4.2's quantity ``epsilon_crit + Delta`` for each test point.

        See :func:`nonconformity_bound` (``kind`` ``"vc"`` or ``"dkw"``) for what it bounds: a
        joint probability over fresh examples, not each point's own error probability.
        """
        epsilon = self.epsilon_crit_(X)[0]
        n_models = len(self.grid_.solutions)
        return nonconformity_bound(
            epsilon, self.validation_margins_.shape[1], n_models, delta, kind
        )

    def predict_p(self, X) -> np.ndarray:
        """p-values of the labels ``classes_`` under each point's model ``k_crit``: shape (m, 2)
        (smoothed with ``smoothing``; ``k_crit`` chosen without)."""
        X = self._check_X(X)
        P = self._p_all(X)
        k = critical(P, self.seed, X, self.tie_break)[1]  # position among the usable models
        tau = self._smoothing_tau(len(X))
        if tau is not None:
            P = self._p_all(X, tau)
        return P[np.arange(len(P)), k, :]

    def predict_set(self, X, significance=None, *, confidence=None) -> np.ndarray:
        """Definition 3.1's regions ``{y : p >= eps}`` under ``k_crit``: bool, shape (m, 2), the
        level given as in :meth:`svmtrust.conformal.ConformalClassifierMixin.predict_set`."""
        significance = conformal.region_significance(significance, confidence)
        return conformal.predict_set(self.predict_p(X), significance, strict=False)

    def predict_confidence(self, X):
        """Label with the larger p-value under ``k_crit``, its confidence and credibility.

        The label is the prediction of Algorithm 1 except on a tie of the two p-values.
        """
        index, confidence, credibility = conformal.confidence_credibility(self.predict_p(X))
        return self.classes_[index], confidence, credibility


class CrossValidationSelector(_GridEstimator):
    """b-fold cross-validation over the grid, then a retrain of the chosen model.

    The folds are stratified and shuffled with ``seed``; the chosen ``(gamma, C)`` has the
    fewest cross-validation errors, the first in grid order (gamma-major) on a tie.

    Parameters
    ----------
    gammas, Cs : sequence of float
        Default: Table 2 of Hardoon et al. (2009).
    folds : int
        b, at least 2. A class smaller than ``folds`` caps it: ``fit`` uses
        ``min(folds, size of the smaller class)`` folds (at least 2), as a stratified split
        needs a member of each class in every fold; ``n_folds_`` records the number used.
    seed : int

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the positive class of the SVMs.
    cv_errors_ : ndarray of int, shape (len(gammas), len(Cs))
    n_folds_ : int
        The number of folds used, ``folds`` capped at the size of the smaller class.
    best_gamma_, best_C_ : float
    model_ : SVMSolution
        The chosen model retrained on all the data.
    n_iter_, work_ : int
        libsvm iterations summed over the ``b`` fits of every model and the retrain(s), and
        ``sum n_iter * (training size of that fit)``.
    """

    def __init__(self, gammas=GAMMAS, Cs=CS, folds=10, seed=0):
        self.gammas = gammas
        self.Cs = Cs
        self.folds = folds
        self.seed = seed

    def fit(self, X, y):
        """Cross-validate every model (one Gram matrix per gamma), then retrain the best."""
        gammas, Cs = self._grid()
        X, y = self._check_data(X, y)
        smaller = int(min(np.sum(y > 0), np.sum(y < 0)))
        folds = check_integer(self.folds, "folds", 2)
        if smaller < 2:
            raise ValueError("y: each class needs at least 2 examples for cross-validation")
        self.n_folds_ = folds = min(folds, smaller)
        splitter = StratifiedKFold(folds, shuffle=True, random_state=self.seed)
        parts = list(splitter.split(X, y))
        errors = np.zeros((len(gammas), len(Cs)), dtype=int)
        n_iter = work = 0
        for i, gamma in enumerate(gammas):
            K = rbf_kernel(X, gamma=gamma)
            for train, test in parts:
                block = _fit_block(K[np.ix_(train, train)], y[train], Cs)
                errors[i] += [_fold_errors(s, K[np.ix_(test, train)], y[test]) for s in block]
                iterations = sum(_iterations(s) for s in block)
                n_iter, work = n_iter + iterations, work + iterations * len(train)
        self.cv_errors_ = errors
        for best in np.argsort(errors, axis=None, kind="stable"):
            self.best_gamma_, self.best_C_ = gammas[best // len(Cs)], Cs[best % len(Cs)]
            self.model_ = _fit_one(rbf_kernel(X, gamma=self.best_gamma_), y, self.best_C_)
            n_iter += _iterations(self.model_)
            work += _iterations(self.model_) * len(y)
            self.n_iter_, self.work_ = int(n_iter), int(work)
            if self.model_ is not None:
                break
        else:
            raise SolveError("libsvm", "max_iter_reached", "no model of the grid could be trained")
        self.model_X_ = X
        return self

    def decision_function(self, X) -> np.ndarray:
        """``f(x)`` of the retrained model; positive values favour ``classes_[1]``."""
        X = self._check_X(X)
        return self.model_.decision_function(rbf_kernel(X, self.model_X_, self.best_gamma_))

    def predict(self, X) -> np.ndarray:
        """``classes_[1]`` where ``f(x) >= 0``, else ``classes_[0]``."""
        return self._decode(_sign(self.decision_function(X)))


def _fold_errors(solution, K_test, y_test) -> int:
    """Errors of one model on one CV fold; a failed solve counts every point as an error."""
    if solution is None:
        return len(y_test)
    return int(np.sum(_sign(solution.decision_function(K_test)) != y_test))


def _sign(values) -> np.ndarray:
    """``sign(values)`` with 0 mapped to +1."""
    return np.where(np.asarray(values) >= 0, 1.0, -1.0)


class TestMarginSelector(_GridEstimator):
    """SVM-L_inf of Ozogur-Akyuz, Hussain & Shawe-Taylor: the model farthest from each point.

    Every model of the grid is trained on all the data; a test point is labelled
    ``sign f_k(x)`` by the model whose hyperplane lies farthest from it. By default the
    distance is the *functional* margin ``|f_k(x)|``, so the chosen model realises the
    L_inf norm of the vector ``(f_1(x), ..., f_K(x))``, whence the rule's name. Each SVM is in
    canonical form (its margin support vectors have ``|f| = 1``), so ``|f_k(x)|`` measures the
    distance in units of that model's own margin, which puts the M models on one scale. The
    *geometric* margin ``|f_k(x)| / ||w_k||`` (``margin="geometric"``) is a Euclidean distance
    in feature space, but it is degenerate on this grid: the smallest ``gamma`` and ``C`` give
    an almost constant function with ``||w||`` near 0, which is farthest from every point and
    predicts the majority class everywhere. Ties are broken at random by a draw keyed by
    ``seed`` and the point (see :func:`critical`).

    Parameters
    ----------
    gammas, Cs : sequence of float
        Default: Table 2 of Hardoon et al. (2009).
    seed : int
    margin : {"functional", "geometric"}

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the positive class of the SVMs.
    grid_ : ModelGrid
    """

    __test__ = False  # not a pytest test class, despite its name

    def __init__(self, gammas=GAMMAS, Cs=CS, seed=0, margin="functional"):
        self.gammas = gammas
        self.Cs = Cs
        self.seed = seed
        self.margin = margin

    def fit(self, X, y):
        """Train every model of the grid on ``(X, y)``."""
        if self.margin not in MARGINS:
            raise ValueError(f"margin: must be one of {MARGINS}, got {self.margin!r}")
        gammas, Cs = self._grid()
        X, y = self._check_data(X, y)
        self.grid_ = fit_grid(X, y, gammas, Cs)
        self.n_iter_, self.work_ = self.grid_.n_iter, self.grid_.work
        return self

    def _choose(self, X) -> tuple[np.ndarray, np.ndarray]:
        """Decision values (M, m) and the farthest model of each point."""
        X = self._check_X(X)
        values = self.grid_.decision_values(X)
        return values, _random_argmin(-self._distances(values), self.seed, X)

    def _distances(self, values) -> np.ndarray:
        scale = self.grid_.w_norms() if self.margin == "geometric" else np.ones(len(values))
        return (np.abs(values) / scale[:, None]).T

    def distances(self, X) -> np.ndarray:
        """Margins ``|f_k(x)|`` (or ``|f_k(x)| / ||w_k||``): shape ``(m, len(grid_.usable))``."""
        X = self._check_X(X)
        return self._distances(self.grid_.decision_values(X))

    def chosen_model(self, X) -> np.ndarray:
        """Grid index of the farthest model for each point (random among ties, keyed draws)."""
        chosen = self._choose(X)[1]
        return self.grid_.usable[chosen]

    def predict(self, X) -> np.ndarray:
        """The label of ``sign f_k(x)`` under the chosen model (``classes_[1]`` at 0)."""
        values, k = self._choose(X)
        return self._decode(_sign(values[k, np.arange(values.shape[1])]))
