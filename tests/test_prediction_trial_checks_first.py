"""prediction_trial (chapter 54) checks methods, epsilon and the run sizes before the data are drawn (the
generator's state is unchanged by a refused call), and a search that refuses the oracle's support makes every row
of that dataset a failed row instead of stopping the sweep."""
import numpy as np
import pytest

from dplit.bss_mip import SolverError
from dplit.objpert import prediction_trial


@pytest.mark.parametrize("kw, name", [
    (dict(methods=["top_r", "lasso"]), "lasso"), (dict(methods="top_r"), "methods"),
    (dict(epsilon=0.0), "epsilon"), (dict(epsilon=float("nan")), "epsilon"), (dict(draws=0), "draws"),
    (dict(mcmc_iter=0), "mcmc_iter"), (dict(mcmc_chains_=0), "mcmc_chains_"),
    (dict(test_fraction=1.5), "test_fraction"), (dict(search="exhaustive"), "search")])
def test_bad_run_keywords_raise_before_any_draw(kw, name):
    g = np.random.default_rng(0)
    state = g.bit_generator.state
    kw = {"methods": ["samp_agg"], **kw}
    with pytest.raises((ValueError, TypeError), match=name):
        prediction_trial(60, 8, 2, g, **kw)
    assert g.bit_generator.state == state


class _Refuses:
    "A search backend whose every search is refused, as MIPSearch refuses an oversized certification."
    name = "refuses"

    def top_r(self, *a, **kw):
        raise SolverError("refused")

    best_per_bucket = top_r


def test_refused_oracle_fails_every_row():
    rows = prediction_trial(60, 8, 2, 0, methods=["samp_agg", "mcmc"], draws=2, mcmc_iter=10,
                            search=_Refuses())
    assert [r["method"] for r in rows] == ["oracle", "samp_agg", "mcmc"]
    assert all(r["failed"] and np.isnan(r["mse"]) and np.isnan(r["utility"]) for r in rows)
