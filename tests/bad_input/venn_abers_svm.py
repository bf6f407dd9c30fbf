"""Bad input to svmtrust.venn_abers_svm.VennAbersSVM: parameters, labels and unfitted use."""

import numpy as np
from svmtrust.venn_abers_svm import VennAbersSVM

M = "svmtrust.venn_abers_svm.VennAbersSVM"
X = np.random.default_rng(0).normal(size=(12, 2))
Y = np.array([0, 1] * 6)


def _fit(**params):
    return lambda: VennAbersSVM(**params).fit(X, Y)


CASES = [
    (M, "predictor unknown", _fit(predictor="transductive"), "predictor"),
    (M, "merge unknown", _fit(merge="hinge"), "merge"),
    (M, "method unknown", _fit(predictor="full", method="fast"), "method"),
    (M, "C negative", _fit(C=-1.0), "C"),
    (M, "solver unknown", _fit(solver="svmlight"), "solver"),
    (M, "seed a string", _fit(seed="zero"), "seed"),
    (M, "n_folds 1", _fit(predictor="cross", n_folds=1), "n_folds"),
    (M, "n_folds for the inductive predictor", _fit(n_folds=3), "n_folds"),
    (
        M,
        "calibration_size for the full predictor",
        _fit(predictor="full", calibration_size=0.5),
        "calibration_size",
    ),
    (M, "method for the cross predictor", _fit(predictor="cross", method="retrain"), "method"),
    (M, "calibration_size 0", _fit(calibration_size=0.0), "calibration_size"),
    (M, "y one class", lambda: VennAbersSVM().fit(X, np.zeros(12)), "y"),
    (M, "X NaN", lambda: VennAbersSVM().fit(np.full((12, 2), np.nan), Y), "X"),
    (M, "predict unfitted", lambda: VennAbersSVM().predict_proba(X), "X"),
    (
        M,
        "predict_pairs wrong width",
        lambda: VennAbersSVM().fit(X, Y).predict_pairs(np.zeros((2, 3))),
        "X",
    ),
    (
        M,
        "y a class left out of the proper set",
        lambda: VennAbersSVM(calibration_size=2).fit(X[:4], np.array([0, 1, 1, 1])),
        "y",
    ),
]
