"""gno: a local-first knowledge engine (a Python rebuild of GNO)."""

__version__ = "0.1.0"
