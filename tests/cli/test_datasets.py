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
