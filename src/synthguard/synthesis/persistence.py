"""Save a fitted synthesizer and load it later to draw more implicates.

A fitted synthesizer **holds confidential information**: the kept columns of partial
synthesis, the confidential values stored in CART leaves (draws are made from them), fitted
coefficients, and hashes of the confidential records used by the diagnostics. A saved file
must be stored and shared like the confidential data itself. To make this hard to forget,
the file name must end in ``.confidential.pkl``.

The format is a short text header naming the content, followed by a Python pickle.
**Loading a pickle can run arbitrary code**: only load files you (or your agency) wrote, never
files received from elsewhere. The header check catches wrong files by accident; it is not a
security measure.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from synthguard.errors import FileFormatError, NotFittedError, ParameterError

if TYPE_CHECKING:  # pragma: no cover
    from synthguard.synthesis.sequential import Synthesizer

__all__ = ["SUFFIX", "load_synthesizer", "save_synthesizer"]

SUFFIX = ".confidential.pkl"
_MAGIC = b"SYNTHGUARD FITTED SYNTHESIZER - CONTAINS CONFIDENTIAL DATA - format 1\n"


def _check_suffix(path: Path, what: str) -> None:
    if not path.name.endswith(SUFFIX):
        raise ParameterError(
            f"parameter 'path': {what} file names must end in '{SUFFIX}' because a fitted "
            f"synthesizer holds confidential data; e.g. 'income_model{SUFFIX}'"
        )


def save_synthesizer(synthesizer: Synthesizer, path: str | os.PathLike[str]) -> Path:
    """Write a fitted synthesizer to ``path`` atomically; return the path.

    The file holds confidential information (see the module docstring) and its name must end
    in ``.confidential.pkl``.

    Raises
    ------
    ParameterError
        The file name does not end in ``.confidential.pkl``.
    NotFittedError
        The synthesizer has not been fitted.
    """
    p = Path(path)
    _check_suffix(p, "saved synthesizer")
    if not hasattr(synthesizer, "blocks_"):
        raise NotFittedError("this Synthesizer is not fitted; call fit(data) before saving it")
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(_MAGIC)
            pickle.dump(synthesizer, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, p)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return p


def load_synthesizer(path: str | os.PathLike[str]) -> Synthesizer:
    """Load a synthesizer written by :func:`save_synthesizer`.

    **Security**: this unpickles Python objects, which can execute code. Load only files you
    wrote yourself; the header check below guards against mistakes, not attacks.

    Raises
    ------
    FileFormatError
        The file does not exist, or is not a synthguard synthesizer file.
    ParameterError
        The file name does not end in ``.confidential.pkl``.
    """
    from synthguard.synthesis.sequential import Synthesizer

    p = Path(path)
    _check_suffix(p, "synthesizer")
    if not p.is_file():
        raise FileFormatError(f"file '{p}' does not exist; check the path")
    with open(p, "rb") as f:
        head = f.read(len(_MAGIC))
        if head != _MAGIC:
            raise FileFormatError(
                f"file '{p}' is not a synthesizer saved by synthguard (or was saved by an "
                f"incompatible version); refit the synthesizer"
            )
        try:
            obj = pickle.load(f)  # documented: only files the user wrote
        except Exception as e:
            raise FileFormatError(
                f"file '{p}' could not be read ({type(e).__name__}); it may be truncated or "
                f"written by another version of synthguard"
            ) from None
    if not isinstance(obj, Synthesizer):
        raise FileFormatError(f"file '{p}' does not hold a Synthesizer")
    return obj
