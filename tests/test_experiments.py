"""Reproducibility of the experiment machinery and the command line."""

import numpy as np
import pandas as pd
import pytest
from svmtrust import experiments, validation
from svmtrust.experiments import parallel_map, task_rng
from svmtrust.experiments import svm as svm_protocol
from svmtrust.experiments.__main__ import main


def _draw(task, rng):
    return task, rng.normal(size=3).tolist(), int(rng.integers(1_000_000))


def test_task_rng_depends_on_seed_and_index_only():
    a = task_rng(7, 3).normal(size=5)
    assert np.array_equal(a, task_rng(7, 3).normal(size=5))
    assert not np.array_equal(a, task_rng(7, 4).normal(size=5))
    assert not np.array_equal(a, task_rng(8, 3).normal(size=5))


def test_parallel_map_same_results_for_one_and_two_jobs():
    assert experiments.workers(2) == 2  # two workers really run (no cap left in the environment)
    tasks = list(range(12))
    one = parallel_map(_draw, tasks, seed=5, n_jobs=1, progress=False)
    two = parallel_map(_draw, tasks, seed=5, n_jobs=2, progress=False)
    assert one == two
    assert [t for t, _, _ in one] == tasks
    assert parallel_map(_draw, tasks, seed=6, n_jobs=1, progress=False) != one


DETERMINISTIC = [
    "data",
    "kernel",
    "C",
    "n",
    "n_sv",
    "support_equal",
    "bounded_equal",
    "support_mismatch",
    "bounded_mismatch",
]


@pytest.fixture(scope="module")
def svm_tables():
    return (
        svm_protocol.run(scale="book", seed=0, n_jobs=1),
        svm_protocol.run(scale="book", seed=0, n_jobs=2),
    )


def test_svm_protocol_same_table_for_one_and_two_jobs(svm_tables):
    one, two = svm_tables
    pd.testing.assert_frame_equal(one[DETERMINISTIC], two[DETERMINISTIC])
    # Solutions are computed from identical inputs: the measured gaps agree to rounding. The
    # gaps are themselves differences of O(1) numbers, and a worker process may run its BLAS
    # with another number of threads (another order of summation), so "rounding" is an
    # absolute 1e-10 on values of order 1, not a relative 1e-6 of a 1e-7 gap.
    for column in ("objective_gap", "max_decision_diff", "alpha_diff"):
        assert np.allclose(one[column], two[column], rtol=1e-6, atol=1e-10)
    for column in ("objective", "objective_libsvm"):
        assert np.allclose(one[column], two[column], rtol=1e-10, atol=0)


def test_svm_protocol_claims(svm_tables):
    table = svm_tables[0]
    assert len(table) == len(svm_protocol.SETTINGS)
    assert (table["objective_gap"] <= 1e-6).all()
    assert table["support_equal"].all() and table["bounded_equal"].all()
    assert (table["support_mismatch"] == 0).all() and (table["bounded_mismatch"] == 0).all()
    assert (table["max_decision_diff"] <= 1e-4).all()


def test_svm_compare_solvers_dual_values_equal_the_primal_optimum():
    """Strong duality: both dual values equal the soft-margin primal optimum, solved here as a
    primal QP over (w, b, xi) with the linear kernel, a different problem from the dual."""
    import cvxpy as cp

    rng = np.random.default_rng(4)
    X = np.vstack([rng.normal(-0.7, 1.0, size=(25, 2)), rng.normal(0.7, 1.0, size=(25, 2))])
    y = np.r_[-np.ones(25), np.ones(25)]
    C = 0.8
    w, b, xi = cp.Variable(2), cp.Variable(), cp.Variable(50, nonneg=True)
    primal = cp.Problem(
        cp.Minimize(0.5 * cp.sum_squares(w) + C * cp.sum(xi)), [cp.multiply(y, X @ w + b) >= 1 - xi]
    )
    primal.solve(solver=cp.CLARABEL)
    result = svm_protocol.compare_solvers(X @ X.T, y, C)
    assert np.isclose(result["objective"], primal.value, rtol=1e-6)
    assert np.isclose(result["objective_libsvm"], primal.value, rtol=1e-6)
    assert result["support_mismatch"] == 0 and result["bounded_mismatch"] == 0


def test_command_line_writes_csv(tmp_path, capsys):
    out = tmp_path / "svm.csv"
    assert (
        main(["svm", "--scale", "book", "--seed", "0", "--n-jobs", "1", "--output", str(out)]) == 0
    )
    printed = capsys.readouterr().out
    assert "ionosphere" in printed and "objective_gap" in printed
    table = pd.read_csv(out)
    assert len(table) == len(svm_protocol.SETTINGS)


def test_progress_bar_shown_unless_switched_off(monkeypatch, capsys):
    monkeypatch.delenv("SVMTRUST_PROGRESS", raising=False)
    parallel_map(lambda t, rng: t, range(3), desc="bar test")
    assert "bar test" in capsys.readouterr().err
    monkeypatch.setenv("SVMTRUST_PROGRESS", "0")
    parallel_map(lambda t, rng: t, range(3), desc="bar test")
    assert "bar test" not in capsys.readouterr().err


@pytest.mark.parametrize(
    "n_jobs, expected", [(None, 1), (1, 1), (3, 3), (-1, -1), (np.int64(2), 2)]
)
def test_check_n_jobs_counts_workers_as_joblib_does(n_jobs, expected):
    assert experiments.check_n_jobs is validation.check_n_jobs  # one check for every caller
    assert validation.check_n_jobs(n_jobs) == expected


@pytest.mark.parametrize("n_jobs", [0, -2, 1.5, True, "2"])
def test_check_n_jobs_rejects_what_joblib_would_misread(n_jobs):
    with pytest.raises(ValueError, match="^n_jobs: must be None, a positive integer or -1"):
        validation.check_n_jobs(n_jobs)


def test_clopper_pearson_matches_the_beta_quantiles():
    """The exact interval from scipy's binomtest equals its closed form in beta quantiles,
    including the ends 0 and n (where one side is 0 or 1)."""
    from scipy.stats import beta
    from svmtrust.experiments.transduction import clopper_pearson

    errors, trials = np.array([0, 1, 7, 20, 20]), np.array([20, 20, 20, 20, 400])
    low, high = clopper_pearson(errors, trials)
    safe = np.maximum(errors, 1)
    expected_low = np.where(errors > 0, beta.ppf(0.025, safe, trials - errors + 1), 0.0)
    expected_high = np.where(
        errors < trials, beta.ppf(0.975, errors + 1, np.maximum(trials - errors, 1)), 1.0
    )
    np.testing.assert_allclose(low, expected_low, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(high, expected_high, rtol=1e-9, atol=1e-12)


def test_the_workers_are_capped_by_the_environment(monkeypatch):
    """``SVMTRUST_MAX_JOBS`` caps ``parallel_map``'s workers (every core, -1, becomes the cap),
    leaves the results as they are, and is checked, named, when it is not a positive integer."""
    MAX_JOBS, workers = experiments.MAX_JOBS, experiments.workers
    monkeypatch.delenv(MAX_JOBS, raising=False)
    assert (workers(1), workers(2), workers(-1)) == (1, 2, -1)
    free = parallel_map(_draw, range(6), seed=3, n_jobs=2, progress=False)
    monkeypatch.setenv(MAX_JOBS, "1")
    assert (workers(1), workers(2), workers(-1)) == (1, 1, 1)
    assert parallel_map(_draw, range(6), seed=3, n_jobs=2, progress=False) == free
    monkeypatch.setenv(MAX_JOBS, "3")
    assert (workers(2), workers(4), workers(-1)) == (2, 3, 3)
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv(MAX_JOBS, bad)
        with pytest.raises(ValueError, match=MAX_JOBS):
            workers(2)
