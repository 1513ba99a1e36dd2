"""Reading releases from disk: the manifest's implicates and kind, the same default as the CLI."""

from __future__ import annotations

import pytest

from synthguard.data.loading import load_releases, read_releases
from synthguard.data.manifest import ReleaseManifest, write_manifest
from synthguard.errors import FileFormatError
from synthguard.evaluation import evaluate
from tests.report.conftest import make_conf, shuffled


def _folder(path, frames, kind=None, extra_csv=True):
    path.mkdir(parents=True)
    names = []
    for i, df in enumerate(frames, start=1):
        df.to_csv(path / f"rel_{i}.csv", index=False)
        names.append(f"rel_{i}.csv")
    if extra_csv:  # a table that is not an implicate, with a data file name
        frames[0].head(3).to_csv(path / "summary.csv", index=False)
    if kind is not None:
        write_manifest(path, ReleaseManifest(kind=kind, implicates=tuple(names)))
    return path


def test_manifest_lists_the_implicates(tmp_path):
    conf = make_conf(n=120, seed=1)
    rel = _folder(tmp_path / "part", [shuffled(conf, ["income"], s) for s in (1, 2)], "partial")
    got = load_releases([rel])["part"]
    assert len(got.implicates) == 2 and got.kind == "partial" and got.manifest.m == 2
    assert read_releases([rel])["part"][1]["income"].tolist() == pytest.approx(
        shuffled(conf, ["income"], 2)["income"].tolist())
    # without the manifest every data file is an implicate, as before
    (rel / "synthguard_manifest.json").unlink()
    assert len(load_releases([rel])["part"].implicates) == 3


def test_python_takes_kind_from_manifest_and_defaults_to_full(tmp_path):
    conf = make_conf(n=150, seed=2)
    frames = [shuffled(conf, ["income", "spend"], 5)]
    declared = _folder(tmp_path / "declared", frames, "partial", extra_csv=False)
    bare = _folder(tmp_path / "bare", frames, None, extra_csv=False)
    rel = load_releases([declared, bare])
    ev = evaluate(conf, rel, keys=["region", "sex"], targets=["income"], random_state=1)
    assert ev["declared"].kind == "partial" and ev["bare"].kind == "full"
    # the declared partial release gets record-level risk; the bare one (same rows!) does not
    assert ev["declared"].metrics["max_identification_risk"] is not None
    assert ev["bare"].metrics["max_identification_risk"] is None
    assert "identification risk" in ev["bare"].inapplicable
    # complete: nothing left uncomputed (the declared partial release may fail the default
    # max IR <= 0.5 of issue 31, which judges it and not the bare one)
    assert ev["bare"].not_computed == {} and ev.status != "incomplete"
    assert all(c.threshold.metric in ("max_identification_risk", "pmse_ratio")
               for c in ev["declared"].failures)


def test_dp_kind_is_measured_as_full(tmp_path):
    conf = make_conf(n=100, seed=3)
    rel = _folder(tmp_path / "dp", [conf.sample(frac=1, random_state=0)], "dp", extra_csv=False)
    loaded = load_releases([rel])
    assert loaded["dp"].kind == "full" and loaded["dp"].manifest.kind == "dp"


def test_missing_listed_implicate_is_an_error(tmp_path):
    conf = make_conf(n=80, seed=4)
    rel = _folder(tmp_path / "r", [conf, conf], "full", extra_csv=False)
    (rel / "rel_2.csv").unlink()
    with pytest.raises(FileFormatError, match=r"rel_2\.csv"):
        load_releases([rel])


def test_status_incomplete_when_a_measure_fails(tmp_path):
    conf = make_conf(n=150, seed=6)
    ev = evaluate(conf, {"s": shuffled(conf, ["income"], 1)}, keys=["region"],
                  targets=["income"], formulas=["income ~ nosuch"], random_state=1,
                  default_thresholds=False)
    assert ev.status == "incomplete"
    assert [(w, p) for w, p, _ in ev.not_computed] == [("s", "regression")]
    ev = evaluate(conf, {"s": shuffled(conf, ["income"], 1)}, keys=["region"],
                  targets=["income"], formulas=["income ~ nosuch"],
                  thresholds={"kway_tv": 1e-9}, random_state=1)
    assert ev.status == "failed"


def test_partial_release_against_the_wrong_data_is_not_computed(tmp_path):
    conf = make_conf(n=150, seed=7)
    part = shuffled(conf, ["income"], 2).iloc[:120]  # made from another (shorter) file
    ev = evaluate(conf, {"p": part}, keys=["region"], targets=["income"],
                  kinds={"p": "partial"}, random_state=1)
    assert "identification risk" in ev["p"].not_computed
    assert "declared partially synthetic" in ev["p"].not_computed["identification risk"]
    assert ev.status == "incomplete"


def test_evaluate_reads_a_path_with_its_manifest_kind(tmp_path):
    conf = make_conf(n=150, seed=8)
    folder = _folder(tmp_path / "p", [shuffled(conf, ["income"], 3)], "partial")
    ev = evaluate(conf, {"p": str(folder), "q": folder}, keys=["region"], targets=["income"],
                  random_state=1)
    assert ev["p"].kind == "partial" and ev["q"].kind == "partial" and ev["p"].m == 1
    assert ev["p"].metrics["max_identification_risk"] is not None  # summary.csv not an implicate
