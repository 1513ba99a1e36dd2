"""A griffe extension: ``name : description`` items in a numpy-style section are read as a
name and its description, not as a name and its type.

The project's docstrings write parameters, attributes and returns as ``name : what it is``
(one line, prose), which numpy style reads as ``name : type``; the API reference then showed
the prose in the *Type* column and left *Description* empty. This extension rewrites such an
item, before griffe parses the docstring, to numpy's own form for an item without a type::

    name
        what it is

so the type comes from the signature's annotation (griffe's rule for an item without one).
An item whose text after the colon reads as a type (a Python expression once ``or`` is read
as ``|`` and numpy's ``, optional`` / ``, default ...`` are dropped: ``int``, ``str or None``,
``array-like``, ``{"a", "b"}``) is left as it is.
"""

from __future__ import annotations

import ast
import re
from typing import Any

import griffe

#: numpy section titles whose items are ``name : type`` lines.
_SECTIONS = frozenset({"parameters", "other parameters", "attributes", "returns", "yields",
                       "receives", "warns"})
_ITEM = re.compile(r"^(?P<names>\*{0,2}[A-Za-z_][\w]*(?:, \*{0,2}[A-Za-z_][\w]*)*) : (?P<text>.+)$")
_DEFAULT = re.compile(r",\s+default(?: |: |=).+$")


def reads_as_type(text: str) -> bool:
    """Whether the text after ``name :`` is a type (numpy style) rather than prose."""
    t = _DEFAULT.sub("", text.strip())
    if t.endswith(", optional"):
        t = t[: -len(", optional")]
    if t.startswith("{") and t.endswith("}"):
        return True  # numpy's choices
    t = t.replace("array-like", "array_like").replace("array_like", "ArrayLike").replace("`", "")
    t = re.sub(r"\s+or\s+", " | ", t)
    t = re.sub(r"\s+of\s+", "[", t) + ("]" * len(re.findall(r"\s+of\s+", t)))
    try:
        ast.parse(t, mode="eval")
    except SyntaxError:
        return False
    return True


def rewrite(doc: str) -> str:
    """The docstring with every prose ``name : description`` item of a numpy section split
    into ``name`` and an indented description (continuation lines keep their indentation
    relative to the item, one level deeper than the name)."""
    lines = doc.split("\n")
    out: list[str] = []
    section: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and nxt.strip() and set(nxt.strip()) == {"-"} and not line.startswith(" "):
            section = line.strip().lower()
            out.extend([line, nxt])
            i += 2
            continue
        if section in _SECTIONS and not line.startswith(" "):
            m = _ITEM.match(line)
            if m and not reads_as_type(m.group("text")):
                out.append(m.group("names"))
                out.append("    " + m.group("text"))
                i += 1
                continue
        out.append(line)
        i += 1
    return "\n".join(out)


class ProseItems(griffe.Extension):
    """Rewrites each object's docstring with :func:`rewrite` as it is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = rewrite(obj.docstring.value)
