"""The bad-input table (issue 13): every case raises ValueError naming its argument.

The cases live in ``tests/bad_input/<area>.py``, each a list ``CASES`` of
``(qualname, description, thunk, argname)``: calling ``thunk()`` must raise a ``ValueError``
whose message starts with ``"argname:"`` (or, when ``argname`` is None, a
:class:`~svmtrust.svm.SolveError` for a failed solve). The coverage test asks that every public
name of every module of :mod:`svmtrust` be the ``qualname`` (or its prefix up to a dot) of at
least one case.

``python -m tests.test_bad_input`` tallies how the cases fail, by kind (raw exception,
accepted, NaN or inf result, wrong name in the message): the counts of issue 13.
"""

from __future__ import annotations

import collections
import importlib
import pkgutil
import signal

import numpy as np
import pytest
import svmtrust
import svmtrust.experiments
from svmtrust.svm import SolveError

from tests import bad_input

#: Public names that take no argument a caller could get wrong, with the reason (a case file
#: may add its own in a dict ``NO_INPUT``).
NO_INPUT = {
    "svmtrust.qp.SolveError": "an exception class, raised by the library",
    "svmtrust.svm.InexactWarning": "a warning class, issued by fit_svm",
    "svmtrust.validation.psd_by_construction": "a predicate: any object, False unless marked",
    "svmtrust.span.LeaveOneOut": "a result record built by leave_one_out",
    "svmtrust.discrepancy.Representation": "a result record built by represent",
    "svmtrust.discrepancy.PeelingRun": "a result record built by peel",
    "svmtrust.discrepancy.DiscrepancyResult": "a result record built by summarise_runs",
    "svmtrust.transduction.Hypotheses": "a result record built by TransductiveSVM",
    "svmtrust.transduction.JointHypotheses": "a result record built by TransductiveSVM",
    "svmtrust.experiments.__main__.build_parser": "takes no argument",
    "svmtrust.experiments.nonconformity_selection.paper_overall_recomputed": "takes no argument",
}


def _case_modules():
    """Every case file ``tests/bad_input/*.py`` (names starting with ``_`` are helpers)."""
    for info in sorted(pkgutil.iter_modules(bad_input.__path__), key=lambda i: i.name):
        if not info.name.startswith("_"):
            yield importlib.import_module(f"{bad_input.__name__}.{info.name}")


CASES = [case for module in _case_modules() for case in module.CASES]
for _module in _case_modules():
    NO_INPUT.update(getattr(_module, "NO_INPUT", {}))


def _modules():
    """Every public module of svmtrust and of svmtrust.experiments (and the command line).

    A private module (``svmtrust._tcm_nn_fast``) is reached only through a public one, whose
    cases cover it.
    """
    for package in (svmtrust, svmtrust.experiments):
        yield package
        for info in pkgutil.iter_modules(package.__path__, f"{package.__name__}."):
            private = info.name.rsplit(".", 1)[1].startswith("_") and not info.name.endswith(
                ".__main__"
            )
            if not info.ispkg and not private:
                yield importlib.import_module(info.name)


def public_names() -> list[str]:
    """Qualnames of the public functions and classes: ``__all__``, else those defined here."""
    names = []
    for module in _modules():
        own = getattr(module, "__all__", None)
        if own is None:
            own = [
                n
                for n, v in vars(module).items()
                if not n.startswith("_") and getattr(v, "__module__", None) == module.__name__
            ]
        names += [f"{module.__name__}.{n}" for n in own if callable(getattr(module, n))]
    return sorted(set(names))


def _covers(qualname: str, name: str) -> bool:
    return qualname == name or qualname.startswith(name + ".")


def _non_finite(result) -> bool:
    """Whether a returned value holds NaN or inf anywhere numeric."""
    if isinstance(result, dict):
        return any(_non_finite(v) for v in result.values())
    if isinstance(result, (tuple, list)):
        return any(_non_finite(v) for v in result)
    try:
        values = np.asarray(result, dtype=float)
    except (TypeError, ValueError):
        return False
    return not np.all(np.isfinite(values))


def outcome(thunk, argname) -> str:
    """How one case ends: ``"ok"`` or the kind of failure."""
    expected = (ValueError,) if argname is not None else (ValueError, SolveError)
    try:
        result = thunk()
    except expected as err:
        if argname is None or str(err).startswith(f"{argname}:"):
            return "ok"
        return "wrong name"
    except Exception:  # noqa: BLE001 - any other exception is what the table looks for
        return "raw exception"
    return "NaN-inf" if _non_finite(result) else "accepted"


@pytest.mark.parametrize(
    "thunk,argname", [c[2:] for c in CASES], ids=[f"{c[0]}: {c[1]}" for c in CASES]
)
def test_bad_input_raises_value_error_naming_argument(thunk, argname):
    if argname is None:
        with pytest.raises((ValueError, SolveError)):
            thunk()
        return
    with pytest.raises(ValueError) as info:
        thunk()
    assert str(info.value).startswith(f"{argname}:"), str(info.value)


def test_every_case_is_well_formed():
    names = set(public_names())
    for qualname, description, thunk, argname in CASES:
        assert any(_covers(qualname, n) for n in names), f"{qualname}: not a public name"
        assert description and callable(thunk)
        assert argname is None or isinstance(argname, str)


def test_every_public_name_has_a_case():
    missing = [
        n for n in public_names() if n not in NO_INPUT and not any(_covers(c[0], n) for c in CASES)
    ]
    assert missing == []


def test_outcome_tells_the_kinds_apart():
    def raise_(err):
        raise err

    assert outcome(lambda: raise_(ValueError("K: bad")), "K") == "ok"
    assert outcome(lambda: raise_(ValueError("y: bad")), "K") == "wrong name"
    assert outcome(lambda: raise_(TypeError("K")), "K") == "raw exception"
    assert outcome(lambda: np.array([1.0, np.nan]), "K") == "NaN-inf"
    assert outcome(lambda: 0.5, "K") == "accepted"
    assert outcome(lambda: raise_(SolveError("cvxpy", "infeasible")), None) == "ok"


class _Timeout(BaseException):
    """Raised by the alarm of :func:`tally`; not an ``Exception``, so no case catches it."""


def tally(timeout: int = 20) -> collections.Counter:
    """Count the cases by outcome; a case still running after ``timeout`` s counts as
    accepted (a run that should have refused its input)."""

    def stop(*_):
        raise _Timeout

    counts = collections.Counter()
    signal.signal(signal.SIGALRM, stop)
    for qualname, description, thunk, argname in CASES:
        signal.alarm(timeout)
        try:
            kind = outcome(thunk, argname)
        except _Timeout:
            kind = "accepted"
        finally:
            signal.alarm(0)
        counts[kind] += 1
        if kind != "ok":
            print(f"{kind:14s} {qualname}: {description}")
    return counts


if __name__ == "__main__":
    totals = tally()
    covered = {n for n in public_names() if any(_covers(c[0], n) for c in CASES)}
    print(f"{len(CASES)} cases on {len(covered)} public names: {dict(totals)}")
