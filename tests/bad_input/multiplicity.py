"""Bad input to svmtrust.multiplicity: p-values that are not a family of probabilities."""

from svmtrust.multiplicity import holm

H = "svmtrust.multiplicity.holm"

CASES = [
    (H, "p_values empty", lambda: holm([]), "p_values"),
    (H, "p_values NaN", lambda: holm([0.1, float("nan")]), "p_values"),
    (H, "p_values above 1", lambda: holm([0.1, 1.5]), "p_values"),
    (H, "p_values negative", lambda: holm([-0.1]), "p_values"),
    (H, "p_values a matrix", lambda: holm([[0.1, 0.2]]), "p_values"),
    (H, "p_values strings", lambda: holm(["0.1"]), "p_values"),
]
