"""Bad input to svmtrust.certificate: the problem and the answer to judge."""

import numpy as np
from svmtrust.certificate import certify

M = "svmtrust.certificate."
K = np.eye(2)
y = np.array([1.0, -1.0])
a = np.array([0.5, 0.5])

CASES = [
    (M + "certify", "K not square", lambda: certify(np.ones((2, 3)), y, 1.0, a, 0.0), "K"),
    (M + "certify", "K NaN", lambda: certify(np.full((2, 2), np.nan), y, 1.0, a, 0.0), "K"),
    (M + "certify", "y of another length", lambda: certify(K, [1.0, -1.0, 1.0], 1.0, a, 0.0), "y"),
    (M + "certify", "y not +-1", lambda: certify(K, [0.0, 1.0], 1.0, a, 0.0), "y"),
    (M + "certify", "C negative", lambda: certify(K, y, -1.0, a, 0.0), "C"),
    (M + "certify", "alpha NaN", lambda: certify(K, y, 1.0, [np.nan, 0.5], 0.0), "alpha"),
    (M + "certify", "alpha too short", lambda: certify(K, y, 1.0, [0.5], 0.0), "alpha"),
    (M + "certify", "alpha 2-D", lambda: certify(K, y, 1.0, [[0.5, 0.5]], 0.0), "alpha"),
    (M + "certify", "b NaN", lambda: certify(K, y, 1.0, a, np.nan), "b"),
    (M + "certify", "b string", lambda: certify(K, y, 1.0, a, "0"), "b"),
    (M + "certify", "b array", lambda: certify(K, y, 1.0, a, [0.0, 1.0]), "b"),
]

NO_INPUT = {
    "svmtrust.certificate.Certificate": "a result record built by certify",
}
