from click.testing import CliRunner

from synthguard.cli import main


def test_datasets_lists_every_bundled_set():
    res = CliRunner().invoke(main, ["datasets"])
    assert res.exit_code == 0
    names = [line.split()[0] for line in res.output.strip().splitlines()]
    assert names == ["penguins", "ce", "nb_mixture", "small_businesses"]


def test_version_and_help():
    r = CliRunner().invoke(main, ["--version"])
    assert r.exit_code == 0 and "synthguard" in r.output
    h = CliRunner().invoke(main, ["--help"])
    assert h.exit_code == 0 and "Examples" in h.output


def test_datasets_writes_one_to_a_file(tmp_path):
    import pandas as pd

    from synthguard.data import load_dataset

    out = tmp_path / "conf.csv"
    res = CliRunner().invoke(main, ["datasets", "ce", "--out", str(out)])
    assert res.exit_code == 0, res.output
    back = pd.read_csv(out)
    ce = load_dataset("ce")
    assert back.shape == ce.shape and list(back.columns) == list(ce.columns)
    assert back["Income"].sum() == ce["Income"].sum()
    bad = CliRunner().invoke(main, ["datasets", "nope", "--out", str(tmp_path / "x.csv")])
    assert bad.exit_code == 2 and "unknown data set 'nope'" in bad.output
    assert not (tmp_path / "x.csv").exists()
    assert CliRunner().invoke(main, ["datasets", "--out", str(out)]).exit_code == 2
