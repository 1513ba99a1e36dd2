"""Benchmark: the measures behind the default thresholds, and the verdict they give.

The default thresholds (:data:`synthguard.evaluation.thresholds.DEFAULT_THRESHOLDS`) must pass the
releases a board should accept and fail those it should not. This script measures, on three
data sets, releases of known quality with :func:`synthguard.evaluation` (the defaults on,
no threshold named) and prints the measures the defaults judge and each release's verdict.

Data (each split once, seed 0, into 80 % training, from which the releases are made, a 10 %
holdout for membership inference and the distance to closest record, and 10 % for the fresh
sample below):

* **Adult** complete cases (``synthpop_releases/adult_complete_cases.csv``, 30,162 records);
  keys ``age, sex, race, marital_status``, targets ``income, hours_per_week``;
* **CE**, the bundled Consumer Expenditure sample (``synthguard datasets ce``, 5,133
  records); keys ``UrbanRural, Race, KidsCount``, target ``Income``;
* **SD2011**, the 10 columns of synthpop's utility vignette (``sd2011/SD2011.csv``, 5,000
  records); keys ``sex, age, edu, region``, target ``income``.

Releases of each (``m = 1``, seed 1):

* ``synthguard``: the default :class:`~synthguard.synthesis.Synthesizer`;
* ``synthpop``: synthpop 1.9-2's default ``syn()`` (Adult: ``adult_syn_default_seed1.csv``;
  SD2011: the vignette's CART release ``utility_ods_syn_cart_seed34567.csv``; none for CE).
  They were made from the whole file, holdout included, so they are measured against the whole
  file without a holdout (membership and DCR: not judged);
* ``sdv``: SDV's GaussianCopulaSynthesizer when the optional ``sdv`` package is installed
  (skipped with a note otherwise);
* ``mst``: :class:`~synthguard.dp.MSTSynthesizer` at ε = 1, δ = 1e-9 (Adult on its public
  domain ``adult/adult_public_domain.json``; CE and SD2011 with ``domain_from_data="not-dp"``,
  the numeric columns cut at the data's deciles);
* ``permuted``: every column of the training data permuted independently (useless on
  purpose: every marginal exact, every relationship gone);
* ``fresh sample``: a further 10 % of the data, set aside like the holdout and released as if
  synthetic: records drawn from the same
  population as the data and not copied from it, the reference of what "as good as the data"
  measures (pMSE ratio about 1, membership AUC about 0.5, DCR at its baseline);
* ``independent``: every column drawn with replacement from its own values, independently
  (useless too, but with a fresh sample's marginals: what the pMSE ratio of a main-effects
  model cannot see);
* ``copy``: the training data itself (the worst release there is: pMSE ratio 0);
* ``partial``: synthguard's partial synthesis of the (numeric) target, every other column kept
  (record-level identification risk defined);
* ``noise``: the training data with additive noise of 10 % of the (numeric) target's standard
  deviation on it (a protected, SDC release; identification risk defined).

Run:  .venv/bin/python benchmarks/default_thresholds.py [--data adult ce sd2011]
          [--max-distance-records 5000]

The measured figures and the defaults chosen from them are in ``docs/report.md`` ("Default
thresholds") and in :mod:`synthguard.evaluation.thresholds`.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import synthguard as sg
from synthguard.errors import PrivacyWarning, SynthguardWarning

DATA = Path("/work/shared/data")
SD2011_COLUMNS = ["sex", "income", "age", "edu", "socprof", "trust", "height", "weight", "smoke",
                  "region"]
SETUP = {
    "adult": (["age", "sex", "race", "marital_status"], ["income", "hours_per_week"]),
    "ce": (["UrbanRural", "Race", "KidsCount"], ["Income"]),
    "sd2011": (["sex", "age", "edu", "region"], ["income"]),
}
SHOWN = ("pmse_ratio", "tv_2way", "max_identification_risk", "membership_auc", "closer_to_data_excess",
         "replicated_uniques", "disco", "ci_overlap")


def load(name: str, data_dir: Path) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The confidential file and synthpop's release of it (None when there is none)."""
    rel = data_dir / "synthpop_releases"
    if name == "adult":
        conf = pd.read_csv(rel / "adult_complete_cases.csv")
        return conf, pd.read_csv(rel / "adult_syn_default_seed1.csv")
    if name == "ce":
        return sg.load_dataset("ce"), None
    conf = pd.read_csv(data_dir / "sd2011" / "SD2011.csv")[SD2011_COLUMNS]
    fx = data_dir / "sd2011" / "synthpop_fixtures" / "utility_ods_syn_cart_seed34567.csv"
    return conf, (pd.read_csv(fx) if fx.exists() else None)


def _same_types(conf: pd.DataFrame, rel: pd.DataFrame) -> pd.DataFrame:
    """A release read from CSV with the data's column types."""
    out = rel[[c for c in conf.columns if c in rel.columns]].copy()
    for c in out.columns:
        if isinstance(conf[c].dtype, pd.CategoricalDtype):
            cats = conf[c].cat.categories
            by_text = {str(v): v for v in cats}
            out[c] = pd.Categorical([by_text.get(str(v), np.nan) for v in out[c]],
                                    categories=cats)
        elif not pd.api.types.is_numeric_dtype(conf[c]):  # text (object or str dtype)
            out[c] = out[c].astype(str).where(out[c].notna())
        else:
            out[c] = pd.to_numeric(out[c], errors="coerce")
    return out


def permuted(df: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Every column permuted independently: the marginals kept, every relationship broken."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({c: df[c].to_numpy()[rng.permutation(len(df))] for c in df.columns})


def independent(df: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Every column drawn with replacement from its own values, independently of the others:
    marginals as a fresh sample's, every relationship gone."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({c: df[c].to_numpy()[rng.integers(0, len(df), len(df))]
                         for c in df.columns})


def mst(name: str, train: pd.DataFrame, data_dir: Path) -> pd.DataFrame:
    from synthguard.dp import MSTSynthesizer

    common: dict[str, Any] = {"epsilon": 1.0, "delta": 1e-9, "random_state": 1}
    if name == "adult":
        dom = json.loads((data_dir / "adult" / "adult_public_domain.json").read_text())
        syn = MSTSynthesizer(**common, categories=dom["categories"], bins=dom["bins"])
    else:
        # the numeric columns on bin edges at the data's deciles (read from the data: the
        # release's DP guarantee does not cover its domain; a benchmark of usefulness only)
        bins = {c: sorted(set(np.nanquantile(train[c].astype(float), np.linspace(0, 1, 11))))
                for c in train.columns if pd.api.types.is_numeric_dtype(train[c])}
        text = [c for c in train.columns if not pd.api.types.is_numeric_dtype(train[c])
                and train[c].isna().any()]
        missing = [c for c in bins if train[c].isna().any()]
        fit_on = train.copy()
        for c in text:  # a missing level of its own, as MST asks
            fit_on[c] = fit_on[c].astype(object).where(fit_on[c].notna(), "(missing)")
        syn = MSTSynthesizer(**common, bins=bins, missing=missing, domain_from_data="not-dp")
        out = syn.fit(fit_on).sample(random_state=1).implicates[0]
        for c in text:
            out[c] = out[c].astype(object).where(out[c].astype(str) != "(missing)", np.nan)
        return _same_types(train, out)
    return _same_types(train, syn.fit(train).sample(random_state=1).implicates[0])


def sdv(train: pd.DataFrame) -> pd.DataFrame | None:
    try:
        from sdv.metadata import SingleTableMetadata  # type: ignore[import-not-found]
        from sdv.single_table import GaussianCopulaSynthesizer  # type: ignore[import-not-found]
    except ImportError:
        return None
    meta = SingleTableMetadata()
    meta.detect_from_dataframe(train)
    model = GaussianCopulaSynthesizer(meta)
    model.fit(train)
    return _same_types(train, model.sample(len(train)))


def releases(name: str, train: pd.DataFrame, data_dir: Path,
             target: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The releases made from the training part, and their kinds."""
    rel: dict[str, Any] = {"synthguard": sg.Synthesizer(random_state=1).fit(train).sample()}
    s = sdv(train)
    if s is None:
        print("  sdv: not installed (pip install sdv); SDV's release skipped")
    else:
        rel["sdv"] = s
    rel["mst"] = mst(name, train, data_dir)
    rel["permuted"] = permuted(train, 1)
    rel["independent"] = independent(train, 1)
    rel["copy"] = train.copy()
    keep = [c for c in train.columns if c != target]
    rel["partial"] = sg.Synthesizer(keep=keep, random_state=1).fit(train).sample()
    from synthguard.sdc import add_noise

    rel["noise"] = add_noise(train, [target], scale=0.1, random_state=1)
    return rel, {"copy": "full", "permuted": "full", "mst": "full", "sdv": "full",
                 "independent": "full"}


def show(ev: Any, label: str) -> list[dict[str, Any]]:
    rows = []
    for r in ev:
        row: dict[str, Any] = {"data": label, "release": r.name, "kind": r.kind}
        row.update({k: r.metrics.get(k) for k in SHOWN})
        row["verdict"] = "PASS" if r.passed else "FAIL: " + "; ".join(
            c.threshold.describe() for c in r.failures)
        rows.append(row)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="+", default=["adult", "ce", "sd2011"],
                    choices=list(SETUP))
    ap.add_argument("--data-dir", type=Path, default=DATA)
    ap.add_argument("--max-distance-records", type=int, default=5000)
    args = ap.parse_args()
    warnings.filterwarnings("ignore", category=PrivacyWarning)
    warnings.filterwarnings("ignore", category=SynthguardWarning)
    warnings.filterwarnings("ignore", category=FutureWarning)
    rows: list[dict[str, Any]] = []
    for name in args.data:
        t0 = time.perf_counter()
        if name != "ce" and not (args.data_dir).exists():
            print(f"{name}: {args.data_dir} absent, skipped")
            continue
        conf, synthpop = load(name, args.data_dir)
        keys, targets = SETUP[name]
        whole = conf  # synthpop's release was made from every record
        conf = conf.dropna(subset=[*keys, *targets]).reset_index(drop=True)
        rng = np.random.default_rng(0)
        idx = rng.permutation(len(conf))
        cut, cut2 = int(0.8 * len(conf)), int(0.9 * len(conf))
        train = conf.iloc[np.sort(idx[:cut])].reset_index(drop=True)
        holdout = conf.iloc[np.sort(idx[cut:cut2])].reset_index(drop=True)
        fresh = conf.iloc[np.sort(idx[cut2:])].reset_index(drop=True)
        print(f"{name}: {len(train):,} training records, {len(holdout):,} holdout")
        numeric = [t for t in targets if pd.api.types.is_numeric_dtype(train[t])]
        rel, kinds = releases(name, train, args.data_dir, numeric[0])
        # the fresh sample: records of the population the release was not made from
        rel["fresh sample"] = fresh
        kinds["fresh sample"] = "full"
        ev = sg.evaluate(train, rel, keys, targets, holdout=holdout, kinds=kinds,
                         random_state=1, max_distance_records=args.max_distance_records)
        rows += show(ev, name)
        if synthpop is not None:
            sp = _same_types(whole, synthpop)
            ev_sp = sg.evaluate(whole, {"synthpop": sp}, keys, targets, kinds={"synthpop": "full"},
                                random_state=1, max_distance_records=args.max_distance_records)
            rows += show(ev_sp, name)
        else:
            print(f"  synthpop: no release of {name} in {args.data_dir}; skipped")
        print(f"  {time.perf_counter() - t0:.0f} s")
        _print(pd.DataFrame([r for r in rows if r["data"] == name]))
    print("all data sets:")
    _print(pd.DataFrame(rows))


def _print(table: pd.DataFrame) -> None:
    with pd.option_context("display.width", 250, "display.max_columns", 20,
                           "display.max_colwidth", 90, "display.float_format", "{:.3g}".format):
        print(table.to_string(index=False))


if __name__ == "__main__":
    main()
