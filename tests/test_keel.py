"""Tests of :mod:`svmtrust.keel`: missing values, one-hot encoding, labels.

The encoding of the real sets (breast, credit, votes) is pinned by the checksums of
tests/test_datasets.py.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from svmtrust.keel import drop_missing, one_hot, plus_minus, read_table


def test_missing_rows_dropped_and_text_one_hot_encoded():
    frame = pd.DataFrame(
        {
            0: ["1", "?", "3", "4"],
            1: ["b", "a", "a", "c"],
            2: ["y", "n", "n", "y"],
            3: [1.5, 2.0, 2.5, np.nan],
            4: ["p"] * 4,
        }
    )
    kept, note = drop_missing(frame)
    assert len(kept) == 2 and note.startswith("2 rows with missing values dropped (of 4)")
    frame.loc[3, 3] = 0.5
    kept, note = drop_missing(frame)
    assert len(kept) == 3 and note.startswith("1 rows with missing values dropped (of 4)")
    X, _ = one_hot(kept.iloc[:, :-1])
    # column 0 numeric once '?' is gone; column 1 one 0/1 column per level (a, b, c);
    # column 2 (two levels, n and y) one indicator of y; column 3 numeric
    np.testing.assert_array_equal(
        X, [[1, 0, 1, 0, 1, 1.5], [3, 1, 0, 0, 0, 2.5], [4, 0, 0, 1, 1, 0.5]]
    )


def test_plus_minus_maps_one_label_to_plus_one():
    y = plus_minus(np.array(["b", "a", "b", "c"]), "b")
    assert y.dtype == np.int64 and y.tolist() == [1, -1, 1, -1]


def test_read_table_strips_the_blanks_of_imbalanced_labels():
    labels = read_table("haberman", "imbalanced").iloc[:, -1]
    assert sorted(labels.unique()) == ["negative", "positive"]
    assert (labels == "positive").sum() == 81  # Haberman's 306 patients, 81 died within 5 years
