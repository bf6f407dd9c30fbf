"""svmtrust: the library of the book *Trusting the Support Vector Machine*.

Modules, one per idea: :mod:`~svmtrust.kernels` (Gram matrices), :mod:`~svmtrust.svm` (the dual
QP, exact and through libsvm), :mod:`~svmtrust.conformal` (p-values, regions, confidence and
credibility), :mod:`~svmtrust.datasets` (the data sets, from installed packages) and
:mod:`~svmtrust.experiments` (one protocol per chapter).
"""

__version__ = "0.1.0"
