"""The Python SDK: ``Gno`` (blocking) and ``AsyncGno`` (asyncio), one typed method per
registry operation (generated in gno_contracts/sdk.py), over two transports: the local
index in-process (``local``) or a running `gno serve` (``remote``). spec/sdk.md."""

from gno.sdk.client import AsyncGno, Gno

__all__ = ["AsyncGno", "Gno"]
