"""Where a pulled model file sits in the model cache (shared by the availability check and
the pull, so neither imports the other for it)."""

from __future__ import annotations

from pathlib import Path

from gno.models.catalog import ModelUri
from gno.models.quant import pick_quant_file


def hf_cache_path(uri: ModelUri, models_dir: Path) -> Path | None:
    """Where `gno models pull` puts an hf: model: ``<models>/hf/<org>/<repo>/<file>``.

    A QUANT URI resolves to the cached file of that repo carrying the quant (the file a
    pull chose, by the rule of ``gno.models.quant``), or None when none is cached."""
    if uri.scheme != "hf" or not uri.repo:
        return None
    folder = models_dir / "hf" / uri.repo
    if uri.filename:
        return folder / uri.filename
    if not folder.is_dir():
        return None
    local = [
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*.gguf")
        if not any(part.startswith(".") for part in p.relative_to(folder).parts)
    ]
    picked = pick_quant_file(local, uri.quant or "")
    return folder / picked if picked else None
