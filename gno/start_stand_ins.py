"""Stand-ins in ``sys.modules`` that the CLI puts there before its modules load, for what a
command seldom or never uses (``gno/cli/entry.py`` calls both functions first).

``defer_stdlib``: standard modules loaded on first use. ``dataclasses``
imports ``inspect`` (and with it ast, dis, tokenize: ~5 ms of every start) only to describe a
class without a docstring; ``hashlib`` loads OpenSSL (2-4 ms), and get, ls, tags or changes
hash nothing. ``importlib.util.LazyLoader`` does not serve here: on Python 3.11 an ``import``
statement reads the lazy module's ``__spec__``, which runs it at once. A dataclass on a read
command's path keeps a docstring, else ``dataclasses`` reads ``inspect.signature``
(tests/surfaces/test_cli_lean_imports.py).
"""

from __future__ import annotations

import _thread
import importlib
import importlib.machinery
import os
import sys
import types
from typing import Any

DEFERRED_STDLIB = ("inspect", "hashlib")

_LOADING = _thread.RLock()  # reentrant: a real module may read another stand-in as it loads


class Deferred(types.ModuleType):
    """Stands in ``sys.modules`` for a module not run yet; the first attribute it lacks runs
    the real module, which then replaces it."""

    def __getattr__(self, attr: str) -> Any:
        name = self.__name__
        with _LOADING:  # two threads' first reads (a server's) run the module once
            if sys.modules.get(name) is self:
                del sys.modules[name]
            real = importlib.import_module(name)
            self.__dict__.update(real.__dict__)
        return getattr(real, attr)


def without_pydantic_plugins() -> None:
    """pydantic's plugin lookup (every distribution's entry points) costs 15-20 ms of the first
    model, for plugins gno never uses: off as pydantic documents (PYDANTIC_DISABLE_PLUGINS;
    set it empty to have them back), answered with no plugins without importing the lookup."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "1")
    if os.environ["PYDANTIC_DISABLE_PLUGINS"] not in ("1", "true", "__all__"):
        return
    none = types.ModuleType("pydantic.plugin._loader", "No pydantic plugins (gno's CLI).")
    none.get_plugins = tuple  # type: ignore[attr-defined]  # get_plugins() -> ()
    sys.modules.setdefault(none.__name__, none)


def defer_stdlib(names: tuple[str, ...] = DEFERRED_STDLIB) -> None:
    """A ``Deferred`` for each module not imported yet."""
    for name in names:
        if name in sys.modules:
            continue
        stand_in = Deferred(name)
        stand_in.__spec__ = importlib.machinery.ModuleSpec(name, None)
        sys.modules[name] = stand_in
