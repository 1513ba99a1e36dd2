"""One registry type for every kind of extension: synthesis methods, SDC steps, DP
synthesizers, DP mechanisms, metrics and release makers.

A :class:`Registry` maps a name to an object (a class, a function or a declaration). Each
kind has one instance, in its own room, with the same three verbs::

    registry.register("name", obj)            # or @registry.register("name") on a class/function
    registry.get("name")                      # the object; a named error listing the choices
    registry.available()                      # every name, built-ins and plug-ins

Built-ins are imported on first use (``builtins=``, module names), and so are the modules
other packages name under the registry's entry-point group, so a plug-in package adds any
kind with one line of its ``pyproject.toml``::

    [project.entry-points."synthguard.sdc_steps"]
    mine = "mypackage.steps"        # a module whose import calls register(...)

The common tests (``tests/test_extensions_common.py``) run over ``available()``, so a newly
registered extension is tested without anyone editing a list. This module imports no room.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar, overload

from synthguard.errors import ParameterError, SynthguardError, SynthguardWarning

__all__ = ["Registry", "all_registries"]

T = TypeVar("T")
D = TypeVar("D")

_MISSING: Any = object()

_ALL: dict[str, Registry[Any]] = {}


class Registry(Generic[T]):
    """Name -> extension of one kind.

    Parameters
    ----------
    kind:
        What the entries are, in words used by messages ("synthesis method", "SDC step").
    entry_point_group:
        The ``importlib.metadata`` entry-point group whose modules register entries of this
        kind (for example ``"synthguard.sdc_steps"``).
    builtins:
        Modules imported on first use whose import registers the built-in entries. They may sit
        in higher rooms: they are loaded by name, like plug-ins, so the import layers stay
        one-way.
    check:
        ``check(name, obj)`` raises when ``obj`` cannot be registered (wrong type).
    error:
        The exception class for an unknown name or a clash (a :class:`ParameterError` subclass).
    on_register:
        ``on_register(name, obj)`` called after an entry is added (e.g. to set ``cls.name``).
    """

    def __init__(
        self,
        kind: str,
        *,
        entry_point_group: str,
        builtins: tuple[str, ...] = (),
        check: Callable[[str, Any], None] | None = None,
        error: type[SynthguardError] = ParameterError,
        on_register: Callable[[str, Any], None] | None = None,
    ) -> None:
        self.kind = kind
        self.entry_point_group = entry_point_group
        self.builtins = tuple(builtins)
        self._check = check
        self._error = error
        self._on_register = on_register
        self._entries: dict[str, T] = {}
        self._loaded = False
        self._loading = False
        _ALL[entry_point_group] = self

    # -- the three verbs -------------------------------------------------------------------
    @overload
    def register(self, name: str, obj: None = None, *, overwrite: bool = False) -> Callable[[T], T]: ...

    @overload
    def register(self, name: str, obj: T, *, overwrite: bool = False) -> T: ...

    def register(self, name: str, obj: Any = None, *, overwrite: bool = False) -> Any:
        """Add ``obj`` under ``name`` and return it; without ``obj``, a decorator doing so.

        Raises the registry's error when ``name`` is not a simple name, when ``obj`` fails the
        registry's check, or when another object already holds ``name`` and ``overwrite`` is
        false. Registering the same object twice is allowed (a module imported twice).
        """
        if obj is None:
            def deco(o: T) -> T:
                return self.register(name, o, overwrite=overwrite)

            return deco
        if not isinstance(name, str) or not name.isidentifier():
            raise self._error(
                f"{self.kind} names must be simple names such as 'my_{_slug(self.kind)}'; "
                f"got {type(name).__name__} {name!r}"[:200]
            )
        if self._check is not None:
            self._check(name, obj)
        held = self._entries.get(name)
        if held is not None and held is not obj and not overwrite:
            raise self._error(
                f"{self.kind} '{name}' is already registered; pass overwrite=True to replace it"
            )
        self._entries[name] = obj
        if self._on_register is not None:
            self._on_register(name, obj)
        return obj

    @overload
    def get(self, name: str) -> T: ...

    @overload
    def get(self, name: str, default: D) -> T | D: ...

    def get(self, name: str, default: Any = _MISSING) -> Any:
        """The entry registered as ``name``; the registry's error listing the choices otherwise.

        With ``default`` (as ``dict.get``), ``default`` for a name nobody registered: code that
        read the dicts these registries replace (``SDC_STEPS.get(name, None)``) keeps working.
        """
        self.load()
        try:
            return self._entries[name]
        except (KeyError, TypeError):
            if default is not _MISSING:
                return default
            raise self._error(
                f"unknown {self.kind} '{name}'; available: {', '.join(self.available())}"
            ) from None

    def available(self) -> list[str]:
        """Every registered name, in registration order (built-ins first)."""
        self.load()
        return list(self._entries)

    def unregister(self, name: str) -> None:
        """Remove ``name`` (tests and plug-ins that replace a built-in)."""
        self._entries.pop(name, None)

    # -- mapping helpers -------------------------------------------------------------------
    def __getitem__(self, name: str) -> T:
        """``registry[name]``: :meth:`get` (the registry's error for an unknown name)."""
        return self.get(name)

    def __contains__(self, name: object) -> bool:
        self.load()
        try:
            return name in self._entries
        except TypeError:  # an unhashable name (a list read from a plan) is not registered
            return False

    def __iter__(self) -> Iterator[str]:
        return iter(self.available())

    def __len__(self) -> int:
        return len(self.available())

    def items(self) -> list[tuple[str, T]]:
        """``(name, entry)`` pairs in registration order."""
        self.load()
        return list(self._entries.items())

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {len(self._entries)} entries)"

    # -- loading ---------------------------------------------------------------------------
    def load(self) -> None:
        """Import the built-in modules and the entry points' modules, once."""
        if self._loaded or self._loading:
            return
        self._loading = True
        try:
            for module in self.builtins:
                importlib.import_module(module)
            self._load_entry_points()
            self._loaded = True
        finally:
            self._loading = False

    def _load_entry_points(self) -> None:
        from importlib.metadata import entry_points

        for ep in entry_points(group=self.entry_point_group):
            try:
                ep.load()
            except Exception as e:  # a broken plug-in must not hide the built-ins
                warnings.warn(
                    f"{self.kind}s from entry point '{ep.name}' ({ep.value}) could not be "
                    f"loaded ({type(e).__name__}); the others are available",
                    SynthguardWarning,
                    stacklevel=4,
                )


def _slug(kind: str) -> str:
    return kind.split()[-1].lower()


def all_registries() -> dict[str, Registry[Any]]:
    """Every registry created so far, by entry-point group (for the docs and the tests)."""
    return dict(_ALL)
