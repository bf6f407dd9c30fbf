"""Bad input to svmtrust.experiments.tables: the frame, its title, formats and column count."""

import numpy as np
import pandas as pd
from svmtrust.experiments.tables import Table, print_wrapped, wrapped

T = "svmtrust.experiments.tables.Table"
FRAME = pd.DataFrame({"error": [0.1, 0.2]}, index=["a", "b"])

CASES = [
    (T, "frame an array", lambda: Table(np.ones((2, 2))), "frame"),
    (T, "frame a list", lambda: Table([[0.1], [0.2]]), "frame"),
    (T, "frame without columns", lambda: Table(FRAME[[]]), "frame"),
    (T, "title a number", lambda: Table(FRAME, title=3), "title"),
    (T, "float_format a string", lambda: Table(FRAME, float_format="%.3f"), "float_format"),
    (T, "max_columns zero", lambda: Table(FRAME, max_columns=0), "max_columns"),
    (T, "max_columns a float", lambda: Table(FRAME, max_columns=2.5), "max_columns"),
]

W = "svmtrust.experiments.tables.wrapped"
P = "svmtrust.experiments.tables.print_wrapped"
CASES += [
    (W, "text a number", lambda: wrapped(3.5), "text"),
    (W, "width too small", lambda: wrapped("a b", width=2), "width"),
    (W, "width a float", lambda: wrapped("a b", width=40.5), "width"),
    (P, "sep a number", lambda: print_wrapped("a", "b", sep=1), "sep"),
    (P, "width negative", lambda: print_wrapped("a", width=-1), "width"),
]
CASES += [
    (T, "index a string", lambda: Table(FRAME, index="no"), "index"),
    (T, "na_rep a number", lambda: Table(FRAME, na_rep=0), "na_rep"),
]
CASES += [(P, "end a number", lambda: print_wrapped("a", end=0), "end")]
