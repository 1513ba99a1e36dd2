"""The commands' start-up (``cli/_startup.py``): imports with the garbage collector paused and
then frozen, undone when the command returns; the program's exit freezes what is left."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import synthguard
from synthguard.cli import main
from synthguard.cli._startup import importing, thawed


@pytest.fixture
def clean_gc():
    """Each test starts and ends with the collector on and nothing frozen."""
    gc.enable()
    gc.unfreeze()
    yield
    gc.unfreeze()
    gc.enable()


def test_importing_pauses_the_collector_then_freezes_and_restores_it(clean_gc):
    with importing():
        assert not gc.isenabled()
        kept = [[] for _ in range(10)]  # tracked objects made while importing
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(kept)
    gc.unfreeze()
    gc.disable()  # a caller that had it off gets it back off
    with importing():
        pass
    assert not gc.isenabled()


def test_thawed_returns_frozen_objects_even_when_the_block_fails(clean_gc):
    with pytest.raises(RuntimeError), thawed():
        gc.freeze()
        assert gc.get_freeze_count() > 0
        raise RuntimeError("command failed")
    assert gc.get_freeze_count() == 0


def test_a_command_run_in_process_leaves_the_collector_as_it_was(tmp_path, clean_gc):
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"g": rng.choice(["a", "b"], 200), "x": rng.normal(size=200).round(2)})
    df.to_csv(tmp_path / "conf.csv", index=False)
    res = CliRunner().invoke(main, ["synthesize", str(tmp_path / "conf.csv"), "--out",
                                    str(tmp_path / "out"), "--seed", "1", "--quiet"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "out" / "synthetic_1.csv").exists()
    assert gc.isenabled() and gc.get_freeze_count() == 0
    res = CliRunner().invoke(main, ["synthesize", str(tmp_path / "absent.csv"), "--out",
                                    str(tmp_path / "out2"), "--quiet"])
    assert res.exit_code == 2  # a refused input: thawed all the same
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_the_program_entry_point_freezes_at_exit(clean_gc):
    # main() (the console script's call) ends the process: its objects are frozen for the exit
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert gc.get_freeze_count() > 0


def test_the_console_script_writes_its_release(tmp_path):
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"g": rng.choice(["a", "b"], 200), "x": rng.normal(size=200).round(2)})
    df.to_csv(tmp_path / "conf.csv", index=False)
    src = str(Path(synthguard.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]))
    code = "import sys; from synthguard.cli import main; sys.argv[0] = 'synthguard'; main()"
    out = subprocess.run([sys.executable, "-c", code, "synthesize", str(tmp_path / "conf.csv"),
                          "--out", str(tmp_path / "out"), "--seed", "1"],
                         capture_output=True, text=True, timeout=300, check=False, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "wrote 1 implicate(s)" in out.stdout  # stdout flushed at the exit
    rel = pd.read_csv(tmp_path / "out" / "synthetic_1.csv")
    assert rel.shape == df.shape and list(rel.columns) == ["g", "x"]
