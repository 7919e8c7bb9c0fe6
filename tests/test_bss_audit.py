"""Best-subset audits (nbs/50_bss.ipynb): what is not an audit. The audits themselves (top-R, mistakes twice, the two
PTR variants, each with its mutants and exact losses) are registered in the chapter ("bss_top_r", "bss_mistakes",
"bss_mistakes_uniform", "bss_ptr_mistakes", "bss_ptr_bottom") and run by tests/test_audit_registry.py. Here: the
stored pairs have the properties the audits rely on, and the PTR test's pass frequency matches its exact law."""
import numpy as np

from dplit.bss import (ExhaustiveSearch, _audit_bss_mistakes, _audit_bss_mistakes_uniform,
                       _audit_bss_ptr_bottom, _audit_bss_ptr_mistakes, _bss_bottom_setup, _bss_mistakes_setup,
                       _effective_delta, gap_instance, mistakes_ptr_select, ptr_pass_probability)


def _top(pair, s, R, r):
    return [ExhaustiveSearch().top_r(X, y, s, R, r=r) for X, y in pair]


def test_gap_pairs_have_the_gap():
    _, _, r, c, _ = _bss_mistakes_setup()
    D = _effective_delta(len(_bss_mistakes_setup()[1]), 1, 1.0, c, r, "squared", "tight")
    for build in (_audit_bss_mistakes, _audit_bss_mistakes_uniform):
        case = build()
        for _, v in _top((case.d0, case.d1), 1, 2, r):
            assert v[1] - v[0] > 2 * D


def test_no_gap_pair_flips_the_best_support():
    case = _audit_bss_ptr_mistakes()
    best = [tuple(S[0]) for S, _ in _top((case.d0, case.d1), 2, 1, 1.0)]
    assert best[0] != best[1]


def test_ptr_bottom_pair_flips_and_lacks_the_gap():
    case = _audit_bss_ptr_bottom()
    _, _, r, _, D, _ = _bss_bottom_setup()
    best = [tuple(S[0]) for S, _ in _top((case.d0, case.d1), 1, 1, r)]
    gaps = [np.diff(v)[0] for _, v in _top((case.d0, case.d1), 1, 2, r)]
    assert best[0] != best[1] and max(gaps) <= 2 * D and max(gaps) > D


def test_ptr_pass_frequency_matches_the_exact_law():
    # mistakes_ptr_select's own test (fallback=None: None means "failed") against
    # ptr_pass_probability, which every exact PTR check uses
    from scipy import stats
    X, y, r, c = gap_instance(10, 16, 6, 1)
    gap = np.diff(ExhaustiveSearch().top_r(X, y, 1, 2, r=r)[1])[0]
    D = _effective_delta(len(y), 1, 1.0, c, r, "squared", "tight")
    g = np.random.default_rng(7)
    for delta in (0.05, 0.3):
        pi = ptr_pass_probability(gap, D, 1.0, delta)
        hits = sum(mistakes_ptr_select(X, y, 1, 1.0, epsilon_test=1.0, delta=delta, r=r, b_x=1.0,
                                       b_y=c, fallback=None, rng=g).value is not None
                   for _ in range(500))
        assert 0.02 < pi < 0.98 and stats.binomtest(hits, 500, pi).pvalue > 1e-4, (hits, pi)
