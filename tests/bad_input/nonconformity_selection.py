"""Bad input to the module functions of svmtrust.nonconformity_selection."""

import numpy as np
from svmtrust import nonconformity_selection as ns

from ._data import X, Y, nan

M = "svmtrust.nonconformity_selection."
GRID = ns.fit_grid(X, Y, gammas=(1.0,), Cs=(1.0,))
P = np.full((2, 3, 2), 0.5)
MARGINS = np.ones((3, 4))
VALUES = np.ones((3, 2))

CASES = [
    (M + "fit_grid", "gammas empty", lambda: ns.fit_grid(X, Y, gammas=()), "gammas"),
    (M + "fit_grid", "Cs negative", lambda: ns.fit_grid(X, Y, Cs=(-1.0,)), "Cs"),
    (M + "fit_grid", "Cs strings", lambda: ns.fit_grid(X, Y, Cs=("a",)), "Cs"),
    (M + "fit_grid", "gammas a boolean", lambda: ns.fit_grid(X, Y, gammas=(True,)), "gammas"),
    (M + "fit_grid", "Cs numeric strings", lambda: ns.fit_grid(X, Y, Cs=("1",)), "Cs"),
    (
        M + "fit_grid",
        "gammas a ragged list",
        lambda: ns.fit_grid(X, Y, gammas=[1.0, [2.0]]),
        "gammas",
    ),
    (M + "fit_grid", "Cs inf", lambda: ns.fit_grid(X, Y, Cs=(np.inf,)), "Cs"),
    (M + "fit_grid", "X NaN", lambda: ns.fit_grid(nan(X), Y), "X"),
    (M + "fit_grid", "labels 0/1", lambda: ns.fit_grid(X, Y > 0), "y"),
    (M + "ModelGrid.decision_values", "X width", lambda: GRID.decision_values(X[:, :1]), "X"),
    (M + "ModelGrid.decision_values", "X NaN", lambda: GRID.decision_values(nan(X)), "X"),
    (
        M + "nonconformity_p_values",
        "margins NaN",
        lambda: ns.nonconformity_p_values(nan(MARGINS), VALUES),
        "validation_margins",
    ),
    (
        M + "nonconformity_p_values",
        "test_values rows",
        lambda: ns.nonconformity_p_values(MARGINS, np.ones((2, 2))),
        "test_values",
    ),
    (
        M + "nonconformity_p_values",
        "test_values 1-D",
        lambda: ns.nonconformity_p_values(MARGINS, np.ones(3)),
        "test_values",
    ),
    (M + "critical", "tie_break unknown", lambda: ns.critical(P, tie_break="first"), "tie_break"),
    (M + "critical", "tie keys rows", lambda: ns.critical(P, keys=np.zeros((3, 1))), "keys"),
    (M + "critical", "tie seed negative", lambda: ns.critical(P, seed=-1), "seed"),
    (M + "critical", "seed a string", lambda: ns.critical(P, seed="0"), "seed"),
    (M + "critical", "P NaN", lambda: ns.critical(nan(P)), "P"),
    (M + "critical", "P outside [0, 1]", lambda: ns.critical(P + 1.0), "P"),
    (M + "critical", "P 2-D", lambda: ns.critical(np.zeros((2, 3))), "P"),
    (M + "critical", "P strings", lambda: ns.critical(np.full((1, 1, 2), "a")), "P"),
    (M + "critical", "keys NaN", lambda: ns.critical(P, keys=nan(np.zeros((2, 1)))), "keys"),
    (M + "vc_deviation", "m zero", lambda: ns.vc_deviation(0, 1, 0.05), "m"),
    (M + "vc_deviation", "d above m", lambda: ns.vc_deviation(5, 6, 0.05), "d"),
    (M + "vc_deviation", "delta 0", lambda: ns.vc_deviation(5, 1, 0.0), "delta"),
    (M + "dkw_deviation", "dkw m zero", lambda: ns.dkw_deviation(0, 0.05), "m"),
    (M + "dkw_deviation", "m a float", lambda: ns.dkw_deviation(10.0, 0.05), "m"),
    (
        M + "nonconformity_bound",
        "bound kind",
        lambda: ns.nonconformity_bound(0.1, 50, 110, 0.05, kind="hoeffding"),
        "kind",
    ),
    (
        M + "nonconformity_bound",
        "bound delta",
        lambda: ns.nonconformity_bound(0.1, 50, 110, 1.5, kind="dkw"),
        "delta",
    ),
    (
        M + "nonconformity_bound",
        "epsilon_crit NaN",
        lambda: ns.nonconformity_bound(np.nan, 50, 110, 0.05),
        "epsilon_crit",
    ),
    (
        M + "nonconformity_bound",
        "epsilon_crit above 1",
        lambda: ns.nonconformity_bound(1.5, 50, 110, 0.05),
        "epsilon_crit",
    ),
    (
        M + "nonconformity_bound",
        "epsilon_crit strings",
        lambda: ns.nonconformity_bound(["a"], 50, 110, 0.05),
        "epsilon_crit",
    ),
    (M + "nonconformity_bound", "n zero", lambda: ns.nonconformity_bound(0.1, 0, 110, 0.05), "n"),
    (
        M + "nonconformity_bound",
        "n_models zero",
        lambda: ns.nonconformity_bound(0.1, 50, 0, 0.05),
        "n_models",
    ),
    (M + "point_keys", "X 1-D", lambda: ns.point_keys(np.ones(3)), "X"),
    (M + "point_keys", "X strings", lambda: ns.point_keys([["a"]]), "X"),
    (M + "point_keys", "X NaN", lambda: ns.point_keys(nan(X)), "X"),
    (
        M + "default_validation_size",
        "n_samples zero",
        lambda: ns.default_validation_size(0),
        "n_samples",
    ),
    (
        M + "default_validation_size",
        "n_samples a string",
        lambda: ns.default_validation_size("100"),
        "n_samples",
    ),
    (
        M + "default_validation_size",
        "n_samples 2.7",
        lambda: ns.default_validation_size(2.7),
        "n_samples",
    ),
]
