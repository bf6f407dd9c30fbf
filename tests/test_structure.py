"""The house's floors: every module of svmtrust imports only from floors below its own.

The floors, lowest first (a module may import from any lower floor and from none at or above
its own, so no import can close a circle):

0. ``validation`` (argument checks), ``ties`` (the one tie rule) and ``keel`` (reading KEEL
   tables);
1. ``kernels``, ``qp``, ``conformal``, ``venn_abers``, ``reliability``, ``pipeline``, ``datasets``,
   ``multiplicity``, ``memory`` and ``progress``: the tools every method or comparison uses
   (``conformal`` and ``venn_abers`` turn any scores into p-values and probabilities);
2. ``optimal_face`` (the QP's optimal face) and ``efficiency`` (measures of prediction regions);
3. ``certificate``: what makes an SVM's answer an optimum, judged from the problem alone;
4. ``svm``: the SVM dual, solved exactly and made canonical;
5. ``rank_sum``, ``span``, ``discrepancy``, ``nonconformity_selection``, ``incremental_svm``, ``one_vs_rest``, ``tcm_nn``'s
   fast backend ``_tcm_nn_fast`` and the split machines' fit from the data ``_kernel_columns``:
   the ideas of one paper each, on the SVM;
6. the estimators ``transduction``, ``svm_distance``, ``split_conformal`` and ``tcm_nn``;
7. ``venn_abers_svm``: the Venn-ABERS estimators, built on the split machines' proper SVM and
   the distance machine's augmented SVMs;
8. ``experiments``: the chapters' protocols.

The imports are read from the source with :mod:`ast` (including imports inside functions).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "lib" / "svmtrust"

FLOORS = {
    "validation": 0,
    "keel": 0,
    "ties": 0,
    "kernels": 1,
    "qp": 1,
    "conformal": 1,
    "venn_abers": 1,
    "reliability": 1,
    "pipeline": 1,
    "datasets": 1,
    "multiplicity": 1,
    "memory": 1,
    "progress": 1,
    "optimal_face": 2,
    "efficiency": 2,
    "certificate": 3,
    "svm": 4,
    "rank_sum": 5,
    "span": 5,
    "discrepancy": 5,
    "nonconformity_selection": 5,
    "_tcm_nn_fast": 5,
    "_kernel_columns": 5,
    "incremental_svm": 5,
    "one_vs_rest": 5,
    "transduction": 6,
    "venn_abers_svm": 7,
    "svm_distance": 6,
    "split_conformal": 6,
    "tcm_nn": 6,
    "experiments": 8,
}


def _module_of(path: Path) -> str:
    """The top-level module of svmtrust a source file belongs to (``experiments`` for its
    sub-package)."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[0]


def _imported(path: Path) -> set[str]:
    """The top-level svmtrust modules ``path`` imports (relative or absolute)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inside_experiments = _module_of(path) == "experiments"
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 0 and (node.module or "").startswith("svmtrust"):
                parts = node.module.split(".")[1:]
            elif node.level == 1 and not inside_experiments:
                parts = (node.module or "").split(".") if node.module else []
            elif node.level >= 1:
                up = node.level - (1 if inside_experiments else 0)
                parts = (node.module or "").split(".") if up >= 1 else ["experiments"]
            else:
                continue
            if parts and parts[0]:
                found.add(parts[0])
            else:  # "from . import qp, svm"
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("svmtrust."):
                    found.add(alias.name.split(".")[1])
    return found & set(FLOORS)


def test_every_module_has_a_floor():
    modules = {_module_of(path) for path in PACKAGE.rglob("*.py")} - {"__init__", "__main__"}
    assert modules == set(FLOORS)


def test_imports_go_down_only():
    """No module imports one on its own floor or above: no circle, no import back up."""
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_of(path)
        if module == "__init__":
            continue
        for other in sorted(_imported(path) - {module}):
            if FLOORS[other] >= FLOORS[module]:
                upward.append(f"{path.relative_to(PACKAGE)} imports {other}")
    assert upward == []


def test_the_reader_sees_imports():
    """The reader finds the imports it must (a check that cannot pass vacuously)."""
    assert {"qp", "optimal_face", "validation"} <= _imported(PACKAGE / "svm.py")
    assert "svm" in _imported(PACKAGE / "span.py")
