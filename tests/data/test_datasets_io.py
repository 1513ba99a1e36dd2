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


# --- bad input at the boundary (issue 11, item 4) -------------------------------------------

def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("text, line, got", [
    ("a,b,c\n1,2,3\n4,5\n6,7,8\n", 3, 2),          # short row: pandas would fill a missing value
    ("a,b,c\n1,2,3\n4,5,6\n7,8,9,10\n", 4, 4),     # long row: pandas' C error
    ("a,b\n1,2,\n3,4,\n", 2, 3),                   # every row one field more: pandas makes an index
])
def test_ragged_csv_names_line_and_counts(tmp_path, text, line, got):
    with pytest.raises(FileFormatError) as e:
        read_table(_write(tmp_path / "r.csv", text))
    msg = str(e.value)
    assert f"line {line} has {got} fields but the header has" in msg
    assert "\n" not in msg


def test_ragged_csv_counts_quoted_separator_as_one_field(tmp_path):
    df = read_table(_write(tmp_path / "q.csv", 'a,b\n"x,y",2\n,3\n'))
    assert df.shape == (2, 2)
    # an empty last field is a missing value, not a short row
    df = read_table(_write(tmp_path / "e.csv", 'a,b\n1,\n\n2,3\n"p\nq",\n'))
    assert df.shape == (3, 2) and df["b"].isna().tolist() == [True, False, True]


def test_other_formats_under_a_csv_name(tmp_path):
    import zipfile

    book = tmp_path / "book.xlsx"
    pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}).to_excel(book, index=False)
    (tmp_path / "book.csv").write_bytes(book.read_bytes())
    pd.DataFrame({"a": [1]}).to_parquet(tmp_path / "p.csv")
    with zipfile.ZipFile(tmp_path / "z.csv", "w") as z:
        z.writestr("inner.csv", "a\n1\n")
    (tmp_path / "u.csv").write_bytes("a\tb\n1\t2\n".encode("utf-16"))
    for name, what in [("book.csv", "is an Excel workbook"), ("p.csv", "is a Parquet file"),
                       ("z.csv", "is a zip archive"), ("u.csv", "UTF-16")]:
        with pytest.raises(FileFormatError, match=what):
            read_table(tmp_path / name)
    df = read_table(book)  # the workbook under its own name reads, with its types
    assert df["a"].tolist() == [1, 2] and pd.api.types.is_integer_dtype(df["a"])
    assert df["b"].tolist() == ["x", "y"]


def test_duplicate_column_names_refused(tmp_path):
    with pytest.raises(FileFormatError, match="'Income' appear more than once"):
        read_table(_write(tmp_path / "d.csv", "Income,Race,Income\n1,2,3\n"))
    with pytest.raises(FileFormatError, match="'Income' appear more than once"):
        read_table(_write(tmp_path / "d2.csv", "Income,Income \n1,2\n"), strip=True)
    book = tmp_path / "d.xlsx"
    pd.DataFrame([[1, 2]], columns=["a", "b"]).rename(columns={"b": "a"}).to_excel(book, index=False)
    with pytest.raises(FileFormatError, match="'a' appear more than once"):
        read_table(book)


def test_strip_and_na_values(tmp_path):
    from synthguard.errors import InputWarning

    f = _write(tmp_path / "s.csv", "age, sex ,inc\n 39, Male ,?\n40,Female,-9\n41, ?,5\n")
    with pytest.warns(InputWarning) as rec:
        raw = read_table(f)
    # The messages may name the file; its temporary path can hold any digits, so drop it first.
    msgs = " | ".join(str(w.message) for w in rec).replace(str(f), "<file>")
    assert "' sex '" in msgs and "start or end with a space" in msgs
    assert "hold '?'" in msgs and "hold '-9'" in msgs
    assert "Male" not in msgs and "39" not in msgs  # names columns, never values
    assert raw["inc"].dtype == object or pd.api.types.is_string_dtype(raw["inc"])
    df = read_table(f, strip=True, na_values=["?", "-9"])
    assert list(df.columns) == ["age", "sex", "inc"]
    assert df["sex"].tolist()[:2] == ["Male", "Female"] and pd.isna(df["sex"].iloc[2])
    assert pd.api.types.is_float_dtype(df["inc"]) and df["inc"].isna().tolist() == [True, True, False]
    assert df["age"].tolist() == [39, 40, 41]


def test_numeric_missing_code_warns_and_na_values_clears_it(tmp_path):
    from synthguard.errors import InputWarning

    f = tmp_path / "n.parquet"
    pd.DataFrame({"income": [-8.0, 1200.0, 3000.0], "t": [-5.0, -3.0, 1.0]}).to_parquet(f)
    with pytest.warns(InputWarning, match=r"column\(s\) 'income' hold '-8'"):
        read_table(f)
    df = read_table(f, na_values=["-8"])
    assert df["income"].isna().tolist() == [True, False, False]
    assert df["t"].tolist() == [-5.0, -3.0, 1.0]


def test_workbook_with_several_sheets_warns_and_reads_the_first(tmp_path):
    from synthguard.errors import InputWarning

    book = tmp_path / "w.xlsx"
    with pd.ExcelWriter(book) as xw:
        pd.DataFrame({"a": [1, 2]}).to_excel(xw, sheet_name="data", index=False)
        pd.DataFrame({"note": ["x"]}).to_excel(xw, sheet_name="notes", index=False)
    with pytest.warns(InputWarning, match="has 2 sheets; reading the first, 'data'"):
        df = read_table(book)
    assert df["a"].tolist() == [1, 2]
    assert read_table(book, sheet_name="notes")["note"].tolist() == ["x"]
