"""Bad input to svmtrust.incremental_svm (issue 26)."""

import numpy as np
from svmtrust.incremental_svm import Additions, IncrementalSVM

from ._data import SOL, K, nan

M = "svmtrust.incremental_svm."
INC = IncrementalSVM(K, SOL)
COLUMN = K[:, 0]

NO_INPUT = {M + "Addition": "a result record built by IncrementalSVM.add"}

CASES = [
    (M + "IncrementalSVM", "K NaN", lambda: IncrementalSVM(nan(K), SOL), "K"),
    (M + "IncrementalSVM", "K not square", lambda: IncrementalSVM(K[:, :-1], SOL), "K"),
    (
        M + "IncrementalSVM",
        "solution of another size",
        lambda: IncrementalSVM(K[:4, :4], SOL),
        "solution",
    ),
    (
        M + "IncrementalSVM",
        "solution not an SVMSolution",
        lambda: IncrementalSVM(K, SOL.alpha),
        "solution",
    ),
    (
        M + "IncrementalSVM",
        "solver unknown",
        lambda: IncrementalSVM(K, SOL, solver="smo"),
        "solver",
    ),
    (
        M + "IncrementalSVM.of_solutions",
        "K NaN",
        lambda: IncrementalSVM.of_solutions(nan(K), [SOL]),
        "K",
    ),
    (
        M + "IncrementalSVM.of_solutions",
        "solutions empty",
        lambda: IncrementalSVM.of_solutions(K, []),
        "solutions",
    ),
    (
        M + "IncrementalSVM.of_solutions",
        "a solution of another size",
        lambda: IncrementalSVM.of_solutions(K[:4, :4], [SOL]),
        "solutions",
    ),
    (
        M + "IncrementalSVM.of_solutions",
        "solver unknown",
        lambda: IncrementalSVM.of_solutions(K, [SOL], "smo"),
        "solver",
    ),
    (M + "IncrementalSVM.add", "column short", lambda: INC.add(COLUMN[:-1], 1.0, 1), "column"),
    (M + "IncrementalSVM.add", "column NaN", lambda: INC.add(nan(COLUMN), 1.0, 1), "column"),
    (M + "IncrementalSVM.add", "column 2-D", lambda: INC.add(K[:, :2], 1.0, 1), "column"),
    (M + "IncrementalSVM.add", "diagonal NaN", lambda: INC.add(COLUMN, np.nan, 1), "diagonal"),
    (M + "IncrementalSVM.add", "diagonal a string", lambda: INC.add(COLUMN, "1", 1), "diagonal"),
    (M + "IncrementalSVM.add", "label 0", lambda: INC.add(COLUMN, 1.0, 0), "label"),
    (M + "IncrementalSVM.add", "label a string", lambda: INC.add(COLUMN, 1.0, "a"), "label"),
    (M + "Additions", "machines empty", lambda: Additions([], COLUMN, 1.0), "machines"),
    (
        M + "Additions",
        "machines not IncrementalSVM",
        lambda: Additions([SOL], COLUMN, 1.0),
        "machines",
    ),
    (M + "Additions", "column NaN", lambda: Additions([INC], nan(COLUMN), 1.0), "column"),
    (M + "Additions", "diagonal NaN", lambda: Additions([INC], COLUMN, np.nan), "diagonal"),
    (
        M + "Additions.get",
        "problem out of range",
        lambda: Additions([INC], COLUMN, 1.0).get(3, 1),
        "problem",
    ),
    (M + "Additions.get", "label 2", lambda: Additions([INC], COLUMN, 1.0).get(0, 2), "label"),
]
