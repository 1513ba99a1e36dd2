"""Method name -> class. Users register their own with ``@register_method("name")``."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from synthguard._registry import Registry
from synthguard.errors import MethodError

if TYPE_CHECKING:
    from synthguard.synthesis.methods.base import SynthesisMethod

__all__ = [
    "METHODS", "available_methods", "get_method", "make_method", "parse_method_spec",
    "register_method",
]

T = TypeVar("T", bound="type[SynthesisMethod]")


def _check_method(name: str, cls: Any) -> None:
    # Imported here, not at module level: the method modules import this registry while
    # the methods package initialises, so a module-level import would be circular.
    from synthguard.synthesis.methods.base import SynthesisMethod

    if not (isinstance(cls, type) and issubclass(cls, SynthesisMethod)):
        raise MethodError(f"method '{name}': only SynthesisMethod subclasses can be registered")


def _set_name(name: str, cls: Any) -> None:
    cls.name = name


#: name -> :class:`SynthesisMethod` subclass. The built-ins are ``synthguard.synthesis.methods``
#: and ``synthguard.bayes.models`` (a higher room, ``bayes`` imports ``synthesis``, so it is
#: loaded by name like a plug-in and the import layers stay one-way); other packages add
#: theirs through the entry-point group ``synthguard.methods``:
#: ``[project.entry-points."synthguard.methods"] mine = "mypackage.methods"``.
METHODS: Registry[type[SynthesisMethod]] = Registry(
    "synthesis method",
    entry_point_group="synthguard.methods",
    builtins=("synthguard.synthesis.methods", "synthguard.bayes.models"),
    check=_check_method,
    error=MethodError,
    on_register=_set_name,
)

#: The entry-point group of :data:`METHODS` (kept for code that read it here).
ENTRY_POINT_GROUP = METHODS.entry_point_group


def register_method(name: str, *, overwrite: bool = False) -> Callable[[T], T]:
    """Class decorator registering a :class:`SynthesisMethod` under ``name``
    (:data:`METHODS`; it sets ``cls.name``)."""

    def deco(cls: T) -> T:
        METHODS.register(name, cls, overwrite=overwrite)
        return cls

    return deco


def get_method(name: str) -> type[SynthesisMethod]:
    """The class registered under ``name``; :class:`MethodError` naming the choices otherwise."""
    return METHODS.get(name)


def make_method(spec: str | SynthesisMethod | type[SynthesisMethod], **params: Any) -> SynthesisMethod:
    """Instantiate a method from a name, a class, or return a given instance unchanged."""
    from synthguard.synthesis.methods.base import SynthesisMethod

    if isinstance(spec, SynthesisMethod):
        return spec
    if isinstance(spec, type) and issubclass(spec, SynthesisMethod):
        _check_options(spec, str(getattr(spec, "name", spec.__name__)), params)
        return spec(**params)
    if isinstance(spec, str):
        name, options = parse_method_spec(spec)
        both = sorted(set(options) & set(params))
        if both:
            raise MethodError(
                f"method '{spec}': options given both in the name and as parameters: "
                f"{', '.join(both)}"
            )
        cls = get_method(name)
        _check_options(cls, name, {**options, **params})
        return cls(**options, **params)
    raise MethodError(
        f"a method must be a name, a SynthesisMethod class or instance; got {type(spec).__name__}"
    )


def _check_options(cls: type[SynthesisMethod], name: str, options: Mapping[str, Any]) -> None:
    """MethodError naming the options ``cls`` does not take (not Python's TypeError), so a
    misspelt option in a plan, on the command line or in Python says what to write."""
    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):  # pragma: no cover - a C-level or odd signature
        return
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return
    accepted = {n for n, p in params.items() if p.kind in
                (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)}
    accepted |= set(getattr(cls.__init__, "__renamed__", {})) | set(getattr(cls, "__renamed__", {}))
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise MethodError(
            f"method '{name}': unknown option {', '.join(map(repr, unknown))}; accepted: "
            f"{', '.join(sorted(accepted)) or 'none'}"
        )


def _option_value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("none", "null"):
        return None
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


#: an option starts at a ':' followed by ``KEY=`` (a Python name, then '=' but not '==')
_OPTION_START = re.compile(r":(?=\s*[A-Za-z_]\w*\s*=(?!=))")


def _split_options(spec: str) -> list[str]:
    """``spec`` cut at each ':' that starts a ``KEY=VALUE`` option, outside backticks and
    quotes, so a value may itself hold ':' (``passive:formula=`a:b` * 2``, a path, a time)."""
    parts: list[str] = []
    start, quote = 0, ""
    for i, ch in enumerate(spec):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "`'\"":
            quote = ch
        elif ch == ":" and ((not parts and not start) or _OPTION_START.match(spec, i)):
            parts.append(spec[start:i])
            start = i + 1
    parts.append(spec[start:])
    return parts


def parse_method_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split a method given as text with options, ``NAME[:KEY=VALUE[:KEY=VALUE...]]``.

    ``"cart:smoothing=density:min_samples_leaf=10"`` ->
    ``("cart", {"smoothing": "density", "min_samples_leaf": 10})``. Values are read as
    true/false, none, integers, floats, else text. An option starts at a ``:`` followed by
    ``KEY=``; any other ``:`` (and any inside backticks or quotes) belongs to the value, so
    ``"passive:formula=`t:a` * 2"`` has the one option ``formula``. The same syntax works in
    Python (``methods={"Income": "cart:smoothing=density"}``), on the command line
    (``--method Income=cart:smoothing=density``) and in plans.
    """
    name, *parts = [p.strip() for p in _split_options(spec)]
    options: dict[str, Any] = {}
    for part in parts:
        key, sep, value = part.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise MethodError(
                f"method '{spec}': options are written NAME:KEY=VALUE[:KEY=VALUE], "
                f"e.g. 'cart:smoothing=density'"
            )
        options[key.strip()] = _option_value(value.strip())
    return name, options


def available_methods() -> list[str]:
    """Names of every registered method, sorted."""
    return sorted(METHODS.available())
