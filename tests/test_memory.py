"""svmtrust.memory: what the process may still take, read from made-up proc and cgroup trees,
and the refusal of a fit that needs more, before any kernel is computed."""

import numpy as np
import pytest
from svmtrust import memory
from svmtrust.svm_distance import DistanceTCM
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
