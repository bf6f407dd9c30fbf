"""Refusing, before it starts, a fit whose matrices cannot fit in memory.

The full transductive machines keep the training set's n x n kernel matrix and work on a few
more of the same size while they fit (the Cholesky factor of the positive-semidefinite check,
the incremental SVM's factors): 8 n^2 bytes each, 2.6 GB each at n = 18,000. The split and
cross-conformal machines need the Gram matrix of their proper training set (or of each fold's)
whenever libsvm does not compute the kernel itself (every kernel but ``"rbf"``) and wherever
the optimum is not unique (repeated rows on the margin); the nearest-neighbour machines hold a
block of distances per thread. A fit that needs more than the machine has does not fail
cleanly: it swaps, or the kernel's out-of-memory killer ends the process, or LAPACK aborts.
:func:`check_fits` compares what a fit needs with what this process may still take
(:func:`available_bytes`) and refuses with a ``ValueError`` that says both and what to use
instead.
"""

from __future__ import annotations

import resource
from pathlib import Path

from .validation import check_integer, check_positive

__all__ = [
    "FULL_TRANSDUCTION",
    "GRAM_ROUTE",
    "NEIGHBOUR_BLOCKS",
    "UNCHECKED",
    "available_bytes",
    "check_fits",
    "check_full_transduction_fits",
    "check_gram_route_fits",
]

#: Bytes of one float64.
FLOAT = 8

#: The n x n matrices a full transductive machine (``TransductiveSVM``, ``DistanceTCM``) holds
#: at the peak of its fit. tools/estimator_sizes.py measured about 2 (peak resident memory above
#: the imports over 8 n^2 bytes) at n = 4000 and 8000 on an easy problem; the review's fit at
#: n = 18,000 passed 12 GB, more than 4.6, before it died in LAPACK; 5 covers both.
FULL_TRANSDUCTION = 5

#: The n x n matrices a split or cross-conformal SVM holds at the peak of a fit on the whole
#: Gram matrix of its n proper (or fold's) training examples. tools' measurement
#: (``make_classification``, linear kernel, n = 6000, 2026-12-02): 2.31 for split conformal's
#: proper set of 4000, 2.44 for the folds of 4800; 3 covers both.
GRAM_ROUTE = 3

#: Blocks of ``block_size x n`` distances a nearest-neighbour machine holds per thread (the
#: block and its sorted copy).
NEIGHBOUR_BLOCKS = 2

#: Bytes below which :func:`check_fits` does not look: reading the proc and cgroup files costs
#: about a millisecond, more than a whole fit of a few dozen examples (the transduction
#: chapter's Table 2 makes 16,000 of them), and 64 MiB is left on any machine that runs Python.
UNCHECKED = 64 * 2**20

#: What the refusal of a split or cross-conformal fit on the Gram matrix suggests instead.
GRAM_ROUTE_INSTEAD = (
    "with kernel='rbf' libsvm computes the kernel itself and the fit needs only the support "
    "vectors' kernel columns, computed in blocks (the estimators page, 'How large a problem "
    "fits'); with repeated rows, which make the optimum not unique, drop the repeats, or fit "
    "on a subsample"
)

#: What the refusal of a full transductive fit suggests instead.
FULL_TRANSDUCTION_INSTEAD = (
    "SplitConformalSVM or CrossConformalSVM train on the same data with a small part of the "
    "memory (the estimators page, 'How large a problem fits'), or fit on a subsample"
)


def _read_int(path: Path) -> int | None:
    """The integer in a one-line file, or None where it is missing or says ``max``."""
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _meminfo_available(proc: Path) -> int | None:
    """``MemAvailable`` of ``/proc/meminfo`` in bytes: what the system can give without
    swapping."""
    try:
        lines = (proc / "meminfo").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return None


def _cgroup_room(cgroup: Path) -> int | None:
    """The control group's limit less its usage (cgroup v2, else v1), or None without a limit."""
    for limit, usage in (
        ("memory.max", "memory.current"),
        ("memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes"),
    ):
        cap, used = _read_int(cgroup / limit), _read_int(cgroup / usage)
        if cap is not None and used is not None and cap < 2**60:
            return max(cap - used, 0)
    return None


def _address_space_room(proc: Path) -> int | None:
    """``RLIMIT_AS`` less this process's virtual size (``ulimit -v``), or None without one."""
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        status = (proc / "self" / "status").read_text().splitlines()
    except OSError:
        return None
    size = next((int(s.split()[1]) * 1024 for s in status if s.startswith("VmSize:")), 0)
    return max(soft - size, 0)


def available_bytes() -> int | None:
    """The memory this process may still take, in bytes, or None where nothing is known.

    The smallest of the system's available memory (``MemAvailable``), the room left under the
    process's control group's limit (a container's memory limit) and under its address-space
    limit (``ulimit -v``). On a system without ``/proc`` (not Linux) nothing is known.
    """
    return _room(Path("/proc"), Path("/sys/fs/cgroup"))


def _room(proc: Path, cgroup: Path) -> int | None:
    """:func:`available_bytes` read from the proc and cgroup file systems mounted at ``proc``
    and ``cgroup``."""
    rooms = [_meminfo_available(proc), _cgroup_room(cgroup), _address_space_room(proc)]
    known = [r for r in rooms if r is not None]
    return min(known) if known else None


def check_fits(
    n: int, matrices: float, name: str, instead: str, columns: int | None = None
) -> None:
    """Refuse a fit that needs ``matrices`` n x n (or n x ``columns``) float64 matrices at once,
    if they do not fit.

    Parameters
    ----------
    n : int
        The number of training examples (the matrices' rows).
    matrices : float
        How many such matrices the fit holds at its peak.
    name : str
        The argument the refusal names (``"X"``).
    instead : str
        What to use instead, said in the refusal.
    columns : int, optional
        The matrices' columns; ``n`` by default.

    Raises
    ------
    ValueError
        Naming ``name``, when ``matrices * 8 * n * columns`` bytes exceed
        :func:`available_bytes` (which is not read when they are below :data:`UNCHECKED`).
    """
    n = check_integer(n, "n", low=0)
    columns = n if columns is None else check_integer(columns, "columns", low=0)
    matrices = check_positive(matrices, "matrices")
    need = matrices * FLOAT * n * columns
    if need < UNCHECKED:
        return
    room = available_bytes()
    if room is not None and need > room:
        raise ValueError(
            f"{name}: {n} training examples need about {need / 1e9:.1f} GB ({matrices:g} "
            f"matrices of {n} x {columns} numbers) and this process has {room / 1e9:.1f} GB "
            f"left; {instead}"
        )


def check_full_transduction_fits(n: int) -> None:
    """:func:`check_fits` for a full transductive machine on ``n`` training examples
    (:data:`FULL_TRANSDUCTION` matrices), naming ``X``."""
    check_fits(n, FULL_TRANSDUCTION, "X", FULL_TRANSDUCTION_INSTEAD)


def check_gram_route_fits(n: int) -> None:
    """:func:`check_fits` for a split or cross-conformal SVM about to compute the Gram matrix of
    its ``n`` proper (or fold's) training examples (:data:`GRAM_ROUTE` matrices), naming
    ``X``."""
    check_fits(n, GRAM_ROUTE, "X", GRAM_ROUTE_INSTEAD)
