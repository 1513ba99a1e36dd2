"""Plans are contained (issue 13, finding 9): names, paths, YAML aliases, saved synthesizers.

Before: a release named ``../../../../escaped_release`` wrote at the filesystem root; report.file
and output: were not contained; a 512-byte alias bomb took 204 s to reject; a crafted pickle ran
code in Synthesizer.load before the type check.
"""

from __future__ import annotations

import pickle
import textwrap
import time

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import FileFormatError, PlanError
from synthguard.pipeline.plan import parse_plan
from synthguard.synthesis import Synthesizer
from synthguard.synthesis.persistence import _MAGIC, load_synthesizer

BASE = textwrap.dedent("""\
    data:
      path: conf.csv
    {output}
    releases:
      {name}:
        method: synthesis
    evaluation:
      keys: [a]
      targets: [b]
    report:
      file: {report}
    """)


@pytest.fixture()
def folder(tmp_path):
    pd.DataFrame({"a": ["x", "y"] * 20, "b": np.arange(40.0)}).to_csv(tmp_path / "conf.csv",
                                                                       index=False)
    return tmp_path


def _plan(folder, name="syn", output="", report="report.html"):
    text = BASE.format(name=name, output=output, report=report)
    return parse_plan(text, source="plan.yaml", base_dir=folder)


@pytest.mark.parametrize("name", ["../../../../escaped_release", "/tmp/abs", "a/b", "..",
                                  "'..\\\\x'", "'.hidden'"])
def test_release_names_are_simple(folder, name):
    with pytest.raises(PlanError, match="simple name"):
        _plan(folder, name=name)


@pytest.mark.parametrize("output", ["output: /tmp/elsewhere", "output: ../up",
                                    "output: a/../../up", "output: ."])
def test_output_stays_inside_the_plan_folder(folder, output):
    with pytest.raises(PlanError, match="inside the plan's folder"):
        _plan(folder, output=output)
    assert _plan(folder, output="output: out/run1").output == folder / "out" / "run1"


@pytest.mark.parametrize("report", ["../../evil.html", "/tmp/evil.html", "sub/r.html"])
def test_report_file_is_a_simple_name(folder, report):
    with pytest.raises(PlanError, match="simple file name"):
        _plan(folder, report=report)


def test_a_plan_built_in_python_is_checked_at_run_time(folder):
    import dataclasses

    from synthguard.pipeline.pipeline import run_plan

    plan = _plan(folder)
    bad = dataclasses.replace(plan, releases=(dataclasses.replace(plan.releases[0],
                                                                  name="../../x"),))
    with pytest.raises(PlanError, match="simple names"):
        run_plan(bad)
    assert not (folder / "synthguard_output").exists()


def test_yaml_alias_bomb_is_refused_at_once(folder):
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, cur in zip("abcdefg", "bcdefgh"):
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    bomb = "\n".join(lines) + "\n"
    t = time.perf_counter()
    with pytest.raises(PlanError, match="aliases"):
        parse_plan(bomb, source="plan.yaml", base_dir=folder)
    assert time.perf_counter() - t < 1.0
    with pytest.raises(PlanError, match="line 2"):
        parse_plan("data: {path: conf.csv}\nseed: &s 3\n", base_dir=folder)


class _Evil:
    def __reduce__(self):
        import os

        return (os.system, ("touch PWNED_BY_PICKLE",))


@pytest.mark.parametrize("payload", [
    _Evil(),
    # the type check came after: a callable hidden inside an otherwise valid object
    {"x": _Evil()},
])
def test_crafted_pickle_runs_no_code(tmp_path, monkeypatch, payload):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "model.confidential.pkl"
    path.write_bytes(_MAGIC + pickle.dumps(payload, protocol=4))
    with pytest.raises(FileFormatError, match="not allowed"):
        load_synthesizer(path)
    assert not (tmp_path / "PWNED_BY_PICKLE").exists()


@pytest.mark.parametrize("glob", [("builtins", "eval"), ("builtins", "exec"),
                                  ("subprocess", "Popen"), ("numpy", "memmap"),
                                  ("pandas", "read_pickle"), ("numpy", "load"),
                                  ("pandas.io.pickle", "read_pickle")])
def test_dangerous_globals_are_refused(tmp_path, glob):
    module, name = glob
    payload = (b"\x80\x04" + b"c" + module.encode() + b"\n" + name.encode() + b"\n"
               + b"(S'x'\ntR.")
    path = tmp_path / "m.confidential.pkl"
    path.write_bytes(_MAGIC + payload)
    with pytest.raises(FileFormatError, match="not allowed"):
        load_synthesizer(path)


def test_real_synthesizers_still_load(tmp_path):
    from synthguard.data import load_dataset

    ce = load_dataset("ce").head(300)
    for syn in (Synthesizer(random_state=np.random.default_rng(1)),
                Synthesizer(methods={"Income": "norm", "Race": "polyreg",
                                     "UrbanRural": "logreg"}, random_state=2)):
        syn.fit(ce)
        path = tmp_path / "m.confidential.pkl"
        syn.save(path)
        again = Synthesizer.load(path)
        pd.testing.assert_frame_equal(syn.sample(random_state=3).implicates[0],
                                      again.sample(random_state=3).implicates[0])


# ------------------------------------------------ links are followed before containing (issue 31, N5)
def test_output_through_a_link_out_of_the_folder_is_refused(folder, tmp_path_factory):
    """Before: ``output: linkout/x`` with ``linkout`` a link out of the folder wrote outside
    it and exited 0. After: the path is resolved through the link and refused."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (folder / "linkout").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(PlanError, match=r"inside the plan's folder.*link"):
        _plan(folder, output="output: linkout/x")
    # a link that stays inside the folder is fine, and the resolved folder is what is used
    (folder / "real").mkdir()
    (folder / "linkin").symlink_to(folder / "real", target_is_directory=True)
    assert _plan(folder, output="output: linkin/x").output == (folder / "real" / "x").resolve()


def test_run_refuses_a_link_planted_where_it_writes(folder, tmp_path_factory):
    from click.testing import CliRunner

    from synthguard.cli import main

    elsewhere = tmp_path_factory.mktemp("elsewhere2")
    plan = folder / "plan.yaml"
    plan.write_text(BASE.format(name="syn", output="output: out", report="report.html"))
    (folder / "out").mkdir()
    (folder / "out" / "evaluation.csv").symlink_to(elsewhere / "evaluation.csv")
    res = CliRunner().invoke(main, ["run", str(plan), "--quiet"])
    assert res.exit_code == 2, res.output
    assert "evaluation.csv is a symbolic link" in res.output
    assert list(elsewhere.iterdir()) == []


def test_cli_run_with_output_through_a_link_exits_2_and_writes_nothing_outside(
        folder, tmp_path_factory):
    from click.testing import CliRunner

    from synthguard.cli import main

    elsewhere = tmp_path_factory.mktemp("elsewhere3")
    (folder / "linkout").symlink_to(elsewhere, target_is_directory=True)
    plan = folder / "plan.yaml"
    plan.write_text(BASE.format(name="syn", output="output: linkout/x", report="report.html"))
    res = CliRunner().invoke(main, ["run", str(plan), "--quiet"])
    assert res.exit_code == 2, res.output
    assert list(elsewhere.iterdir()) == []
