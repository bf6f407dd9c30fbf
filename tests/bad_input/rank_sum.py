"""Bad input to svmtrust.rank_sum: multipliers, ranks, subset sizes, test positions, draws, rng."""

import numpy as np
from svmtrust.rank_sum import rank_sum_counts, rank_sum_p_value, rank_sum_p_value_mc

C = "svmtrust.rank_sum.rank_sum_counts"
P = "svmtrust.rank_sum.rank_sum_p_value"
MC = "svmtrust.rank_sum.rank_sum_p_value_mc"
SCORES = [0.0, 0.0, 0.5, 1.0, 2.0]


def _mc(n_draws=100, rng=0, scores=SCORES, test_index=(3, 4)):
    return lambda: rank_sum_p_value_mc(scores, list(test_index), n_draws, rng)


CASES = [
    (C, "k too large", lambda: rank_sum_counts([1, 2, 3], 4), "k"),
    (C, "k zero", lambda: rank_sum_counts([1, 2, 3], 0), "k"),
    (C, "k a float", lambda: rank_sum_counts([1, 2, 3], 2.5), "k"),
    (C, "k a string", lambda: rank_sum_counts([1, 2, 3], "2"), "k"),
    (C, "rank zero", lambda: rank_sum_counts([0, 2, 3], 2), "ranks"),
    (C, "rank above N", lambda: rank_sum_counts([1, 2, 4], 2), "ranks"),
    (C, "rank not an integer", lambda: rank_sum_counts([1, 2.5, 3], 2), "ranks"),
    (C, "ranks NaN", lambda: rank_sum_counts([1, np.nan, 3], 2), "ranks"),
    (C, "ranks 2-D", lambda: rank_sum_counts([[1, 2], [3, 4]], 2), "ranks"),
    (P, "test_index repeated", lambda: rank_sum_p_value([1.0, 2.0, 3.0], [0, 0]), "test_index"),
    (P, "test_index out of range", lambda: rank_sum_p_value([1.0, 2.0], [2]), "test_index"),
    (P, "test_index negative", lambda: rank_sum_p_value([1.0, 2.0], [-1]), "test_index"),
    (P, "test_index floats", lambda: rank_sum_p_value([1.0, 2.0], [0.0]), "test_index"),
    (P, "test_index empty", lambda: rank_sum_p_value([1.0, 2.0], []), "test_index"),
    (P, "test_index booleans", lambda: rank_sum_p_value([1.0, 2.0], [True]), "test_index"),
    (P, "scores NaN", lambda: rank_sum_p_value([1.0, np.nan], [0]), "scores"),
    (P, "scores inf", lambda: rank_sum_p_value([1.0, np.inf], [0]), "scores"),
    (P, "scores 2-D", lambda: rank_sum_p_value(np.ones((2, 2)), [0]), "scores"),
    (MC, "n_draws zero", _mc(n_draws=0), "n_draws"),
    (MC, "n_draws negative", _mc(n_draws=-5), "n_draws"),
    (MC, "n_draws a float", _mc(n_draws=2.5), "n_draws"),
    (MC, "n_draws a string", _mc(n_draws="100"), "n_draws"),
    (MC, "n_draws a bool", _mc(n_draws=True), "n_draws"),
    (MC, "rng None", _mc(rng=None), "rng"),
    (MC, "rng a RandomState", _mc(rng=np.random.RandomState(0)), "rng"),
    (MC, "seed a string", _mc(rng="0"), "rng"),
    (MC, "seed negative", _mc(rng=-1), "rng"),
    (MC, "seed a float", _mc(rng=1.5), "rng"),
    (MC, "seed a bool", _mc(rng=True), "rng"),
    (MC, "scores NaN", _mc(scores=[1.0, np.nan, 0.0]), "scores"),
    (MC, "test_index out of range", _mc(test_index=(7,)), "test_index"),
]
