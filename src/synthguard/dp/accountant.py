"""PrivacyLedger: the bill of a privacy-loss budget, never overspent and never forgotten.

Accounting rules (course, "Important Theorems"; Bun & Steinke 2016):

* **Sequential composition** — mechanisms run on the same data add up:
  ε = Σ εⱼ, δ = Σ δⱼ (McSherry 2009; Dwork & Roth 2014, Theorem 3.16).
* **Parallel composition** — mechanisms run on *disjoint* partitions cost the maximum:
  ε = maxⱼ εⱼ (McSherry 2009). Use ``with ledger.parallel("label") as part: ...``.
* **zCDP** — ρ-zCDP charges add up (Σ ρⱼ) and are converted once, at the end, with the tight
  conversion of Canonne, Kamath & Steinke (2020) (:func:`synthguard.dp.conversion.rho_to_epsilon`;
  never above ε = ρ + 2√(ρ ln(1/δ)), Bun & Steinke 2016, Prop. 1.3). The conversion uses all of the
  ledger's δ that approximate-DP charges have not used, so a ledger holding zCDP charges
  reports its whole δ as spent.

A charge that would make the total exceed the budget raises
:class:`~synthguard.errors.PrivacyBudgetError` and records nothing; the query functions in
:mod:`synthguard.dp.queries` charge **before** drawing noise, so a refused query draws none.

With ``path``, every charge is written to a JSON file atomically (write a temporary file,
fsync it, ``os.replace`` it over the ledger, fsync the directory) before :meth:`charge`
returns — before any noisy answer exists — so a crash can lose an answer but never the record
of budget spent. Opening a ledger on an existing file restores it. Several processes may hold
the same ledger file: each charge takes an exclusive lock (``fcntl.flock`` on ``<file>.lock``,
POSIX), re-reads the file, checks the budget against every charge recorded there and writes,
so two processes can never both spend the last of a budget.

The file cannot be switched off quietly:

* **Integrity.** Each charge carries a SHA-256 hash chained to the previous one, starting from a
  hash of the budget, and the file records the chain's head and length. Every read recomputes
  the chain; a raised budget, an emptied or shortened list, an edited amount or a removed line
  is detected and the ledger refused with :class:`~synthguard.errors.DataError` (restore the
  file from a backup). The chain has no secret key: it catches edits, not a forger who
  recomputes every hash; keep the file read-only to others and under backup.
* **Amounts** are checked on load as on charge: a NaN, infinite or negative ε/δ/ρ (a "credit")
  is refused.
* **Creation** of a new file happens under the lock and is exclusive (a complete temporary
  file hard-linked into place, which fails like ``O_CREAT | O_EXCL`` when the file exists), so
  two processes creating the same new ledger both end up charging one file.
* A **read-only** ledger file is refused rather than replaced (``os.replace`` needs only the
  directory's permission); temporary files left by a crashed writer are removed under the lock.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from synthguard.data.safe_load import read_json
from synthguard.dp.conversion import rho_to_epsilon
from synthguard.errors import DataError, FileFormatError, ParameterError, PrivacyBudgetError

__all__ = [
    "Budget",
    "Charge",
    "ParallelCharges",
    "PrivacyLedger",
    "pure_to_zcdp",
    "zcdp_to_dp",
]

_FORMAT = "synthguard-privacy-ledger"
_VERSION = 2
_TOL = 1e-12
_KINDS = ("pure", "approx", "zcdp", "parallel")


def zcdp_to_dp(rho: float, delta: float) -> float:
    """ε such that ρ-zCDP implies (ε, δ)-DP: ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3).

    The simple bound; the ledger converts with the tighter
    :func:`synthguard.dp.conversion.rho_to_epsilon` (Canonne, Kamath & Steinke 2020).

    Examples
    --------
    >>> round(zcdp_to_dp(0.5, 1e-6), 6)
    5.756522
    """
    rho, delta = float(rho), float(delta)
    if not math.isfinite(rho) or rho < 0:
        raise ParameterError("parameter 'rho': expected a finite number >= 0")
    if not 0 < delta < 1:
        raise ParameterError("parameter 'delta': expected 0 < delta < 1 to convert zCDP")
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def pure_to_zcdp(epsilon: float) -> float:
    """ρ = ε²/2: an ε-DP mechanism is ρ-zCDP (Bun & Steinke 2016, Proposition 1.4)."""
    epsilon = float(epsilon)
    if not math.isfinite(epsilon) or epsilon < 0:
        raise ParameterError("parameter 'epsilon': expected a finite number >= 0")
    return epsilon * epsilon / 2.0


@dataclass(frozen=True)
class Budget:
    """An amount of privacy loss: (ε, δ), with the zCDP ρ it includes."""

    epsilon: float
    delta: float
    rho: float = 0.0


NOT_DP_PREFIX = "NOT DP"


@dataclass(frozen=True)
class Charge:
    """One line of the ledger. ``kind``: 'pure', 'approx', 'zcdp' or 'parallel'.

    ``privacy_unit`` names what the charge protects: ``None`` for a charge recorded without
    one (every charge before units existed, and the row-level mechanisms), ``"row"`` or an id
    column such as ``"hid"`` for a :class:`synthguard.dp.Session` charge, whose amount is the
    unit-level cost. It enters the file (and so the hash chain) only when set, so ledger files
    written before the field existed read and verify unchanged.
    """

    label: str
    epsilon: float
    delta: float
    rho: float
    kind: str
    time: str
    parts: tuple[Charge, ...] = field(default=())
    privacy_unit: str | None = None

    @property
    def dp(self) -> bool:
        """False for a line marked NOT DP (its label starts ``"NOT DP"``): the release it paid
        for read its domain from the data (``domain_from_data='not-dp'``), so its noise was
        spent, and counts against the budget, but no ε or δ bounds what it discloses. The
        label is part of the hash chain, so the mark cannot be edited away."""
        return not self.label.startswith(NOT_DP_PREFIX)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "label": self.label,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "rho": self.rho,
            "kind": self.kind,
            "time": self.time,
            "parts": [p.to_dict() for p in self.parts],
        }
        if self.privacy_unit is not None:
            d["privacy_unit"] = self.privacy_unit
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Charge:
        """Rebuild a charge from its file form; ValueError on non-finite or negative amounts."""
        c = cls(
            label=str(d["label"]),
            epsilon=float(d["epsilon"]),
            delta=float(d["delta"]),
            rho=float(d["rho"]),
            kind=str(d["kind"]),
            time=str(d["time"]),
            parts=tuple(cls.from_dict(p) for p in d.get("parts", [])),
            privacy_unit=None if d.get("privacy_unit") is None else str(d["privacy_unit"]),
        )
        for v in (c.epsilon, c.delta, c.rho):
            if not math.isfinite(v) or v < 0:
                raise ValueError("a charge amount is not a finite number >= 0")
        if c.delta > 1 or c.kind not in _KINDS or (c.parts and c.kind != "parallel"):
            raise ValueError("a charge is malformed")
        if c.kind == "parallel":
            top = _group(c.label, c.parts, c.time)
            if (c.epsilon, c.delta, c.rho) != (top.epsilon, top.delta, top.rho):
                raise ValueError("a parallel group does not cost the maximum of its parts")
        return c


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False).encode()


def _genesis(epsilon: float, delta: float) -> str:
    """The chain's first link: a hash of the format and the budget."""
    return hashlib.sha256(_canonical({"format": _FORMAT, "budget": [epsilon, delta]})).hexdigest()


def _link(previous: str, charge: Charge) -> str:
    return hashlib.sha256(previous.encode() + _canonical(charge.to_dict())).hexdigest()


def _check_amount(value: float, name: str, *, upper: float = math.inf) -> float:
    value = float(value)
    if not math.isfinite(value) or value < 0 or value > upper:
        raise ParameterError(f"parameter '{name}': expected a finite number >= 0")
    return value


def _make_charge(label: str, epsilon: float, delta: float, rho: float,
                 privacy_unit: str | None = None) -> Charge:
    epsilon = _check_amount(epsilon, "epsilon")
    delta = _check_amount(delta, "delta", upper=1.0)
    rho = _check_amount(rho, "rho")
    kind = "zcdp" if rho > 0 else ("approx" if delta > 0 else "pure")
    return Charge(str(label), epsilon, delta, rho, kind, _now(),
                  privacy_unit=None if privacy_unit is None else str(privacy_unit))


def _group(label: str, parts: tuple[Charge, ...], time: str) -> Charge:
    return Charge(
        label,
        max((p.epsilon for p in parts), default=0.0),
        max((p.delta for p in parts), default=0.0),
        max((p.rho for p in parts), default=0.0),
        "parallel",
        time,
        parts,
    )


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def _read_only(path: Path) -> bool:
    """No write permission bit, or no write access (root passes os.access, not the bits)."""
    return (path.stat().st_mode & 0o222) == 0 or not os.access(path, os.W_OK)


def _create_exclusive(tmp: str, path: Path) -> None:
    """Put the complete file ``tmp`` at ``path`` only if nothing is there (FileExistsError)."""
    try:
        os.link(tmp, path)  # atomic and exclusive, like O_CREAT | O_EXCL, and never partial
    except FileExistsError:
        raise
    except OSError:  # pragma: no cover - filesystems without hard links
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with os.fdopen(fd, "wb") as out, open(tmp, "rb") as src:
            out.write(src.read())
            out.flush()
            os.fsync(out.fileno())


class ParallelCharges:
    """Charges on disjoint partitions inside ``with ledger.parallel(label)``: the group costs the max.

    Each :meth:`charge` is checked against the budget (with the group's running maximum) and
    persisted before it returns, exactly like a sequential charge.
    """

    def __init__(self, ledger: PrivacyLedger, label: str) -> None:
        self._ledger = ledger
        self.label = label
        self._index: int | None = None
        self._parts: tuple[Charge, ...] = ()
        self._time = _now()
        self._closed = False

    def charge(self, label: str, epsilon: float, delta: float = 0.0, *,
               privacy_unit: str | None = None) -> Charge:
        """Charge (ε, δ) for a mechanism run on one partition."""
        return self._add(_make_charge(label, epsilon, delta, 0.0, privacy_unit))

    def charge_rho(self, label: str, rho: float, *, privacy_unit: str | None = None) -> Charge:
        """Charge ρ-zCDP for a mechanism run on one partition."""
        return self._add(_make_charge(label, 0.0, 0.0, rho, privacy_unit))

    def _add(self, part: Charge) -> Charge:
        if self._closed:
            raise ParameterError(
                f"parallel group '{self.label}' is closed; open a new `with ledger.parallel()`"
            )
        group = _group(self.label, (*self._parts, part), self._time)
        self._index = self._ledger._put(group, self._index)
        self._parts = group.parts
        return part

    @property
    def cost(self) -> Budget:
        """What the group costs so far: the maximum of its parts."""
        g = _group(self.label, self._parts, self._time)
        return Budget(g.epsilon, g.delta, g.rho)


class PrivacyLedger:
    """A privacy-loss budget and the record of every charge against it.

    Parameters
    ----------
    epsilon : total ε budget (> 0).
    delta : total δ budget (0 ≤ δ < 1); must be > 0 for Gaussian or zCDP charges.
    path : optional JSON file. If it exists the ledger is restored from it (its budget must
        equal ``epsilon``/``delta``; use :meth:`open` to take the file's budget). Every charge
        is written to it atomically before the charge returns.

    Examples
    --------
    >>> ledger = PrivacyLedger(epsilon=2.0)
    >>> _ = ledger.charge("state counts", 1.0)
    >>> _ = ledger.charge("employees sum", 0.5)
    >>> _ = ledger.charge("income mean", 0.5)
    >>> ledger.spent.epsilon, ledger.remaining.epsilon
    (2.0, 0.0)
    """

    def __init__(
        self, *, epsilon: float, delta: float = 0.0, path: str | os.PathLike[str] | None = None
    ) -> None:
        epsilon = float(epsilon)
        if not math.isfinite(epsilon) or epsilon <= 0:
            raise ParameterError("parameter 'epsilon': expected a finite budget > 0")
        delta = float(delta)
        if not 0 <= delta < 1:
            raise ParameterError("parameter 'delta': expected 0 <= delta < 1")
        self.epsilon = epsilon
        self.delta = delta
        self.path = Path(path) if path is not None else None
        self._charges: list[Charge] = []
        self._lock = threading.RLock()
        if self.path is not None:
            # exists-check and creation under the lock: two processes creating the same new
            # ledger must end up on one file, neither overwriting the other's charges
            with self._file_lock(read=False):
                if self.path.exists():
                    budget, charges = self._read(self.path)
                    if not (
                        math.isclose(budget.epsilon, epsilon, rel_tol=1e-12, abs_tol=0)
                        and math.isclose(budget.delta, delta, rel_tol=1e-12, abs_tol=0)
                    ):
                        raise ParameterError(
                            "ledger file: its budget differs from parameters 'epsilon'/'delta';"
                            " a budget is never changed silently: open it with "
                            "PrivacyLedger.open(path) or pass the budget it was created with"
                        )
                    self._charges = charges
                else:
                    self._write(create=True)

    # ----------------------------------------------------------------- persistence
    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> PrivacyLedger:
        """Restore a ledger from its file, taking the budget recorded there."""
        budget, _ = cls._read(Path(path))
        return cls(epsilon=budget.epsilon, delta=budget.delta, path=path)

    @classmethod
    def merge_into(cls, path: str | os.PathLike[str], source: PrivacyLedger) -> PrivacyLedger:
        """Record every charge of ``source`` (e.g. a release's in-memory ledger) in the file
        ``path``, created with ``source``'s budget when absent. All the charges are checked
        against the file's budget together and recorded at once, or none is
        (PrivacyBudgetError)."""
        p = Path(path)
        target = cls.open(p) if p.exists() else cls(epsilon=source.epsilon,
                                                    delta=source.delta, path=p)
        target.put_many(list(source.charges))
        return target

    @staticmethod
    def _read(path: Path) -> tuple[Budget, list[Charge]]:
        try:
            doc = read_json(path, what="a privacy ledger")
            if not isinstance(doc, dict) or doc.get("format") != _FORMAT:
                raise ValueError("format")
            budget = Budget(float(doc["budget"]["epsilon"]), float(doc["budget"]["delta"]))
            charges = [Charge.from_dict(c) for c in doc["charges"]]
        except FileFormatError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise DataError(
                f"ledger file '{path.name}': not a readable synthguard privacy ledger (or an "
                "amount in it is not a finite number >= 0); restore it from a backup (never "
                "start a fresh ledger for the same data)"
            ) from e
        if not (math.isfinite(budget.epsilon) and budget.epsilon > 0
                and math.isfinite(budget.delta) and 0 <= budget.delta < 1):
            raise DataError(f"ledger file '{path.name}': its budget is not a valid (epsilon, "
                            "delta); restore the file from a backup")
        PrivacyLedger._verify(path, doc, budget, charges)
        return budget, charges

    @staticmethod
    def _verify(path: Path, doc: dict[str, Any], budget: Budget, charges: list[Charge]) -> None:
        """Recompute the hash chain; refuse a file whose budget or charges were edited."""
        broken = DataError(
            f"ledger file '{path.name}': its integrity check fails (the budget or the charges "
            "were edited, or lines removed, after they were recorded); the ledger is refused: "
            "restore it from a backup, never edit it by hand"
        )
        if doc.get("version") != _VERSION:
            raise DataError(
                f"ledger file '{path.name}': written without an integrity check (format version "
                f"{doc.get('version')!r}, expected {_VERSION}); it cannot be trusted: restore a "
                "checked copy from a backup"
            )
        h = _genesis(budget.epsilon, budget.delta)
        raw = doc["charges"]
        for c, d in zip(charges, raw):
            h = _link(h, c)
            if not isinstance(d, dict) or d.get("hash") != h:
                raise broken
        if doc.get("head") != h or doc.get("count") != len(charges):
            raise broken

    def _document(self) -> dict[str, Any]:
        h = _genesis(self.epsilon, self.delta)
        rows = []
        for c in self._charges:
            h = _link(h, c)
            rows.append({**c.to_dict(), "hash": h})
        return {
            "format": _FORMAT,
            "version": _VERSION,
            "budget": {"epsilon": self.epsilon, "delta": self.delta},
            "charges": rows,
            "count": len(rows),
            "head": h,
        }

    @classmethod
    def read_record(cls, path: str | os.PathLike[str]) -> PrivacyLedger:
        """An in-memory ledger holding what the file ``path`` records (a release's ledger
        record, or any ledger file), verified by its hash chain; the file is only read (no
        lock file is created beside it) and nothing charged on the result reaches it."""
        budget, charges = cls._read(Path(path))
        ledger = cls(epsilon=budget.epsilon, delta=budget.delta)
        ledger._charges = list(charges)
        return ledger

    def write_record(self, path: str | os.PathLike[str]) -> Path:
        """Write the ledger as it stands now to ``path``, read-only: a release's own record
        of what was spent, kept inside its folder so it travels when the folder is moved.

        The record is a complete ledger file (budget, charges, hash chain), so
        :meth:`open` reads and verifies it; it is written read-only so that no charge is ever
        recorded on it (spend budget on the ledger itself, never on a copy).
        """
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            doc = {**self._document(), "record_of": self.path.name if self.path else None}
        if p.exists():
            os.chmod(p, 0o644)
        p.write_text(json.dumps(doc, indent=1), encoding="utf-8")
        os.chmod(p, 0o444)
        return p

    def _write(self, *, create: bool = False) -> None:
        """Write the file atomically (under the lock). ``create``: only if it does not exist."""
        assert self.path is not None
        doc = self._document()
        directory = self.path.resolve().parent
        if not create and self.path.exists() and _read_only(self.path):
            raise PrivacyBudgetError(
                f"ledger file '{self.path.name}' is read-only; a charge is never recorded by "
                "replacing a protected file: make it writable to spend budget, or stop"
            )
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{self.path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(doc, fh, indent=1)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, 0o644)
            if create:
                _create_exclusive(tmp, self.path)
            else:
                os.replace(tmp, self.path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        _fsync_dir(directory)

    # ----------------------------------------------------------------- arithmetic
    @staticmethod
    def _total(charges: list[Charge], budget_delta: float) -> Budget:
        eps = math.fsum(c.epsilon for c in charges)
        delta = math.fsum(c.delta for c in charges)
        rho = math.fsum(c.rho for c in charges)
        if rho > 0:
            rest = budget_delta - delta
            if rest <= 0:
                return Budget(math.inf, max(delta, budget_delta), rho)
            return Budget(eps + rho_to_epsilon(rho, rest), budget_delta, rho)
        return Budget(eps, delta, 0.0)

    def _refresh(self) -> None:
        """Re-read the ledger file (other processes may have charged it); atomic, so no lock."""
        if self.path is not None and self.path.exists():
            with self._lock:
                _, self._charges = self._read(self.path)

    @property
    def spent(self) -> Budget:
        """Total privacy loss so far (sequential sum; parallel groups at their max; zCDP converted)."""
        self._refresh()
        with self._lock:
            return self._total(self._charges, self.delta)

    @property
    def remaining(self) -> Budget:
        """Budget left: (ε − spent ε, δ − spent δ); ρ is the zCDP pooled so far."""
        s = self.spent
        return Budget(max(0.0, self.epsilon - s.epsilon), max(0.0, self.delta - s.delta), s.rho)

    @property
    def privacy_units(self) -> tuple[str | None, ...]:
        """The distinct units the recorded charges protect, in order of first appearance
        (``None`` for charges recorded without a unit)."""
        seen: dict[str | None, None] = {}
        for c in self.charges:
            seen.setdefault(c.privacy_unit, None)
        return tuple(seen)

    @property
    def charges(self) -> tuple[Charge, ...]:
        """Every charge recorded (re-read from the file when there is one)."""
        self._refresh()
        return tuple(self._charges)

    @contextmanager
    def _file_lock(self, *, read: bool = True) -> Iterator[None]:
        """Exclusive inter-process lock on ``<path>.lock``, stale temporary files removed, and
        (``read``) a fresh read of the file."""
        if self.path is None:
            yield
            return
        lock_path = self.path.with_name(self.path.name + ".lock")
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            if sys.platform != "win32":
                import fcntl

                fcntl.flock(fd, fcntl.LOCK_EX)
            # every writer holds this lock while its temporary file exists: any left is stale
            for stale in self.path.parent.glob(f".{self.path.name}.*.tmp"):
                stale.unlink(missing_ok=True)
            if read and self.path.exists():
                _, self._charges = self._read(self.path)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the lock

    def put_many(self, charges: Sequence[Charge]) -> None:
        """Record several charges at once, all or none (sequential composition).

        The charges (e.g. the tables of one ``dp tabulate`` run, or every line of a release's
        in-memory ledger, :meth:`merge_into`) are added to the recorded ones and the total is
        checked against the budget once: PrivacyBudgetError records none of them when the total
        would exceed it, so a run that measures several things never leaves half its charges on
        the ledger. With a ``path`` they are written in one atomic file replacement under the
        ledger's file lock. Charges are built by :meth:`Charge.from_dict` or taken from another
        ledger's :attr:`charges`; an empty sequence records nothing.
        """
        charges = list(charges)
        for c in charges:
            if not isinstance(c, Charge):
                raise ParameterError(
                    "PrivacyLedger.put_many: expected Charge objects (from Charge.from_dict or "
                    "another ledger's charges)")
        if charges:
            self._put(charges[0], extra=charges[1:])

    def _put(self, charge: Charge, index: int | None = None,
             extra: list[Charge] | None = None) -> int:
        """Check ``charge`` against the budget, record it (replacing ``index``), persist it."""
        with self._lock, self._file_lock():
            new = list(self._charges)
            if index is None:
                new.append(charge)
                index = len(new) - 1
                new.extend(extra or [])
            else:
                new[index] = charge
            total = self._total(new, self.delta)
            over_eps = total.epsilon > self.epsilon * (1 + _TOL) + _TOL
            over_delta = total.delta > self.delta * (1 + _TOL) + _TOL
            if total.rho > 0 and self.delta <= 0:
                raise PrivacyBudgetError(
                    f"charge '{charge.label}': zCDP charges need a ledger with delta > 0 to be "
                    "converted to (epsilon, delta); create the ledger with a delta budget"
                )
            if over_eps or over_delta:
                spent = self._total(self._charges, self.delta)
                raise PrivacyBudgetError(
                    f"charge '{charge.label}' refused: it would bring the total to "
                    f"epsilon={total.epsilon:.6g}, delta={total.delta:.3g} against a budget of "
                    f"epsilon={self.epsilon:.6g}, delta={self.delta:.3g} (spent so far "
                    f"epsilon={spent.epsilon:.6g}); no noise was drawn: ask for less or stop"
                )
            old = self._charges
            self._charges = new
            if self.path is not None:
                try:
                    self._write()
                except BaseException:
                    self._charges = old
                    raise
            return index

    # ----------------------------------------------------------------- charging
    def charge(self, label: str, epsilon: float, delta: float = 0.0, *,
               privacy_unit: str | None = None) -> Charge:
        """Charge an (ε, δ)-DP mechanism run on the whole data (sequential composition).

        ``privacy_unit`` records what the amount protects (``"row"`` or an id column); the
        amount must then be the unit-level cost. Raises PrivacyBudgetError, recording nothing,
        when the total would exceed the budget. With a ``path`` the charge is on disk when this
        returns.
        """
        charge = _make_charge(label, epsilon, delta, 0.0, privacy_unit)
        self._put(charge)
        return charge

    def charge_rho(self, label: str, rho: float, *, privacy_unit: str | None = None) -> Charge:
        """Charge a ρ-zCDP mechanism (e.g. Gaussian noise with σ = Δ₂/√(2ρ)); ρ's add up.
        ``privacy_unit`` as in :meth:`charge`."""
        charge = _make_charge(label, 0.0, 0.0, rho, privacy_unit)
        self._put(charge)
        return charge

    @contextmanager
    def parallel(self, label: str) -> Iterator[ParallelCharges]:
        """Charge mechanisms run on disjoint partitions: the group costs the max, not the sum.

        Examples
        --------
        >>> ledger = PrivacyLedger(epsilon=1.0)
        >>> with ledger.parallel("counts by state") as part:
        ...     _ = part.charge("Texas", 0.1)
        ...     _ = part.charge("Vermont", 0.1)
        >>> ledger.spent.epsilon
        0.1
        """
        group = ParallelCharges(self, str(label))
        try:
            yield group
        finally:
            group._closed = True

    # ----------------------------------------------------------------- display
    def to_frame(self) -> pd.DataFrame:
        """One row per charge (parallel parts indented under their group) and a total row.

        A zCDP line is spent in ρ: its ``epsilon``/``delta`` are missing (not 0) and ``worth``
        says what it alone is worth in (ε, δ) at the ledger's δ (the total row converts all ρ).
        """
        self._refresh()
        rows: list[dict[str, Any]] = []
        for c in self._charges:
            z = c.kind == "zcdp"
            rows.append({"label": c.label, "kind": c.kind,
                         "epsilon": math.nan if z else c.epsilon,
                         "delta": math.nan if z else c.delta, "rho": c.rho, "counted": True,
                         "time": c.time, "worth": self._worth(c).strip(" ()")})
            for p in c.parts:
                rows.append({"label": "  " + p.label, "kind": p.kind, "epsilon": p.epsilon,
                             "delta": p.delta, "rho": p.rho, "counted": False, "time": p.time})
        s = self.spent
        n_not = sum(not c.dp for c in self._charges)
        rows.append({"label": "TOTAL", "kind": "", "epsilon": s.epsilon, "delta": s.delta,
                     "rho": s.rho, "counted": False, "time": "",
                     "worth": (f"bounds the DP lines only: {n_not} NOT DP line(s) have no "
                               "epsilon/delta guarantee") if n_not else ""})
        return pd.DataFrame(rows, columns=["label", "kind", "epsilon", "delta", "rho", "counted",
                                           "time", "worth"]).fillna({"worth": ""})

    def summary(self) -> str:
        """The ledger as a text table with the budget, spent and remaining amounts."""
        s, r = self.spent, self.remaining  # both re-read the file
        # the label column is as wide as the longest label: a cut label ('dp table A_x_B: coun')
        # no longer says what was charged
        w = max([32, *(len(c.label) for c in self._charges),
                 *(len(p.label) + 2 for c in self._charges for p in c.parts)])
        lines = [
            f"privacy ledger: budget epsilon={self.epsilon:g}, delta={self.delta:g}",
            f"{'label':<{w}} {'kind':<9} {'epsilon':>10} {'delta':>10} {'rho':>10}",
        ]
        for c in self._charges:
            # a zCDP line is spent in rho: its epsilon/delta columns hold no amount ('-'), its
            # worth in (epsilon, delta) follows it
            e, d = ((f"{'-':>10}", f"{'-':>10}") if c.kind == "zcdp" else
                    (f"{c.epsilon:>10.4g}", f"{c.delta:>10.3g}"))
            unit = f"  [unit: {c.privacy_unit}]" if c.privacy_unit is not None else ""
            lines.append(f"{c.label:<{w}} {c.kind:<9} {e} {d} {c.rho:>10.4g}"
                         + self._worth(c) + unit)
            for p in c.parts:
                lines.append(f"  {p.label:<{w - 2}} {'(part)':<9} {p.epsilon:>10.4g} "
                             f"{p.delta:>10.3g} {p.rho:>10.4g}")
        lines.append(f"spent:     epsilon={s.epsilon:.6g}, delta={s.delta:.3g}, rho={s.rho:.4g}")
        n_not = sum(not c.dp for c in self._charges)
        if n_not:
            lines.append(f"NOT DP:    {n_not} line(s) paid for releases that are NOT differentially "
                         "private (domain read from the data): they count against the budget, "
                         "but no epsilon or delta bounds what those releases disclose")
        # the tight conversion is inverted by bisection: a budget spent in full can leave a
        # rounding residue (1e-16), which is not budget
        rest = 0.0 if r.epsilon <= _TOL * max(1.0, self.epsilon) else r.epsilon
        lines.append(f"remaining: epsilon={rest:.6g}, delta={r.delta:.3g}")
        return "\n".join(lines)

    def _worth(self, c: Charge) -> str:
        """What a zCDP line alone is worth in (ε, δ) at the ledger's δ (ρ's add, ε's do not);
        for a NOT DP line, that it is worth no guarantee."""
        if not c.dp:
            return "  (NOT DP: no epsilon/delta guarantee for this release)"
        if c.rho <= 0 or not 0 < self.delta < 1:
            return ""
        return f"  (alone: epsilon={rho_to_epsilon(c.rho, self.delta):.4g}, delta={self.delta:.3g})"

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        s = self.spent
        return (f"PrivacyLedger(epsilon={self.epsilon!r}, delta={self.delta!r}, "
                f"spent_epsilon={s.epsilon:.6g}, charges={len(self._charges)})")
