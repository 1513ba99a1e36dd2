"""Whole-table synthesis by SDV (the Synthetic Data Vault): Gaussian copula and CTGAN.

An optional extra (``pip install 'synthguard[sdv]'``): SDV is imported only when a model is fit,
so importing synthguard never imports SDV or PyTorch. This module wraps SDV's single-table
synthesizers; it re-implements none of them.

- ``model="gaussian_copula"``: SDV's ``GaussianCopulaSynthesizer`` — each column is mapped to a
  standard normal through its fitted marginal distribution, F̂ⱼ, (zⱼ = Φ⁻¹(F̂ⱼ(xⱼ))), the
  dependence is the correlation matrix Σ of the z's, and records are drawn as z ~ N(0, Σ),
  xⱼ = F̂ⱼ⁻¹(Φ(zⱼ)) (Sklar 1959; Patki, Wedge & Veeramachaneni 2016, "The Synthetic Data
  Vault", §4.1). The copula synthesis the source documents list as absent (issue 36).
- ``model="ctgan"``: SDV's ``CTGANSynthesizer`` — a conditional GAN on mode-specific
  normalised numeric columns and one-hot categorical columns (Xu, Skoularidou,
  Cuesta-Infante & Veeramachaneni 2019, "Modeling Tabular data using Conditional GAN"): the
  deep generative synthesis of the source documents. Its private form is
  :class:`synthguard.dp.synthesizers.dpsgd.DPSGDSynthesizer`.

Neither is differentially private: the release is a full synthesis evaluated like any other
(``synthguard.evaluate``). SDV's metadata is detected from the data
(``Metadata.detect_from_dataframes``, no key column).

Reproducibility, as far as SDV allows: the fit runs with numpy's and PyTorch's global
generators seeded from ``random_state`` (their previous states restored afterwards), since
SDV and CTGAN train from the global generators; each implicate is drawn after SDV's
``reset_sampling()`` with the model's own random state set to a child of
``SeedSequence(seed)`` (SDV's ``_set_random_state``, the hook its own ``sample`` uses for its
fixed default seed). The same seeds give the same release on the same machine and versions;
CTGAN's training on another platform or PyTorch build may differ in the last bits.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

from synthguard._random import RandomState, resolve_seed
from synthguard.errors import DataError, MissingExtraError, NotFittedError, ParameterError
from synthguard.synthesis.result import SyntheticData

__all__ = ["SDV_MODELS", "SDVSynthesizer"]

#: model name -> SDV single-table synthesizer class name
SDV_MODELS = {"gaussian_copula": "GaussianCopulaSynthesizer", "ctgan": "CTGANSynthesizer"}

_INSTALL = "pip install 'synthguard[sdv]'"


def _sdv() -> Any:
    """Import SDV's single-table module, or say how to install it."""
    try:
        import sdv.single_table
    except ImportError as exc:  # pragma: no cover - exercised in the venv without SDV
        raise MissingExtraError(
            f"SDVSynthesizer needs the optional SDV package: {_INSTALL}") from exc
    return sdv


def _seed_int(seed_seq: np.random.SeedSequence) -> int:
    return int(seed_seq.generate_state(1, dtype=np.uint32)[0])


@contextlib.contextmanager
def _global_seeds(seed: int | None) -> Iterator[None]:
    """Seed numpy's and (if loaded) PyTorch's global generators, restoring them afterwards."""
    if seed is None:
        yield
        return
    import sys

    np_state = np.random.get_state()  # noqa: NPY002  (SDV trains from the global state)
    torch = sys.modules.get("torch")
    torch_state = torch.get_rng_state() if torch is not None else None
    np.random.seed(seed)  # noqa: NPY002
    if torch is not None:
        torch.manual_seed(seed)
    try:
        yield
    finally:
        np.random.set_state(np_state)  # noqa: NPY002
        if torch is not None and torch_state is not None:
            torch.set_rng_state(torch_state)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """SDV's advisory warnings (save your metadata, a column's detected sdtype) are not the
    user's: they would fail strict warning settings for a call that did what was asked."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", module=r"sdv(\..*)?")
        warnings.filterwarnings("ignore", module=r"rdt(\..*)?")
        warnings.filterwarnings("ignore", module=r"copulas(\..*)?")
        warnings.filterwarnings("ignore", module=r"ctgan(\..*)?")
        warnings.filterwarnings("ignore", category=FutureWarning)
        yield


def _detect(metadata_cls: Any, frame: pd.DataFrame) -> Any:
    """SDV's metadata of one table detected from the data, with no key column (a column
    taken for a primary key would be resampled as unique ids). SDV 2 names the detector
    ``detect_from_dataframes``; SDV 1.x ``detect_from_dataframe``."""
    if hasattr(metadata_cls, "detect_from_dataframes"):
        try:
            return metadata_cls.detect_from_dataframes({"data": frame}, infer_keys=None)
        except TypeError:  # an SDV without infer_keys
            return metadata_cls.detect_from_dataframes({"data": frame})
    return metadata_cls.detect_from_dataframe(frame, table_name="data")


class SDVSynthesizer:
    """Full synthesis by an SDV single-table model (Gaussian copula or CTGAN).

    Parameters
    ----------
    model : ``"gaussian_copula"`` (default) or ``"ctgan"``.
    random_state : seed of the fit (numpy and PyTorch global generators, restored after).
    **model_kwargs : passed to SDV's synthesizer, e.g. ``epochs=10`` for CTGAN or
        ``default_distribution="norm"`` for the copula.

    ``fit(data)`` detects SDV's metadata from ``data`` and fits; ``sample(m=, n=,
    random_state=)`` returns a :class:`~synthguard.synthesis.SyntheticData` of kind
    ``"full"`` with ``m`` implicates of ``n`` rows (default: the rows fitted on).
    """

    def __init__(self, model: str = "gaussian_copula", *, random_state: RandomState = None,
                 **model_kwargs: Any) -> None:
        if model not in SDV_MODELS:
            raise ParameterError(
                f"SDVSynthesizer: parameter 'model': got '{model}', expected one of "
                f"{sorted(SDV_MODELS)}")
        self.model = model
        self.random_state = random_state
        self.model_kwargs = model_kwargs

    def __repr__(self) -> str:
        kw = "".join(f", {k}={v!r}" for k, v in self.model_kwargs.items())
        return f"SDVSynthesizer(model={self.model!r}{kw})"

    def fit(self, data: pd.DataFrame) -> SDVSynthesizer:
        """Detect SDV metadata from ``data`` and fit the model (seeded by ``random_state``)."""
        if not isinstance(data, pd.DataFrame) or data.empty:
            raise DataError("SDVSynthesizer.fit: expected a non-empty pandas DataFrame")
        sdv = _sdv()
        from sdv.metadata import Metadata

        _, seed = resolve_seed(self.random_state)
        frame = data.copy()
        frame.columns = [str(c) for c in frame.columns]
        with _quiet():
            metadata = _detect(Metadata, frame)
            cls = getattr(sdv.single_table, SDV_MODELS[self.model])
            try:
                synth = cls(metadata, **self.model_kwargs)
            except TypeError as exc:
                raise ParameterError(
                    f"SDVSynthesizer: a model_kwargs name is not a parameter of SDV's "
                    f"{SDV_MODELS[self.model]}: {exc}") from exc
            if self.model == "ctgan":
                import torch  # noqa: F401  (loaded so that _global_seeds seeds it too)
            # SDV 2 takes and returns {table name: frame}, SDV 1 a frame
            dict_api = int(str(sdv.__version__).split(".")[0]) >= 2
            with _global_seeds(seed):
                synth.fit({"data": frame} if dict_api else frame)
        self.synthesizer_ = synth
        self.metadata_ = metadata
        self.columns_ = list(data.columns)
        self.n_ = len(data)
        self.fit_seed_ = seed
        return self

    def sample(self, *, m: int = 1, n: int | None = None,
               random_state: RandomState = None) -> SyntheticData:
        """``m`` implicates of ``n`` rows; implicate ``i`` from child ``i`` of the seed."""
        if not hasattr(self, "synthesizer_"):
            raise NotFittedError("SDVSynthesizer: call fit(data) before sample()")
        if int(m) < 1:
            raise ParameterError("parameter 'm': expected at least 1 implicate")
        n = self.n_ if n is None else int(n)
        if n < 1:
            raise ParameterError("parameter 'n': expected at least 1 row")
        rng, seed = resolve_seed(random_state)
        root = np.random.SeedSequence(
            seed if seed is not None else int(rng.integers(0, 2**63 - 1)))
        implicates = []
        with _quiet():
            for child in root.spawn(int(m)):
                self.synthesizer_.reset_sampling()
                self.synthesizer_._set_random_state(_seed_int(child))
                out = self.synthesizer_.sample(num_rows=n)
                if isinstance(out, dict):
                    out = next(iter(out.values()))
                out.columns = self.columns_
                implicates.append(out.reset_index(drop=True))
        self.synthesizer_.reset_sampling()
        name = f"sdv:{self.model}"
        return SyntheticData(
            implicates=implicates, kind="full", m=int(m), seed=seed,
            synthesized=list(self.columns_), kept=[],
            methods=dict.fromkeys(self.columns_, name),
            provenance={"method": name, "model_kwargs": dict(self.model_kwargs),
                        "fit_seed": self.fit_seed_, "sdv_version": _sdv().__version__},
        )
