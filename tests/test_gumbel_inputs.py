"""Bad input to the public functions of dplit.gumbel raises ValueError/TypeError naming the parameter."""
import numpy as np
import pytest

from dplit.gumbel import gumbel_cdf, gumbel_pdf, max_gumbel_bound, plackett_luce_log_prob, sequential_peel


def test_bad_inputs():
    for f in (gumbel_pdf, gumbel_cdf):
        with pytest.raises(ValueError, match="b"):
            f(1.0, 0.0)
    with pytest.raises(ValueError, match="eta"):
        max_gumbel_bound(1.0, 3, 1.0)
    with pytest.raises(ValueError, match="d"):
        max_gumbel_bound(1.0, 0, 0.1)
    with pytest.raises(ValueError, match="b"):
        max_gumbel_bound(-1.0, 3, 0.1)
    with pytest.raises(ValueError, match="scale"):
        plackett_luce_log_prob([1.0, 2.0], (0,), 0.0)
    with pytest.raises(ValueError, match="scores"):
        sequential_peel([1.0, np.nan], 1, 1.0, 1.0)
    with pytest.raises(ValueError, match="k"):
        sequential_peel([1.0, 2.0], 3, 1.0, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        sequential_peel([1.0, 2.0], 1, 1.0, 0.0)
    with pytest.raises(ValueError, match="sensitivity"):
        sequential_peel([1.0, 2.0], 1, 0.0, 1.0)
    with pytest.raises(ValueError, match="size"):
        sequential_peel([1.0, 2.0], 1, 1.0, 1.0, size=0)


def test_helper_inputs():
    from dplit.gumbel import max_abs_gumbel_cdf, max_abs_gumbel_quantile, peel_audit_pair, peel_exact_loss
    with pytest.raises(ValueError, match="b"):
        max_abs_gumbel_cdf(1.0, 0.0, 3)
    with pytest.raises(ValueError, match="d"):
        max_abs_gumbel_cdf(1.0, 1.0, 0)
    with pytest.raises(ValueError, match="t"):
        max_abs_gumbel_cdf(np.nan, 1.0, 3)
    with pytest.raises(ValueError, match="q"):
        max_abs_gumbel_quantile(1.5, 1.0, 3)
    with pytest.raises(ValueError, match="k"):
        peel_audit_pair(2, 3)
    with pytest.raises(ValueError, match="sensitivity"):
        peel_audit_pair(4, 1, -1.0)
    with pytest.raises(ValueError, match="epsilon"):
        peel_exact_loss(4, 1, 0.0)
    with pytest.raises(ValueError, match="order"):
        plackett_luce_log_prob([1.0, 2.0, 3.0], (0, 0), 1.0)
    with pytest.raises(ValueError, match="order"):
        plackett_luce_log_prob([1.0, 2.0, 3.0], (5,), 1.0)
