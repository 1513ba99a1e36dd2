"""A Bayesian latent-class synthesizer for categorical data: the Dirichlet process mixture of
products of multinomials (DPMPM).

The course's geocodes case study (§5.1.3; Drechsler & Hu 2021) synthesizes locations with a
Bayesian latent-class model; the model is the DPMPM of Dunson & Xing (2009), used for
synthesis by Si & Reiter (2013) and Hu, Reiter & Wang (2014). Record i belongs to a latent
class z_i; given the class, its p categorical columns are independent::

    z_i ~ Categorical(π),   x_ij | z_i = k ~ Categorical(φ_kj)
    π_k = V_k Π_{h<k} (1 − V_h),   V_k ~ Beta(1, α) (k < K),  V_K = 1   (truncated stick-breaking)
    φ_kj ~ Dirichlet(1, ..., 1),   α ~ Gamma(a_α, b_α)   (shape, rate; 0.25, 0.25)

A mixture of enough classes approximates any joint distribution of categorical columns
(Dunson & Xing 2009). The Gibbs sampler draws in turn:

* z_i with P(z_i = k) ∝ π_k Π_j φ_kj[x_ij];
* V_k ~ Beta(1 + n_k, α + Σ_{h>k} n_h), k < K;
* φ_kj ~ Dirichlet(1 + counts of column j's levels in class k);
* α ~ Gamma(a_α + K − 1, b_α − Σ_{k<K} log(1 − V_k)).

Each implicate comes from one posterior draw (after ``burn_in``, ``thin`` apart), so the
release is proper. **Full synthesis**: n records, each z ~ π, then every column from φ_z.
**Partial synthesis** (``keep=`` the columns released as they are, as the geocodes study
keeps the attributes and synthesizes the location): each record's class is drawn from its
posterior given its kept values, P(z_i = k | x_i,keep) ∝ π_k Π_{j∈keep} φ_kj[x_ij], and the
synthesized columns from φ_z.

A missing value is a level of its own. Numeric columns are refused: bin them first
(:func:`synthguard.data.numtocat`). As everywhere in synthguard, a released record that is
unique in its implicate and equal to a record unique in the data is redrawn (up to
``max_redraws`` times; those left are counted in the provenance).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from synthguard._random import check_random_state
from synthguard.errors import DataError, NotFittedError, ParameterError
from synthguard.synthesis.result import SyntheticData

__all__ = ["LatentClassSynthesizer"]


def _draw_categorical(prob: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw per row of ``prob`` (rows sum to 1)."""
    cum = np.cumsum(prob, axis=1)
    u = rng.random(prob.shape[0]) * cum[:, -1]
    return np.minimum((cum < u[:, None]).sum(axis=1), prob.shape[1] - 1)


class LatentClassSynthesizer:
    """DPMPM synthesis of categorical columns (module docstring).

    Parameters
    ----------
    n_classes : the truncation K of the stick-breaking prior (classes left empty cost nothing).
    burn_in, thin : Gibbs iterations discarded first, and between two implicates' draws.
    alpha_prior : shape and rate of α's Gamma prior.
    keep : columns released unchanged (partial synthesis); default none (full synthesis).
    max_redraws : redraws of replicated uniques before they are counted and left.
    random_state : seed or Generator.
    """

    def __init__(self, *, n_classes: int = 30, burn_in: int = 500, thin: int = 50,
                 alpha_prior: tuple[float, float] = (0.25, 0.25),
                 keep: Sequence[str] | None = None, max_redraws: int = 20,
                 random_state: Any = None) -> None:
        self.n_classes = n_classes
        self.burn_in = burn_in
        self.thin = thin
        self.alpha_prior = alpha_prior
        self.keep = keep
        self.max_redraws = max_redraws
        self.random_state = random_state

    def _check(self) -> None:
        lowest = {"n_classes": 2, "thin": 1, "max_redraws": 0, "burn_in": 0}
        for name, low in lowest.items():
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise ParameterError(f"LatentClassSynthesizer: '{name}' must be an integer "
                                     f">= {low}")
        a, b = self.alpha_prior
        if not (a > 0 and b > 0):
            raise ParameterError("LatentClassSynthesizer: 'alpha_prior' must be two positive "
                                 "numbers (shape, rate)")

    def fit(self, data: pd.DataFrame) -> LatentClassSynthesizer:
        """Code the columns and run the burn-in."""
        self._check()
        if not isinstance(data, pd.DataFrame) or data.empty:
            raise DataError("LatentClassSynthesizer.fit: expected a non-empty DataFrame")
        keep = list(self.keep or [])
        missing = [c for c in keep if c not in data.columns]
        if missing:
            raise DataError(f"LatentClassSynthesizer: kept column '{missing[0]}' is not in the "
                            "data")
        for c in data.columns:
            s = data[c]
            if (pd.api.types.is_float_dtype(s) or (pd.api.types.is_integer_dtype(s)
                                                   and s.nunique() > 50)):
                raise DataError(f"LatentClassSynthesizer: column '{c}' is numeric; the model is "
                                "for categorical columns: bin it first "
                                "(synthguard.data.numtocat)")
        if len(keep) == data.shape[1]:
            raise ParameterError("LatentClassSynthesizer: every column is kept; keep fewer")
        self.columns_ = list(data.columns)
        self.keep_ = keep
        self.levels_: list[np.ndarray] = []
        codes = []
        for c in self.columns_:
            k, lv = pd.factorize(data[c], use_na_sentinel=False)
            codes.append(k.astype(np.int64))
            self.levels_.append(np.asarray(lv, dtype=object))
        self._x = np.column_stack(codes)
        self._data = data
        self._rng = check_random_state(self.random_state)
        n = len(self._x)
        K = self.n_classes
        rng = self._rng
        self._z: np.ndarray = rng.integers(0, K, n)
        self._alpha = 1.0
        self._pi = np.full(K, 1.0 / K)
        self._phi = [np.full((K, len(lv)), 1.0 / len(lv)) for lv in self.levels_]
        for _ in range(self.burn_in):
            self._step()
        self.n_iter_ = self.burn_in
        return self

    def _step(self) -> None:
        x, rng = self._x, self._rng
        n, p = x.shape
        K = self.n_classes
        logp = np.log(self._pi + 1e-300)[None, :].repeat(n, axis=0)
        for j in range(p):
            logp += np.log(self._phi[j][:, x[:, j]].T + 1e-300)
        logp -= logp.max(axis=1, keepdims=True)
        prob = np.exp(logp)
        self._z = _draw_categorical(prob / prob.sum(axis=1, keepdims=True), rng)
        nk = np.bincount(self._z, minlength=K).astype(np.float64)
        after = nk[::-1].cumsum()[::-1] - nk  # Σ_{h>k} n_h
        v = rng.beta(1.0 + nk[:-1], self._alpha + after[:-1])
        v = np.clip(v, 1e-12, 1 - 1e-12)
        rest = np.concatenate([[1.0], np.cumprod(1.0 - v)])
        self._pi = np.append(v, 1.0) * rest
        for j in range(p):
            d = self._phi[j].shape[1]
            counts = np.zeros((K, d))
            np.add.at(counts, (self._z, x[:, j]), 1.0)
            g = rng.gamma(1.0 + counts)
            self._phi[j] = g / g.sum(axis=1, keepdims=True)
        a, b = self.alpha_prior
        self._alpha = rng.gamma(a + K - 1, 1.0 / (b - np.log(1.0 - v).sum()))

    def sample(self, *, m: int = 1, n: int | None = None,
               random_state: Any = None) -> SyntheticData:
        """``m`` implicates, each from one posterior draw ``thin`` iterations after the last
        (full synthesis: ``n`` records, default the data's; partial: the data's records)."""
        if not hasattr(self, "_x"):
            raise NotFittedError("LatentClassSynthesizer: call fit(data) before sample()")
        if isinstance(m, bool) or not isinstance(m, int) or m < 1:
            raise ParameterError("parameter 'm': expected an integer >= 1")
        if random_state is not None:
            self._rng = check_random_state(random_state)
        partial = bool(self.keep_)
        if partial and n is not None:
            raise ParameterError("parameter 'n': partial synthesis keeps the data's records")
        n_out = len(self._x) if n is None else int(n)
        keep_idx = [self.columns_.index(c) for c in self.keep_]
        syn_idx = [j for j in range(len(self.columns_)) if j not in keep_idx]
        implicates, left = [], []
        for _ in range(m):
            for _ in range(self.thin):
                self._step()
            self.n_iter_ += self.thin
            codes = self._draw(n_out, keep_idx, syn_idx, np.arange(n_out))
            for _ in range(self.max_redraws):
                bad = self._replicated(codes)
                if not bad.any():
                    break
                rows = np.flatnonzero(bad)
                codes[rows] = self._draw(rows.size, keep_idx, syn_idx, rows)
            left.append(int(self._replicated(codes).sum()))
            implicates.append(self._frame(codes))
        return SyntheticData(
            implicates=implicates, kind="partial" if partial else "full", m=m, seed=None,
            synthesized=[self.columns_[j] for j in syn_idx], kept=list(self.keep_),
            methods={self.columns_[j]: "latent_class" for j in syn_idx},
            provenance={"model": "DPMPM (Dunson & Xing 2009; Si & Reiter 2013)",
                        "n_classes": self.n_classes, "burn_in": self.burn_in,
                        "thin": self.thin, "occupied_classes": int(np.unique(self._z).size),
                        "replicated_uniques_left": left})

    def _draw(self, size: int, keep_idx: list[int], syn_idx: list[int],
              rows: np.ndarray) -> np.ndarray:
        rng, K = self._rng, self.n_classes
        if keep_idx:
            x = self._x[rows]
            logp = np.log(self._pi + 1e-300)[None, :].repeat(size, axis=0)
            for j in keep_idx:
                logp += np.log(self._phi[j][:, x[:, j]].T + 1e-300)
            logp -= logp.max(axis=1, keepdims=True)
            prob = np.exp(logp)
            z = _draw_categorical(prob / prob.sum(axis=1, keepdims=True), rng)
            out = x.copy()
        else:
            z = _draw_categorical(np.broadcast_to(self._pi, (size, K)), rng)
            out = np.zeros((size, len(self.columns_)), dtype=np.int64)
        for j in syn_idx:
            out[:, j] = _draw_categorical(self._phi[j][z], rng)
        return out

    def _replicated(self, codes: np.ndarray) -> np.ndarray:
        """Released records unique in the implicate and equal to a record unique in the data."""
        n_conf = len(self._x)
        _, label = np.unique(np.vstack([self._x, codes]), axis=0, return_inverse=True)
        label = label.ravel()
        in_conf = np.bincount(label[:n_conf], minlength=label.max() + 1)
        in_syn = np.bincount(label[n_conf:], minlength=label.max() + 1)
        syn = label[n_conf:]
        return (in_syn[syn] == 1) & (in_conf[syn] == 1)

    def _frame(self, codes: np.ndarray) -> pd.DataFrame:
        out = {}
        for j, c in enumerate(self.columns_):
            vals = self.levels_[j][codes[:, j]]
            s = pd.Series(vals, name=c)
            src = self._data[c]
            if isinstance(src.dtype, pd.CategoricalDtype):
                s = s.astype(src.dtype)
            else:
                try:
                    s = s.astype(src.dtype)
                except (TypeError, ValueError):
                    pass
            out[c] = s
        return pd.DataFrame(out)
