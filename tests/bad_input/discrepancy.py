"""Bad input to the public functions of svmtrust.discrepancy."""

import numpy as np
from svmtrust import discrepancy as d
from svmtrust.kernels import rbf_kernel

from ._data import X, Y, nan

M = "svmtrust.discrepancy."
REP = d.represent(X)
RUN = d.peel(REP, Y, 1.0)
RNG = np.random.default_rng(0)

CASES = [
    (M + "soft_loss", "margins NaN", lambda: d.soft_loss([np.nan]), "margins"),
    (M + "soft_loss", "margins strings", lambda: d.soft_loss(["a"]), "margins"),
    (M + "represent", "X NaN", lambda: d.represent(nan(X)), "X"),
    (M + "represent", "X 1-D", lambda: d.represent(X[:, 0]), "X"),
    (M + "represent", "X X^T overflows", lambda: d.represent(X * 1e200), "X"),
    (M + "represent", "X X^T above 1e150", lambda: d.represent(X * 1e100), "X"),
    (M + "represent", "kernel not callable", lambda: d.represent(X, kernel="rbf"), "kernel"),
    (
        M + "represent",
        "kernel not PSD",
        lambda: d.represent(X, kernel=lambda A, B: -A @ B.T),
        "kernel",
    ),
    (M + "solve_reduced", "rep a matrix", lambda: d.solve_reduced(X, Y, 1.0), "rep"),
    (M + "solve_reduced", "y short", lambda: d.solve_reduced(REP, Y[:-1], 1.0), "y"),
    (M + "solve_reduced", "w_max zero", lambda: d.solve_reduced(REP, Y, 0.0), "w_max"),
    (M + "fit_bounded_w", "w_max negative", lambda: d.fit_bounded_w(X, Y, -1.0), "w_max"),
    (M + "fit_bounded_w", "labels 0/1", lambda: d.fit_bounded_w(X, Y > 0, 1.0), "y"),
    (M + "fit_bounded_w", "X NaN", lambda: d.fit_bounded_w(nan(X), Y, 1.0), "X"),
    (M + "peel", "rep a matrix", lambda: d.peel(X, Y, 1.0), "rep"),
    (M + "peel", "labels 0/1", lambda: d.peel(REP, (Y > 0) * 1.0, 1.0), "y"),
    (M + "peel", "w_max NaN", lambda: d.peel(REP, Y, np.nan), "w_max"),
    (
        M + "peeled_soft_loss_bounds",
        "w_max a string",
        lambda: d.peeled_soft_loss_bounds(X, Y, "1"),
        "w_max",
    ),
    (
        M + "peeled_soft_loss_bounds",
        "one class",
        lambda: d.peeled_soft_loss_bounds(X, np.ones(8), 1.0),
        "y",
    ),
    (M + "delta_term", "l zero", lambda: d.delta_term(0), "l"),
    (M + "delta_term", "l negative", lambda: d.delta_term(-4), "l"),
    (M + "delta_term", "l a float", lambda: d.delta_term(2.5), "l"),
    (M + "delta_term", "delta 1", lambda: d.delta_term(10, 1.0), "delta"),
    (M + "delta_term", "classes zero", lambda: d.delta_term(10, 0.05, 0), "classes"),
    (M + "delta_term", "classes a float", lambda: d.delta_term(10, 0.05, 2.5), "classes"),
    (M + "flipped_labels", "rng a seed", lambda: d.flipped_labels(Y, 0), "rng"),
    (M + "flipped_labels", "labels 0/1", lambda: d.flipped_labels(Y > 0, RNG), "y"),
    (M + "flipped_labels", "labels a list", lambda: d.flipped_labels([1.0, 2.0], RNG), "y"),
    (
        M + "discrepancy_runs",
        "n_shuffles zero",
        lambda: d.discrepancy_runs(REP, Y, 1.0, 0, RNG),
        "n_shuffles",
    ),
    (
        M + "discrepancy_runs",
        "n_shuffles a float",
        lambda: d.discrepancy_runs(REP, Y, 1.0, 2.5, RNG),
        "n_shuffles",
    ),
    (
        M + "discrepancy_runs",
        "rng a string",
        lambda: d.discrepancy_runs(REP, Y, 1.0, 2, "0"),
        "rng",
    ),
    (M + "discrepancy_runs", "rep a matrix", lambda: d.discrepancy_runs(X, Y, 1.0, 2, RNG), "rep"),
    (
        M + "maximal_discrepancy",
        "seed a string",
        lambda: d.maximal_discrepancy(X, Y, 1.0, 2, seed="0"),
        "seed",
    ),
    (
        M + "maximal_discrepancy",
        "seed negative",
        lambda: d.maximal_discrepancy(X, Y, 1.0, 2, seed=-1),
        "seed",
    ),
    (
        M + "maximal_discrepancy",
        "bounded a string",
        lambda: d.maximal_discrepancy(X, Y, 1.0, 2, bounded="False"),
        "bounded",
    ),
    (
        M + "maximal_discrepancy",
        "n_shuffles zero",
        lambda: d.maximal_discrepancy(X, Y, 1.0, 0),
        "n_shuffles",
    ),
    (M + "maximal_discrepancy", "l odd", lambda: d.maximal_discrepancy(X[:7], Y[:7], 1.0, 2), "X"),
    (
        M + "maximal_discrepancy",
        "delta 0",
        lambda: d.maximal_discrepancy(X, Y, 1.0, 2, delta=0.0),
        "delta",
    ),
    (
        M + "maximal_discrepancy",
        "kernel a string",
        lambda: d.maximal_discrepancy(X, Y, 1.0, 2, kernel="rbf"),
        "kernel",
    ),
    (
        M + "summarise_runs",
        "train not a PeelingRun",
        lambda: d.summarise_runs(REP, None, [RUN], True, 1.0),
        "train",
    ),
    (
        M + "summarise_runs",
        "shuffles empty",
        lambda: d.summarise_runs(REP, RUN, [], True, 1.0),
        "shuffles",
    ),
    (
        M + "summarise_runs",
        "bounded a string",
        lambda: d.summarise_runs(REP, RUN, [RUN], "no", 1.0),
        "bounded",
    ),
    (
        M + "summarise_runs",
        "w_max zero",
        lambda: d.summarise_runs(REP, RUN, [RUN], True, 0.0),
        "w_max",
    ),
    (
        M + "summarise_runs",
        "rep a matrix",
        lambda: d.summarise_runs(X, RUN, [RUN], True, 1.0),
        "rep",
    ),
    (M + "exact_min_soft_loss", "w_max zero", lambda: d.exact_min_soft_loss(X, Y, 0.0), "w_max"),
    (
        M + "exact_min_soft_loss",
        "l too large",
        lambda: d.exact_min_soft_loss(np.tile(X, (2, 1)), np.tile(Y, 2), 1.0),
        "X",
    ),
    (M + "envelope_lower_bound", "rep a matrix", lambda: d.envelope_lower_bound(X, Y, 1.0), "rep"),
    (
        M + "envelope_lower_bound",
        "w_max inf",
        lambda: d.envelope_lower_bound(REP, Y, np.inf),
        "w_max",
    ),
    (M + "envelope_lower_bound", "y short", lambda: d.envelope_lower_bound(REP, Y[:-1], 1.0), "y"),
    (
        M + "soft_loss_lower_bound",
        "soft-loss bound w_max 0",
        lambda: d.soft_loss_lower_bound(X, Y, 0.0),
        "w_max",
    ),
    (
        M + "soft_loss_lower_bound",
        "soft-loss bound NaN X",
        lambda: d.soft_loss_lower_bound(nan(X), Y, 1.0),
        "X",
    ),
    (
        M + "soft_loss_lower_bound",
        "soft-loss bound one class",
        lambda: d.soft_loss_lower_bound(X, np.ones(8), 1.0),
        "y",
    ),
    (
        M + "soft_loss_lower_bound",
        "kernel overflows",
        lambda: d.soft_loss_lower_bound(X, Y, 1.0, kernel=lambda A, B: 1e200 * rbf_kernel(A, B)),
        "kernel",
    ),
    (
        M + "optimal_set_widths",
        "optimal widths slack 0",
        lambda: d.optimal_set_widths(X, Y, 1.0, slack=0.0),
        "slack",
    ),
    (
        M + "optimal_set_widths",
        "X strings",
        lambda: d.optimal_set_widths([["a", "b"]] * 8, Y, 1.0),
        "X",
    ),
]
