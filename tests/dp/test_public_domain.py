"""DP domains are declared public or the release is refused; no message leaks a count or value.

Issue 13, findings 1 and 2: levels read from the data (a pandas Categorical dtype, parquet
categoricals, a file's value labels, ``schema=infer_schema(df)``) made a one-record level
appear in a "DP" release; errors said how many values fell outside the declared levels.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.data.schema import infer_schema
from synthguard.dp import PrivacyLedger, dp_histogram, dp_mean, randomized_response
from synthguard.dp.synthesizers import (
    FieldGroupsSynthesizer,
    MSTSynthesizer,
    StratifiedSynthesizer,
)
from synthguard.errors import ParameterError, PrivacyWarning, SynthguardError

pytestmark = pytest.mark.filterwarnings("ignore:seeded numpy noise:synthguard.errors.PrivacyWarning")

SECRET = "ZZSECRETZZ"
N = 617            # planted record count
N_MISSING = 48     # planted number of missing values
N_TEXT = 301       # planted number of non-numbers in a binned column
LEVELS = ["North", "South", "East"]


def _conf() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    region = rng.choice(LEVELS, N).astype(object)
    region[7] = SECRET  # held by one record
    return pd.DataFrame({"region": region, "sex": rng.choice(["f", "m"], N)})


SYNTHS = [
    lambda **kw: StratifiedSynthesizer(epsilon=1.0, random_state=0, **kw),
    lambda **kw: FieldGroupsSynthesizer(epsilon=1.0, random_state=0, **kw),
    lambda **kw: MSTSynthesizer(epsilon=1.0, delta=1e-6, random_state=0, iters=50, **kw),
]


@pytest.mark.parametrize("make", SYNTHS)
def test_categorical_dtype_and_inferred_schema_are_not_declarations(make):
    df = _conf()
    cat = df.astype("category")  # what read_parquet / read_stata hand back
    ledger = PrivacyLedger(epsilon=5.0, delta=1e-5)
    with pytest.raises(ParameterError, match="not a declaration"):
        make(ledger=ledger).fit(cat)
    with pytest.raises(ParameterError, match="not a declaration"):
        make(ledger=ledger, schema=infer_schema(df)).fit(df)
    assert ledger.charges == ()  # refused before any charge


def test_parquet_categoricals_are_not_declarations(tmp_path):
    pytest.importorskip("pyarrow")
    from synthguard.data.io import read_table

    _conf().astype("category").to_parquet(tmp_path / "c.parquet")
    df = read_table(tmp_path / "c.parquet")
    with pytest.raises(ParameterError, match="not a declaration"):
        StratifiedSynthesizer(epsilon=0.01).fit(df)


def test_declared_levels_set_the_output_categories_not_the_dtype():
    df = _conf().astype("category")
    df = df[df["region"] != SECRET]  # the dtype still lists the secret level
    assert SECRET in df["region"].cat.categories
    syn = StratifiedSynthesizer(epsilon=1.0, categories={"region": LEVELS, "sex": ["f", "m"]},
                                random_state=0)
    out = syn.fit_sample(df, n=300, random_state=1).implicates[0]
    assert list(out["region"].cat.categories) == LEVELS


@pytest.mark.parametrize("make", SYNTHS)
def test_domain_from_data_is_recorded_as_not_dp(make):
    df = _conf()
    ledger = PrivacyLedger(epsilon=5.0, delta=1e-5)
    with pytest.warns(PrivacyWarning, match="NOT differentially private"):
        release = make(ledger=ledger, domain_from_data="not-dp").fit(df).sample(
            n=50, random_state=1)
    assert release.dp is False and release.provenance["dp"] is False
    assert "NOT DP" in release.summary()
    assert ledger.charges and all(c.label.startswith("NOT DP") for c in ledger.charges)
    with pytest.raises(ParameterError, match="domain_from_data"):
        make(domain_from_data="yes").fit(df)


def test_declared_release_is_dp_and_carries_its_ledger(tmp_path):
    df = _conf()
    df = df[df["region"] != SECRET]
    cats = {"region": LEVELS, "sex": ["f", "m"]}
    r = FieldGroupsSynthesizer(epsilon=1.0, categories=cats, random_state=0).fit_sample(
        df, n=10, random_state=0)
    assert r.dp is True and r.provenance["dp"] is True
    assert r.ledger.spent.epsilon == pytest.approx(1.0)


def test_cli_levels_from_data_is_marked_not_dp(tmp_path):
    import json

    df = _conf()
    df.to_csv(tmp_path / "conf.csv", index=False)
    res = CliRunner().invoke(main, [
        "dp", "synthesize", str(tmp_path / "conf.csv"), "--method", "stratified", "--epsilon",
        "1", "--levels-from-data", "--ledger", str(tmp_path / "l.json"), "--seed", "1",
        "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    prov = json.loads((tmp_path / "out" / "metadata" / "provenance.json").read_text())
    assert prov["dp"] is False
    manifest = json.loads((tmp_path / "out" / "synthguard_manifest.json").read_text())
    assert manifest["details"]["dp"] is False
    doc = json.loads((tmp_path / "l.json").read_text())
    assert doc["charges"][0]["label"].startswith("NOT DP")


def test_plan_dp_release_without_declared_levels_is_refused(tmp_path):
    from synthguard.errors import PlanError
    from synthguard.pipeline.pipeline import run_plan

    df = _conf()
    df["income"] = np.random.default_rng(1).lognormal(10, 1, len(df))
    df.to_csv(tmp_path / "conf.csv", index=False)
    (tmp_path / "plan.yaml").write_text(
        "data: {path: conf.csv}\nprivacy: {epsilon: 1}\nreleases:\n"
        "  d: {method: dp, synthesizer: stratified, epsilon: 0.5, columns: [region, sex]}\n"
        "evaluation: {keys: [region], targets: [income]}\n")
    with pytest.raises(PlanError, match="not a declaration") as e:
        run_plan(tmp_path / "plan.yaml")
    assert SECRET not in str(e.value)
    written = [p for p in (tmp_path / "synthguard_output").rglob("*") if p.is_file()]
    assert all(SECRET not in p.read_text(errors="replace") for p in written)


# --------------------------------------------------------------------------- finding 2
_PLANTED = [SECRET, str(N), str(N_MISSING), str(N_TEXT), str(N - 1), "1 value", "1 record"]


def _assert_clean(message: str) -> None:
    for token in _PLANTED:
        pattern = re.escape(token) if not token.isdigit() else rf"(?<![\d.]){token}(?![\d.])"
        assert not re.search(pattern, message), f"{token!r} leaked in: {message}"


def _planted_frames() -> dict[str, pd.DataFrame]:
    base = _conf()
    missing = base.copy()
    missing.loc[: N_MISSING - 1, "sex"] = None
    text = base.copy()
    text["age"] = np.random.default_rng(0).uniform(18, 90, N).astype(object)
    text.loc[: N_TEXT - 1, "age"] = "n/a"
    empty = base.copy()
    empty["blank"] = np.nan
    return {"secret": base, "missing": missing, "text": text, "empty": empty}


def _api_errors() -> list[str]:
    frames = _planted_frames()
    cats = {"region": LEVELS, "sex": ["f", "m"]}  # every level but the secret one
    msgs: list[str] = []

    def grab(fn) -> None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn()
        except SynthguardError as e:
            msgs.append(str(e))
            msgs.extend(getattr(e, "problems", []))
        else:  # pragma: no cover - every case must fail
            raise AssertionError("expected an error")

    for make in SYNTHS:
        grab(lambda make=make: make(categories=cats).fit(frames["secret"]))
        grab(lambda make=make: make(categories=cats).fit(frames["missing"]))
        grab(lambda make=make: make(categories=cats, bins={"age": [18, 50, 90]}).fit(
            frames["text"]))
        grab(lambda make=make: make(categories={**cats, "blank": ["x"]}).fit(frames["empty"]))
        grab(lambda make=make: make().fit(frames["secret"]))
        grab(lambda make=make: make(categories=cats).fit(frames["secret"].astype("category")))
    grab(lambda: dp_histogram(frames["secret"]["region"], categories=LEVELS, epsilon=1.0))
    grab(lambda: dp_histogram(frames["missing"]["sex"], categories=["f", "m"], epsilon=1.0))
    grab(lambda: randomized_response(frames["secret"]["region"], categories=LEVELS,
                                     epsilon=1.0))
    grab(lambda: dp_mean(np.full(N_MISSING, np.nan), lower=0, upper=1, epsilon=1.0))
    return msgs


def test_dp_api_errors_carry_no_count_or_value():
    msgs = _api_errors()
    assert len(msgs) >= 20
    for m in msgs:
        _assert_clean(m)


def test_dp_cli_errors_carry_no_count_or_value(tmp_path):
    frames = _planted_frames()
    runner = CliRunner()
    outputs = []
    for name, df in frames.items():
        path = tmp_path / f"{name}.csv"
        df.to_csv(path, index=False)
        levels = tmp_path / f"{name}.yaml"
        declared = {"region": LEVELS, "sex": ["f", "m"]}
        levels.write_text(yaml.safe_dump({**declared, "blank": ["x"]} if name == "empty"
                                         else declared))
        for method in ("stratified", "fieldgroups", "mst"):
            cols = {"secret": "region,sex", "missing": "region,sex", "text": "region,sex,age",
                    "empty": "region,sex,blank"}[name]
            bins = ["--bins", "age=18,50,90"] if name == "text" else []
            res = runner.invoke(main, [
                "dp", "synthesize", str(path), "--method", method, "--epsilon", "1",
                "--levels", str(levels), *bins, "--columns", cols,
                "--ledger", str(tmp_path / "l.json"), "--out", str(tmp_path / "out")])
            assert res.exit_code != 0, (name, method, res.output)
            outputs.append(res.output + str(res.exception or ""))
            assert "public domain" in res.output  # the error of interest was reached
    assert len(outputs) == 12
    for text in outputs:
        _assert_clean(text)
    assert not (tmp_path / "l.json").exists()  # nothing spent, no ledger left behind


def test_plan_release_with_domain_from_data_is_described_as_not_dp(tmp_path):
    from synthguard.pipeline.pipeline import run_plan

    df = _conf()
    df["income"] = np.random.default_rng(1).lognormal(10, 1, len(df))
    df.to_csv(tmp_path / "conf.csv", index=False)
    (tmp_path / "plan.yaml").write_text(
        "data: {path: conf.csv}\nprivacy: {epsilon: 1}\nreleases:\n"
        "  d: {method: dp, synthesizer: stratified, epsilon: 0.5, columns: [region, sex],\n"
        "      domain_from_data: not-dp}\n"
        "evaluation: {keys: [region], targets: [income]}\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_plan(tmp_path / "plan.yaml")
    ledger = PrivacyLedger.open(result.ledger_path)
    assert ledger.charges[0].label.startswith("NOT DP")
    assert result.releases["d"].dp is False
    assert "NOT differentially private" in result.report_path.read_text(encoding="utf-8")
