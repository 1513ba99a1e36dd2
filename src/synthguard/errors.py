"""Exceptions and warnings raised by synthguard.

Exception tree::

    SynthguardError(Exception)
    ├── DataError(SynthguardError, ValueError)        bad confidential input: empty, all missing, mixed text, inf
    │   ├── SchemaError(DataError)                    column kinds, levels, bounds, overrides
    │   └── FileFormatError(DataError)                unreadable file or unknown extension
    ├── ParameterError(SynthguardError, ValueError)   a parameter out of range or inconsistent with others
    │   ├── MethodError(ParameterError)               unknown synthesis method, method that cannot take weights
    │   └── PlanError(ParameterError)                 a YAML plan that does not validate
    ├── NotFittedError(SynthguardError, AttributeError)  a synthesizer or model used before ``fit``
    ├── PrivacyBudgetError(SynthguardError, ValueError)  a charge that would overspend the privacy budget
    └── ConvergenceError(SynthguardError, RuntimeError)  an MCMC or optimisation that did not converge

Warnings::

    SynthguardWarning(UserWarning)
    ├── DisclosureWarning      something in a release may disclose (copied records, singleton patterns)
    ├── PrivacyWarning         a DP setting outside its guarantee (classic Gaussian with epsilon >= 1, seeded noise)
    │   └── UnaccountedWarning  a DP query answered without a ledger: what it spent is recorded nowhere
    ├── InputWarning           a file that may not read as meant (spaces around names or levels, missing-value codes)
    ├── UtilityWarning         a utility computation that is unreliable (tiny samples, separation)
    └── RenamedWarning(SynthguardWarning, FutureWarning)  an old parameter name or order, kept one release

Messages follow one format: what went wrong, where (column or parameter),
what was expected, and what to do. They name columns and parameters and
never contain a data value.
"""

from __future__ import annotations

__all__ = [
    "ConvergenceError",
    "DataError",
    "DisclosureWarning",
    "FileFormatError",
    "InputWarning",
    "MethodError",
    "MissingExtraError",
    "NotFittedError",
    "ParameterError",
    "PlanError",
    "PrivacyBudgetError",
    "PrivacyWarning",
    "RenamedWarning",
    "SchemaError",
    "SynthguardError",
    "SynthguardWarning",
    "UnaccountedWarning",
    "UtilityWarning",
    "safe_error",
]


class SynthguardError(Exception):
    """Base class of every error synthguard raises on purpose."""


class DataError(SynthguardError, ValueError):
    """The data handed to synthguard cannot be used as it is.

    ``problems`` lists every problem found in one validation, so a user
    fixes them all at once instead of one per run.
    """

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        self.problems = list(problems) if problems else [message]
        if problems and (len(problems) > 1 or problems[0] != message):
            message = message + ":\n" + "\n".join(f"  - {p}" for p in problems)
        super().__init__(message)


class SchemaError(DataError):
    """A column's kind, levels or bounds are inconsistent with its data or an override."""


class FileFormatError(DataError):
    """A file cannot be read: unknown extension, wrong format or corrupt."""


class ParameterError(SynthguardError, ValueError):
    """A parameter is out of range or inconsistent with another parameter."""


class MethodError(ParameterError):
    """An unknown synthesis method, or a method that cannot do what was asked (e.g. take weights)."""


class MissingExtraError(ParameterError, ImportError):
    """A method of an optional extra whose packages are not installed; the message names the
    ``pip install 'synthguard[...]'`` that adds them. Also an ImportError."""


class PlanError(ParameterError):
    """A pipeline plan file that does not validate; the message points at the line and field."""


class NotFittedError(SynthguardError, AttributeError):
    """An estimator was used before ``fit`` was called."""


class PrivacyBudgetError(SynthguardError, ValueError):
    """A privacy charge would exceed the ledger's budget; no noise has been drawn."""


class ConvergenceError(SynthguardError, RuntimeError):
    """An iterative algorithm (MCMC, optimisation) did not converge."""


class SynthguardWarning(UserWarning):
    """Base class of synthguard's warnings."""


class DisclosureWarning(SynthguardWarning):
    """A release, or a step making it, may disclose confidential information."""


class PrivacyWarning(SynthguardWarning):
    """A differential-privacy setting lies outside the guarantee it is meant to give."""


class UnaccountedWarning(PrivacyWarning):
    """A DP query (``dp_count``, ``dp_sum``, ...) ran without a ledger: its ε and δ were spent
    but recorded nowhere, so repeated calls compose unseen. Warned once per process."""


class InputWarning(SynthguardWarning):
    """A data file may not read as its owner means: names or levels with spaces around them,
    levels that look like missing-value codes (``?``, ``.``, ``NA``, ``-9``)."""


class UtilityWarning(SynthguardWarning):
    """A utility measure may be unreliable on these inputs."""


class RenamedWarning(SynthguardWarning, FutureWarning):
    """A call used a parameter's old name or the old argument order; it still works for one
    release (:mod:`synthguard._compat`), then the old spelling is removed."""


def safe_error(exc: BaseException) -> str:
    """A message for a failed computation that cannot quote a data value.

    synthguard's own errors never contain data values (errors.py), so their message is
    kept; other libraries' messages may quote values, so only their type is reported.
    """
    if isinstance(exc, SynthguardError):
        return f"{type(exc).__name__}: {exc}"
    return f"{type(exc).__name__} (details withheld: the message may quote data)"
