"""Method name -> class. Users register their own with ``@register_method("name")``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from synthguard.errors import MethodError

if TYPE_CHECKING:
    from synthguard.synthesis.methods.base import SynthesisMethod

__all__ = ["available_methods", "get_method", "make_method", "register_method"]

_REGISTRY: dict[str, type[SynthesisMethod]] = {}
T = TypeVar("T", bound="type[SynthesisMethod]")


def register_method(name: str, *, overwrite: bool = False) -> Callable[[T], T]:
    """Class decorator registering a :class:`SynthesisMethod` under ``name``."""

    def deco(cls: T) -> T:
        # Imported here, not at module level: the method modules import this registry while
        # the methods package initialises, so a module-level import would be circular.
        from synthguard.synthesis.methods.base import SynthesisMethod

        if not (isinstance(cls, type) and issubclass(cls, SynthesisMethod)):
            raise MethodError(f"method '{name}': only SynthesisMethod subclasses can be registered")
        if name in _REGISTRY and not overwrite and _REGISTRY[name] is not cls:
            raise MethodError(f"method '{name}' is already registered; pass overwrite=True")
        cls.name = name
        _REGISTRY[name] = cls
        return cls

    return deco


def _load_builtin() -> None:
    # Importing the packages registers their methods.
    import synthguard.synthesis.methods

    try:
        import synthguard.bayes.models  # noqa: F401
    except ImportError:  # pragma: no cover - bayes not installed in a partial checkout
        pass


def get_method(name: str) -> type[SynthesisMethod]:
    """The class registered under ``name``; :class:`MethodError` naming the choices otherwise."""
    _load_builtin()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise MethodError(
            f"unknown synthesis method '{name}'; available: {', '.join(sorted(_REGISTRY))}"
        ) from None


def make_method(spec: str | SynthesisMethod | type[SynthesisMethod], **params: Any) -> SynthesisMethod:
    """Instantiate a method from a name, a class, or return a given instance unchanged."""
    from synthguard.synthesis.methods.base import SynthesisMethod

    if isinstance(spec, SynthesisMethod):
        return spec
    if isinstance(spec, type) and issubclass(spec, SynthesisMethod):
        return spec(**params)
    if isinstance(spec, str):
        return get_method(spec)(**params)
    raise MethodError(
        f"a method must be a name, a SynthesisMethod class or instance; got {type(spec).__name__}"
    )


def available_methods() -> list[str]:
    """Names of every registered method."""
    _load_builtin()
    return sorted(_REGISTRY)
