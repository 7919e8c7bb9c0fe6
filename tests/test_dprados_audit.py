"""DP-Feat (dplit.dprados): what is not an audit. The audits (one rado and five rados, mutants beta_half_eps and
centre_from_x, exact losses) are registered in nbs/32_dprados.ipynb ("dp_feat", "dp_feat_5rados") and run by
tests/test_audit_registry.py."""
from dplit.dprados import dp_feat_K_pmfs, dp_feat_guarantee, hockey_stick


def test_beta_2eps_is_not_less_private():
    # exact: the 2*eps window is wider, its ends lighter; its delta at eps/2 is below the correct mechanism's delta_beta
    for m in (20, 40, 100, 400):
        for eps in (1.0, 2.0, 4.0):
            g = dp_feat_guarantee(m, eps)
            assert hockey_stick(*dp_feat_K_pmfs(m, 2 * eps), eps / 2) <= g["delta"]
