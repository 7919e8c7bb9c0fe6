"""recovery_trial's design keywords (rho, snr) and its on_refusal switch (issue 26, part C)."""
import math

import numpy as np
import pytest

from dplit.bss_experiments import recovery_trial
from dplit.bss_mip import SolverError, bss_data


class _Refuse:
    """A search backend that keeps the data it is given and refuses, as a budget would."""

    def __init__(self):
        self.seen = []

    def top_r(self, X, y, s, R, *, r, loss="squared"):
        self.seen.append((X.copy(), y.copy()))
        raise SolverError("budget")

    def best_per_bucket(self, X, y, s, center, *, r, loss="squared", rule="exact"):
        self.seen.append((X.copy(), y.copy()))
        raise SolverError("budget")

    bucket_bounds = best_per_bucket


@pytest.mark.parametrize("kw, name", [(dict(rho=1.0), "rho"), (dict(rho=-1.0), "rho"),
                                      (dict(rho="0.1"), "rho"), (dict(snr=0.0), "snr"),
                                      (dict(snr=-2.0), "snr"), (dict(on_refusal="skip"),
                                                                "on_refusal")])
def test_bad_design_keywords_raise_before_any_draw(kw, name):
    g = np.random.default_rng(0)
    state = g.bit_generator.state
    with pytest.raises((ValueError, TypeError), match=name):
        recovery_trial(50, 12, 2, g, methods=["samp_agg"], **kw)
    assert g.bit_generator.state == state


def test_rho_and_snr_reach_the_data():
    # the truth: bss_data with the same seed and the same rho, snr (the trial's first draws)
    st = _Refuse()
    rows = recovery_trial(60, 12, 2, 7, methods=["top_r"], search=st, rho=0.6, snr=2.0,
                          on_refusal="record")
    X0, y0, _ = bss_data(60, 12, 2, rho=0.6, snr=2.0, rng=7)
    X1, y1, _ = bss_data(60, 12, 2, rng=7)          # the defaults give other data
    assert np.array_equal(st.seen[0][0], X0) and np.array_equal(st.seen[0][1], y0)
    assert not np.array_equal(X0, X1)
    assert rows[0]["refused"] is True


def test_refusal_recorded_or_raised():
    rows = recovery_trial(60, 12, 2, 3, methods=["top_r", "mistakes", "samp_agg"],
                          search=_Refuse(), on_refusal="record")
    by = {r["method"]: r for r in rows}
    for m in ("top_r", "mistakes"):
        assert by[m]["refused"] is True
        assert math.isnan(by[m]["correct"]) and math.isnan(by[m]["f1"])
    assert by["samp_agg"]["refused"] is False and 0 <= by["samp_agg"]["correct"] <= 1
    with pytest.raises(SolverError):
        recovery_trial(60, 12, 2, 3, methods=["top_r"], search=_Refuse())


def test_summary_leaves_refused_rows_out_and_counts_them():
    # hand-made rows: two datasets released (correct 1 and 0), one refused (NaN)
    import pandas as pd
    from dplit.bss_experiments import recovery_summary
    nan = math.nan
    df = pd.DataFrame(dict(method=["top_r"] * 3 + ["samp_agg"] * 3, n=[100] * 6,
                           correct=[1.0, 0.0, nan, 0.2, 0.4, 0.6],
                           f1=[1.0, 0.5, nan, 0.2, 0.4, 0.6], seconds=[1.0] * 6,
                           refused=[False, False, True, False, False, False]))
    t = recovery_summary(df).set_index("method")
    # mean and standard error over the two released datasets: 0.5 and sd([1, 0]) / sqrt(2) = 0.5
    assert t.loc["top_r", "correct"] == 0.5 and math.isclose(t.loc["top_r", "correct_se"], 0.5)
    assert t.loc["top_r", "f1"] == 0.75 and t.loc["top_r", "refused"] == 1
    assert t.loc["samp_agg", "refused"] == 0 and math.isclose(t.loc["samp_agg", "correct"], 0.4)
    assert "refused" not in recovery_summary(df.drop(columns="refused"))
