"""A ledger cannot be switched off quietly (issue 13, finding 7).

Before: a charge with epsilon NaN made `spent` NaN and every later charge was accepted; a
negative charge was a credit; an emptied list or a raised budget was accepted silently; two
processes creating the same new ledger could lose a charge; a read-only file was replaced;
a DP synthesizer's charges were lost with the object.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from synthguard.dp import FieldGroupsSynthesizer, PrivacyLedger
from synthguard.errors import DataError, ParameterError, PrivacyBudgetError

pytestmark = pytest.mark.filterwarnings("ignore:seeded numpy noise:synthguard.errors.PrivacyWarning")


def _ledger(tmp_path):
    path = tmp_path / "ledger.json"
    ledger = PrivacyLedger(epsilon=2.0, path=path)
    ledger.charge("a", 0.5)
    ledger.charge("b", 0.25)
    with ledger.parallel("g") as part:
        part.charge("x", 0.1)
        part.charge("y", 0.2)
    return path


def _edit(path, fn):
    doc = json.loads(path.read_text())
    fn(doc)
    path.write_text(json.dumps(doc))


EDITS = {
    "nan charge": lambda d: d["charges"][0].update(epsilon=float("nan")),
    "infinite charge": lambda d: d["charges"][0].update(delta=float("inf")),
    "credit": lambda d: d["charges"][1].update(epsilon=-5.0),
    "emptied list": lambda d: d.update(charges=[]),
    "emptied list and count": lambda d: d.update(charges=[], count=0),
    "raised budget": lambda d: d["budget"].update(epsilon=100.0),
    "smaller charge": lambda d: d["charges"][0].update(epsilon=0.01),
    "removed line": lambda d: d.update(charges=d["charges"][1:], count=2),
    "parallel part raised": lambda d: d["charges"][2]["parts"][1].update(epsilon=0.9),
    "old unchecked format": lambda d: [d.pop(k) for k in ("head", "count")] + [
        d.update(version=1)],
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_edited_ledger_is_refused(tmp_path, edit):
    path = _ledger(tmp_path)
    assert PrivacyLedger.open(path).spent.epsilon == pytest.approx(0.95)
    _edit(path, EDITS[edit])
    with pytest.raises(DataError, match=r"ledger file 'ledger\.json'"):
        PrivacyLedger.open(path)


def test_handle_on_an_edited_file_refuses_to_charge(tmp_path):
    path = _ledger(tmp_path)
    ledger = PrivacyLedger.open(path)
    _edit(path, EDITS["nan charge"])
    with pytest.raises(DataError):
        ledger.charge("more", 0.1)
    with pytest.raises(DataError):
        _ = ledger.spent


def test_read_only_ledger_is_refused_not_replaced(tmp_path):
    path = _ledger(tmp_path)
    ledger = PrivacyLedger.open(path)
    before = path.read_bytes()
    os.chmod(path, 0o444)
    try:
        with pytest.raises(PrivacyBudgetError, match="read-only"):
            ledger.charge("more", 0.1)
        assert path.read_bytes() == before
        assert not (path.stat().st_mode & 0o222)
    finally:
        os.chmod(path, 0o644)
    assert len(ledger.charges) == 3


def test_stale_temporary_files_are_removed(tmp_path):
    path = _ledger(tmp_path)
    stale = tmp_path / ".ledger.json.abc123.tmp"
    stale.write_text("half a ledger")
    PrivacyLedger.open(path).charge("c", 0.1)
    assert not stale.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_two_processes_creating_one_new_ledger_lose_no_charge(tmp_path):
    path = tmp_path / "new.json"
    code = textwrap.dedent(f"""
        import sys, time
        from synthguard.dp import PrivacyLedger
        start = float(sys.argv[1])
        while time.time() < start:
            pass
        for i in range(5):
            PrivacyLedger(epsilon=100.0, path={str(path)!r}).charge(sys.argv[2] + str(i), 1.0)
    """)
    import time

    start = str(time.time() + 1.5)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [subprocess.Popen([sys.executable, "-c", code, start, tag], env=env)
             for tag in ("p", "q", "r")]
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0]
    ledger = PrivacyLedger.open(path)
    assert len(ledger.charges) == 15
    assert ledger.spent.epsilon == pytest.approx(15.0)


def test_synthesizer_result_carries_its_ledger_and_saves_it(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.choice(["x", "y"], 200), "b": rng.choice(["u", "v"], 200)})
    cats = {"a": ["x", "y"], "b": ["u", "v"]}
    path = tmp_path / "ledger.json"
    for _ in range(3):
        release = FieldGroupsSynthesizer(epsilon=1.0, categories=cats, random_state=0).fit_sample(
            df, n=10, random_state=0)
        assert release.ledger.spent.epsilon == pytest.approx(1.0)
        if not path.exists():
            PrivacyLedger(epsilon=2.5, path=path)
        if len(PrivacyLedger.open(path).charges) < 4:
            release.save_ledger(path)  # two singleton groups: two charges of 0.5 each
        else:
            with pytest.raises(PrivacyBudgetError):
                release.save_ledger(path)
    ledger = PrivacyLedger.open(path)
    assert ledger.spent.epsilon == pytest.approx(2.0) and len(ledger.charges) == 4


@pytest.mark.skipif(sys.platform == "win32", reason="fcntl lock")
def test_creating_a_new_ledger_waits_for_the_lock(tmp_path):
    import fcntl
    import time

    path = tmp_path / "new.json"
    fd = os.open(tmp_path / "new.json.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen([sys.executable, "-c", "from synthguard.dp import PrivacyLedger; "
                             f"PrivacyLedger(epsilon=1.0, path={str(path)!r}).charge('a', 0.5)"],
                            env=env)
    try:
        deadline = time.time() + 20
        while time.time() < deadline and proc.poll() is None and not path.exists():
            time.sleep(0.2)
            if time.time() > deadline - 17:  # ~3 s after start: it has imported and is blocked
                break
        assert not path.exists()  # an unlocked exists-check + write would have created it
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    assert proc.wait(timeout=60) == 0
    assert PrivacyLedger.open(path).spent.epsilon == 0.5


def test_put_many_records_all_or_none(tmp_path):
    path = tmp_path / "ledger.json"
    ledger = PrivacyLedger(epsilon=1.0, path=path)
    ledger.charge("first", 0.5)
    src = PrivacyLedger(epsilon=5.0)
    src.charge("t1", 0.2)
    src.charge("t2", 0.2)
    src.charge("t3", 0.2)  # 0.5 + 0.6 > 1: the whole batch is refused
    with pytest.raises(PrivacyBudgetError):
        ledger.put_many(src.charges)
    assert [c.label for c in PrivacyLedger.open(path).charges] == ["first"]
    ledger.put_many(src.charges[:2])  # 0.5 + 0.4 fits: both recorded in one write
    reopened = PrivacyLedger.open(path)
    assert [c.label for c in reopened.charges] == ["first", "t1", "t2"]
    assert reopened.spent.epsilon == pytest.approx(0.9)
    ledger.put_many([])
    assert len(PrivacyLedger.open(path).charges) == 3
    with pytest.raises(ParameterError, match="put_many"):
        ledger.put_many([{"label": "x", "epsilon": 0.01}])
