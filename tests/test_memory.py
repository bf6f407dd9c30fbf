"""svmtrust.memory: what the process may still take, read from made-up proc and cgroup trees,
and the refusal of a fit that needs more, before any kernel is computed: by the full
transductive machines, the split and cross-conformal machines (their Gram matrix) and the
nearest-neighbour machine (its blocks of distances)."""

import numpy as np
import pytest
from svmtrust import memory, svm
from svmtrust.split_conformal import CrossConformalSVM, SplitConformalSVM
from svmtrust.svm_distance import DistanceTCM
from svmtrust.tcm_nn import TCMNearestNeighbours
from svmtrust.transduction import TransductiveSVM

GB = 10**9


def _tree(root, files: dict):
    """Write ``files`` (relative path -> text) under ``root``; return ``root``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_room_is_the_smallest_of_the_limits(tmp_path):
    proc = _tree(tmp_path / "proc", {"meminfo": "MemTotal: 8000000 kB\nMemAvailable: 4000000 kB\n"})
    no_cgroup = tmp_path / "none"
    assert memory._room(proc, no_cgroup) == 4_000_000 * 1024
    v2 = _tree(tmp_path / "v2", {"memory.max": f"{3 * GB}\n", "memory.current": f"{GB}\n"})
    assert memory._room(proc, v2) == 2 * GB  # the container's room is smaller
    v1 = _tree(
        tmp_path / "v1",
        {"memory/memory.limit_in_bytes": f"{GB}\n", "memory/memory.usage_in_bytes": "0\n"},
    )
    assert memory._room(proc, v1) == GB
    unlimited = _tree(tmp_path / "max", {"memory.max": "max\n", "memory.current": f"{GB}\n"})
    assert memory._room(proc, unlimited) == 4_000_000 * 1024
    full = _tree(tmp_path / "full", {"memory.max": f"{GB}\n", "memory.current": f"{2 * GB}\n"})
    assert memory._room(proc, full) == 0
    assert memory._room(tmp_path / "nothing", no_cgroup) is None  # not Linux: nothing known


def test_this_machine_reports_some_room():
    room = memory.available_bytes()
    assert room is None or room > 0


def test_check_fits_refuses_only_what_does_not_fit(monkeypatch):
    monkeypatch.setattr(memory, "available_bytes", lambda: GB)
    monkeypatch.setattr(memory, "UNCHECKED", 0)
    memory.check_fits(5000, 5, "X", "use less")  # 5 * 8 * 25e6 = 1.0e9: exactly fits
    with pytest.raises(
        ValueError, match=r"^X: 5001 training examples need about 1.0 GB .*use less"
    ):
        memory.check_fits(5001, 5, "X", "use less")
    monkeypatch.setattr(memory, "available_bytes", lambda: None)
    memory.check_fits(10**9, 5, "X", "use less")  # nothing known: nothing refused


def test_small_fits_do_not_read_the_memory_left(monkeypatch):
    def unread():
        raise AssertionError("available_bytes read for a small fit")

    monkeypatch.setattr(memory, "available_bytes", unread)
    side = int((memory.UNCHECKED / (5 * memory.FLOAT)) ** 0.5)  # just below UNCHECKED
    memory.check_fits(side, 5, "X", "use less")
    with pytest.raises(AssertionError):
        memory.check_fits(side + 1, 5, "X", "use less")


@pytest.mark.parametrize("machine", [TransductiveSVM, DistanceTCM])
def test_full_transductive_machines_refuse_before_the_kernel(machine, monkeypatch):
    """With 2 MB left, 300 examples (5 * 8 * 300^2 = 3.6 MB) are refused, 200 (1.6 MB) fit."""
    rng = np.random.default_rng(0)
    monkeypatch.setattr(memory, "available_bytes", lambda: 2 * 10**6)
    monkeypatch.setattr(memory, "UNCHECKED", 0)
    X, y = rng.normal(size=(300, 2)), np.repeat([0, 1], 150)
    with pytest.raises(ValueError, match=r"^X: 300 training examples .*SplitConformalSVM"):
        machine(C=1.0).fit(X, y)
    model = machine(C=1.0).fit(X[50:250], y[50:250])
    assert model.predict_p(X[:2]).shape == (2, 2)


def _refusing_kernel(monkeypatch):
    """Make the memory left 1 MB and every check read it; return a list that records each
    call of the SVM solver, so that a test can say whether the refusal came before the work."""
    monkeypatch.setattr(memory, "available_bytes", lambda: 10**6)
    monkeypatch.setattr(memory, "UNCHECKED", 0)
    solves = []
    original = svm._libsvm_box

    def counted(*args, **kwargs):
        solves.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(svm, "_libsvm_box", counted)
    return solves


@pytest.mark.parametrize("machine", [SplitConformalSVM, CrossConformalSVM])
def test_split_and_cross_conformal_refuse_the_gram_matrix_before_the_work(machine, monkeypatch):
    """A kernel libsvm does not compute needs the proper set's (or each fold's) Gram matrix at
    once: 3 * 8 * 200^2 = 0.96 MB fits in 1 MB, 3 * 8 * 300^2 = 2.2 MB does not, and the refusal
    comes before any solve."""
    solves = _refusing_kernel(monkeypatch)
    rng = np.random.default_rng(1)
    n = 450 if machine is SplitConformalSVM else 375  # 300 proper examples, or folds of 300
    X, y = rng.normal(size=(n, 3)), np.resize([0, 1], n)
    with pytest.raises(ValueError, match=r"^X: 300 training examples .*kernel='rbf'"):
        machine(kernel="linear").fit(X, y)
    assert solves == []
    small = machine(kernel="linear").fit(X[: n * 2 // 3], y[: n * 2 // 3])
    assert small.predict_p(X[:2]).shape == (2, 2)


def test_split_conformal_refuses_the_gram_matrix_an_optimum_needs(monkeypatch):
    """With the RBF kernel the Gram matrix is computed only where the optimum is not unique:
    every example twice with its label, so that the free multipliers of two copies can trade
    mass. The check comes before the matrix is computed."""
    solves = _refusing_kernel(monkeypatch)
    rng = np.random.default_rng(2)
    Z = rng.normal(size=(225, 3))
    labels = (Z[:, 0] + 0.5 * rng.normal(size=225) > 0).astype(float)
    X, y = np.vstack([Z, Z]), np.r_[labels, labels]
    with pytest.raises(ValueError, match=r"^X: 300 training examples .*drop the repeats"):
        SplitConformalSVM(C=10.0).fit(X, y)
    assert solves  # libsvm ran first: whether the Gram matrix is needed is known only after


def test_nearest_neighbours_refuse_a_block_that_does_not_fit(monkeypatch):
    """TCM-NN holds 2 blocks of block_size x n distances per thread: 2 * 8 * 256 * 300 =
    1.2 MB does not fit in 1 MB, a block of 64 rows does."""
    _refusing_kernel(monkeypatch)
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(300, 3)), np.resize([0, 1], 300)
    with pytest.raises(ValueError, match=r"^X: 300 training examples .*smaller block_size"):
        TCMNearestNeighbours().fit(X, y)
    assert TCMNearestNeighbours(block_size=64).fit(X, y).predict_p(X[:2]).shape == (2, 2)
