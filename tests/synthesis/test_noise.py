"""Kernel noise within n-tiles of a drawn column."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard import Synthesizer
from synthguard.errors import ParameterError
from synthguard.synthesis.noise import KernelNoise


def test_kernel_noise_has_silverman_bandwidth_within_each_ntile() -> None:
    rng = np.random.default_rng(0)
    v = np.concatenate([rng.normal(0, 1, 5000), rng.normal(100, 10, 5000), np.zeros(2000)])
    noisy = KernelNoise("x", ntiles=6, bandwidth=1.0).apply(v, np.random.default_rng(1))
    order = np.argsort(v, kind="stable")
    for g in np.array_split(order, 6):
        x, d = v[g], noisy[g] - v[g]
        if np.ptp(x) == 0:
            assert (d == 0).all()  # a point mass stays
            continue
        q75, q25 = np.percentile(x, [75, 25])
        h = 0.9 * min(np.std(x, ddof=1), (q75 - q25) / 1.34) * len(x) ** -0.2
        assert np.std(d) == pytest.approx(h, rel=0.06)


def test_noise_in_the_synthesizer_is_seeded_and_recorded() -> None:
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"g": rng.choice(["a", "b"], 500), "x": rng.normal(50, 5, 500)})
    kw = dict(noise={"x": {"kind": "kernel", "ntiles": 5}}, random_state=3, extremes=0)
    a = Synthesizer(**kw).fit(df).sample()
    b = Synthesizer(**kw).fit(df).sample()
    pd.testing.assert_frame_equal(a.implicates[0], b.implicates[0])
    plain = Synthesizer(random_state=3, extremes=0).fit(df).sample().implicates[0]
    # the same draw, moved by noise of about a within-quintile Silverman bandwidth
    pd.testing.assert_series_equal(plain["g"], a.implicates[0]["g"])
    moved = (a.implicates[0]["x"] - plain["x"]).to_numpy()
    assert (moved != 0).all() and 0.1 < np.std(moved) < 2.0
    assert a.provenance["noise"] == {"x": {"kind": "kernel", "ntiles": 5, "bandwidth": 1.0}}


@pytest.mark.parametrize(
    ("noise", "match"),
    [({"g": "kernel"}, "numeric"), ({"x": "laplace"}, "needs 'epsilon'"),
     ({"x": "uniform"}, "kind 'kernel'"),
     ({"x": {"kind": "kernel", "ntiles": 0}}, "ntiles"), ("kernel", "mapping")],
)
def test_bad_noise_is_named(noise, match) -> None:
    df = pd.DataFrame({"g": ["a", "b"] * 30, "x": np.arange(60.0) % 7 + 0.5})
    with pytest.raises(ParameterError, match=match):
        Synthesizer(noise=noise).fit(df)


# --- Laplace / Gaussian noise at a stated budget, charged to a ledger -------------------------

def _frame(n: int = 3000) -> pd.DataFrame:
    rng = np.random.default_rng(4)
    g = rng.choice(["a", "b"], n)
    return pd.DataFrame({"g": g, "x": np.where(g == "a", 20.0, 60.0) + rng.normal(0, 5, n)})


# public bounds far outside the values, so the schema's clipping after the noise is idle
_SCHEMA = {"x": {"kind": "numeric", "lower": -1e6, "upper": 1e6}}
_KW = dict(schema=_SCHEMA, extremes=0, rare_values=0, replicated_uniques="keep", random_state=5)


def test_laplace_noise_clamps_charges_and_has_scale_s_over_epsilon() -> None:
    from synthguard.dp import PrivacyLedger

    df = _frame()
    ledger = PrivacyLedger(epsilon=10.0)
    spec = {"x": {"kind": "laplace", "epsilon": 2.0, "lower": 0.0, "upper": 40.0,
                  "ledger": ledger}}
    res = Synthesizer(noise=spec, m=2, **_KW).fit(df).sample()
    plain = Synthesizer(m=2, **_KW).fit(df).sample()
    # one charge of epsilon per draw of the column: two implicates
    assert [c.epsilon for c in ledger.charges] == [2.0, 2.0]
    assert ledger.spent.epsilon == pytest.approx(4.0)
    for noisy, base in zip(res.implicates, plain.implicates):
        pd.testing.assert_series_equal(noisy["g"], base["g"])  # OpenDP noise uses no seed
        moved = noisy["x"].to_numpy() - np.clip(base["x"].to_numpy(), 0.0, 40.0)
        # Laplace(b): E|noise| = b = S / epsilon = 40 / 2, variance 2 b^2
        assert np.mean(np.abs(moved)) == pytest.approx(20.0, rel=0.08)
        assert np.var(moved) == pytest.approx(2 * 20.0**2, rel=0.15)
    entry = res.provenance["noise"]["x"]
    assert entry["kind"] == "laplace" and entry["epsilon"] == 2.0 and entry["scale"] == 20.0
    assert entry["noise_source"] == "opendp"
    assert "not differentially private" in entry["guarantee"]


def test_gaussian_noise_at_rho_is_charged_as_zcdp() -> None:
    from synthguard.dp import PrivacyLedger

    df = _frame(2000)
    ledger = PrivacyLedger(epsilon=50.0, delta=1e-6)
    spec = {"x": {"kind": "gaussian", "rho": 0.5, "lower": 0.0, "upper": 80.0,
                  "sensitivity": 10.0, "ledger": ledger}}
    res = Synthesizer(noise=spec, **_KW).fit(df).sample()
    base = Synthesizer(**_KW).fit(df).sample().implicates[0]
    assert [c.rho for c in ledger.charges] == [0.5]
    moved = res.implicates[0]["x"].to_numpy() - np.clip(base["x"].to_numpy(), 0.0, 80.0)
    # sigma = S / sqrt(2 rho) = 10
    assert np.std(moved) == pytest.approx(10.0, rel=0.08)


def test_noise_over_budget_is_refused_before_any_noise() -> None:
    from synthguard.dp import PrivacyLedger
    from synthguard.errors import PrivacyBudgetError

    ledger = PrivacyLedger(epsilon=1.0)
    spec = {"x": {"kind": "laplace", "epsilon": 0.6, "lower": 0, "upper": 40,
                  "ledger": ledger}}
    with pytest.raises(PrivacyBudgetError):
        Synthesizer(noise=spec, m=2, **_KW).fit(_frame(300)).sample()
    assert [c.epsilon for c in ledger.charges] == [0.6]  # the second charge was refused


def test_seeded_dp_noise_reproduces_and_warns() -> None:
    from synthguard.dp import PrivacyLedger
    from synthguard.errors import PrivacyWarning

    df = _frame(300)
    outs = []
    for _ in range(2):
        spec = {"x": {"kind": "laplace", "epsilon": 1.0, "lower": 0, "upper": 40,
                      "seeded": True, "ledger": PrivacyLedger(epsilon=5.0)}}
        with pytest.warns(PrivacyWarning, match="seeded numpy noise"):
            outs.append(Synthesizer(noise=spec, **_KW).fit(df).sample().implicates[0])
    pd.testing.assert_frame_equal(outs[0], outs[1])


def test_saved_synthesizer_needs_its_ledger_again(tmp_path) -> None:
    from synthguard.dp import PrivacyLedger

    ledger = PrivacyLedger(epsilon=5.0)
    spec = {"x": {"kind": "laplace", "epsilon": 1.0, "lower": 0, "upper": 40, "ledger": ledger}}
    kw = {**_KW, "replicated_uniques": "redraw"}
    syn = Synthesizer(noise=spec, **kw).fit(_frame(300))
    path = tmp_path / "syn.confidential.pkl"
    syn.save_confidential(path)
    loaded = Synthesizer.load(path)
    with pytest.raises(ParameterError, match="attach it before sampling"):
        loaded.sample()
    loaded.noise_["x"].ledger = ledger
    loaded.sample()
    assert len(ledger.charges) == 1


@pytest.mark.parametrize(
    ("item", "match"),
    [({"kind": "laplace", "epsilon": 1, "lower": 0, "upper": 40}, "needs 'ledger'"),
     ({"kind": "laplace", "epsilon": 1, "upper": 40, "ledger": "LEDGER"}, "clamping bounds"),
     ({"kind": "laplace", "epsilon": 0, "lower": 0, "upper": 40, "ledger": "LEDGER"}, "> 0"),
     ({"kind": "gaussian", "epsilon": 1, "lower": 0, "upper": 40, "ledger": "LEDGER"},
      "unknown fields epsilon"),
     ({"kind": "laplace", "epsilon": 1, "lower": 0, "upper": 40, "ledger": "no/such.json"},
      "ledger file not found")],
)
def test_bad_dp_noise_is_named(item, match) -> None:
    from synthguard.dp import PrivacyLedger

    if item.get("ledger") == "LEDGER":
        item = {**item, "ledger": PrivacyLedger(epsilon=1.0)}
    with pytest.raises(ParameterError, match=match):
        Synthesizer(noise={"x": item}, **_KW).fit(_frame(100))


@pytest.mark.parametrize("k", [1, 3, 7])
def test_sparsity_distance_is_the_kth_nearest_confidential_value(k) -> None:
    from synthguard.synthesis.noise import SparsityNoise

    rng = np.random.default_rng(k)
    conf = np.concatenate([rng.normal(0, 1, 300), [50.0, 80.0], np.zeros(40)])
    step = SparsityNoise("x", k=k).fit(np.append(conf, np.nan))
    v = np.concatenate([rng.normal(0, 2, 200), [-100.0, 50.0, 0.0, 200.0]])
    brute = np.sort(np.abs(conf[None, :] - v[:, None]), axis=1)[:, k - 1]
    np.testing.assert_allclose(step.kth_distance(v), brute)


def test_sparsity_noise_moves_outliers_not_point_masses() -> None:
    """The IRS non-filers design (Bowen et al. 2020): noise by the sparsity of nearby
    confidential values; zeros held by many records stay, the outlier moves most."""
    rng = np.random.default_rng(4)
    n = 600
    x = np.where(rng.random(n) < 0.3, 0.0, rng.lognormal(3, 0.5, n))
    x[0] = 5000.0  # one far outlier
    df = pd.DataFrame({"g": rng.choice(["a", "b"], n), "x": x})
    kw = dict(methods={"x": "cart"}, random_state=3, extremes=0)
    noisy = Synthesizer(noise={"x": {"kind": "sparsity", "k": 5}}, **kw).fit(df).sample()
    plain = Synthesizer(**kw).fit(df).sample().implicates[0]["x"].to_numpy()
    moved = noisy.implicates[0]["x"].to_numpy() - plain
    assert (moved[plain == 0] == 0).all()
    dense = (plain > 10) & (plain < 40)
    assert np.abs(moved[dense]).mean() < 3.0
    assert noisy.provenance["noise"]["x"] == {"kind": "sparsity", "k": 5, "bandwidth": 1.0}
    with pytest.raises(ParameterError, match="'k'"):
        Synthesizer(noise={"x": {"kind": "sparsity", "k": 0}}, **kw).fit(df)
    with pytest.raises(ParameterError, match="sparsity"):
        Synthesizer(noise={"x": {"kind": "sparse"}}, **kw).fit(df)
