"""The global options' effect, shared by the typer app (``app.main``) and the lean path
(``fast.py``): what a command runs with. Imports neither typer nor pydantic."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from gno_contracts.operations import CLI_ANYWHERE, CLI_GLOBAL_VALUES

# GNO accepts the root options anywhere on the line (the registry's ``cli_globals``), all but
# --json: entry.py moves them to the front, where typer and fast.py read them.
HOISTED_VALUES = CLI_ANYWHERE & frozenset(CLI_GLOBAL_VALUES)
HOISTED_FLAGS = CLI_ANYWHERE - HOISTED_VALUES


@dataclass
class Settings:
    """The global options of one command line, applied when made: --offline and --no-color
    reach the model catalog and rich through the environment; GNO_VERBOSE turns --verbose on."""

    index: str | None = None
    config: str | None = None
    json: bool = False
    quiet: bool = False
    verbose: bool = False
    yes: bool = False  # gno never prompts; accepted for GNO's scripts
    no_color: bool = False
    offline: bool = False
    no_pager: bool = False
    color: bool = field(init=False, default=True)

    def __post_init__(self) -> None:
        if self.offline:
            os.environ["GNO_OFFLINE"] = "1"
        if self.no_color:  # rich (progress bars) and gno's own styles both follow NO_COLOR
            os.environ["NO_COLOR"] = "1"
        self.verbose |= os.environ.get("GNO_VERBOSE", "").lower() in ("1", "true", "yes")
        self.color = "NO_COLOR" not in os.environ

    def make_app(self) -> Any:
        from gno.app import App
        from gno.paths import resolve_paths

        return App(resolve_paths(self.config, self.index))
