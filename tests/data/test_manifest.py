"""The release manifest: round trip, refusal of a folder holding a release, atomic replacement."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from synthguard.data.manifest import (
    MANIFEST_NAME,
    ReleaseManifest,
    check_release_target,
    read_manifest,
    release_folder,
    write_manifest,
)
from synthguard.errors import FileFormatError, ParameterError


def _release(folder, m, tag=0):
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for i in range(1, m + 1):
        pd.DataFrame({"a": [i, tag]}).to_csv(folder / f"syn_{i}.csv", index=False)
        files.append(f"syn_{i}.csv")
    return files


def test_round_trip_keeps_every_field(tmp_path):
    files = _release(tmp_path, 3)
    man = ReleaseManifest(
        kind="dp", implicates=tuple(files), seed=7, methods={"a": "dp:mst"}, kept=(),
        dropped=("b",), columns=("a",), ledger="../ledger.json",
        spent={"epsilon": 1.5, "delta": 1e-6, "rho": 0.25}, metadata=("metadata/p.json",),
        details={"method": "mst"},
    )
    path = write_manifest(tmp_path, man)
    assert path.name == MANIFEST_NAME
    doc = json.loads(path.read_text())
    assert doc["m"] == 3 and doc["kind"] == "dp" and doc["ledger"] == "../ledger.json"
    assert set(doc["versions"]) == {"synthguard", "python", "numpy", "pandas"}
    back = read_manifest(tmp_path)
    assert back == man
    assert back.m == 3 and back.evaluation_kind == "full"


def test_no_manifest_is_none_and_bad_manifest_is_an_error(tmp_path):
    assert read_manifest(tmp_path) is None
    (tmp_path / MANIFEST_NAME).write_text("{not json")
    with pytest.raises(FileFormatError, match="cannot be read"):
        read_manifest(tmp_path)
    files = _release(tmp_path, 2)
    write_manifest(tmp_path, ReleaseManifest(kind="full", implicates=tuple(files)))
    (tmp_path / "syn_2.csv").unlink()
    with pytest.raises(FileFormatError, match=r"syn_2\.csv"):
        read_manifest(tmp_path)


@pytest.mark.parametrize("bad", [
    dict(kind="synthetic", implicates=("a.csv",)),
    dict(kind="full", implicates=()),
    dict(kind="full", implicates=("../elsewhere.csv",)),
    dict(kind="full", implicates=("/abs/a.csv",)),
])
def test_invalid_manifest_refused(bad):
    with pytest.raises(ParameterError):
        ReleaseManifest(**bad)


def test_folder_with_a_release_refused_without_force(tmp_path):
    out = tmp_path / "syn"
    check_release_target(out, force=False)  # absent: fine
    out.mkdir()
    check_release_target(out, force=False)  # empty: fine
    _release(out, 5)
    with pytest.raises(ParameterError, match=r"folder '.*syn' already holds.*--force"):
        check_release_target(out, force=False)
    check_release_target(out, force=True)
    (out / "notes.docx").write_text("mine")
    with pytest.raises(ParameterError, match=r"notes\.docx"):
        check_release_target(out, force=True)


def test_force_refuses_a_folder_holding_the_input(tmp_path):
    out = tmp_path / "syn"
    _release(out, 1)
    (out / "conf.csv").write_text("a\n1\n")
    with pytest.raises(ParameterError, match=r"input file 'conf\.csv'"):
        check_release_target(out, force=True, inputs=[out / "conf.csv"])


def test_force_replaces_the_whole_release(tmp_path):
    out = tmp_path / "syn"
    _release(out, 5, tag=1)
    with release_folder(out, force=True) as tmp:
        assert tmp.parent == tmp_path and tmp != out
        _release(tmp, 2, tag=2)
    assert sorted(p.name for p in out.iterdir()) == ["syn_1.csv", "syn_2.csv"]
    assert pd.read_csv(out / "syn_1.csv")["a"].tolist() == [1, 2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["syn"]  # no temporary left


def test_failed_write_leaves_the_earlier_release(tmp_path):
    out = tmp_path / "syn"
    _release(out, 3, tag=1)
    with pytest.raises(RuntimeError), release_folder(out, force=True) as tmp:
        _release(tmp, 1, tag=2)
        raise RuntimeError("synthesis failed")
    assert sorted(p.name for p in out.iterdir()) == ["syn_1.csv", "syn_2.csv", "syn_3.csv"]
    assert pd.read_csv(out / "syn_1.csv")["a"].tolist() == [1, 1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["syn"]
