"""tests/reference/ holds each reference number with its source: every file there is listed
in its README (program, version, run) and read by a test, so none is orphaned or unexplained."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent
REF = ROOT / "reference"


def _reference_files() -> list[Path]:
    return sorted(p for p in REF.rglob("*") if p.is_file() and p.name != "README.md"
                  and "__pycache__" not in p.parts)


def test_every_reference_file_is_listed_with_its_source():
    readme = (REF / "README.md").read_text(encoding="utf-8")
    missing = [str(p.relative_to(REF)) for p in _reference_files()
               if str(p.relative_to(REF)) not in readme
               and f"{p.parent.name}/" not in readme]
    assert not missing, f"list these in tests/reference/README.md with their source: {missing}"


def test_every_reference_file_is_read_by_a_test():
    tests = "\n".join(p.read_text(encoding="utf-8") for p in ROOT.rglob("test_*.py"))
    # a file is read by name, or its folder is (the folder's files are read by a loop)
    unread = [str(p.relative_to(REF)) for p in _reference_files()
              if p.name not in tests and not (p.parent != REF and f'"{p.parent.name}"' in tests)
              and p.suffix not in (".R", ".md")]
    assert not unread, f"reference files no test reads: {unread}"
