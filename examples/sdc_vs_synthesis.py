"""Traditional SDC next to synthetic data, measured by the same utility code.

The course book (ch. 1) says of the traditional methods: "the problem with the above
approaches is that it really limits the utility of the data", citing Mitra & Reiter (2006)
(a 5 percent swapping of 2 identifying variables in the 1987 Survey of Youth in Custody
invalidated regression hypothesis tests) and the loss of the tails under top/bottom coding
(Fuller 1993; Reiter, Wang & Zhang 2014). This script shows both on simulated data:

1. a survey-like file where an outcome depends on two identifying variables (age, race);
   5% random swapping of (age, race) is compared with a partially synthetic release that
   synthesizes the same two variables (sequential CART, m = 5, Reiter 2003 combining rules).
   Measures: CI overlap (Snoke et al. 2018) and SSO match (Barrientos et al. 2021) per
   coefficient, from ``synthguard.utility.compare_regression``;
2. a skewed income top-coded at its 94th percentile (the CE practice tops about 6% of
   incomes; Hu, Savitsky & Williams) compared with a partially synthetic income: mean, 90%,
   95% and 99% quantiles with ``synthguard.utility.compare_statistics``.

What it printed here (seed 2026): swapping 5% of (age, race) left a mean CI overlap of
0.77 at n = 3,000 against 0.92 for the synthetic release; because swapping biases the
coefficients by a fixed share while standard errors shrink, the swap overlap fell to 0.34
(n = 30,000) and -0.29 (n = 100,000) with SSO matches for only 67% and 50% of the
coefficients, while the synthetic release stayed near 0.8 with every SSO match. Top-coding
at the 94th percentile censored 6.0% of incomes, moved the mean from 60.5k to 54.2k, and
replaced the 95% and 99% quantiles (182k, 344k) by the threshold (165k); the 90% quantile
lies below the threshold and is untouched. The synthetic income kept all four within 2%.

Run: ``.venv/bin/python examples/sdc_vs_synthesis.py`` (under a minute).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from synthguard.sdc import swap, topcode
from synthguard.synthesis import Synthesizer
from synthguard.utility import RegressionComparison, compare_regression, compare_statistics, sso

SEED = 2026
N = 3000
FORMULA = "score ~ age + C(race) + female"


def simulate(n: int, seed: int) -> pd.DataFrame:
    """A custody-survey-like file: age and race identify, score depends on them."""
    rng = np.random.default_rng(seed)
    age = rng.integers(12, 21, size=n)
    race = rng.choice(["white", "black", "hispanic", "other"], size=n, p=[0.45, 0.3, 0.2, 0.05])
    female = rng.binomial(1, 0.15, size=n)
    effect = pd.Series({"white": 0.0, "black": 1.2, "hispanic": -0.8, "other": 0.5})
    score = 2 + 0.6 * (age - 16) + effect[race].to_numpy() + 1.0 * female + rng.normal(0, 2, n)
    income = np.exp(10.6 + 0.08 * (age - 16) + rng.normal(0, 0.9, n))
    return pd.DataFrame(
        {
            "age": age,
            "race": race,
            "female": female,
            "score": score,
            "income": income,
        }
    )


def sso_matches(cmp: RegressionComparison) -> pd.Series:
    """SSO match per coefficient, recomputed with ``synthguard.utility.sso`` from the table's
    estimates and intervals (the table's own ``sso_match`` column reads a failed match as
    missing in this version, so its share would count only the matches)."""
    t = cmp.table
    return pd.Series(
        [
            sso(r.conf_estimate, (r.conf_lower, r.conf_upper), r.syn_estimate,
                (r.syn_lower, r.syn_upper)).match
            for r in t.itertuples()
        ],
        index=t["term"],
    )


def regression_table(conf: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, float]]:
    swapped = swap(conf, ["age", "race"], rate=0.05, random_state=SEED)
    syn = Synthesizer(
        visit_sequence=["age", "race"], keep=["female", "score", "income"], m=5,
        random_state=SEED,
    ).fit(conf).sample()
    cs = compare_regression(FORMULA, conf, swapped)
    cy = compare_regression(FORMULA, conf, syn, method="partial")
    ts, ty = cs.table.set_index("term"), cy.table.set_index("term")
    table = pd.DataFrame(
        {
            "confidential": ts["conf_estimate"],
            "swap 5%": ts["syn_estimate"],
            "overlap swap": ts["overlap_snoke"],
            "SSO swap": sso_matches(cs),
            "synthetic": ty["syn_estimate"],
            "overlap syn": ty["overlap_snoke"],
            "SSO syn": sso_matches(cy),
        }
    )
    # the swap result depends on which 5% are drawn: average the overlap over 20 draws
    overlaps = [
        compare_regression(FORMULA, conf, swap(conf, ["age", "race"], rate=0.05,
                                               random_state=SEED + r)).mean_overlap
        for r in range(20)
    ]
    headline = {
        "swap mean overlap": cs.mean_overlap,
        "swap mean overlap, 20 draws": float(np.mean(overlaps)),
        "swap SSO share": float(sso_matches(cs).mean()),
        "synthetic mean overlap": cy.mean_overlap,
        "synthetic SSO share": float(sso_matches(cy).mean()),
        "records swapped": float(swapped.params["n_swapped"]),
        "records with changed values": float(swapped.n_changed_records),
    }
    return table, headline


def tail_table(conf: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, float]]:
    top = topcode(conf, "income", percentile=94)
    syn = Synthesizer(
        visit_sequence=["income"], keep=["age", "race", "female", "score"], m=5,
        random_state=SEED,
    ).fit(conf).sample()
    stats = ("mean", "q90", "q95", "q99")
    ct = compare_statistics(conf, top, stats, columns=["income"], n_boot=200,
                            random_state=SEED)
    cy = compare_statistics(conf, syn, stats, columns=["income"], n_boot=200,
                            random_state=SEED)
    a, b = ct.to_frame(), cy.to_frame()
    table = pd.DataFrame(
        {
            "statistic": list(stats),
            "confidential": a["conf_estimate"].to_numpy(),
            "top-coded p94": a["syn_estimate"].to_numpy(),
            "overlap top": a["overlap_dr"].to_numpy(),
            "synthetic": b["syn_estimate"].to_numpy(),
            "overlap syn": b["overlap_dr"].to_numpy(),
        }
    ).set_index("statistic")
    return table, {
        "share top-coded": float(top.params["share_censored"]),
        "records top-coded": float(top.params["n_censored"]),
    }


def scaling_table(sizes: tuple[int, ...]) -> pd.DataFrame:
    """Swapping biases coefficients by a fixed share; as n grows the bias dominates the
    shrinking standard errors, so the intervals separate and SSO matches fail, while the
    synthetic release's combined intervals keep covering the confidential estimates."""
    rows = []
    for n in sizes:
        conf = simulate(n, SEED + n)
        sw = compare_regression(FORMULA, conf, swap(conf, ["age", "race"], rate=0.05,
                                                    random_state=SEED))
        syn = Synthesizer(
            visit_sequence=["age", "race"], keep=["female", "score", "income"], m=5,
            random_state=SEED,
        ).fit(conf).sample()
        sy = compare_regression(FORMULA, conf, syn, method="partial")
        rows.append({
            "n": n,
            "swap mean overlap": sw.mean_overlap,
            "swap SSO share": float(sso_matches(sw).mean()),
            "synthetic mean overlap": sy.mean_overlap,
            "synthetic SSO share": float(sso_matches(sy).mean()),
        })
    return pd.DataFrame(rows).set_index("n")


def main() -> None:
    conf = simulate(N, SEED)
    pd.set_option("display.width", 120)
    pd.set_option("display.float_format", lambda v: f"{v:,.3f}")
    print(f"Simulated file: {N} records; regression {FORMULA}\n")
    reg, head = regression_table(conf)
    print("1. Swapping 5% of (age, race) vs synthesizing (age, race) [CART, m=5]")
    print(reg.to_string())
    for k, v in head.items():
        print(f"   {k}: {v:.3f}" if v % 1 else f"   {k}: {int(v)}")
    print("\n   The same comparison as the file grows (one swap draw, m = 5 implicates):")
    print(scaling_table((3000, 10000, 30000, 100000)).to_string())
    print("\n2. Top-coding income at its 94th percentile vs synthesizing income [CART, m=5]")
    tails, head2 = tail_table(conf)
    print(tails.to_string())
    for k, v in head2.items():
        print(f"   {k}: {v:.3f}" if v % 1 else f"   {k}: {int(v)}")
    print(
        "\nOverlap in table 1: Snoke et al. (2018), 1 = identical intervals, < 0 = disjoint; "
        "in table 2:\nDrechsler & Reiter (2009), 0 when disjoint (the top-coded 99% quantile "
        "has a zero-width\nbootstrap interval, every resample returns the threshold). "
        "SSO: sign, significance and\noverlap all match (Barrientos et al. 2021)."
    )


if __name__ == "__main__":
    main()
