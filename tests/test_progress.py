"""svmtrust.progress: a bar on stderr only for a loop that runs past DELAY, never when switched
off, and the same p-values with or without it."""

import numpy as np
from svmtrust import progress
from svmtrust.split_conformal import CrossConformalSVM
from svmtrust.svm_distance import DistanceTCM
from svmtrust.transduction import TransductiveSVM


def test_a_bar_shows_after_the_delay_unless_switched_off(monkeypatch, capsys):
    monkeypatch.delenv("SVMTRUST_PROGRESS", raising=False)
    assert list(progress.steps(3, "quick loop")) == [0, 1, 2]
    assert "quick loop" not in capsys.readouterr().err  # shorter than DELAY: no bar
    monkeypatch.setattr(progress, "DELAY", 0.0)
    assert list(progress.steps(3, "slow loop", "object")) == [0, 1, 2]
    assert "slow loop" in capsys.readouterr().err
    assert progress.show_progress(True) and not progress.show_progress(False)
    monkeypatch.setenv("SVMTRUST_PROGRESS", "0")
    assert list(progress.steps(3, "silent loop")) == [0, 1, 2]
    assert "silent loop" not in capsys.readouterr().err
    assert not progress.show_progress(True)


def test_the_machines_show_their_bars_and_the_same_p_values(monkeypatch, capsys):
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(40, 2)), np.repeat([0, 1, 2, 3], 10)
    monkeypatch.setenv("SVMTRUST_PROGRESS", "0")
    quiet = {m: m(C=1.0).fit(X, y).predict_p(X[:3]) for m in (TransductiveSVM, DistanceTCM)}
    monkeypatch.delenv("SVMTRUST_PROGRESS")
    monkeypatch.setattr(progress, "DELAY", 0.0)
    for machine, p in quiet.items():
        np.testing.assert_array_equal(machine(C=1.0).fit(X, y).predict_p(X[:3]), p)
        assert f"{machine.__name__}" in capsys.readouterr().err
    TransductiveSVM(C=1.0).fit(X, y)
    assert "TransductiveSVM.fit" in capsys.readouterr().err


def test_cross_conformal_shows_a_bar_per_fold(monkeypatch, capsys):
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(40, 2)), np.repeat([0, 1], 20)
    monkeypatch.setenv("SVMTRUST_PROGRESS", "0")
    quiet = CrossConformalSVM().fit(X, y).predict_p(X[:3])
    assert "CrossConformalSVM.fit" not in capsys.readouterr().err
    monkeypatch.delenv("SVMTRUST_PROGRESS")
    monkeypatch.setattr(progress, "DELAY", 0.0)
    np.testing.assert_array_equal(CrossConformalSVM().fit(X, y).predict_p(X[:3]), quiet)
    assert "CrossConformalSVM.fit" in capsys.readouterr().err
