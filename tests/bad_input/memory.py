"""Bad input to svmtrust.memory: sizes that are not counts, and a fit too large to hold."""

from svmtrust import memory

M = "svmtrust.memory."
TOO_LARGE = 10**9  # 5 * 8 * 10**18 bytes: more than any machine has

CASES = [
    (M + "check_fits", "n negative", lambda: memory.check_fits(-1, 1, "X", "-"), "n"),
    (M + "check_fits", "n a float", lambda: memory.check_fits(10.0, 1, "X", "-"), "n"),
    (M + "check_fits", "matrices zero", lambda: memory.check_fits(10, 0, "X", "-"), "matrices"),
    (M + "check_fits", "too large", lambda: memory.check_fits(TOO_LARGE, 1, "X", "-"), "X"),
    (
        M + "check_fits",
        "columns negative",
        lambda: memory.check_fits(10, 1, "X", "-", columns=-2),
        "columns",
    ),
    (
        M + "check_fits",
        "too many columns",
        lambda: memory.check_fits(10**5, 1, "X", "-", columns=TOO_LARGE * 10**4),
        "X",
    ),
    (
        M + "check_gram_route_fits",
        "too large",
        lambda: memory.check_gram_route_fits(TOO_LARGE),
        "X",
    ),
    (M + "check_gram_route_fits", "n a float", lambda: memory.check_gram_route_fits(1.5), "n"),
    (
        M + "check_full_transduction_fits",
        "too large",
        lambda: memory.check_full_transduction_fits(TOO_LARGE),
        "X",
    ),
    (
        M + "check_full_transduction_fits",
        "n None",
        lambda: memory.check_full_transduction_fits(None),
        "n",
    ),
    (
        M + "check_full_transduction_fits",
        "n a string",
        lambda: memory.check_full_transduction_fits("100"),
        "n",
    ),
]

NO_INPUT = {M + "available_bytes": "takes no argument"}
