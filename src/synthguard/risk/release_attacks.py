"""anonymeter's three attacks on a release, with an honest control set, as the evaluation runs them.

Giomi et al. (2023) measure a release by attacking it three ways (singling out, linkability,
attribute inference) and comparing each attack's success on the confidential records the
synthesizer was fitted on with its success on a *control* set: confidential records from the
same population that the synthesizer never saw. The risk is the attack's excess over the
control, relative to what the control leaves (:mod:`synthguard.risk._attack_stats`):

    risk = (rate_attack - rate_control) / (1 - rate_control)

The control set is what makes the number mean "this release leaks these people" rather than
"this release describes the population". Without one the attack rate is an upper bound that
mixes both, so :func:`release_attacks` refuses to run without it (the evaluation reports the
attacks as *not computed* and says why) instead of printing a number that looks like a risk.
The control must be records the synthesizer did not see: a plan's ``holdout`` or a file set
aside before synthesis (``synthguard evaluate --holdout FILE``); records that were used give a
control rate as high as the attack's and a risk near 0 whatever the release.

The attacks run, on the first implicate (one released file, what an attacker holds):

* singling out, univariate and multivariate (3 columns per query), ``n_attacks`` queries each,
  on every column the release shares with the data (:func:`~synthguard.risk.singling_out`);
* linkability: the attacker holds the keys in one file and the other released columns in
  another, and joins them through the release (the nearest synthetic record on each side must
  coincide; :func:`~synthguard.risk.linkability`); without keys, the columns are split in two
  halves in the data's order;
* inference of each target from the keys (every other column when there are no keys): the
  target of the nearest synthetic record, correct when equal (categorical) or within 5 %
  (numeric; :func:`~synthguard.risk.inference`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from synthguard._display import Summarized
from synthguard._random import RandomState, resolve_seed, spawn
from synthguard.data import as_implicates
from synthguard.errors import DataError, ParameterError
from synthguard.risk._attack_stats import AttackRisk
from synthguard.risk.inference_attack import inference
from synthguard.risk.linkability import linkability
from synthguard.risk.singling_out import singling_out

__all__ = ["NO_CONTROL", "ReleaseAttacks", "release_attacks"]

#: Why the attacks are not run without a control set (shown as "not computed").
NO_CONTROL = (
    "the anonymeter attacks need a control set of confidential records the synthesizer never "
    "saw (a plan's holdout, --holdout FILE, holdout=...); without one an attack's success "
    "cannot be told from what any release of the population gives, so no risk is reported"
)


def _nan_max(values: Sequence[float]) -> float:
    vals = [v for v in values if not math.isnan(v)]
    return max(vals) if vals else float("nan")


@dataclass(frozen=True, eq=False)
class ReleaseAttacks(Summarized):
    """anonymeter's attacks on one release (Giomi et al. 2023), each with its control.

    Attributes
    ----------
    singling_out : univariate singling out (one-column queries).
    singling_out_multivariate : multivariate singling out (3 columns per query).
    linkability : the two-file join through the release (None: fewer than two columns).
    inference : target -> attribute inference of that target.
    singling_out_risk, singling_out_multivariate_risk, linkability_risk : their risks.
    inference_risk : the largest inference risk over the targets.
    n_control : size of the control set.
    """

    singling_out: AttackRisk
    singling_out_multivariate: AttackRisk
    linkability: AttackRisk | None
    inference: Mapping[str, AttackRisk] = field(default_factory=dict)
    n_control: int = 0

    goal = "minimize"
    min_value = 0.0
    max_value = 1.0

    @property
    def singling_out_risk(self) -> float:
        return self.singling_out.risk

    @property
    def singling_out_multivariate_risk(self) -> float:
        return self.singling_out_multivariate.risk

    @property
    def linkability_risk(self) -> float | None:
        return None if self.linkability is None else self.linkability.risk

    @property
    def inference_risk(self) -> float | None:
        if not self.inference:
            return None
        return _nan_max([r.risk for r in self.inference.values()])

    def attacks(self) -> list[tuple[str, AttackRisk]]:
        """(label, result) of every attack, in the order of :meth:`to_frame`."""
        out = [("singling out (univariate)", self.singling_out),
               ("singling out (multivariate)", self.singling_out_multivariate)]
        if self.linkability is not None:
            out.append(("linkability", self.linkability))
        out += [(f"inference of {t}", r) for t, r in self.inference.items()]
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per attack: risk and its interval, the success rates of the attack, of
        random guessing (baseline) and of the attack on the control set, and the numbers of
        attacks."""
        rows = []
        for label, r in self.attacks():
            rows.append({
                "attack": label, "risk": r.risk, "ci_low": r.ci[0], "ci_high": r.ci[1],
                "attack_rate": r.attack_rate, "baseline_rate": r.baseline_rate,
                "control_rate": r.control_rate, "n_attacks": r.n_attacks,
                "beats_baseline": r.attack_beats_baseline,
            })  # fmt: skip
        return pd.DataFrame(rows).set_index("attack")

    def summary(self) -> str:
        lines = [f"anonymeter attacks (control set of {self.n_control:,} records):"]
        for label, r in self.attacks():
            lo, hi = r.ci
            ctrl = "–" if r.control_rate is None else f"{r.control_rate:.3f}"
            lines.append(
                f"  {label}: risk {r.risk:.3f} [{lo:.3f}, {hi:.3f}]; attack {r.attack_rate:.3f}, "
                f"baseline {r.baseline_rate:.3f}, control {ctrl}"
                + ("" if r.attack_beats_baseline else " (no better than guessing)")
            )
        return "\n".join(lines)


def _link_sides(columns: list[str], keys: list[str]) -> tuple[list[str], list[str]] | None:
    a = [c for c in columns if c in keys]
    b = [c for c in columns if c not in keys]
    if a and b:
        return a, b
    if len(columns) < 2:
        return None
    half = len(columns) // 2
    return columns[:half], columns[half:]


def release_attacks(
    conf: pd.DataFrame,
    synthetic: Any,
    control: pd.DataFrame | None,
    *,
    keys: Sequence[str] = (),
    targets: Sequence[str] = (),
    n_attacks: int = 500,
    confidence_level: float = 0.95,
    random_state: RandomState = None,
) -> ReleaseAttacks:
    """Run anonymeter's attacks on the first implicate of ``synthetic`` (see the module doc).

    Parameters
    ----------
    conf : the confidential records the release was made from (the training part).
    synthetic : the release.
    control : confidential records the synthesizer never saw (required: see the module doc).
    keys : columns the attacker knows (the linkability split and the inference's knowledge).
    targets : columns whose inference is attacked.
    n_attacks : queries (singling out) or attacked records (linkability, inference) per attack;
        anonymeter's default 500.
    confidence_level : of the intervals.
    random_state : seed of every attack (each gets its own stream).

    Raises
    ------
    DataError
        No control set, or a control set lacking the data's columns.
    """
    if control is None:
        raise DataError(NO_CONTROL)
    if not isinstance(control, pd.DataFrame):
        raise DataError("control: expected a pandas DataFrame of records the synthesizer never saw")
    syn = as_implicates(synthetic)[0]
    cols = [c for c in conf.columns if c in syn.columns]
    lacking = [c for c in cols if c not in control.columns]
    if lacking:
        raise DataError(
            f"control set: lacks column(s) {', '.join(map(str, lacking))} of the data; give it "
            f"the same columns"
        )
    keys_l = [k for k in keys if k in cols]
    targets_l = [t for t in targets if t in cols]
    if isinstance(n_attacks, bool) or not isinstance(n_attacks, int) or n_attacks < 1:
        raise ParameterError("parameter 'n_attacks': expected a positive integer")
    rng, _ = resolve_seed(random_state)
    r_uni, r_multi, r_link, *r_inf = spawn(rng, 3 + len(targets_l))
    conf_c, syn_c, ctrl_c = conf[cols], syn[cols], control[cols]
    common: dict[str, Any] = dict(control=ctrl_c, confidence_level=confidence_level)
    uni = singling_out(conf_c, syn_c, mode="univariate", n_attacks=n_attacks,
                       random_state=r_uni, **common)
    multi = singling_out(conf_c, syn_c, mode="multivariate", n_attacks=n_attacks,
                         n_cols=min(3, len(cols)), random_state=r_multi, **common)
    sides = _link_sides(cols, keys_l)
    link = None
    if sides is not None:
        link = linkability(conf_c, syn_c, aux_cols=sides, n_attacks=n_attacks,
                           random_state=r_link, **common)
    inf: dict[str, AttackRisk] = {}
    for t, r in zip(targets_l, r_inf):
        aux = [k for k in keys_l if k != t] or [c for c in cols if c != t]
        if not aux:
            continue
        inf[t] = inference(conf_c, syn_c, aux_cols=aux, secret=t, n_attacks=n_attacks,
                           random_state=r, **common)
    return ReleaseAttacks(
        singling_out=uni,
        singling_out_multivariate=multi,
        linkability=link,
        inference=inf,
        n_control=len(control),
    )

