"""Bad input to dplit.radoboost raises ValueError/TypeError naming the parameter; the classifiers behave as scikit-learn expects."""
import numpy as np
import pytest

from dplit.radoboost import AdaBoostExamplesClassifier, RadoBoostClassifier, adaboost_examples, cv_compare, radoboost

rng = np.random.default_rng(0)
X = rng.normal(size=(60, 3))
Y = np.where(X @ [1.0, -1.0, 0.5] > 0, 1.0, -1.0)
R = rng.normal(size=(20, 3))


def test_radoboost_bad_inputs():
    with pytest.raises(ValueError, match="T"):
        radoboost(R, 0)
    with pytest.raises(TypeError, match="T"):
        radoboost(R, 2.5)
    with pytest.raises(ValueError, match="wfi"):
        radoboost(R, 5, wfi="worst")
    with pytest.raises(ValueError, match="kappa"):
        radoboost(R, 5, kappa=0.5)
    Z = R.copy(); Z[0, 0] = np.nan
    with pytest.raises(ValueError, match="R"):
        radoboost(Z, 5)
    with pytest.raises(ValueError, match="nothing to learn"):
        radoboost(np.zeros((3, 2)), 5)


@pytest.mark.parametrize("y", [np.arange(60) % 3, np.r_[Y[:-1], np.nan]])
def test_labels(y):
    for est in (RadoBoostClassifier(T=5), AdaBoostExamplesClassifier(T=5)):
        with pytest.raises(ValueError, match="y"):
            est.fit(X, y)
    with pytest.raises(ValueError, match="y"):
        adaboost_examples(X, y, 5)


def test_classifier_params():
    with pytest.raises(ValueError, match="n_rados"):
        RadoBoostClassifier(n_rados=0, T=5).fit(X, Y)
    with pytest.raises(ValueError, match="n_examples"):
        AdaBoostExamplesClassifier(n_examples=1000, T=5).fit(X, Y)
    with pytest.raises(ValueError, match="keep"):
        RadoBoostClassifier(T=5, keep="best").fit(X, Y)
    with pytest.raises(ValueError, match="T"):
        RadoBoostClassifier(T=0).fit(X, Y)
    with pytest.raises(ValueError, match="X"):
        RadoBoostClassifier(T=5).fit(np.c_[X[:, :2], np.full(60, np.inf)], Y)
    est = RadoBoostClassifier(T=5, random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :2])
    with pytest.raises(ValueError, match="n_folds"):
        cv_compare(X, Y, T=5, n_folds=1)


def test_sklearn_behaviour():
    from sklearn.base import clone
    labels = np.where(Y > 0, "yes", "no")
    est = RadoBoostClassifier(T=30, random_state=3).fit(X, labels)
    assert set(est.predict(X)) <= {"yes", "no"} and list(est.classes_) == ["no", "yes"]
    np.testing.assert_array_equal(clone(est).fit(X, labels).coef_, est.coef_)        # random_state -> reproducible
    assert AdaBoostExamplesClassifier(T=30).fit(X, Y).score(X, Y) > 0.8


@pytest.mark.parametrize("est", [RadoBoostClassifier(T=20, random_state=0), AdaBoostExamplesClassifier(T=20)],
                         ids=["RadoBoostClassifier", "AdaBoostExamplesClassifier"])
def test_sklearn_estimator_checks(est):
    """All of scikit-learn's estimator checks pass (binary-only classifiers: tag multi_class=False).
    check_array_api_input is skipped by scikit-learn itself unless SCIPY_ARRAY_API is set."""
    import warnings
    from sklearn.utils.estimator_checks import check_estimator
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = check_estimator(est, on_fail=None)
    failed = [(r["check_name"], str(r["exception"])[:200]) for r in res if r["status"] == "failed"]
    assert not failed, failed
