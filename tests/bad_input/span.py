"""Bad input to svmtrust.span: kernels that are not PSD or not symmetric, foreign solutions."""

import numpy as np
from svmtrust import span
from svmtrust.kernels import rbf_kernel
from svmtrust.svm import fit_svm

from ._data import HARD, K_ASYMMETRIC, K_INDEFINITE, K_LIN, SOL, K, X, Y, nan

M = "svmtrust.span."
OTHER_C = fit_svm(K, Y, C=10.0)
FLIPPED = fit_svm(K, -Y, C=1.0)
#: Trained on a wider RBF kernel of the same points (issue 22: spans 1.11 and NaN were returned).
OTHER_KERNEL = fit_svm(rbf_kernel(X, gamma=0.5), Y, C=1.0)
L2_SOL = span.fit_l2_svm(K, Y, 1.0)

#: Every function taking ``(K, sol)``: each must refuse a kernel that is not PSD, not
#: symmetric, or a ``sol`` that is not an SVMSolution of the right size.
_KSOL = {
    "span": span.span,
    "closed_form_coefficients": span.closed_form_coefficients,
    "span_closed_form": span.span_closed_form,
    "span_rule_early_stopping": span.span_rule_early_stopping,
    "span_rule_loo": span.span_rule_loo,
    "radius_margin_bound": span.radius_margin_bound,
    "rescaled_radius_margin_bound": span.rescaled_radius_margin_bound,
    "jaakkola_haussler_errors": span.jaakkola_haussler_errors,
}
_SPANS = np.ones(8)

CASES = [
    case
    for name, func in _KSOL.items()
    for case in [
        (M + name, "K not PSD", lambda f=func: f(K_INDEFINITE, SOL), "K"),
        (M + name, "K not symmetric", lambda f=func: f(K_ASYMMETRIC, SOL), "K"),
        (M + name, "sol a dict", lambda f=func: f(K, {"alpha": SOL.alpha}), "sol"),
        (M + name, "sol of other size", lambda f=func: f(K[:4, :4], SOL), "sol"),
        (M + name, "sol trained on another kernel", lambda f=func: f(K, OTHER_KERNEL), "sol"),
    ]
] + [
    (
        M + "span_rule_errors",
        "K not PSD",
        lambda: span.span_rule_errors(K_INDEFINITE, SOL, _SPANS),
        "K",
    ),
    (
        M + "span_rule_errors",
        "spans NaN",
        lambda: span.span_rule_errors(K, SOL, nan(_SPANS)),
        "spans",
    ),
    (
        M + "span_rule_errors",
        "spans negative",
        lambda: span.span_rule_errors(K, SOL, -_SPANS),
        "spans",
    ),
    (
        M + "span_rule_errors",
        "spans strings",
        lambda: span.span_rule_errors(K, SOL, ["a"] * 8),
        "spans",
    ),
    (
        M + "span",
        "constrained a string",
        lambda: span.span(K, SOL, constrained="no"),
        "constrained",
    ),
    (
        M + "span_closed_form",
        "ridge negative",
        lambda: span.span_closed_form(K, SOL, -1.0),
        "ridge",
    ),
    (
        M + "closed_form_coefficients",
        "ridge NaN",
        lambda: span.closed_form_coefficients(K, SOL, np.nan),
        "ridge",
    ),
    (M + "span_rule_loo", "method unknown", lambda: span.span_rule_loo(K, SOL, "exact"), "method"),
    (
        M + "span_rule_loo",
        "early_stopping a string",
        lambda: span.span_rule_loo(K, SOL, "qp", early_stopping="no"),
        "early_stopping",
    ),
    (M + "leave_one_out", "K not PSD", lambda: span.leave_one_out(K_INDEFINITE, Y, 1.0), "K"),
    (M + "leave_one_out", "K not symmetric", lambda: span.leave_one_out(K_ASYMMETRIC, Y, 1.0), "K"),
    (
        M + "leave_one_out",
        "sol trained with another C",
        lambda: span.leave_one_out(K, Y, 1.0, sol=OTHER_C),
        "sol",
    ),
    (
        M + "leave_one_out",
        "sol trained on another kernel",
        lambda: span.leave_one_out(K, Y, 1.0, sol=OTHER_KERNEL),
        "sol",
    ),
    (
        M + "leave_one_out",
        "sol trained on other labels",
        lambda: span.leave_one_out(K, Y, 1.0, sol=FLIPPED),
        "sol",
    ),
    (
        M + "leave_one_out",
        "sol of other size",
        lambda: span.leave_one_out(K[:4, :4], Y[:4], 1.0, sol=SOL),
        "sol",
    ),
    (
        M + "leave_one_out",
        "sol a dict",
        lambda: span.leave_one_out(K, Y, 1.0, sol={"alpha": SOL.alpha}),
        "sol",
    ),
    (
        M + "leave_one_out",
        "solver unknown",
        lambda: span.leave_one_out(K, Y, 1.0, solver="smo"),
        "solver",
    ),
    (
        M + "leave_one_out",
        "method unknown",
        lambda: span.leave_one_out(K, Y, 1.0, method="warm_start"),
        "method",
    ),
    (M + "leave_one_out", "C zero", lambda: span.leave_one_out(K, Y, 0.0), "C"),
    (M + "leave_one_out", "labels 0/1", lambda: span.leave_one_out(K, Y > 0, 1.0), "y"),
    (M + "exact_loo", "K not PSD", lambda: span.exact_loo(K_INDEFINITE, Y, 1.0), "K"),
    (M + "exact_loo", "K not symmetric", lambda: span.exact_loo(K_ASYMMETRIC, Y, 1.0), "K"),
    (M + "exact_loo", "solver unknown", lambda: span.exact_loo(K, Y, 1.0, solver="smo"), "solver"),
    (M + "exact_loo", "C a string", lambda: span.exact_loo(K, Y, "1"), "C"),
    (M + "radius_squared", "K not PSD", lambda: span.radius_squared(K_INDEFINITE), "K"),
    (M + "l2_kernel", "C infinite", lambda: span.l2_kernel(K, np.inf), "C"),
    (M + "l2_kernel", "C zero", lambda: span.l2_kernel(K, 0.0), "C"),
    (M + "l2_kernel", "K NaN", lambda: span.l2_kernel(nan(K), 1.0), "K"),
    (M + "l2_kernel", "K not square", lambda: span.l2_kernel(K[:3], 1.0), "K"),
    (M + "fit_l2_svm", "C infinite", lambda: span.fit_l2_svm(K, Y, np.inf), "C"),
    (M + "fit_l2_svm", "y wrong length", lambda: span.fit_l2_svm(K, Y[:3], 1.0), "y"),
    (M + "fit_l2_svm", "solver unknown", lambda: span.fit_l2_svm(K, Y, 1.0, "magic"), "solver"),
    (M + "radius_squared", "K NaN", lambda: span.radius_squared(nan(K)), "K"),
    (
        M + "rescaled_radius_margin_bound",
        "box unknown",
        lambda: span.rescaled_radius_margin_bound(K, SOL, box="cube"),
        "box",
    ),
    (
        M + "l2_rescaled_radius_margin_bound",
        "C zero",
        lambda: span.l2_rescaled_radius_margin_bound(K, L2_SOL, 0.0),
        "C",
    ),
    (
        M + "l2_rescaled_radius_margin_bound",
        "K NaN",
        lambda: span.l2_rescaled_radius_margin_bound(nan(K), L2_SOL, 1.0),
        "K",
    ),
    (
        M + "l2_rescaled_radius_margin_bound",
        "sol of another C (its dual value is not that of K + I / C)",
        lambda: span.l2_rescaled_radius_margin_bound(K, L2_SOL, 4.0),
        "sol",
    ),
    (
        M + "l2_rescaled_radius_margin_bound",
        "sol not a solution",
        lambda: span.l2_rescaled_radius_margin_bound(K, {"alpha": 1}, 1.0),
        "sol",
    ),
    (
        M + "l2_rescaled_radius_margin_bound",
        "box unknown",
        lambda: span.l2_rescaled_radius_margin_bound(K, L2_SOL, 1.0, box="cube"),
        "box",
    ),
    (M + "linear_rescaled_bound", "X NaN", lambda: span.linear_rescaled_bound(nan(X), HARD), "X"),
    (
        M + "linear_rescaled_bound",
        "sol of other size",
        lambda: span.linear_rescaled_bound(X[:4], HARD),
        "sol",
    ),
    (
        M + "linear_rescaled_bound",
        "sol a dict",
        lambda: span.linear_rescaled_bound(X, {"alpha": 1}),
        "sol",
    ),
    (
        M + "linear_rescaled_bound",
        "box unknown",
        lambda: span.linear_rescaled_bound(X, HARD, box="cube"),
        "box",
    ),
    (M + "span_bound", "soft-margin sol", lambda: span.span_bound(K, SOL), "sol"),
    (M + "span_bound", "K not PSD", lambda: span.span_bound(K_INDEFINITE, HARD), "K"),
    (M + "span_bound", "spans short", lambda: span.span_bound(K_LIN, HARD, spans=[1.0]), "spans"),
    (
        M + "span_bound",
        "spans NaN",
        lambda: span.span_bound(K_LIN, HARD, spans=np.full(8, np.nan)),
        "spans",
    ),
]
