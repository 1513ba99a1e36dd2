"""``synthguard synthesize --jobs``: by default the cores the process may use (at most 4),
and the release does not depend on it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pandas.testing as pdt
from click.testing import CliRunner

from synthguard.cli import main
from synthguard.cli import synthesize as cli_synthesize


def test_default_jobs_is_the_usable_cores_capped(monkeypatch):
    monkeypatch.setattr(cli_synthesize.os, "sched_getaffinity", lambda pid: set(range(8)),
                        raising=False)
    assert cli_synthesize.default_jobs() == cli_synthesize.MAX_DEFAULT_JOBS == 4
    monkeypatch.setattr(cli_synthesize.os, "sched_getaffinity", lambda pid: {3, 5},
                        raising=False)
    assert cli_synthesize.default_jobs() == 2
    monkeypatch.setattr(cli_synthesize.os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert cli_synthesize.default_jobs() == 1


def test_release_is_the_same_with_default_jobs_and_one_thread(tmp_path, monkeypatch):
    # two threads at least, whatever the machine: the default must still give --jobs 1's files
    monkeypatch.setattr(cli_synthesize.os, "sched_getaffinity", lambda pid: {0, 1, 2},
                        raising=False)
    rng = np.random.default_rng(8)
    n = 400
    df = pd.DataFrame({"g": rng.choice(["a", "b", "c"], n), "x": rng.normal(size=n).round(3),
                       "k": rng.integers(0, 5, n)})
    df["y"] = (df["x"] * 2 + df["k"] + rng.normal(size=n)).round(3)
    path = tmp_path / "conf.csv"
    df.to_csv(path, index=False)
    outs = {}
    for label, extra in (("default", []), ("one", ["--jobs", "1"])):
        out = tmp_path / label
        res = CliRunner().invoke(main, ["synthesize", str(path), "--out", str(out), "--seed", "4",
                                        "--quiet", *extra])
        assert res.exit_code == 0, res.output
        outs[label] = pd.read_csv(out / "synthetic_1.csv")
    assert not outs["one"].equals(df)
    pdt.assert_frame_equal(outs["default"], outs["one"])
