"""A click group whose subcommands are imported when they are run or listed, so
``synthguard evaluate`` loads the evaluate command's module and not the eight others.

Each subcommand is named by a string ``"module:attribute"``; the group imports the module
the first time the command is looked up. ``synthguard --help`` lists every command (click
reads each one's short help), which imports the command modules but none of the libraries
they call: those are imported inside the commands.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

import click

__all__ = ["LazyGroup"]


class LazyGroup(click.Group):
    """A :class:`click.Group` whose ``lazy`` subcommands (name -> ``"module:attribute"``)
    are imported on first use."""

    def __init__(self, *args: Any, lazy: Mapping[str, str] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            module, _, attr = self.lazy[cmd_name].partition(":")
            command = getattr(importlib.import_module(module), attr)
            if not isinstance(command, click.Command):  # a wrong entry in the table
                raise TypeError(f"{self.lazy[cmd_name]} is not a click command")
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)
