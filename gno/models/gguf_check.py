"""Whether a model file on disk is one llama.cpp can load, without loading it: the GGUF
header (magic, version 2 or 3, every metadata key) must parse and name an architecture.
`gno doctor` uses it; a pull checks the same header before keeping a download."""

from __future__ import annotations

from pathlib import Path


def gguf_problem(path: Path) -> str | None:
    """None when the header of ``path`` reads as a loadable GGUF model, else why not."""
    from gno.adapters.llama.gguf import read_gguf_metadata

    try:
        meta = read_gguf_metadata(path)
    except (ValueError, OSError) as exc:
        return str(exc)
    architecture = meta.get("general.architecture")
    if not isinstance(architecture, str) or not architecture:
        return "the GGUF header names no general.architecture"
    return None
