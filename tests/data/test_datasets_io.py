import numpy as np
import pandas as pd
import pytest

from synthguard.data import infer_schema, list_datasets, load_dataset, read_table, write_table
from synthguard.errors import FileFormatError, ParameterError


def test_penguins_shape_and_missing():
    df = load_dataset("penguins")
    assert df.shape == (344, 8)
    assert int(df["sex"].isna().sum()) == 11
    assert len(df.dropna()) == 333


def test_ce_reference_mean_and_ci():
    # ../shared/data/README.md: mean Expenditure 10197.38, 95% t-interval [9870.152, 10524.612]
    from scipy import stats

    df = load_dataset("ce")
    assert df.shape == (5133, 5)
    x = df["Expenditure"].to_numpy()
    m, se = x.mean(), x.std(ddof=1) / np.sqrt(len(x))
    t = stats.t.ppf(0.975, len(x) - 1)
    assert m == pytest.approx(10197.38, abs=0.01)
    assert m - t * se == pytest.approx(9870.152, abs=1e-3)
    assert m + t * se == pytest.approx(10524.612, abs=1e-3)
    s = infer_schema(df)
    assert s["Race"].levels == (1, 2, 3, 4, 5, 6)
    assert s.kind("Income").value == "numeric"


def test_nb_mixture_moments_and_seed():
    df = load_dataset("nb_mixture")
    assert df.shape == (1000, 1)
    # mixture variance: mu + mu^2 (0.7/20 + 0.3/5) = 100 + 950 = 1050; sd of the sample mean ~ 1.02
    assert abs(df["y"].mean() - 100) < 4 * np.sqrt(1050 / 1000)
    assert df.equals(load_dataset("nb_mixture"))
    assert not df.equals(load_dataset("nb_mixture", random_state=1))


def test_small_businesses():
    df = load_dataset("small_businesses")
    assert df["state"].value_counts().to_dict() == {"Texas": 100010, "Vermont": 403}
    assert df["employees"].max() <= 20


def test_unknown_dataset():
    with pytest.raises(ParameterError, match="unknown data set"):
        load_dataset("nope")
    assert set(list_datasets().index) == {"penguins", "ce", "nb_mixture", "small_businesses"}


@pytest.mark.parametrize("ext", [".csv", ".parquet", ".dta", ".sav"])
def test_roundtrip_formats(tmp_path, ext):
    df = pd.DataFrame({"a": [1.0, 2.5, np.nan], "b": ["x", "y", "z"]})
    p = write_table(df, tmp_path / f"t{ext}")
    back = read_table(p)
    assert list(back.columns) == ["a", "b"]
    np.testing.assert_allclose(back["a"].to_numpy(dtype=float), df["a"].to_numpy(), equal_nan=True)
    assert list(back["b"]) == ["x", "y", "z"]


def test_read_errors(tmp_path):
    with pytest.raises(FileFormatError, match="does not exist"):
        read_table(tmp_path / "missing.csv")
    bad = tmp_path / "x.foo"
    bad.write_text("a")
    with pytest.raises(FileFormatError, match="unknown extension"):
        read_table(bad)
    corrupt = tmp_path / "x.parquet"
    corrupt.write_bytes(b"not parquet at all")
    with pytest.raises(FileFormatError, match="could not be read"):
        read_table(corrupt)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
