"""gno: a local-first knowledge engine (a Python rebuild of GNO).

``from gno import Gno, AsyncGno`` gives the Python SDK (spec/sdk.md). They are loaded on
first use (module ``__getattr__``), so ``import gno`` and the CLI stay fast."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["AsyncGno", "Gno", "__version__"]

if TYPE_CHECKING:
    from gno.sdk import AsyncGno, Gno


def __getattr__(name: str) -> Any:
    if name in ("Gno", "AsyncGno"):
        from gno import sdk

        return getattr(sdk, name)
    raise AttributeError(f"module 'gno' has no attribute {name!r}")
