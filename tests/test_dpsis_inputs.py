"""Bad input to every public function/estimator of dplit.dpsis raises ValueError/TypeError naming the parameter;
the paper's (non-DP) variant is refused without an explicit flag and warns with it; scikit-learn estimator checks."""
import warnings

import numpy as np
import pytest
from sklearn.utils.estimator_checks import check_estimator

from dplit import dpsis as D

rng = np.random.default_rng(0)
X = rng.normal(size=(30, 8))
Y = X[:, 0] - X[:, 1] + 0.1 * rng.normal(size=30)


@pytest.mark.parametrize("kw,name", [
    (dict(k=8), "k"), (dict(k=0), "k"), (dict(k=9), "k"), (dict(k=2.5), "k"),
    (dict(epsilon=0), "epsilon"), (dict(epsilon=-1.0), "epsilon"), (dict(epsilon=np.nan), "epsilon"), (dict(epsilon=np.inf), "epsilon"),
    (dict(gamma=1.0), "gamma"), (dict(gamma=-0.5), "gamma"),
    (dict(X=np.where(np.eye(30, 8) > 0, np.nan, X)), "X"), (dict(X=np.where(np.eye(30, 8) > 0, np.inf, X)), "X"),
    (dict(y=np.r_[Y[:-1], np.nan]), "y"), (dict(y=Y[:-1]), "y"), (dict(X=X[:0], y=Y[:0]), "rows"),
    (dict(X=X[:, 0]), "X"), (dict(x_bounds=(1.0, -1.0)), "x_bounds"), (dict(y_bounds=None), "y_bounds"),
    (dict(x_bounds=(np.zeros(3), np.ones(3))), "x_bounds"), (dict(y_bounds=(0.0, np.nan)), "y_bounds"),
    (dict(relation="neighbours"), "relation"), (dict(variant="other"), "variant"), (dict(variant="paper"), "allow_non_private"),
    (dict(rng="seed"), "rng"),
])
def test_dp_sis_bad_input(kw, name):
    args = dict(X=X, y=Y, k=3, epsilon=1.0) | kw
    with pytest.raises((ValueError, TypeError), match=name):
        D.dp_sis(**args)


@pytest.mark.parametrize("kw,name", [
    (dict(k=8), "k"), (dict(epsilon=0.0), "epsilon"), (dict(gamma=1.0), "gamma"), (dict(x_bounds=(2, 2)), "x_bounds"),
    (dict(variant="paper"), "allow_non_private"), (dict(relation="x"), "relation"),
])
def test_selector_bad_params(kw, name):
    with pytest.raises((ValueError, TypeError), match=name):
        D.DPSISSelector(**({"k": 3} | kw)).fit(X, Y)


def test_selector_bad_data():
    with pytest.raises(ValueError):
        D.DPSISSelector(k=3).fit(np.where(np.eye(30, 8) > 0, np.nan, X), Y)
    with pytest.raises(ValueError):
        D.DPSISSelector(k=3).fit(X, Y[:-2])


def test_paper_variant_needs_flag_and_warns():
    with pytest.warns(D.NonPrivateWarning):
        r = D.dp_sis(X, Y, 3, 1.0, variant="paper", allow_non_private=True, rng=0)
    assert "NOT DP" in r.spend.mechanism
    with pytest.raises(ValueError, match="constant"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", D.NonPrivateWarning)
            D.dp_sis(np.c_[X, np.ones(30)], Y, 3, 1.0, variant="paper", allow_non_private=True)


def test_helpers_bad_input():
    with pytest.raises(ValueError, match="constant"):
        D.sis_scores(np.c_[X, np.ones(30)], Y)
    with pytest.raises(ValueError, match="y"):
        D.sis_scores(X, np.ones(30))
    with pytest.raises(ValueError, match="lam"):
        D.block_supports(X, Y, 3, lam=0.0)
    with pytest.raises(ValueError, match="n_blocks"):
        D.block_supports(X, Y, 3, n_blocks=31)
    with pytest.raises(ValueError, match="k"):
        D.block_supports(X, Y, 8)
    with pytest.raises(ValueError, match="counts"):
        D.two_stage_top_k(counts=[1.0, np.nan, 2.0], k=1)
    with pytest.raises(ValueError, match="epsilon"):
        D.two_stage_top_k(counts=[1.0, 3.0, 2.0], k=1, epsilon=0.0)
    with pytest.raises(ValueError, match="k"):
        D.two_stage_top_k(counts=[1.0, 3.0, 2.0], k=3)
    with pytest.raises(ValueError, match="true"):
        D.top_k_accuracy([1, 2], [])
    with pytest.raises(ValueError, match="kind"):
        D.fig1_data("W3")
    with pytest.raises(ValueError, match="n_nonzero"):
        D.synthetic_eq6(n=10, d=5, n_nonzero=6)
    with pytest.raises(ValueError, match="variant"):
        D.audit_dpsis("other")


def test_selector_reproducible_and_shapes():
    a = D.DPSISSelector(k=3, epsilon=2.0, random_state=5).fit(X, Y)
    b = D.DPSISSelector(k=3, epsilon=2.0, random_state=5).fit(X, Y)
    assert np.array_equal(a.support_, b.support_)
    assert a.transform(X).shape == (30, 3) and a.get_support().sum() == 3
    assert a.spend_.epsilon == 2.0 and a.spend_.relation == "add/remove"
    s = D.DPSISSelector(k=3, relation="substitute", random_state=0).fit(X, Y)
    assert s.spend_.relation == "substitute"


# scikit-learn's generic checks. All run and pass except those scikit-learn itself skips for estimators tagged
# non_deterministic (a private selector is randomised by design): check_pipeline_consistency,
# check_transformer_general, check_transformer_data_not_an_array (they compare two fits for equality).
# One-feature inputs are refused (k < d), with scikit-learn's own message (ensure_min_features=2).
EXPECTED_FAILED = {}


def test_sklearn_estimator_checks():
    res = check_estimator(D.DPSISSelector(k=1, epsilon=1.0, random_state=0), expected_failed_checks=EXPECTED_FAILED,
                          on_fail=None)
    failed = [r for r in res if r["status"] == "failed"]
    assert not failed, [(r["check_name"], str(r["exception"])[:200]) for r in failed]


def test_metric_and_generator_inputs():
    with pytest.raises(ValueError, match="selected"):
        D.tgg([0, 0], [0, 1, 2])
    with pytest.raises(ValueError, match="selected"):
        D.tgg([7], [0, 1, 2])
    with pytest.raises(ValueError, match="ranking"):
        D.tgg([0], [0, 0, 2])
    with pytest.raises(ValueError, match="coefs"):
        D.supports_from_coefs([[np.nan, 1.0, 2.0]], 1)
    with pytest.raises(ValueError, match="noise_var"):
        D.synthetic_eq6(10, 20, 2, noise_var=np.nan)
    with pytest.raises(ValueError, match="noise_var"):
        D.synthetic_eq6(10, 20, 2, noise_var=-1.0)
    with pytest.raises(ValueError, match="trials"):
        D.accuracy_sweep(X, Y, {2: [0, 1]}, [1.0], trials=0)
