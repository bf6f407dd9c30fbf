"""Preprocessing in front of a conformal estimator, with its p-values still in reach.

scikit-learn's :class:`~sklearn.pipeline.Pipeline` forwards ``predict`` to its last step but
not the methods it does not know: on ``make_pipeline(StandardScaler(), TransductiveSVM())`` a
user can call ``predict`` and nothing of what makes the estimator conformal. A
:class:`ConformalPipeline` is a ``Pipeline`` that also forwards :meth:`predict_p`,
:meth:`predict_set` and :meth:`predict_confidence`: the new objects go through every
transformer as fitted on the training set, then to the conformal estimator.

A transformer fitted on the training set alone is a function of the training data, not of the
bag of training and test examples, so the p-values are those of the conformal estimator on the
transformed data, and stay valid whenever the transformed examples are exchangeable (which
they are: one fixed map applied to exchangeable examples). Fitting a scaler on the training
plus the test examples would keep validity too, but is a different predictor.
"""

from __future__ import annotations

from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.utils.metaestimators import available_if

__all__ = ["ConformalPipeline", "make_conformal_pipeline"]


def _final_step_has(method: str):
    """For :func:`~sklearn.utils.metaestimators.available_if`: the last step has ``method``."""

    def check(pipeline) -> bool:
        getattr(pipeline._final_estimator, method)  # AttributeError: the method is unavailable
        return True

    return check


class ConformalPipeline(Pipeline):
    """A :class:`~sklearn.pipeline.Pipeline` ending in a conformal estimator, whose p-values,
    regions, confidence and credibility it forwards.

    Parameters are :class:`~sklearn.pipeline.Pipeline`'s (``steps``, ``memory``, ``verbose``).
    The methods below exist when the last step has them (any estimator of the library that
    mixes in :class:`svmtrust.conformal.ConformalClassifierMixin`).

    Examples
    --------
    A scaler in front of a transductive SVM (the pipeline's last step; a
    ``sklearn.preprocessing.StandardScaler`` is fitted on the training set only):

    >>> import numpy as np
    >>> from sklearn.preprocessing import StandardScaler
    >>> from svmtrust.pipeline import make_conformal_pipeline
    >>> from svmtrust.transduction import TransductiveSVM
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (20, 2)), rng.normal(2, 1, (20, 2))]) * [1.0, 100.0]
    >>> y = np.repeat([0, 1], 20)
    >>> model = make_conformal_pipeline(StandardScaler(), TransductiveSVM(kernel="rbf", C=10.0))
    >>> model = model.fit(X, y)
    >>> new = [[0.0, 0.0], [2.0, 200.0]]
    >>> model.predict_p(new).round(3)
    array([[1.   , 0.122],
           [0.122, 1.   ]])
    >>> model.predict_set(new, confidence=0.8)
    array([[ True, False],
           [False,  True]])
    >>> model.predict(new)
    array([0, 1])

    Without the scaler the second feature, a hundred times wider, decides the RBF distances
    alone, and the wrong labels get larger p-values:

    >>> TransductiveSVM(kernel="rbf", C=10.0).fit(X, y).predict_p(new).round(3)
    array([[1.   , 0.341],
           [0.341, 1.   ]])
    """

    def _transformed(self, X):
        """``X`` through every transformer of the pipeline, as fitted."""
        return self[:-1].transform(X) if len(self.steps) > 1 else X

    @available_if(_final_step_has("predict_p"))
    def predict_p(self, X):
        """The last step's ``predict_p`` of the transformed ``X``, shape (m, n_classes)."""
        return self._final_estimator.predict_p(self._transformed(X))

    @available_if(_final_step_has("predict_set"))
    def predict_set(self, X, significance=None, *, confidence=None):
        """The last step's regions (``significance`` or ``confidence``, as
        :meth:`svmtrust.conformal.ConformalClassifierMixin.predict_set` takes them)."""
        return self._final_estimator.predict_set(
            self._transformed(X), significance, confidence=confidence
        )

    @available_if(_final_step_has("predict_all"))
    def predict_all(self, X, significance=None, *, confidence=None):
        """The last step's p-values, forced predictions and regions of the transformed ``X``,
        from one computation (:meth:`svmtrust.conformal.ConformalClassifierMixin.predict_all`)."""
        return self._final_estimator.predict_all(
            self._transformed(X), significance, confidence=confidence
        )

    @available_if(_final_step_has("predict_confidence"))
    def predict_confidence(self, X):
        """The last step's forced prediction, confidence and credibility of the transformed
        ``X``."""
        return self._final_estimator.predict_confidence(self._transformed(X))


def make_conformal_pipeline(*steps, memory=None, verbose=False) -> ConformalPipeline:
    """:func:`sklearn.pipeline.make_pipeline` for a :class:`ConformalPipeline`: the steps are
    named after their classes.

    Parameters
    ----------
    *steps : estimators
        Transformers, then the conformal estimator.
    memory, verbose
        As :func:`sklearn.pipeline.make_pipeline`.

    Returns
    -------
    ConformalPipeline

    Raises
    ------
    ValueError
        If no step is given, or the last one has no ``predict_p`` (not a conformal estimator).
    """
    if not steps:
        raise ValueError("steps: give the transformers, then the conformal estimator")
    if not hasattr(steps[-1], "predict_p"):
        raise ValueError(
            f"steps: the last step must be a conformal estimator (one with predict_p), got "
            f"{type(steps[-1]).__name__}"
        )
    return ConformalPipeline(make_pipeline(*steps).steps, memory=memory, verbose=verbose)
