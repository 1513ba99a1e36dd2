"""Old parameter names and argument orders, kept working one release with a warning.

The public API speaks one vocabulary (``synthetic``, ``targets``, ``strata``, ``(conf,
synthetic, ...)``, ``sample(m=..., n=..., random_state=...)``). A renamed parameter or a
reordered signature keeps its old spelling for one release through the two decorators here,
which emit :class:`~synthguard.errors.RenamedWarning` (a ``FutureWarning``) naming the new
spelling, and then call the function with the new one - so the result is the same.

* :func:`renamed` - ``@renamed(synth="synthetic")``: the old keyword is accepted and mapped.
* :func:`renamed_fields` - ``@renamed_fields(n_syn="n_synthetic")`` on a result dataclass:
  reading ``result.n_syn`` (and building it with ``n_syn=``) still works and warns.
* :func:`conf_first` - ``@conf_first("release")``: a function whose first two arguments were
  ``(release, data)`` and are now ``(conf, release)``; the old order is told apart by type
  (the release is not a DataFrame, the data is), so no call is read the wrong way.
* :func:`reordered` - ``@reordered(("train", "holdout", "synthetic"), train="conf")``: a call
  that does not bind to the new signature but binds to the old positional order is mapped.
  Only use it when the new signature makes every old call fail to bind (e.g. the moved
  parameters became keyword-only), so a call is never silently read in the wrong order.

Each wrapper records what it maps in ``__renamed__`` (old -> new) and ``__old_order__``, so
the tests and the API inventory can list every alias.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from synthguard.errors import ParameterError, RenamedWarning

__all__ = ["conf_first", "renamed", "renamed_fields", "reordered"]

F = TypeVar("F", bound=Callable[..., Any])

REMOVAL = "the old spelling will be removed in the next release"


def _name(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__qualname__", getattr(fn, "__name__", "function"))


def _map_keywords(fn_name: str, kwargs: dict[str, Any], old_to_new: dict[str, str],
                  stacklevel: int) -> dict[str, Any]:
    for old, new in old_to_new.items():
        if old not in kwargs:
            continue
        if new in kwargs:
            raise ParameterError(
                f"{fn_name}: parameters '{old}' and '{new}' given; '{old}' is the old name of "
                f"'{new}', pass '{new}' only")
        warnings.warn(
            f"{fn_name}: parameter '{old}' is now called '{new}'; pass {new}=... ({REMOVAL})",
            RenamedWarning, stacklevel=stacklevel + 1)
        kwargs[new] = kwargs.pop(old)
    return kwargs


def renamed(**old_to_new: str) -> Callable[[F], F]:
    """Accept each old keyword name ``old`` for the parameter now called ``new``, with a
    :class:`~synthguard.errors.RenamedWarning`; passing both raises ParameterError."""

    def decorate(fn: F) -> F:
        params = inspect.signature(fn).parameters
        for old, new in old_to_new.items():
            if new not in params or old in params:
                raise TypeError(f"renamed({old}={new!r}) does not fit {_name(fn)}'s signature")

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if kwargs.keys() & old_to_new.keys():
                kwargs = _map_keywords(_name(fn), kwargs, old_to_new, stacklevel=2)
            return fn(*args, **kwargs)

        known = dict(getattr(fn, "__renamed__", {}))
        wrapper.__renamed__ = {**known, **old_to_new}  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


C = TypeVar("C", bound=type)


def renamed_fields(**old_to_new: str) -> Callable[[C], C]:
    """Keep the old name ``old`` of a result class's attribute now called ``new``: reading
    ``obj.old`` returns ``obj.new`` with a :class:`~synthguard.errors.RenamedWarning`, and the
    constructor accepts ``old=`` as :func:`renamed` does. Apply it above ``@dataclass``."""

    def decorate(cls: C) -> C:
        for old, new in old_to_new.items():
            if old in vars(cls) or new not in inspect.signature(cls).parameters:
                raise TypeError(f"renamed_fields({old}={new!r}) does not fit {cls.__name__}")
            setattr(cls, old, _old_attribute(cls.__name__, old, new))
        cls.__init__ = renamed(**old_to_new)(cls.__init__)  # type: ignore[misc]
        return cls

    return decorate


def _old_attribute(owner: str, old: str, new: str) -> property:
    def get(self: Any) -> Any:
        warnings.warn(f"{owner}.{old} is now called '{new}'; read .{new} ({REMOVAL})",
                      RenamedWarning, stacklevel=2)
        return getattr(self, new)

    return property(get, doc=f"Old name of ``{new}``, kept one release (warns).")


def reordered(old_order: Sequence[str], **old_to_new: str) -> Callable[[F], F]:
    """Accept calls written for the old positional order ``old_order`` (old names, ``self``
    first for a method), with a :class:`~synthguard.errors.RenamedWarning`.

    A call is read the old way only when it does not bind to the new signature; its
    positional arguments then take the names in ``old_order`` and old keyword names are
    mapped through ``old_to_new``. The new signature must make every old-style call fail to
    bind (move the reordered parameters behind ``*``), so no call is read the wrong way.
    """
    old_order = tuple(old_order)

    def decorate(fn: F) -> F:
        sig = inspect.signature(fn)
        params = sig.parameters
        for old in old_order:
            if old_to_new.get(old, old) not in params:
                raise TypeError(f"reordered: '{old}' does not fit {_name(fn)}'s signature")
        new_order = ", ".join(
            p.name for p in params.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "self")
        news = [old_to_new.get(o, o) for o in old_order if o != "self"]
        kw_only = [n for n in news if params[n].kind is inspect.Parameter.KEYWORD_ONLY]

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                sig.bind(*args, **kwargs)
            except TypeError:
                pass
            else:
                return fn(*args, **kwargs)
            if len(args) > len(old_order):
                raise TypeError(f"{_name(fn)}() takes at most {len(old_order)} positional "
                                "arguments")
            mapped = dict(zip(old_order, args))
            for k, v in kwargs.items():
                if k in mapped:
                    raise TypeError(f"{_name(fn)}() got multiple values for argument '{k}'")
                mapped[k] = v
            try:
                inspect.signature(fn).bind(**_rename_quiet(mapped, old_to_new))
            except TypeError:
                return fn(*args, **kwargs)  # neither spelling: let Python's own error speak
            self_ = mapped.pop("self", None) if "self" in old_order else None
            keyword = ", ".join(f"{n}=..." for n in kw_only)
            warnings.warn(
                f"{_name(fn)}: the arguments are now ({new_order or '*'}"
                f"{', *, ' + keyword if keyword else ''}); this call used the old order "
                f"({', '.join(o for o in old_order if o != 'self')}) ({REMOVAL})",
                RenamedWarning, stacklevel=2)
            mapped = _rename_quiet(mapped, old_to_new)
            return fn(self_, **mapped) if "self" in old_order else fn(**mapped)

        wrapper.__old_order__ = old_order  # type: ignore[attr-defined]
        wrapper.__renamed__ = {  # type: ignore[attr-defined]
            **dict(getattr(fn, "__renamed__", {})), **old_to_new}
        return wrapper  # type: ignore[return-value]

    return decorate


def _rename_quiet(mapped: dict[str, Any], old_to_new: dict[str, str]) -> dict[str, Any]:
    return {old_to_new.get(k, k): v for k, v in mapped.items()}


def conf_first(release: str, *, old_conf: str = "data") -> Callable[[F], F]:
    """Accept the old order ``fn(release, data)`` of a function now ``fn(conf, release)``.

    The two orders cannot be told apart by binding (both are two positionals), but by type:
    the confidential data is a pandas DataFrame and the release here never is. A call whose
    first argument is not a DataFrame and whose second is, or that names the old keyword
    ``old_conf``, is read the old way with a :class:`~synthguard.errors.RenamedWarning`.
    """
    def decorate(fn: F) -> F:
        params = list(inspect.signature(fn).parameters)
        if params[:2] != ["conf", release]:
            raise TypeError(f"conf_first: {_name(fn)} must start with (conf, {release})")

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            import pandas as pd

            if old_conf in kwargs:
                kwargs = _map_keywords(_name(fn), kwargs, {old_conf: "conf"}, stacklevel=2)
            if (len(args) >= 2 and not isinstance(args[0], pd.DataFrame)
                    and isinstance(args[1], pd.DataFrame)):
                warnings.warn(
                    f"{_name(fn)}: the arguments are now (conf, {release}), in the order of "
                    f"every measure; pass {_name(fn)}(conf, {release}, ...) ({REMOVAL})",
                    RenamedWarning, stacklevel=2)
                args = (args[1], args[0], *args[2:])
            return fn(*args, **kwargs)

        wrapper.__renamed__ = {**getattr(fn, "__renamed__", {}), old_conf: "conf"}  # type: ignore[attr-defined]
        wrapper.__old_order__ = (release, old_conf)  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]
    return decorate
