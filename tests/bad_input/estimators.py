"""Bad input to the library's scikit-learn estimators (TransductiveSVM, the three selectors of
nonconformity_selection) and to conformal.ConformalClassifierMixin: unfitted use (a
NotFittedError, which is a ValueError, naming X), complex, sparse and wrong-width X, bad labels
and bad parameters at fit time."""

import numpy as np
import scipy.sparse
from svmtrust.nonconformity_selection import (
    CrossValidationSelector,
    NonconformityModelSelector,
    TestMarginSelector,
)
from svmtrust.transduction import TransductiveSVM
from svmtrust.validation import check_estimator_X, check_estimator_y

from ._data import BAD_KERNELS

X = np.random.default_rng(0).normal(size=(12, 2))
Y = np.array([1.0, -1.0] * 6)
GRID = dict(gammas=(1.0,), Cs=(1.0,))
#: Valid parameters of each selector: a one-model grid (and 3 folds: 6 examples a class).
PARAMS = {
    "NonconformityModelSelector": GRID,
    "CrossValidationSelector": dict(GRID, folds=3),
    "TestMarginSelector": GRID,
}
TSVM = "svmtrust.transduction.TransductiveSVM"
MIXIN = "svmtrust.conformal.ConformalClassifierMixin"
NS = "svmtrust.nonconformity_selection."
SELECTORS = {
    "NonconformityModelSelector": NonconformityModelSelector,
    "CrossValidationSelector": CrossValidationSelector,
    "TestMarginSelector": TestMarginSelector,
}
SELECTOR_METHODS = {
    "NonconformityModelSelector": (
        "predict_p_all",
        "epsilon_crit_",
        "predict",
        "bound",
        "predict_p",
        "predict_set",
        "predict_confidence",
    ),
    "CrossValidationSelector": ("decision_function", "predict"),
    "TestMarginSelector": ("distances", "chosen_model", "predict"),
}
TSVM_METHODS = (
    "solve_hypotheses",
    "solve_mondrian",
    "solve_joint",
    "inductive_decision_function",
    "predict_p",
    "predict_p_joint",
)
MIXIN_METHODS = ("predict_confidence", "predict", "predict_set")


def _fitted(cls, **params):
    return cls(**params).fit(X, Y)


def _call(model, method, A):
    """``model.method(A)``, with the extra argument a method needs (a valid one)."""
    if method == "predict_set":
        return model.predict_set(A, 0.1)
    if method == "joint_p_value":
        return model.joint_p_value(A, Y[: A.shape[0]])
    return getattr(model, method)(A)


def _x_cases(qualname, fitted, method):
    """Unfitted use, complex, sparse and wrong-width X for one method of a fitted estimator."""
    return [
        (
            qualname,
            "not fitted",
            lambda: _call(type(fitted)(**fitted.get_params()), method, X),
            "X",
        ),
        (qualname, "X complex", lambda: _call(fitted, method, X[:2] + 1j), "X"),
        (qualname, "X sparse", lambda: _call(fitted, method, scipy.sparse.csr_matrix(X[:2])), "X"),
        (qualname, "X wrong width", lambda: _call(fitted, method, X[:2, :1]), "X"),
        (qualname, "X NaN", lambda: _call(fitted, method, np.r_[X[:1], [[np.nan, 0.0]]]), "X"),
    ]


def _fit_cases(qualname, cls, params):
    """Bad data at fit time, the same for every estimator."""
    return [
        (qualname, "X complex", lambda: cls(**params).fit(X + 1j, Y), "X"),
        (qualname, "X sparse", lambda: cls(**params).fit(scipy.sparse.csr_matrix(X), Y), "X"),
        (qualname, "X one row", lambda: cls(**params).fit(X[:1], Y[:1]), "X"),
        (qualname, "y missing", lambda: cls(**params).fit(X, None), "y"),
        (qualname, "y continuous", lambda: cls(**params).fit(X, Y + X[:, 0] / 7), "y"),
        (qualname, "y one class", lambda: cls(**params).fit(X, np.ones(12)), "y"),
        (qualname, "y too short", lambda: cls(**params).fit(X, Y[:-1]), "y"),
    ]


def _tsvm_cases():
    model = _fitted(TransductiveSVM, C=1.0)
    cases = _fit_cases(TSVM + ".fit", TransductiveSVM, {"C": 1.0})
    for method in TSVM_METHODS + ("joint_p_value",):
        cases += _x_cases(f"{TSVM}.{method}", model, method)
    for method in MIXIN_METHODS:
        cases += _x_cases(f"{MIXIN}.{method}", model, method)
    bad_params = [
        ("kernel", "a string"),
        ("C", 0.0),
        ("solver", "osqp"),
        ("max_joint", 0),
        ("reuse_outside_margin", "yes"),
        ("mondrian", 1),
        ("tie_break", "random"),
        ("method", "exact"),
        ("method", None),
        ("kernel", "sigmoid"),
    ]
    cases += [
        (
            TSVM + ".fit",
            f"{name} {value!r}",
            lambda name=name, value=value: TransductiveSVM(**{name: value}).fit(X, Y),
            name,
        )
        for name, value in bad_params
    ]
    cases += [
        (TSVM + ".fit", text, lambda k=kernel: TransductiveSVM(kernel=k).fit(X, Y), "kernel")
        for text, kernel in BAD_KERNELS
    ]
    cases += [
        (
            TSVM + ".joint_p_value",
            "y an unknown label",
            lambda: model.joint_p_value(X[:2], [1.0, 3.0]),
            "y",
        ),
        (TSVM + ".joint_p_value", "y too short", lambda: model.joint_p_value(X[:2], [1.0]), "y"),
        (
            TSVM + ".solve_joint",
            "more than max_joint points",
            lambda: TransductiveSVM(C=1.0, max_joint=1).fit(X, Y).solve_joint(X[:2]),
            "X",
        ),
        (
            MIXIN + ".predict_set",
            "significance 0",
            lambda: model.predict_set(X[:2], 0.0),
            "significance",
        ),
    ]
    return cases


def _selector_cases():
    cases = []
    for name, cls in SELECTORS.items():
        qualname, params = NS + name, PARAMS[name]
        cases += _fit_cases(qualname + ".fit", cls, params)
        cases += [
            (
                qualname + ".fit",
                "three classes",
                lambda cls=cls, params=params: cls(**params).fit(X, np.arange(12) % 3),
                "y",
            ),
            (
                qualname + ".fit",
                "gammas empty",
                lambda cls=cls: cls(gammas=(), Cs=(1.0,)).fit(X, Y),
                "gammas",
            ),
            (
                qualname + ".fit",
                "Cs negative",
                lambda cls=cls: cls(gammas=(1.0,), Cs=(-1.0,)).fit(X, Y),
                "Cs",
            ),
            (
                qualname + ".fit",
                "seed negative",
                lambda cls=cls, params=params: cls(**params, seed=-1).fit(X, Y),
                "seed",
            ),
            (
                qualname + ".fit",
                "seed 2**32",
                lambda cls=cls, params=params: cls(**params, seed=2**32).fit(X, Y),
                "seed",
            ),
            (
                qualname + ".fit",
                "seed a string",
                lambda cls=cls, params=params: cls(**params, seed="0").fit(X, Y),
                "seed",
            ),
        ]
        model = _fitted(cls, **params)
        for method in SELECTOR_METHODS[name]:
            cases += _x_cases(f"{qualname}.{method}", model, method)
    ncms = NonconformityModelSelector
    model = _fitted(ncms, **GRID)
    cases += [
        (
            NS + "NonconformityModelSelector.fit",
            "tie_break unknown",
            lambda: ncms(**GRID, tie_break="first").fit(X, Y),
            "tie_break",
        ),
        (
            NS + "NonconformityModelSelector.fit",
            "validation_size above l - 2",
            lambda: ncms(**GRID, validation_size=11).fit(X, Y),
            "validation_size",
        ),
        (
            NS + "NonconformityModelSelector.bound",
            "delta 1",
            lambda: model.bound(X, delta=1.0),
            "delta",
        ),
        (
            NS + "NonconformityModelSelector.bound",
            "kind unknown",
            lambda: model.bound(X, kind="hoeffding"),
            "kind",
        ),
        (
            NS + "NonconformityModelSelector.predict_set",
            "significance NaN",
            lambda: model.predict_set(X, np.nan),
            "significance",
        ),
        (
            NS + "CrossValidationSelector.fit",
            "folds 1",
            lambda: CrossValidationSelector(**GRID, folds=1).fit(X, Y),
            "folds",
        ),
        (
            NS + "CrossValidationSelector.fit",
            "a class of one example (folds above a class are capped, down to 2)",
            lambda: CrossValidationSelector(**GRID).fit(X, np.r_[-1.0, np.ones(len(X) - 1)]),
            "y",
        ),
        (
            NS + "CrossValidationSelector.fit",
            "folds a float",
            lambda: CrossValidationSelector(**GRID, folds=3.0).fit(X, Y),
            "folds",
        ),
        (
            NS + "TestMarginSelector.fit",
            "margin unknown",
            lambda: TestMarginSelector(**GRID, margin="euclidean").fit(X, Y),
            "margin",
        ),
    ]
    return cases


def _validation_cases():
    """The checks the estimators share, in svmtrust.validation."""
    V = "svmtrust.validation."
    with_dict = np.array(X, dtype=object)
    with_dict[0, 0] = {"a": 1}
    return [
        (
            V + "check_estimator_X",
            "not fitted",
            lambda: check_estimator_X(TransductiveSVM(), X, reset=False),
            "X",
        ),
        (
            V + "check_estimator_X",
            "X 1-D",
            lambda: check_estimator_X(TransductiveSVM(), Y, True),
            "X",
        ),
        (
            V + "check_estimator_X",
            "X no columns",
            lambda: check_estimator_X(TransductiveSVM(), X[:, :0], True),
            "X",
        ),
        (
            V + "InputTypeError",
            "X holding a dict",
            lambda: check_estimator_X(TransductiveSVM(), with_dict, True),
            "X",
        ),
        (V + "check_estimator_y", "y 2-D", lambda: check_estimator_y(np.c_[Y, Y], 12), "y"),
        (
            V + "check_estimator_y",
            "y NaN",
            lambda: check_estimator_y(np.r_[np.nan, Y[1:]], 12),
            "y",
        ),
        (
            V + "check_estimator_y",
            "three classes, binary",
            lambda: check_estimator_y(np.arange(12) % 3, 12, binary=True),
            "y",
        ),
    ]


CASES = _tsvm_cases() + _selector_cases() + _validation_cases()
