"""scikit-learn's generic estimator checks for the estimators whose input is not a numeric table.

EMDEVectorizer (lists of item names) and PMIWordVectors (documents) declare string
input, as scikit-learn's own text vectorizers do, for which scikit-learn skips its
generic checks; their behaviour is tested in test_emde.py and test_words.py (which
also runs the checks that need no data). LabelEmbedding takes a non-negative
label-indicator matrix, which the checks can feed it: it passes all of them. LME
takes playlists (sequences of song ids): the checks feed it numeric feature matrices
instead, so the checks below cannot apply. Each is named with its reason; a check
that starts passing fails this test (strict), so the list stays true.
"""

from __future__ import annotations

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from embedcore.emde import EMDEVectorizer
from embedcore.playlists import LME
from embedcore.words import LabelEmbedding, PMIWordVectors

_NOT_A_TABLE = {
    "check_complex_data": "entries are labels, song ids or tokens (indicators: presence), so complex ones are accepted",
    "check_dtype_object": "object input is this estimator's normal input",
    "check_estimator_sparse_tag": "a matrix row is read as one item sequence, not as features",
    "check_estimator_sparse_array": "a matrix row is read as one item sequence, not as features",
    "check_estimator_sparse_matrix": "a matrix row is read as one item sequence, not as features",
    "check_estimators_empty_data_messages": "our message for empty input differs from scikit-learn's wording",
    "check_estimators_nan_inf": "NaN is a valid (if odd) song id or token; a non-zero indicator counts as present",
    "check_fit1d": "a 1-D input is a list of sequences here",
    "check_fit2d_1feature": "one column is one label (needs two) or a sequence too short for a transition or context",
    "check_n_features_in": "there are no input features: the vocabulary is learned from the data",
    "check_n_features_in_after_fitting": "there are no input features: the vocabulary is learned from the data",
}

EXPECTED = {
    "LabelEmbedding": [],
    "LME": ["check_complex_data", "check_dtype_object", "check_estimator_sparse_array", "check_estimator_sparse_matrix",
            "check_estimator_sparse_tag", "check_estimators_empty_data_messages", "check_estimators_nan_inf",
            "check_fit1d", "check_fit2d_1feature", "check_n_features_in", "check_n_features_in_after_fitting"],
    "PMIWordVectors": [],
    "EMDEVectorizer": [],
}


def _expected(estimator):
    return {name: _NOT_A_TABLE[name] for name in EXPECTED[type(estimator).__name__]}


@parametrize_with_checks(
    [LabelEmbedding(n_components=2), LME(max_iter=5), PMIWordVectors(n_components=2),
     EMDEVectorizer(item_vectors={"a": [0.0, 1.0]})],
    expected_failed_checks=_expected,
    xfail_strict=True,
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("check", [
    "check_param_validation", "check_no_attributes_set_in_init", "check_parameters_default_constructible",
    "check_get_params_invariance", "check_set_params", "check_do_not_raise_errors_in_init_or_set_params",
])
def test_emde_vectorizer_passes_the_checks_that_need_no_numeric_table(check):
    """scikit-learn skips every check for string input; these do not depend on the input, so they run."""
    from sklearn.utils import estimator_checks

    getattr(estimator_checks, check)("EMDEVectorizer", EMDEVectorizer(item_vectors={"a": [0.0, 1.0]}))
