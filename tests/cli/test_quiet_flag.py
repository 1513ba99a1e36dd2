"""Every command that can be quiet spells it the same way: ``--quiet`` and ``-q``."""

from __future__ import annotations

import click

from synthguard.cli import main


def _commands(group: click.Group, prefix: str = "") -> dict[str, click.Command]:
    out: dict[str, click.Command] = {}
    ctx = click.Context(group)
    for name in group.list_commands(ctx):  # the subcommands are loaded by name (cli/_lazy.py)
        cmd = group.get_command(ctx, name)
        assert cmd is not None
        if isinstance(cmd, click.Group):
            out.update(_commands(cmd, f"{prefix}{name} "))
        else:
            out[f"{prefix}{name}"] = cmd
    return out


def test_quiet_is_always_also_q():
    quiet = {}
    for name, cmd in _commands(main).items():
        for p in cmd.params:
            if isinstance(p, click.Option) and "--quiet" in p.opts:
                quiet[name] = p.opts
    assert {"synthesize", "protect", "evaluate", "run", "sweep", "dp synthesize",
            "dp tabulate"} <= set(quiet)
    assert {n: o for n, o in quiet.items() if "-q" not in o} == {}
