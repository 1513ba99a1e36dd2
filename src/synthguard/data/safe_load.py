"""One safe reader for every YAML and JSON file synthguard reads.

Plans, ``--levels`` and ``--codebook`` domain files, ``--constraints`` files, ``--step`` texts,
release manifests, provenance files and privacy ledgers all come through here, and nowhere
else calls ``yaml.safe_load`` or ``json.load`` (``tests/data/test_safe_load.py`` checks the
source tree). What it refuses, before anything is built:

- **anchors and aliases** (``&name``, ``*name``): a 512-byte "billion laughs" file expands to
  millions of nodes; ``yaml.safe_load`` held 1.19 GB after 25 s on one and still ran at 120 s.
  No file synthguard reads needs them: write the values out.
- **files larger than** ``max_bytes`` (8 MiB for YAML, 64 MiB for JSON): a plan, a domain or a
  ledger is a few kilobytes; a larger file is a mistake or an attack.
- **nesting deeper than** ``max_depth`` (64 levels): the parsers recurse, so a file of
  100,000 opening brackets ends in a ``RecursionError`` instead of a message.

Every refusal raises the error type the caller names (a :class:`~synthguard.errors.PlanError`
for a plan, :class:`~synthguard.errors.FileFormatError` by default) with the file, the line
where it is known, and what to do. The YAML is scanned and composed with libyaml when PyYAML
has it (about 15 times faster than the pure-Python scanner), else with the pure-Python one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import yaml

from synthguard.errors import FileFormatError, SynthguardError

__all__ = [
    "MAX_DEPTH",
    "MAX_JSON_BYTES",
    "MAX_YAML_BYTES",
    "parse_json",
    "parse_yaml",
    "parse_yaml_node",
    "read_json",
    "read_text",
    "read_yaml",
]

MAX_YAML_BYTES = 8 * 2**20
MAX_JSON_BYTES = 64 * 2**20
MAX_DEPTH = 64

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_OPEN = (yaml.BlockMappingStartToken, yaml.BlockSequenceStartToken,
         yaml.FlowMappingStartToken, yaml.FlowSequenceStartToken)
_CLOSE = (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)


def _line(mark: Any) -> str:
    line = getattr(mark, "line", None)
    return f", line {line + 1}" if isinstance(line, int) else ""


def _check_size(n_bytes: int, source: str, what: str, limit: int,
                error: type[SynthguardError]) -> None:
    if n_bytes > limit:
        raise error(f"{source}: {n_bytes:,} bytes, more than the {limit:,} {what} may hold; "
                    "check that this is the file you meant (it is read whole into memory)")


def _scan(text: str, source: str, what: str, max_depth: int,
          error: type[SynthguardError]) -> None:
    """Refuse anchors, aliases and deep nesting from the token stream: nothing is built yet."""
    depth = 0
    for token in yaml.scan(text, Loader=_Loader):
        if isinstance(token, yaml.AliasToken | yaml.AnchorToken):
            raise error(f"{source}{_line(token.start_mark)}: YAML anchors and aliases ('&name', "
                        f"'*name') are not allowed in {what}; write the values out")
        if isinstance(token, _OPEN):
            depth += 1
            if depth > max_depth:
                raise error(f"{source}{_line(token.start_mark)}: nested more than {max_depth} "
                            f"levels deep; {what} needs only a few levels: flatten it")
        elif isinstance(token, _CLOSE):
            depth -= 1


def parse_yaml_node(
    text: str, *, source: str = "<text>", what: str = "this file",
    error: type[SynthguardError] = FileFormatError, hint: str = "check the indentation and quoting",
    max_bytes: int = MAX_YAML_BYTES, max_depth: int = MAX_DEPTH,
) -> tuple[yaml.Node | None, Any]:
    """(node, data) of YAML ``text``: the composed node (for line numbers) and its plain value.

    Raises ``error`` for anchors or aliases, a text over ``max_bytes`` or nested deeper than
    ``max_depth``, and for text that is not YAML (with the line and ``hint``).
    """
    _check_size(len(text.encode("utf-8", "surrogatepass")), source, what, max_bytes, error)
    try:
        _scan(text, source, what, max_depth, error)
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as e:
        problem = getattr(e, "problem", None) or "not valid YAML"
        raise error(f"{source}{_line(getattr(e, 'problem_mark', None))}: not valid YAML "
                    f"({problem}); {hint}") from None
    except RecursionError:  # pragma: no cover - the depth scan refuses these first
        raise error(f"{source}: nested too deeply; flatten it") from None
    return node, data


def parse_yaml(text: str, **kw: Any) -> Any:
    """The plain value of YAML ``text`` (mappings, lists, strings, numbers, booleans, None);
    the keywords and the errors are :func:`parse_yaml_node`'s."""
    return parse_yaml_node(text, **kw)[1]


def read_text(path: str | os.PathLike[str], source: str, what: str, max_bytes: int,
              error: type[SynthguardError]) -> str:
    """The UTF-8 text of ``path``, reading at most ``max_bytes`` (``error`` past that)."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            raw = fh.read(max_bytes + 1)
    except OSError as e:
        raise error(f"{source}: cannot be read ({e.strerror or type(e).__name__}); check the "
                    "path and its permissions") from None
    _check_size(len(raw) if len(raw) <= max_bytes else p.stat().st_size, source, what,
                max_bytes, error)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise error(f"{source}: not UTF-8 text; save {what} as UTF-8") from None


def read_yaml(path: str | os.PathLike[str], *, source: str | None = None, what: str = "this file",
              error: type[SynthguardError] = FileFormatError,
              hint: str = "check the indentation and quoting",
              max_bytes: int = MAX_YAML_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """Read the YAML (or JSON, a subset of YAML) file ``path`` safely (see the module).

    ``source`` names the file in messages (default: its name); ``what`` says what it is
    (``"a plan"``, ``"a domain file"``).
    """
    src = source if source is not None else f"'{Path(path).name}'"
    text = read_text(path, src, what, max_bytes, error)
    return parse_yaml(text, source=src, what=what, error=error, hint=hint,
                      max_bytes=max_bytes, max_depth=max_depth)


def _too_deep(value: Any, max_depth: int) -> bool:
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict | list):
            if d + 1 > max_depth:
                return True
            stack.extend((c, d + 1) for c in (v.values() if isinstance(v, dict) else v))
    return False


def parse_json(text: str, *, source: str = "<text>", what: str = "this file",
               error: type[SynthguardError] = FileFormatError,
               max_bytes: int = MAX_JSON_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """The value of JSON ``text``; ``error`` for text that is not JSON, is over ``max_bytes``
    or nested deeper than ``max_depth``. NaN and Infinity, as Python's json writes them, are
    read."""
    _check_size(len(text.encode("utf-8", "surrogatepass")), source, what, max_bytes, error)

    try:
        value = json.loads(text)
    except RecursionError:
        value, deep = None, True
    except ValueError as e:
        line = getattr(e, "lineno", None)
        where = f", line {line}" if isinstance(line, int) else ""
        raise error(f"{source}{where}: not valid JSON ({getattr(e, 'msg', e)}); write it again "
                    f"or restore {what} from a backup") from None
    else:
        deep = _too_deep(value, max_depth)
    if deep:
        raise error(f"{source}: nested more than {max_depth} levels deep; {what} needs only a "
                    "few levels")
    return value


def read_json(path: str | os.PathLike[str], *, source: str | None = None,
              what: str = "this file", error: type[SynthguardError] = FileFormatError,
              max_bytes: int = MAX_JSON_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """Read the JSON file ``path`` safely (size and depth limits, see the module)."""
    src = source if source is not None else f"'{Path(path).name}'"
    text = read_text(path, src, what, max_bytes, error)
    return parse_json(text, source=src, what=what, error=error, max_bytes=max_bytes,
                      max_depth=max_depth)
