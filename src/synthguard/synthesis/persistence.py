"""Save a fitted synthesizer and load it later to draw more implicates.

A fitted synthesizer **holds confidential information**: the kept columns of partial
synthesis, the confidential values stored in CART leaves (draws are made from them), fitted
coefficients, and hashes of the confidential records used by the diagnostics. A saved file
must be stored and shared like the confidential data itself. To make this hard to forget,
the file name must end in ``.confidential.pkl``.

The format is a short text header naming the content and the format's version, followed by
a Python pickle. Versions: **1** (until CART grew rpart's subset splits and pruning; its CART
models hold scikit-learn trees fitted on 0/1 dummies) and **2** (CART models hold
:class:`~synthguard.synthesis.methods._tree.Tree` fitted on level codes and record their
design in ``layout_``). Files of version 1 still load, and draw exactly as when they were
saved (the synthesizer builds each model's design from the layout the model records); a file
of a newer version than this synthguard knows is refused with a message saying so. A plain
pickle can run arbitrary code while it loads, so :func:`load_synthesizer` reads it with a
**restricted unpickler**: it resolves only classes defined in synthguard, numpy, pandas,
scikit-learn, scipy and pyarrow (and a short list of their unpickling helpers and harmless
builtins), plus a user's own :class:`SynthesisMethod` subclasses from modules already imported,
never a function such as ``os.system`` or ``builtins.eval``; anything else is refused
with :class:`~synthguard.errors.FileFormatError` before it is called (the pattern the Python
documentation recommends, "Restricting Globals"). Still, only load files you (or your agency)
wrote: the restriction narrows, not removes, what a crafted file can do.
"""

from __future__ import annotations

import builtins
import importlib
import os
import pickle
import re
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from synthguard.errors import FileFormatError, NotFittedError, ParameterError

if TYPE_CHECKING:  # pragma: no cover
    from synthguard.synthesis.synthesizer import Synthesizer

__all__ = ["SUFFIX", "load_synthesizer", "save_synthesizer"]

SUFFIX = ".confidential.pkl"
_HEADER = b"SYNTHGUARD FITTED SYNTHESIZER - CONTAINS CONFIDENTIAL DATA - format "
FORMAT_VERSION = 2
#: versions this synthguard reads
_READABLE = (1, 2)
_MAGIC = _HEADER + str(FORMAT_VERSION).encode() + b"\n"


_ALLOWED_PACKAGES = ("synthguard", "numpy", "pandas", "sklearn", "scipy", "pyarrow")
# sub-packages whose classes touch files, processes or code
_DENIED_PREFIXES = ("pandas.io", "scipy.io", "numpy.lib.npyio", "numpy.lib._npyio_impl",
                    "numpy.f2py", "numpy.distutils", "numpy.testing", "numpy.ctypeslib",
                    "pandas.testing", "pandas.util", "pyarrow.fs", "pyarrow.parquet",
                    "pyarrow.dataset", "pyarrow.ipc", "pyarrow.csv", "pyarrow.feather",
                    "pyarrow.flight", "pyarrow.cffi", "pyarrow.jvm", "pyarrow.plasma",
                    "pyarrow.orc", "pyarrow.json", "pyarrow.hdfs")
_DENIED_NAMES = {"memmap", "NpzFile", "DataSource", "HDFStore", "ExcelFile", "ExcelWriter",
                 "MemoryMappedFile", "OSFile", "NativeFile", "PythonFile", "HdfsFile",
                 "BufferedInputStream", "BufferedOutputStream", "CompressedInputStream",
                 "CompressedOutputStream", "FileSystem"}
# unpickling helpers of the allowed packages (functions, each rebuilding one object)
_HELPERS = {
    ("numpy._core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "scalar"), ("numpy.core.multiarray", "scalar"),
    ("numpy._core.numeric", "_frombuffer"), ("numpy.core.numeric", "_frombuffer"),
    ("pandas.core.indexes.base", "_new_Index"), ("pandas._libs.internals", "_unpickle_block"),
    ("pandas.core.internals.blocks", "new_block"), ("pyarrow.lib", "_restore_array"),
    ("pyarrow.lib", "py_buffer"), ("pyarrow.lib", "type_for_alias"),
    ("copyreg", "_reconstructor"), ("_codecs", "encode"),
}
_HELPER_NAME = re.compile(r"__pyx_unpickle_\w+|__\w+_ctor")
_BUILTINS = {"bytearray", "bytes", "slice", "set", "frozenset", "complex", "range", "tuple",
             "list", "dict", "int", "float", "bool", "str"}
_STDLIB_CLASSES = {("collections", "OrderedDict"), ("collections", "defaultdict"),
                   ("datetime", "datetime"), ("datetime", "date"), ("datetime", "timedelta"),
                   ("datetime", "timezone"), ("decimal", "Decimal"), ("fractions", "Fraction")}


def _in(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


class _Refused(pickle.UnpicklingError):
    """A global outside the allow-list."""


class _RestrictedUnpickler(pickle.Unpickler):
    """Resolve only allow-listed globals; everything else is refused before it can run."""

    def find_class(self, module: str, name: str) -> Any:
        if module in ("builtins", "__builtin__"):
            if name in _BUILTINS:
                return getattr(builtins, name)
        elif (module, name) in _STDLIB_CLASSES or (module, name) in _HELPERS:
            return getattr(importlib.import_module(module), name)
        elif (_in(module, _ALLOWED_PACKAGES) and not _in(module, _DENIED_PREFIXES)
              and "." not in name and name not in _DENIED_NAMES):
            obj = super().find_class(module, name)
            owner = getattr(obj, "__module__", None) or ""
            if isinstance(obj, type) and _in(owner, _ALLOWED_PACKAGES) and not _in(
                    owner, _DENIED_PREFIXES):
                return obj
            if _HELPER_NAME.fullmatch(name) and _in(owner, _ALLOWED_PACKAGES):
                return obj
        elif module in sys.modules and "." not in name:
            # a user's own synthesis method: a SynthesisMethod subclass whose module is already
            # imported (nothing is imported on the file's say-so)
            from synthguard.synthesis.methods.base import SynthesisMethod

            obj = getattr(sys.modules[module], name, None)
            if isinstance(obj, type) and issubclass(obj, SynthesisMethod):
                return obj
        raise _Refused(f"global '{module}.{name}' is not allowed")


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

    **Security**: the pickle is read by a restricted unpickler (see the module docstring): a
    file naming any other global (``os.system``, ``builtins.eval``, ...) is refused before
    anything in it is called. Load only files you wrote yourself all the same.

    Raises
    ------
    FileFormatError
        The file does not exist, or is not a synthguard synthesizer file.
    ParameterError
        The file name does not end in ``.confidential.pkl``.
    """
    from synthguard.synthesis.synthesizer import Synthesizer

    p = Path(path)
    _check_suffix(p, "synthesizer")
    if not p.is_file():
        raise FileFormatError(f"file '{p}' does not exist; check the path")
    with open(p, "rb") as f:
        head = f.readline(len(_HEADER) + 8)
        version = head[len(_HEADER):].strip()
        if not head.startswith(_HEADER) or not head.endswith(b"\n") or not version.isdigit():
            raise FileFormatError(
                f"file '{p}' is not a synthesizer saved by synthguard (or was saved by an "
                f"incompatible version); refit the synthesizer"
            )
        if int(version) not in _READABLE:
            newer = int(version) > FORMAT_VERSION
            raise FileFormatError(
                f"file '{p}' holds a synthesizer in format {int(version)}, "
                + ("newer than this synthguard reads (up to format "
                   f"{FORMAT_VERSION}); upgrade synthguard to load it" if newer else
                   "which this synthguard no longer reads; refit the synthesizer")
            )
        try:
            obj = _RestrictedUnpickler(f).load()
        except _Refused as e:
            raise FileFormatError(
                f"file '{p}' names a Python object a synthesizer never holds ({e}); it was "
                "not written by synthguard and is refused unread"
            ) from None
        except Exception as e:
            raise FileFormatError(
                f"file '{p}' could not be read ({type(e).__name__}); it may be truncated or "
                f"written by another version of synthguard"
            ) from None
    if not isinstance(obj, Synthesizer):
        raise FileFormatError(f"file '{p}' does not hold a Synthesizer")
    return obj
