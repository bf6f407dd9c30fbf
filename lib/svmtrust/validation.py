"""Checks of user input shared by every module.

Every public function of the library validates its arguments here, so that bad input fails in
one predictable way: a :class:`ValueError` whose message starts with the argument's name.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.linalg
import scipy.sparse
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

__all__ = [
    "psd_shift",
    "check_array",
    "check_numeric",
    "check_binary_labels",
    "check_class_labels",
    "check_C",
    "check_significance",
    "check_positive",
    "check_integer",
    "check_n_jobs",
    "check_kernel_matrix",
    "check_symmetric",
    "check_seed",
    "check_rng",
    "check_bool",
    "check_choice",
    "check_table",
    "check_indices",
    "InputTypeError",
    "check_estimator_X",
    "check_estimator_y",
    "check_callable",
    "kernel_block",
    "CheckedGram",
    "check_kernel_gram",
    "check_augmented_gram",
    "check_augmented_kernel",
    "psd_by_construction",
    "PSD_TOL",
    "MAX_SEED",
]

#: A kernel matrix counts as positive semi-definite when its smallest eigenvalue is at least
#: ``-PSD_TOL`` times its mean diagonal entry (the scale of the kernel).
PSD_TOL = 1e-8

#: Largest kernel entry accepted: sums of ``n`` products of entries (``K @ alpha`` with
#: multipliers of order ``1 / K``, or the Cholesky test) stay finite far below float64's
#: 1.8e308. libsvm needs a far smaller scale (pitfalls: its single-precision cache).
MAX_KERNEL = 1e150


def psd_shift(K) -> float:
    """The shift ``delta = PSD_TOL * mean(diag(K))`` within which ``K`` counts as PSD.

    ``K`` passes as positive semi-definite when ``K + delta I`` has a Cholesky factor, i.e. when
    its smallest eigenvalue exceeds ``-delta`` (:func:`check_kernel_matrix`). A zero diagonal
    counts as the smallest normal float, so the shift is never zero.
    """
    K = check_kernel_matrix(K, "K", full=False)
    return PSD_TOL * max(float(np.mean(np.diag(K))), np.finfo(float).tiny)


def check_array(a, name: str, ndim: int) -> np.ndarray:
    """Return ``a`` as a finite float64 array of ``ndim`` dimensions.

    Parameters
    ----------
    a : array_like
        The input.
    name : str
        The argument's name, used in the error message.
    ndim : int
        The number of dimensions required (1 or 2).

    Raises
    ------
    ValueError
        If ``a`` is not numeric (strings, booleans, other objects and complex values are not:
        :func:`check_numeric`), has the wrong number of dimensions, is empty, or holds NaN or
        infinite values.
    """
    arr = _shaped(a, name, ndim)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: contains NaN or infinite values")
    return arr


def _shaped(a, name: str, ndim: int) -> np.ndarray:
    """``a`` as a non-empty float64 array of ``ndim`` dimensions (:func:`check_array` without
    its test of finiteness)."""
    arr = _numbers(a, name)
    if arr.ndim != ndim:
        raise ValueError(f"{name}: expected {ndim} dimensions, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name}: is empty (shape {arr.shape})")
    return arr


def check_numeric(values, name: str) -> np.ndarray:
    """Return ``values`` (a number or an array of any shape) as float64, NaN and inf included.

    Booleans and strings, which a conversion to float would read as numbers (``True`` as 1,
    ``"50"`` as 50), are refused; the caller decides about NaN, inf and ranges.

    Raises
    ------
    ValueError
        Naming ``name``, if ``values`` holds booleans, strings, other objects or complex values.
    """
    return _numbers(values, name)


def _numbers(values, name: str) -> np.ndarray:
    """``values`` as float64 if they are integers or floats (:func:`check_numeric`)."""
    if type(values) is np.ndarray and values.dtype == np.float64:
        return values  # what np.asarray(values, dtype=np.float64) returns
    try:
        kind = np.asarray(values).dtype.kind
    except (TypeError, ValueError) as err:  # ragged nested sequences
        raise ValueError(f"{name}: expected a numeric array ({err})") from None
    if kind not in "iuf":
        what = {"b": "booleans", "U": "strings", "S": "bytes", "c": "complex values"}
        raise ValueError(
            f"{name}: expected numbers, got {what.get(kind, 'objects')} "
            f"(dtype {np.asarray(values).dtype})"
        )
    return np.asarray(values, dtype=np.float64)


def check_binary_labels(y, name: str = "y", n: int | None = None) -> np.ndarray:
    """Return binary labels as a float64 vector in {-1, +1} holding both classes.

    Parameters
    ----------
    y : array_like of shape (n,)
        Labels, each -1 or +1.
    name : str
        The argument's name, used in the error message.
    n : int, optional
        The required length (the number of training examples).

    Raises
    ------
    ValueError
        If a label is outside {-1, +1}, only one class is present, or the length is not ``n``.
    """
    labels = check_array(y, name, ndim=1)
    if n is not None and labels.shape[0] != n:
        raise ValueError(f"{name}: has {labels.shape[0]} labels for {n} examples")
    bad = ~np.isin(labels, (-1.0, 1.0))
    if np.any(bad):
        raise ValueError(f"{name}: labels must be -1 or +1, found {np.unique(labels[bad])[:5]}")
    if np.unique(labels).size < 2:
        raise ValueError(f"{name}: both classes -1 and +1 are needed, found one only")
    return labels


def check_class_labels(y, name: str = "y", n: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(classes, index)`` for class labels of any type, as ``numpy.unique`` does.

    Parameters
    ----------
    y : array_like of shape (n,)
        Labels of any sortable type (numbers, strings, ...), at least two classes.
    name : str
        The argument's name, used in the error message.
    n : int, optional
        The required length (the number of examples).

    Returns
    -------
    classes : ndarray
        The sorted distinct labels.
    index : ndarray of int, shape (n,)
        Position of each label in ``classes``.

    Raises
    ------
    ValueError
        If ``y`` is not 1-D, has a length other than ``n``, holds NaN, infinite or missing
        labels, or a single class.
    """
    labels = np.asarray(y)
    if labels.ndim != 1 or (n is not None and labels.shape[0] != n):
        expected = "labels" if n is None else f"{n} labels"
        raise ValueError(f"{name}: expected {expected} in a 1-D array, got shape {labels.shape}")
    if labels.dtype.kind in "fc" and not np.all(np.isfinite(labels)):
        raise ValueError(f"{name}: contains NaN or infinite labels")
    if labels.dtype.kind == "O" and any(v is None or v != v for v in labels):
        raise ValueError(f"{name}: contains missing labels (None or NaN)")
    try:
        classes, index = np.unique(labels, return_inverse=True)
    except TypeError:
        raise ValueError(f"{name}: labels of types that cannot be sorted together") from None
    if classes.size < 2:
        raise ValueError(f"{name}: at least two classes are needed, found {classes.size}")
    return classes, index


def _real(value) -> float:
    """``float(value)`` for a real number; a TypeError for booleans and strings, which
    ``float`` would read as numbers."""
    if isinstance(value, (bool, np.bool_, str, bytes)):
        raise TypeError(f"not a number: {value!r}")
    return float(value)


def check_C(C) -> float:
    """Return the box constraint as a float; ``numpy.inf`` means a hard margin.

    Raises
    ------
    ValueError
        If ``C`` is not a number, is NaN, or is not positive.
    """
    try:
        value = _real(C)
    except (TypeError, ValueError):
        raise ValueError(f"C: expected a positive number or numpy.inf, got {C!r}") from None
    if np.isnan(value) or value <= 0:
        raise ValueError(f"C: must be positive (numpy.inf for a hard margin), got {C!r}")
    return value


def check_significance(significance, name: str = "significance") -> float:
    """Return a significance (or confidence) level strictly between 0 and 1.

    Raises
    ------
    ValueError
        Naming ``name``, if ``significance`` is not a number in the open interval (0, 1).
    """
    try:
        value = _real(significance)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected a number in (0, 1), got {significance!r}") from None
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name}: must lie in (0, 1), got {significance!r}")
    return value


def check_positive(value, name: str) -> float:
    """Return ``value`` as a positive finite float, or raise ``ValueError`` naming ``name``."""
    try:
        number = _real(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected a positive number, got {value!r}") from None
    if not np.isfinite(number) or number <= 0:
        raise ValueError(f"{name}: must be positive and finite, got {value!r}")
    return number


def check_integer(value, name: str, low: int = 1, high: int | None = None) -> int:
    """Return ``value`` as an int in ``[low, high]`` (no upper limit when ``high`` is None).

    Raises
    ------
    ValueError
        Naming ``name``, if ``value`` is not an integer (booleans are not) or lies outside.
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name}: must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        limits = f"at least {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"{name}: must be {limits}, got {value!r}")
    return int(value)


def check_n_jobs(n_jobs) -> int:
    """Return ``n_jobs`` as joblib counts workers: a positive int, or -1 for every core.

    ``None`` means 1. Raises ``ValueError`` naming ``n_jobs`` for anything else (0, -2,
    floats, booleans, strings).
    """
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)):
        raise ValueError(f"n_jobs: must be None, a positive integer or -1, got {n_jobs!r}")
    if n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs: must be None, a positive integer or -1, got {n_jobs!r}")
    return int(n_jobs)


def check_kernel_matrix(K, name: str = "K", full: bool = True) -> np.ndarray:
    """Return a square, symmetric, positive semi-definite kernel matrix.

    Positive semi-definiteness is tested within :data:`PSD_TOL`: the matrix passes when
    ``K + delta * I`` has a Cholesky factor, with ``delta = PSD_TOL * mean(diag(K))``, which
    holds exactly when the smallest eigenvalue of ``K`` exceeds ``-delta``. A Cholesky
    factorisation costs a third of a symmetric eigendecomposition, so the check stays cheap next
    to the solve.

    Parameters
    ----------
    K : array_like of shape (n, n)
        The Gram matrix.
    name : str
        The argument's name, used in the error message.
    full : bool
        Run the symmetry and Cholesky tests; without them only shape and finiteness are
        checked.

    Raises
    ------
    ValueError
        If ``K`` is not square, not symmetric (relative tolerance 1e-10), or has an eigenvalue
        below ``-delta``.
    """
    mat = _shaped(K, name, ndim=2)
    if mat.shape[0] != mat.shape[1]:
        raise ValueError(f"{name}: kernel matrix must be square, got shape {mat.shape}")
    # max |K| without a copy; NaN propagates through max and min, so both are finite only for
    # a finite matrix: one test of finiteness and size in two passes, no temporary
    high, low = float(np.max(mat)), float(np.min(mat))
    if not (np.isfinite(high) and np.isfinite(low)):
        raise ValueError(f"{name}: contains NaN or infinite values")
    if max(high, -low) > MAX_KERNEL:
        raise ValueError(
            f"{name}: entries above {MAX_KERNEL:.0e} overflow in products of the "
            "kernel; scale it down"
        )
    if not check_bool(full, "full"):
        return mat
    _psd_factor(_symmetrised(mat, name), name)
    return mat


def check_symmetric(M, name: str = "M") -> np.ndarray:
    """Return ``(M + M^T) / 2`` of a finite square matrix symmetric to a relative 1e-10 (the
    symmetry test of :func:`check_kernel_matrix`, without its Cholesky test).

    Raises
    ------
    ValueError
        Naming ``name``, if ``M`` is not a finite square matrix or not symmetric.
    """
    return _symmetrised(check_kernel_matrix(M, name, full=False), name)


def _symmetrised(mat: np.ndarray, name: str) -> np.ndarray:
    """``(K + K^T) / 2`` of a square matrix that is symmetric to a relative 1e-10, else a
    ValueError naming ``name``."""
    scale = max(float(np.max(np.abs(mat))), np.finfo(float).tiny)
    if np.max(np.abs(mat - mat.T)) > 1e-10 * scale:
        raise ValueError(f"{name}: kernel matrix must be symmetric")
    return (mat + mat.T) / 2.0


def _psd_factor(mat: np.ndarray, name: str) -> tuple[float, np.ndarray]:
    """``(delta, L)`` with ``L L^T = K + delta I`` of a symmetric ``K`` (:func:`psd_shift`), or a
    ValueError naming ``name`` if ``K`` is not positive semi-definite within ``delta``."""
    delta = psd_shift(mat)
    diagonal = np.diag(mat)
    if np.min(diagonal) < -delta:
        raise ValueError(
            f"{name}: kernel matrix is not positive semi-definite (a diagonal entry, "
            f"k(x, x) = {np.min(diagonal):.3g}, is negative)"
        )
    try:
        factor = scipy.linalg.cholesky(
            mat + delta * np.eye(mat.shape[0]), lower=True, check_finite=False
        )
    except np.linalg.LinAlgError:
        raise ValueError(
            f"{name}: kernel matrix is not positive semi-definite "
            f"(an eigenvalue lies below -{delta:.3g})"
        ) from None
    return delta, factor


#: Largest seed accepted: scikit-learn's ``random_state`` and ``numpy.random.RandomState`` take
#: seeds in ``[0, 2^32 - 1]`` only (``numpy.random.default_rng`` takes any).
MAX_SEED = 2**32 - 1


def check_seed(seed, name: str = "seed") -> int:
    """Return ``seed`` as an int in ``[0, MAX_SEED]``, the one check of every seed of the
    library.

    Raises
    ------
    ValueError
        Naming ``name``, if ``seed`` is not an integer (strings, floats and booleans are not)
        or lies outside ``[0, MAX_SEED]`` (:data:`MAX_SEED`).
    """
    return check_integer(seed, name, low=0, high=MAX_SEED)


def check_rng(rng, name: str = "rng", seed_ok: bool = False) -> np.random.Generator:
    """Return a ``numpy.random.Generator``; with ``seed_ok``, a seed (:func:`check_seed`) is
    turned into ``numpy.random.default_rng(seed)``.

    Raises
    ------
    ValueError
        Naming ``name``, if ``rng`` is neither a Generator nor (with ``seed_ok``) a valid seed.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if not seed_ok:
        raise ValueError(f"{name}: expected a numpy.random.Generator, got {rng!r}")
    return np.random.default_rng(check_seed(rng, name))


def check_bool(value, name: str) -> bool:
    """Return ``value`` if it is a bool (``numpy.bool_`` included); truthy strings or numbers
    are refused, so ``"False"`` can never mean True.

    Raises
    ------
    ValueError
        Naming ``name``, if ``value`` is not a bool.
    """
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name}: must be True or False, got {value!r}")
    return bool(value)


def check_choice(value, name: str, choices) -> object:
    """Return ``value`` if it is one of ``choices`` (compared only with values of its type).

    Raises
    ------
    ValueError
        Naming ``name``, if ``value`` is not one of ``choices``.
    """
    if not any(isinstance(value, type(c)) and value == c for c in choices):
        raise ValueError(f"{name}: must be one of {tuple(choices)}, got {value!r}")
    return value


def check_table(table, name: str, columns=()):
    """Return ``table`` if it is a non-empty ``pandas.DataFrame`` holding ``columns``.

    Raises
    ------
    ValueError
        Naming ``name``, if ``table`` is not a DataFrame, has no rows, or lacks a column.
    """
    import pandas as pd  # only the experiments need pandas

    if not isinstance(table, pd.DataFrame):
        raise ValueError(f"{name}: expected a pandas.DataFrame, got {type(table).__name__}")
    if table.empty:
        raise ValueError(f"{name}: the table is empty")
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"{name}: lacks the columns {missing}")
    return table


def check_indices(index, name: str, n: int, size: int | None = None) -> np.ndarray:
    """Return ``index`` as a 1-D int array of positions in ``[0, n)``, of length ``size`` if
    given.

    Raises
    ------
    ValueError
        Naming ``name``, if ``index`` is not 1-D, holds non-integers (booleans included) or
        positions outside ``[0, n)``, or has a length other than ``size``.
    """
    idx = np.asarray(index)
    if idx.ndim != 1 or (idx.size and idx.dtype.kind not in "iu"):
        raise ValueError(f"{name}: expected a 1-D array of integer positions, got {index!r}")
    if size is not None and idx.size != size:
        raise ValueError(f"{name}: expected {size} positions, got {idx.size}")
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise ValueError(f"{name}: positions must lie in [0, {n})")
    return idx.astype(np.int64)


# --------------------------------------------------------------------------- estimators

#: The message of :class:`sklearn.exceptions.NotFittedError` raised by every estimator of the
#: library (``%(name)s`` is the class name).
NOT_FITTED = "X: this %(name)s instance is not fitted yet; call fit(X, y) first"


class InputTypeError(ValueError, TypeError):
    """An argument of the wrong type, both a ``ValueError`` and a ``TypeError``.

    Every check of this module raises a ``ValueError`` naming the argument; scikit-learn's
    estimator checks expect a ``TypeError`` for an entry that is not a number
    (``check_dtype_object``).
    """


def check_estimator_X(estimator, X, reset: bool) -> np.ndarray:
    """Return ``X`` as a dense, finite float64 matrix for a scikit-learn estimator.

    Runs :func:`sklearn.utils.validation.validate_data`, which records ``n_features_in_`` when
    ``reset`` (in ``fit``) and otherwise checks ``X`` against it, and prefixes its messages
    with ``"X: "``. A finite float64 ``numpy.ndarray`` that it would return unchanged is
    recognised without it (its dataframe detection costs more than a small SVM's check) and
    returned as it is; anything else, and every error and warning, goes through it.

    Parameters
    ----------
    estimator : BaseEstimator
    X : array_like of shape (n, d)
    reset : bool
        ``True`` in ``fit`` (at least two rows), ``False`` in every other method, which first
        requires a fitted estimator.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        (A ``ValueError``) if ``reset`` is ``False`` and ``estimator`` is not fitted.
    ValueError
        If ``X`` is sparse, complex, not 2-D, empty, has NaN or infinite values, fewer than two
        rows in ``fit``, or another number of features than in ``fit``.
    """
    if not reset:
        check_is_fitted(estimator, msg=NOT_FITTED)
    if _plain_matrix(estimator, X, reset):
        if reset:
            estimator.n_features_in_ = X.shape[1]
        return X
    if scipy.sparse.issparse(X):
        raise ValueError("X: sparse input is not supported; pass a dense array (X.toarray())")
    try:
        return validate_data(
            estimator, X, reset=reset, dtype=np.float64, ensure_min_samples=2 if reset else 1
        )
    except TypeError as err:
        raise InputTypeError(f"X: {err}") from None
    except ValueError as err:
        raise ValueError(f"X: {err}") from None


def _plain_matrix(estimator, X, reset: bool) -> bool:
    """Whether ``validate_data`` would pass ``X`` as :func:`check_estimator_X` calls it and return
    ``X`` itself, with no warning: a finite float64 ``numpy.ndarray`` (not a subclass) of two
    dimensions, with enough rows, at least one column, as many as in ``fit`` (``reset`` false), and
    an estimator fitted without feature names. Its one side effect, ``n_features_in_`` in ``fit``,
    is left to the caller. Everything else (other types, errors, warnings, a global
    ``assume_finite``) takes the full check."""
    if type(X) is not np.ndarray or X.dtype != np.float64 or X.ndim != 2:
        return False
    rows, columns = X.shape
    if rows < (2 if reset else 1) or columns < 1 or hasattr(estimator, "feature_names_in_"):
        return False
    if not reset and getattr(estimator, "n_features_in_", columns) != columns:
        return False
    return bool(np.isfinite(X).all())


def _integer_vector(y) -> bool:
    """Whether ``y`` is a ``numpy.ndarray`` (not a subclass) of integers, one dimension: a
    vector that ``column_or_1d`` returns with the same values and that
    ``check_classification_targets`` passes (its target type is ``"binary"`` or
    ``"multiclass"``), so that :func:`check_estimator_y` needs neither."""
    return type(y) is np.ndarray and y.ndim == 1 and y.dtype.kind in "iu"


def check_estimator_y(y, n: int, binary: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(classes, index)`` of the class labels passed to a classifier's ``fit``.

    Labels of any type, as scikit-learn classifiers take them: a column vector is flattened
    with a ``DataConversionWarning``, :func:`check_class_labels` encodes them, and
    continuous targets are refused
    (:func:`sklearn.utils.multiclass.check_classification_targets`); a 1-D numpy array of
    integers, which is never continuous, skips those two.

    Parameters
    ----------
    y : array_like of shape (n,)
    n : int
        The number of training examples.
    binary : bool
        Require exactly two classes.

    Raises
    ------
    ValueError
        Naming ``y``, if it is missing, not a vector of class labels of length ``n``, holds a
        single class, or (``binary``) more than two.
    """
    if y is None:
        raise ValueError("y: this estimator requires y to be passed, but the target y is None")
    if _integer_vector(y):
        classes, index = check_class_labels(y, "y", n=n)
    else:
        try:
            labels = column_or_1d(y, warn=True)
        except ValueError as err:
            raise ValueError(f"y: {err}") from None
        classes, index = check_class_labels(labels, "y", n=n)
        try:
            check_classification_targets(labels)
        except ValueError as err:
            raise ValueError(f"y: {err}") from None
    if binary and classes.size != 2:
        raise ValueError(
            f"y: Only binary classification is supported; found {classes.size} "
            f"classes: {classes[:5].tolist()}"
        )
    return classes, index


def check_callable(value, name: str):
    """Return ``value`` if it is callable (a kernel ``kernel(X, Z)``, a task function).

    Raises
    ------
    ValueError
        Naming ``name``, if ``value`` cannot be called.
    """
    if not callable(value):
        raise ValueError(f"{name}: must be callable, got {value!r}")
    return value


def kernel_block(kernel, A, B, name: str = "kernel") -> np.ndarray:
    """``kernel(A, B)`` of a user's kernel, checked to be a finite matrix of shape
    ``(len(A), len(B))``.

    Raises
    ------
    ValueError
        Naming ``name``, if ``kernel`` is not callable or returns anything else.
    """
    block = check_array(check_callable(kernel, name)(A, B), name, ndim=2)
    if block.shape != (A.shape[0], B.shape[0]):
        raise ValueError(
            f"{name}: returned shape {block.shape}, expected {(A.shape[0], B.shape[0])}"
        )
    return block


class CheckedGram(NamedTuple):
    """The Gram matrix of a training set under a user's kernel, checked symmetric and positive
    semi-definite (:func:`check_kernel_gram`), and what extends the check to new examples."""

    #: ``K``, symmetrised, shape (l, l).
    matrix: np.ndarray
    #: ``delta = PSD_TOL * mean(diag(K))`` (:func:`psd_shift`).
    shift: float
    #: The lower Cholesky factor ``L`` of ``K + delta I``; ``None`` for a kernel that is PSD by
    #: construction (:func:`psd_by_construction`), which needs no proof.
    cholesky: np.ndarray | None


def check_kernel_gram(kernel, X, name: str = "kernel") -> CheckedGram:
    """The Gram matrix of ``X`` under ``kernel``, refused unless symmetric and PSD.

    The one kernel check of the library's estimators, run in ``fit``: an SVM's dual is a convex
    problem, and its optimum a function of the data, only for a positive semi-definite kernel
    (:func:`check_kernel_matrix`, within :data:`PSD_TOL`). A kernel that is not symmetric on
    ``X`` is refused too. The kernels of :mod:`svmtrust.kernels` are PSD by construction
    (:func:`psd_by_construction`): their Gram matrix is only checked finite, with no
    factorisation (at n = 1600 the proof cost three times a libsvm fit).

    Parameters
    ----------
    kernel : callable
        ``kernel(A, B)``, the user's kernel.
    X : ndarray of shape (l, d)
        Training examples, already checked.
    name : str
        The parameter's name, used in the error message.

    Returns
    -------
    CheckedGram

    Raises
    ------
    ValueError
        Naming ``name``, if ``kernel`` is not callable, returns a matrix of another shape, NaN,
        entries above :data:`MAX_KERNEL`, a matrix that is not symmetric, or one with an
        eigenvalue below ``-delta``.
    """
    gram = check_kernel_matrix(kernel_block(kernel, X, X, name), name, full=False)
    if psd_by_construction(kernel):
        return CheckedGram(gram, psd_shift(gram), None)
    gram = _symmetrised(gram, name)
    return CheckedGram(gram, *_psd_factor(gram, name))


def psd_by_construction(kernel) -> bool:
    """Whether ``kernel`` is positive semi-definite by construction, so that its Gram matrices
    need no proof: the kernels of :mod:`svmtrust.kernels` (linear; ``(x . z)^d / s`` and
    ``(gamma x . z + c)^d`` with integer ``d >= 1``, ``s, gamma > 0``, ``c >= 0``, products and
    sums of PSD kernels by the Schur product theorem; Gaussian with ``gamma > 0``), whose
    parameters they check, and whose square Gram matrices they return exactly symmetric. They
    carry the attribute ``psd_by_construction``.

    So does ``functools.partial(k, **keywords)`` of one of them (``rbf_kernel``,
    ``polynomial_kernel``, ``linear_kernel``), the way the chapters pass a kernel with its
    parameters, when every keyword is one of ``k``'s parameters after ``X`` and ``Z`` and keeps
    it PSD as the function itself would check it: ``gamma`` and ``scale`` positive and finite,
    ``degree`` an integer of at least 1. Anything else is checked: other callables, a partial
    with positional arguments (they would take the place of ``X``), a keyword ``X`` or ``Z``, a
    partial of a partial's subclass or of a function from elsewhere (even one that carries the
    attribute), and parameters the function would refuse. Never raises."""
    import functools
    import inspect

    if getattr(kernel, "psd_by_construction", False) is True:
        return True
    if type(kernel) is not functools.partial or kernel.args:
        return False
    func = kernel.func
    if (
        getattr(func, "psd_by_construction", False) is not True
        or getattr(func, "__module__", None) != f"{__package__}.kernels"
    ):
        return False
    rules = {
        "gamma": lambda v: check_positive(v, "gamma"),
        "scale": lambda v: check_positive(v, "scale"),
        "degree": lambda v: check_integer(v, "degree", low=1),
    }
    try:
        parameters = list(inspect.signature(func).parameters)[2:]  # after X and Z
        for name, value in kernel.keywords.items():
            if name not in parameters or name not in rules:
                return False
            rules[name](value)
    except (TypeError, ValueError):
        return False
    return True


def check_augmented_gram(
    gram: CheckedGram, cross, new, name: str = "kernel", *, same_kernel: bool = False
) -> np.ndarray:
    """The Gram matrix of the training set plus new examples, refused unless PSD.

    ``[[K, cross], [cross^T, new]] + delta I`` is positive definite exactly when ``K + delta I``
    is (:func:`check_kernel_gram`) and the Schur complement ``new + delta I - V^T V``,
    ``V = L^{-1} cross``, has a Cholesky factor: the test of :func:`check_kernel_matrix` on the
    augmented matrix at the cost of one triangular solve.

    Parameters
    ----------
    gram : CheckedGram
        The training set's checked Gram matrix.
    cross : ndarray of shape (l, k)
        Kernel values between the training examples and the new ones (:func:`kernel_block`).
    new : ndarray of shape (k, k)
        Kernel values among the new examples.
    name : str
        The parameter's name, used in the error message.
    same_kernel : bool, keyword only
        ``True`` when ``cross`` and ``new`` come from the kernel ``gram`` was checked under, as
        the estimators' do: for a kernel PSD by construction the augmented matrix is then PSD
        too, and nothing is factorised. ``False`` (the default) checks it whatever produced
        the values, factorising ``K + delta I`` if ``gram`` holds no factor.

    Returns
    -------
    ndarray of shape (l + k, l + k)

    Raises
    ------
    ValueError
        Naming ``name``, if ``new`` is not symmetric PSD or the augmented matrix is not PSD.
    """
    new = check_augmented_kernel(gram, cross, new, name, same_kernel=same_kernel)
    return np.block([[gram.matrix, cross], [cross.T, new]])


def check_augmented_kernel(
    gram: CheckedGram, cross, new, name: str = "kernel", *, same_kernel: bool = False
) -> np.ndarray:
    """The test of :func:`check_augmented_gram` without forming the augmented matrix.

    For a caller that needs only the new rows (:mod:`svmtrust.incremental_svm` adds one example
    to a trained SVM from its kernel column). The cost is one triangular solve, ``O(l^2 k)``.

    Parameters
    ----------
    gram : CheckedGram
    cross : ndarray of shape (l, k)
    new : ndarray of shape (k, k)
    name : str
    same_kernel : bool, keyword only
        As :func:`check_augmented_gram`.

    Returns
    -------
    ndarray of shape (k, k)
        ``new``, symmetrised.

    Raises
    ------
    ValueError
        As :func:`check_augmented_gram`; naming ``gram`` if it is not a :class:`CheckedGram`,
        and ``name`` if ``cross`` is not a finite matrix of shape (l, k).
    """
    if not isinstance(gram, CheckedGram):
        raise ValueError(f"gram: expected a CheckedGram (check_kernel_gram), got {gram!r}")
    new = _symmetrised(check_kernel_matrix(new, name, full=False), name)
    cross = check_array(cross, name, ndim=2)
    expected = (gram.matrix.shape[0], new.shape[0])
    if cross.shape != expected:
        raise ValueError(
            f"{name}: the kernel values between the training set and the new examples have "
            f"shape {cross.shape}, expected {expected}"
        )
    factor = gram.cholesky
    if factor is None:  # PSD by construction: so is every matrix of the same kernel's values
        if same_kernel:
            return new
        shifted = gram.matrix + gram.shift * np.eye(gram.matrix.shape[0])
        factor = scipy.linalg.cholesky(shifted, lower=True, check_finite=False)
    V = scipy.linalg.solve_triangular(factor, cross, lower=True, check_finite=False)
    schur = new + gram.shift * np.eye(new.shape[0]) - V.T @ V
    try:
        scipy.linalg.cholesky(schur, lower=True)
    except np.linalg.LinAlgError:
        raise ValueError(
            f"{name}: the Gram matrix of the training set plus the test example(s) is not "
            "positive semi-definite"
        ) from None
    return new
