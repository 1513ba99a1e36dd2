"""Reproduce the simulation of Hu, Savitsky & Williams, section 2.4, with synthguard.

n = 1000 counts from 0.7 NB(100, phi 20) + 0.3 NB(100, phi 5) (``load_dataset("nb_mixture")``),
one negative-binomial synthesizer (``bayes_negbin``), no key variables (one pattern, as the
paper's simulation), radius r in {15, 20, 25, 30}% and L = 20 implicates. Releases: the
confidential Data, the unweighted Synthesizer, the Marginal (eq. 3) and the Pairwise (eq. 9)
risk-weighted synthesizers.

Prints: the risk profile of each release per r (Figure 5a / 6), the whack-a-mole count at each
r (Figure 5b), the ECDF utility (Table 5), the Table 6 analogue for L in {1, 5, 10, 20, 30},
and checks of the paper's claims. Saves violin plots and whack-a-mole scatter plots to the
output folder (default ``<tmp>/synthguard_risk_weighted_simulation``, outside the source tree).

Run: ``python examples/risk_weighted_simulation.py [output_folder]`` (default folder
``<tmp>/synthguard_risk_weighted_simulation``) (about a minute).
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from synthguard.bayes import RiskWeightedSynthesizer, compare_releases, risk_weights
from synthguard.data import load_dataset
from synthguard.utility import compare_statistics

RADII = (0.30, 0.25, 0.20, 0.15)
L = 20
SEED = 2021


def synthesize(conf: pd.DataFrame, kind: str | None, radius: float, m: int, **kw: object) -> object:
    return RiskWeightedSynthesizer(
        model="bayes_negbin", kind=kind, keys=[], targets="y", radius=radius, m=m,
        random_state=SEED, **kw,
    ).fit(conf).sample()


def violin(ax: plt.Axes, data: pd.DataFrame, title: str) -> None:
    cols = list(data.columns)
    ax.violinplot([data[c] for c in cols], showextrema=False)
    ax.hlines(data.mean(), np.arange(1, len(cols) + 1) - 0.2, np.arange(1, len(cols) + 1) + 0.2,
              color="black")
    ax.set_xticks(range(1, len(cols) + 1), [c[0] for c in cols])
    ax.set_ylim(0, 1)
    ax.set_title(title)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    conf = load_dataset("nb_mixture")
    pd.set_option("display.width", 120)
    print(f"confidential data: n = {len(conf)}, mean {conf.y.mean():.2f}, median {conf.y.median():.1f}\n")

    synth30 = synthesize(conf, None, 0.2, 30)  # the unweighted synthesizer does not depend on r
    synth = dataclasses.replace(synth30, implicates=synth30.implicates[:L], m=L)
    comparisons = {}
    releases_by_r = {}
    for r in RADII:
        rel = {
            "Data": None,
            "Synthesizer": synth,
            "Marginal": synthesize(conf, "marginal", r, 30),
            "Pairwise": synthesize(conf, "pairwise", r, 30),
        }
        releases_by_r[r] = rel
        first_l = {k: (v if v is None or k == "Synthesizer" else v.implicates[:L]) for k, v in rel.items()}
        comparisons[r] = compare_releases(
            conf, first_l, keys=[], targets="y", radius=r, statistics=("mean", "median"),
            n_boot=200, random_state=SEED,
        )
        for kind in ("marginal", "pairwise"):
            print(risk_weights(conf, [], "y", r, kind).summary())
        print(f"== r = {r:.0%}: record-level identification risk, L = {L} ==")
        print(comparisons[r].to_frame().round(4).to_string(), "\n")

    # Table 5: ECDF utility
    rows = [("Synthesizer", *comparisons[0.2].utility.loc["Synthesizer"])]
    for r in RADII:
        u = comparisons[r].utility
        rows += [(f"Marginal r={r:.0%}", *u.loc["Marginal"]), (f"Pairwise r={r:.0%}", *u.loc["Pairwise"])]
    table5 = pd.DataFrame(rows, columns=["release", "U_m (max)", "U_a (avg sq)"]).set_index("release")
    print("== Table 5 analogue: ECDF utility ==")
    print(table5.to_string(float_format=lambda v: f"{v:.4f}"), "\n")

    # Table 6: estimates and 95% CIs of the mean and the median for L in {30, 20, 10, 5, 1}, r = 20%
    rows = []
    d = compare_statistics(conf, conf, statistics=["mean", "median"], columns=["y"],
                           n_boot=500, random_state=SEED).to_frame()
    for _, row in d.iterrows():
        rows.append(("D", row["statistic"], row["conf_estimate"], row["conf_lower"], row["conf_upper"]))
    for label, rel in (("S", synth30), ("M", releases_by_r[0.2]["Marginal"]),
                       ("P", releases_by_r[0.2]["Pairwise"])):
        for ell in (30, 20, 10, 5, 1):
            st = compare_statistics(conf, rel.implicates[:ell], statistics=["mean", "median"],
                                    columns=["y"], n_boot=500, random_state=SEED).to_frame()
            for _, row in st.iterrows():
                rows.append((f"{label} (L={ell})", row["statistic"], row["syn_estimate"],
                             row["syn_lower"], row["syn_upper"]))
    t6 = pd.DataFrame(rows, columns=["release", "statistic", "estimate", "lower", "upper"])
    t6["length"] = t6["upper"] - t6["lower"]
    t6 = t6.pivot(index="release", columns="statistic")
    t6 = t6.reindex(["D"] + [f"{x} (L={ell})" for x in "SMP" for ell in (30, 20, 10, 5, 1)])
    print("== Table 6 analogue: 95% CIs by number of implicates L (r = 20%) ==")
    print(t6.swaplevel(axis=1).sort_index(axis=1).round(2).to_string(), "\n")

    # The supplement's knobs: trade utility back by flooring or rescaling the weights (r = 20%)
    adjusted = {"Data": None, "Synthesizer": synth,
                "Marginal": releases_by_r[0.2]["Marginal"].implicates[:L]}
    for label, kw in (("floor 0.3", {"floor": 0.3}), ("floor 0.6", {"floor": 0.6}),
                      ("rescale 0.5a+0.5", {"rescale": (0.5, 0.5)})):
        adjusted[f"Marginal, {label}"] = synthesize(conf, "marginal", 0.2, L, **kw)
    adj = compare_releases(conf, adjusted, keys=[], targets="y", radius=0.2,
                           statistics=("mean",), n_boot=50, random_state=SEED)
    print("== weight adjustments (r = 20%): risk against utility ==")
    print(adj.to_frame()[["mean", "iqr", "max", "u_max", "u_avg"]].round(4).to_string(), "\n")

    # Figures: violins per r, whack-a-mole scatter at r = 15%
    fig, axes = plt.subplots(1, len(RADII), figsize=(14, 4), sharey=True)
    for ax, r in zip(axes, RADII, strict=True):
        violin(ax, comparisons[r].per_record, f"r = {r:.0%}")
    axes[0].set_ylabel("identification risk")
    fig.suptitle("Record-level identification risk: D Data, S Synthesizer, M Marginal, P Pairwise")
    fig.savefig(out / "violin_risk_by_radius.png", dpi=120, bbox_inches="tight")
    fig, axes = plt.subplots(1, 2, figsize=(10, 5), sharey=True)
    c15 = comparisons[0.15]
    for ax, name in zip(axes, ("Marginal", "Pairwise"), strict=True):
        x, y = c15.per_record["Synthesizer"], c15.per_record[name]
        wm = c15.whack_a_mole(name)
        ax.scatter(x, y, s=6, color="grey")
        ax.scatter(x.iloc[wm], y.iloc[wm], s=30, color="gold", edgecolor="black",
                   label=f"risk up by >= 0.25 ({wm.size})")
        ax.plot([0, 1], [0, 1], color="blue")
        ax.set_xlabel("Synthesizer")
        ax.set_title(f"{name} vs Synthesizer, r = 15%")
        ax.legend(loc="upper left")
    axes[0].set_ylabel("risk-weighted synthesizer")
    fig.savefig(out / "whack_a_mole_r15.png", dpi=120, bbox_inches="tight")
    print(f"figures saved to {out}/\n")

    # The paper's claims
    print("== checks ==")
    for r in RADII:
        k = comparisons[r].risk
        print(f"r = {r:.0%}: mean risk Data {k.loc['Data', 'mean']:.3f} > Synthesizer "
              f"{k.loc['Synthesizer', 'mean']:.3f} > Marginal {k.loc['Marginal', 'mean']:.3f}: "
              f"{k.loc['Data', 'mean'] > k.loc['Synthesizer', 'mean'] > k.loc['Marginal', 'mean']}; "
              f"Pairwise IQR {k.loc['Pairwise', 'iqr']:.3f} vs Marginal {k.loc['Marginal', 'iqr']:.3f}, "
              f"max {k.loc['Pairwise', 'max']:.3f} vs {k.loc['Marginal', 'max']:.3f}; "
              f"whack-a-mole Marginal {k.loc['Marginal', 'n_whack_a_mole']}, "
              f"Pairwise {k.loc['Pairwise', 'n_whack_a_mole']}")
    u = comparisons[0.2].utility["u_max"]
    print(f"ECDF U_m at r = 20%: Synthesizer {u['Synthesizer']:.4f}, Pairwise {u['Pairwise']:.4f}, "
          f"Marginal {u['Marginal']:.4f}; order S <= P <= M: "
          f"{u['Synthesizer'] <= u['Pairwise'] <= u['Marginal']}")


if __name__ == "__main__":
    warnings.simplefilter("ignore", category=FutureWarning)
    default_out = Path(tempfile.gettempdir()) / "synthguard_risk_weighted_simulation"
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else default_out)
