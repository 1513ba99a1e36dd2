"""The one registry type every kind of extension uses (synthguard._registry)."""

from __future__ import annotations

import sys
import types

import pytest

from synthguard._registry import Registry
from synthguard.errors import MethodError, ParameterError


def _fresh(**kw):
    return Registry("test thing", entry_point_group=f"synthguard.test_{id(kw)}", **kw)


def test_register_get_available_keep_order():
    r = _fresh()
    r.register("b", 2)
    r.register("a", 1)
    assert r.available() == ["b", "a"]
    assert r.get("a") == 1 and "b" in r and len(r) == 2


def test_decorator_form_returns_the_object():
    r = _fresh()

    @r.register("f")
    def f():
        return 3

    assert r.get("f") is f and f() == 3


def test_unknown_name_lists_the_choices_in_the_registry_error():
    r = _fresh(error=MethodError)
    r.register("one", 1)
    with pytest.raises(MethodError, match=r"unknown test thing 'two'; available: one"):
        r.get("two")


def test_clash_needs_overwrite_but_same_object_is_allowed():
    r = _fresh()
    obj = object()
    r.register("x", obj)
    r.register("x", obj)
    with pytest.raises(ParameterError, match="already registered"):
        r.register("x", object())
    new = object()
    r.register("x", new, overwrite=True)
    assert r.get("x") is new


def test_bad_names_and_failed_checks_are_refused():
    def only_ints(name, obj):
        if not isinstance(obj, int):
            raise ParameterError(f"{name}: not an int")

    r = _fresh(check=only_ints)
    with pytest.raises(ParameterError, match="simple names"):
        r.register("has space", 1)
    with pytest.raises(ParameterError, match="not an int"):
        r.register("s", "text")
    assert r.available() == []


def test_builtins_are_imported_on_first_use(monkeypatch):
    r = _fresh(builtins=("synthguard_test_builtin_mod",))
    mod = types.ModuleType("synthguard_test_builtin_mod")
    mod.__dict__["loaded"] = True
    monkeypatch.setitem(sys.modules, "synthguard_test_builtin_mod", mod)
    calls = []
    r._load_entry_points = lambda: calls.append(1)  # type: ignore[method-assign]
    r.available()
    r.available()
    assert calls == [1]


def test_on_register_hook_runs():
    seen = []
    r = _fresh(on_register=lambda n, o: seen.append(n))
    r.register("k", 1)
    assert seen == ["k"]


def test_get_with_a_default_reads_like_dict_get_and_getitem_like_get():
    r = _fresh(error=MethodError)
    r.register("one", 1)
    assert r.get("two", None) is None and r.get("two", 0) == 0 and r.get("one", None) == 1
    assert r["one"] == 1
    with pytest.raises(MethodError, match="unknown test thing 'two'"):
        r["two"]
    assert ["not", "hashable"] not in r  # a list read from a plan is simply not registered
