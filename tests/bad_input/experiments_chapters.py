"""Bad input to the chapters' protocols, svmtrust.experiments.<chapter>: every run and summary
(scale, seed, n_jobs, progress, results) and the helpers they export."""

import numpy as np
import pandas as pd
from svmtrust.experiments import confidence_compared as xc
from svmtrust.experiments import discrepancy as xd
from svmtrust.experiments import nonconformity_selection as xn
from svmtrust.experiments import selection_compared as xsc
from svmtrust.experiments import span as xs
from svmtrust.experiments import svm as xv
from svmtrust.experiments import tcm_nn as xt
from svmtrust.experiments import transduction as xr

from ._data import K, X, Y, nan

EMPTY = pd.DataFrame()
RNG = np.random.default_rng(0)
P = np.full((2, 2), 0.5)

_RUNS = {
    "discrepancy": xd.run,
    "nonconformity_selection": xn.run,
    "span": xs.run,
    "svm": xv.run,
    "tcm_nn": xt.run,
    "transduction": xr.run,
}

#: The task lists of the runs' stages (``scale`` first, then ``seed`` where they take one).
_TASKS = {
    "confidence_compared.tasks": xc.tasks,
    "discrepancy.select_tasks": xd.select_tasks,
    "discrepancy.fine_tasks": xd.fine_tasks,
    "nonconformity_selection.tasks": xn.tasks,
    "selection_compared.tasks": xsc.tasks,
    "span.tasks": xs.tasks,
    "tcm_nn.tasks": xt.tasks,
}

#: Functions of one results table (a DataFrame), by qualname, with the argument's name.
_TABLES = {
    "discrepancy.select_w_max": (xd.select_w_max, "select"),
    "discrepancy.table1": (xd.table1, "results"),
    "discrepancy.cv_comparison": (xd.cv_comparison, "results"),
    "discrepancy.table1_text": (xd.table1_text, "results"),
    "discrepancy.fine_minimum": (xd.fine_minimum, "certified"),
    "discrepancy.summary": (xd.summary, "results"),
    "nonconformity_selection.table3": (xn.table3, "results"),
    "nonconformity_selection.side_by_side": (xn.side_by_side, "results"),
    "nonconformity_selection.nonconformity_summary": (xn.nonconformity_summary, "results"),
    "nonconformity_selection.work_ratios": (xn.work_ratios, "results"),
    "nonconformity_selection.preprocessing_table": (xn.preprocessing_table, "results"),
    "nonconformity_selection.sd_comparison": (xn.sd_comparison, "results"),
    "nonconformity_selection.summary": (xn.summary, "results"),
    "span.selection_table": (xs.selection_table, "results"),
    "span.summary": (xs.summary, "results"),
    "svm.summary": (xv.summary, "results"),
    "tcm_nn.error_table": (xt.error_table, "results"),
    "tcm_nn.table1": (xt.table1, "results"),
    "tcm_nn.table2": (xt.table2, "results"),
    "tcm_nn.table3": (xt.table3, "results"),
    "tcm_nn.error_by_k": (xt.error_by_k, "results"),
    "tcm_nn.calibration": (xt.calibration, "results"),
    "tcm_nn.summary": (xt.summary, "results"),
    "transduction.credibility_summary": (xr.credibility_summary, "table"),
    "transduction.table2": (xr.table2, "runs"),
    "transduction.add_intervals": (xr.add_intervals, "table"),
    "transduction.summary": (xr.summary, "results"),
}

M = "svmtrust.experiments."

CASES = (
    [
        case
        for chapter, run in _RUNS.items()
        for case in [
            (f"{M}{chapter}.run", "scale unknown", lambda r=run: r(scale="huge"), "scale"),
            (f"{M}{chapter}.run", "seed a string", lambda r=run: r(seed="0"), "seed"),
            (f"{M}{chapter}.run", "seed negative", lambda r=run: r(seed=-1), "seed"),
            (f"{M}{chapter}.run", "seed 2**32", lambda r=run: r(seed=2**32), "seed"),
            (f"{M}{chapter}.run", "n_jobs zero", lambda r=run: r(n_jobs=0), "n_jobs"),
        ]
    ]
    + [
        (f"{M}{chapter}.run", "progress a string", lambda r=run: r(progress="no"), "progress")
        for chapter, run in _RUNS.items()
        if chapter != "svm"
    ]
    + [(M + name, "scale unknown", lambda f=f: f("huge"), "scale") for name, f in _TASKS.items()]
    + [
        (
            M + "nonconformity_selection.tasks",
            "seed negative",
            lambda: xn.tasks("book", -1),
            "seed",
        ),
        (M + "span.tasks", "seed a string", lambda: xs.tasks("book", "0"), "seed"),
        (
            M + "transduction.KERNEL",
            "NaN in X",
            lambda: xr.KERNEL(np.array([[np.nan, 1.0]])),
            "X",
        ),
        (M + "tcm_nn.tasks", "seed negative", lambda: xt.tasks("book", -1), "seed"),
        (
            M + "discrepancy.table_tasks",
            "scale unknown",
            lambda: xd.table_tasks("huge", {}),
            "scale",
        ),
        (
            M + "discrepancy.certified_tasks",
            "results empty",
            lambda: xd.certified_tasks(EMPTY),
            "results",
        ),
        (M + "transduction.table1_tasks", "seed negative", lambda: xr.table1_tasks(-1), "seed"),
        (
            M + "transduction.table1_tasks",
            "solver unknown",
            lambda: xr.table1_tasks(0, 10, solver="smo"),
            "solver",
        ),
        (
            M + "nonconformity_selection.evaluate_fold",
            "baselines a string",
            lambda: xn.evaluate_fold(
                "bupa", 0, np.arange(20), np.arange(20, 30), (1.0,), (1.0,), 0, baselines="no"
            ),
            "baselines",
        ),
    ]
    + [
        case
        for qualname, (func, arg) in _TABLES.items()
        for case in [
            (M + qualname, f"{arg} not a table", lambda f=func: f(None), arg),
            (M + qualname, f"{arg} empty", lambda f=func: f(EMPTY), arg),
        ]
    ]
    + [
        (M + "discrepancy.bound_row", "m zero", lambda: xd.bound_row(X, Y, X, Y, 1.0, 0, RNG), "m"),
        (
            M + "discrepancy.bound_row",
            "rng a seed",
            lambda: xd.bound_row(X, Y, X, Y, 1.0, 2, 0),
            "rng",
        ),
        (
            M + "discrepancy.bound_row",
            "y_test short",
            lambda: xd.bound_row(X, Y, X, Y[:-1], 1.0, 2, RNG),
            "y_test",
        ),
        (M + "discrepancy.cv_choice", "folds one", lambda: xd.cv_choice(X, Y, 1, RNG), "folds"),
        (M + "discrepancy.cv_choice", "folds above l", lambda: xd.cv_choice(X, Y, 9, RNG), "folds"),
        (
            M + "discrepancy.md_floor",
            "labels 0/1",
            lambda: xd.md_floor(np.array([0.0, 1.0])),
            "y_flipped",
        ),
        (M + "discrepancy.md_floor", "empty", lambda: xd.md_floor(np.array([])), "y_flipped"),
        (
            M + "discrepancy.certify",
            "scale unknown",
            lambda: xd.certify(EMPTY, scale="huge"),
            "scale",
        ),
        (M + "discrepancy.certify", "results empty", lambda: xd.certify(EMPTY), "results"),
        (
            M + "discrepancy.certify",
            "stages unknown",
            lambda: xd.certify(EMPTY, stages=("coarse",)),
            "stages",
        ),
        (
            M + "discrepancy.certified_table",
            "results empty",
            lambda: xd.certified_table(EMPTY, EMPTY),
            "results",
        ),
        (
            M + "discrepancy.certified_table",
            "delta 0",
            lambda: xd.certified_table(EMPTY, EMPTY, delta=0.0),
            "delta",
        ),
        (
            M + "discrepancy.main",
            "output in a missing folder, checked before the certified run",
            lambda: xd.main([__file__, "--output", "/no/such/folder/x.csv"]),
            "output",
        ),
        (
            M + "discrepancy.main",
            "input missing",
            lambda: xd.main(["/no/such.csv", "--output", "/tmp/x.csv"]),
            "input",
        ),
        (
            M + "nonconformity_selection.minmax_scale",
            "train NaN",
            lambda: xn.minmax_scale(nan(X), X),
            "train",
        ),
        (
            M + "nonconformity_selection.minmax_scale",
            "test width",
            lambda: xn.minmax_scale(X, X[:, :1]),
            "test",
        ),
        (
            M + "nonconformity_selection.load",
            "variant unknown",
            lambda: xn.load("credit-onehot"),
            "name",
        ),
        (
            M + "nonconformity_selection.outer_folds",
            "name unknown",
            lambda: xn.outer_folds("iris", 0),
            "name",
        ),
        (
            M + "nonconformity_selection.outer_folds",
            "seed negative",
            lambda: xn.outer_folds("bupa", -1),
            "seed",
        ),
        (
            M + "nonconformity_selection.outer_folds",
            "seed 2**32",
            lambda: xn.outer_folds("bupa", 2**32),
            "seed",
        ),
        (
            M + "nonconformity_selection.fold_data",
            "train out of range",
            lambda: xn.fold_data("bupa", np.array([10**6]), np.array([0])),
            "train",
        ),
        (
            M + "nonconformity_selection.fold_data",
            "train floats",
            lambda: xn.fold_data("bupa", np.array([0.5]), np.array([0])),
            "train",
        ),
        (M + "nonconformity_selection.grid", "scale unknown", lambda: xn.grid("huge"), "scale"),
        (
            M + "nonconformity_selection.evaluate_fold",
            "seed a string",
            lambda: xn.evaluate_fold(
                "bupa", 0, np.arange(20), np.arange(20, 30), (1.0,), (1.0,), "0"
            ),
            "seed",
        ),
        (
            M + "nonconformity_selection.evaluate_fold",
            "name unknown",
            lambda: xn.evaluate_fold(
                "iris", 0, np.arange(20), np.arange(20, 30), (1.0,), (1.0,), 0
            ),
            "name",
        ),
        (
            M + "nonconformity_selection.work_ratios",
            "name unknown",
            lambda: xn.work_ratios(EMPTY, name="iris"),
            "results",
        ),
        (
            M + "nonconformity_selection.fold_seed",
            "name unknown",
            lambda: xn.fold_seed("iris", 0),
            "name",
        ),
        (
            M + "nonconformity_selection.fold_seed",
            "fold negative",
            lambda: xn.fold_seed("bupa", -1),
            "fold",
        ),
        (
            M + "nonconformity_selection.fold_seed",
            "fold beyond the book-scale run",
            lambda: xn.fold_seed("bupa", 1, scale="book"),
            "fold",
        ),
        (
            M + "nonconformity_selection.fold_seed",
            "seed a string",
            lambda: xn.fold_seed("bupa", 0, seed="0"),
            "seed",
        ),
        (
            M + "nonconformity_selection.tie_spread",
            "n_seeds zero",
            lambda: xn.tie_spread(n_seeds=0),
            "n_seeds",
        ),
        (
            M + "nonconformity_selection.tie_spread",
            "fold too large",
            lambda: xn.tie_spread(fold=99),
            "fold",
        ),
        (
            M + "nonconformity_selection.patch_counterexample",
            "patch 2",
            lambda: xn.patch_counterexample(patch=2.0),
            "patch",
        ),
        (
            M + "nonconformity_selection.patch_counterexample",
            "n zero",
            lambda: xn.patch_counterexample(n=0),
            "n",
        ),
        (
            M + "nonconformity_selection.bound_curve",
            "kind unknown",
            lambda: xn.bound_curve(kind="hoeffding"),
            "kind",
        ),
        (
            M + "nonconformity_selection.bound_curve",
            "fold too large",
            lambda: xn.bound_curve(fold=99),
            "fold",
        ),
        (
            M + "nonconformity_selection.validity_check",
            "n_validation zero",
            lambda: xn.validity_check(n_validation=0),
            "n_validation",
        ),
        (
            M + "nonconformity_selection.validity_check",
            "significances 0",
            lambda: xn.validity_check(significances=(0.0,)),
            "significances",
        ),
        (
            M + "nonconformity_selection.validity_check",
            "C negative",
            lambda: xn.validity_check(C=-1.0),
            "C",
        ),
        (
            M + "nonconformity_selection.time_ratio",
            "gammas empty",
            lambda: xn.time_ratio(gammas=()),
            "gammas",
        ),
        (
            M + "nonconformity_selection.time_ratio",
            "seed negative",
            lambda: xn.time_ratio(seed=-1),
            "seed",
        ),
        (M + "span.evaluate", "C zero", lambda: xs.evaluate(K, Y, K, Y, 0.0), "C"),
        (
            M + "span.evaluate",
            "K_test width",
            lambda: xs.evaluate(K, Y, K[:, :3], Y, 1.0),
            "K_test",
        ),
        (
            M + "span.evaluate",
            "theorem1 a string",
            lambda: xs.evaluate(K, Y, K, Y, 1.0, theorem1="no"),
            "theorem1",
        ),
        (M + "span.digit_split", "n_trials zero", lambda: xs.digit_split(0), "n_trials"),
        (M + "span.digit_split", "seed a string", lambda: xs.digit_split(1, seed="0"), "seed"),
        (M + "span.breast_split", "trial negative", lambda: xs.breast_split(-1), "trial"),
        (M + "span.breast_split", "trial a string", lambda: xs.breast_split("1"), "trial"),
        (M + "span.curves", "data unknown", lambda: xs.curves(EMPTY, "iris"), "results"),
        (
            M + "svm.standardised_gram",
            "kernel unknown",
            lambda: xv.standardised_gram(X, "sigmoid"),
            "kernel",
        ),
        (M + "svm.standardised_gram", "X NaN", lambda: xv.standardised_gram(nan(X), "rbf"), "X"),
        (M + "svm.compare_solvers", "C zero", lambda: xv.compare_solvers(K, Y, 0.0), "C"),
        (M + "svm.timing_table", "sizes zero", lambda: xv.timing_table(sizes=(0,)), "sizes"),
        (M + "svm.timing_table", "name unknown", lambda: xv.timing_table(name="iris"), "name"),
        (M + "svm.timing_table", "seed negative", lambda: xv.timing_table(seed=-1), "seed"),
        (M + "tcm_nn.load", "name unknown", lambda: xt.load("iris"), "name"),
        (M + "tcm_nn.splits", "seed negative", lambda: xt.splits("segment", -1), "seed"),
        (M + "tcm_nn.splits", "seed 2**32", lambda: xt.splits("segment", 2**32), "seed"),
        (
            M + "tcm_nn.region_counts",
            "significance 0",
            lambda: xt.region_counts(P, np.array([0, 1]), 0.0),
            "significance",
        ),
        (
            M + "tcm_nn.region_counts",
            "true_index out of range",
            lambda: xt.region_counts(P, np.array([0, 5]), 0.1),
            "true_index",
        ),
        (
            M + "tcm_nn.evaluate_split",
            "ks empty without the SVM",
            lambda: xt.evaluate_split(
                "segment", 0, np.arange(50), np.arange(50, 60), (), svm=False
            ),
            "ks",
        ),
        (
            M + "tcm_nn.evaluate_split",
            "ks zero",
            lambda: xt.evaluate_split("segment", 0, np.arange(50), np.arange(50, 60), (0,)),
            "ks",
        ),
        (M + "tcm_nn.implied_error", "one above 100", lambda: xt.implied_error(150, 0, 50), "one"),
        (M + "tcm_nn.table3", "levels 0", lambda: xt.table3(EMPTY, levels=(0.0,)), "levels"),
        (M + "tcm_nn.seed_spread", "fixed split", lambda: xt.seed_spread("satimage"), "name"),
        (
            M + "tcm_nn.seed_spread",
            "seeds negative",
            lambda: xt.seed_spread("segment", seeds=(-1,), ks=(1,)),
            "seeds",
        ),
        (
            M + "tcm_nn.random_split_errors",
            "n_train zero",
            lambda: xt.random_split_errors("segment", n_train=0),
            "n_train",
        ),
        (
            M + "tcm_nn.random_split_errors",
            "n_train a string",
            lambda: xt.random_split_errors("segment", n_train="100"),
            "n_train",
        ),
        (M + "tcm_nn.affected_examples", "k zero", lambda: xt.affected_examples(X, Y, X, k=0), "k"),
        (
            M + "tcm_nn.affected_examples",
            "X_test NaN",
            lambda: xt.affected_examples(X, Y, nan(X)),
            "X_test",
        ),
        (
            M + "transduction.two_against_seven",
            "data unknown",
            lambda: xr.two_against_seven("iris"),
            "data",
        ),
        (
            M + "transduction.standard_svm_predict",
            "model unfitted",
            lambda: xr.standard_svm_predict(object(), X),
            "model",
        ),
        (M + "transduction.table1_many", "seeds zero", lambda: xr.table1_many(0, 10), "seeds"),
        (M + "transduction.table1_many", "n_test zero", lambda: xr.table1_many(1, 0), "n_test"),
        (M + "transduction.table1_split", "seed negative", lambda: xr.table1_split(-1), "seed"),
        (M + "transduction.table1", "n_test zero", lambda: xr.table1(n_test=0), "n_test"),
        (M + "transduction.table1", "solver unknown", lambda: xr.table1(solver="smo"), "solver"),
        (M + "transduction.table1", "seed a string", lambda: xr.table1(seed="0"), "seed"),
        (
            M + "transduction.nearest_neighbour_predict",
            "X width",
            lambda: xr.nearest_neighbour_predict(X, Y, X[:, :1]),
            "X",
        ),
        (
            M + "transduction.nearest_neighbour_predict",
            "y_train short",
            lambda: xr.nearest_neighbour_predict(X, Y[:-1], X),
            "y_train",
        ),
        (M + "transduction.table2_runs", "runs zero", lambda: xr.table2_runs(runs=0), "runs"),
        (M + "transduction.table2_runs", "sizes zero", lambda: xr.table2_runs(sizes=(0,)), "sizes"),
        (
            M + "transduction.table2_runs",
            "data unknown",
            lambda: xr.table2_runs(data=("iris",)),
            "data",
        ),
        (M + "transduction.table2_runs", "seed negative", lambda: xr.table2_runs(seed=-1), "seed"),
        (
            M + "transduction.table2_runs",
            "only a data set outside data",
            lambda: xr.table2_runs(data=("usps_like",), only="optdigits"),
            "only",
        ),
        (
            M + "transduction.clopper_pearson",
            "shapes that do not broadcast",
            lambda: xr.clopper_pearson([1, 2], [3, 4, 5]),
            "trials",
        ),
        (
            M + "transduction.clopper_pearson",
            "trials 1e300",
            lambda: xr.clopper_pearson(1e300, 1e300),
            "errors",
        ),
        (
            M + "transduction.clopper_pearson",
            "errors above trials",
            lambda: xr.clopper_pearson(5, 3),
            "errors",
        ),
        (
            M + "transduction.clopper_pearson",
            "level 1",
            lambda: xr.clopper_pearson(1, 3, 1.0),
            "level",
        ),
        (
            M + "transduction.clopper_pearson",
            "trials zero",
            lambda: xr.clopper_pearson(0, 0),
            "trials",
        ),
        (
            M + "transduction.clopper_pearson",
            "trials infinite",
            lambda: xr.clopper_pearson(1, np.inf),
            "trials",
        ),
        (
            M + "transduction.clopper_pearson",
            "errors not a whole number",
            lambda: xr.clopper_pearson(2.5, 10),
            "errors",
        ),
        (
            M + "transduction.clopper_pearson",
            "errors NaN",
            lambda: xr.clopper_pearson(np.nan, 10),
            "errors",
        ),
        (
            M + "transduction.clopper_pearson",
            "trials a boolean",
            lambda: xr.clopper_pearson(0, True),
            "trials",
        ),
        (
            M + "transduction.calibration",
            "runs empty",
            lambda: xr.calibration(EMPTY, (0.05,)),
            "runs",
        ),
        (
            M + "transduction.calibration",
            "band 0",
            lambda: xr.calibration(EMPTY, (0.05,), band=0.0),
            "band",
        ),
        (M + "transduction.joint_study", "ks one", lambda: xr.joint_study(ks=(1,)), "ks"),
        (
            M + "transduction.joint_study",
            "repeats zero",
            lambda: xr.joint_study(repeats=0),
            "repeats",
        ),
        (M + "transduction.joint_study", "seed a string", lambda: xr.joint_study(seed="0"), "seed"),
        (
            M + "transduction.joint_study",
            "solver unknown",
            lambda: xr.joint_study(solver="smo"),
            "solver",
        ),
    ]
)
