"""evaluate_risk(max_records=...): the nearest-neighbour measures on samples, the rest exact
(what report/risk_sampling.py did beside evaluate_risk, and had drifted from it)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DisclosureWarning, ParameterError
from synthguard.risk import distance_to_closest_record, evaluate_risk


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    conf = pd.DataFrame({
        "sex": rng.choice(["f", "m"], n),
        "educ": rng.choice(["a", "b", "c"], n),
        "income": np.round(rng.lognormal(10, 1, n)),
    })
    hold = conf.sample(100, random_state=1).reset_index(drop=True)
    syn = [conf.assign(income=np.round(rng.lognormal(10, 1, n))) for _ in range(2)]
    syn[0].iloc[:30] = conf.iloc[:30].to_numpy()  # 30 exact copies in the first implicate
    return conf, hold, syn


def test_large_release_samples_distance_and_membership_and_keeps_the_rest_exact():
    conf, hold, syn = _data()
    args = (conf, syn, ["sex", "educ"], ["income"])
    full = evaluate_risk(*args, holdout=hold, random_state=0)
    small = evaluate_risk(*args, holdout=hold, random_state=0, max_records=150)
    # identification, matching, attribute disclosure and repU/DiSCO are exact
    assert small.identification.mean == full.identification.mean
    assert small.match.expected_match_risk == full.match.expected_match_risk
    assert small.disclosure.repu == full.disclosure.repu
    assert small.individual is not None  # sdcMicro's parts, which the report's copy lacked
    # DCR on 150 of the 600 stacked records; the whole release's copies counted by brute force
    stacked = pd.concat(syn, ignore_index=True)
    keys = set(map(tuple, conf.to_numpy().tolist()))
    copies = sum(tuple(r) in keys for r in stacked.to_numpy().tolist())
    assert copies >= 30
    assert full.distance.exact_copy_share == pytest.approx(copies / 600)
    assert 0 < small.distance.exact_copy_share < 0.15
    assert any("random sample of 150 of the 600 released records" in n for n in small.notes)
    assert any("membership inference on 150 training and 100 holdout" in n for n in small.notes)
    # a threshold above the sizes changes nothing
    same = evaluate_risk(*args, holdout=hold, random_state=0, max_records=10_000)
    assert same.distance.exact_copy_share == full.distance.exact_copy_share
    assert same.distance.median_dcr == full.distance.median_dcr
    assert same.membership.auc == full.membership.auc


def test_sampled_dcr_is_the_dcr_of_the_sample_and_reproducible():
    conf, hold, syn = _data(seed=2)
    a = evaluate_risk(conf, syn, ["sex"], ["income"], holdout=hold, random_state=5,
                      max_records=120)
    b = evaluate_risk(conf, syn, ["sex"], ["income"], holdout=hold, random_state=5,
                      max_records=120)
    assert a.distance.median_dcr == b.distance.median_dcr
    assert a.distance.exact_copy_share == b.distance.exact_copy_share
    assert a.membership.auc == b.membership.auc
    # the DCR's exact-copy share of a 120-record sample is a multiple of 1/120
    share = a.distance.exact_copy_share * 120
    assert share == pytest.approx(round(share))
    with pytest.warns(DisclosureWarning):  # the copies planted in the first implicate
        whole = distance_to_closest_record(conf, syn, hold)
    assert abs(a.distance.exact_copy_share - whole.exact_copy_share) < 0.15


def test_aligned_false_skips_record_level_measures_and_bad_max_records_is_named():
    conf, _, syn = _data()
    ev = evaluate_risk(conf, syn, ["sex"], ["income"], aligned=False)
    assert ev.identification is None and ev.match is None
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ParameterError, match="max_records"):
            evaluate_risk(conf, syn, ["sex"], ["income"], max_records=bad)
