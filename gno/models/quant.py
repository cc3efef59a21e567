"""Which GGUF file of a repo an ``hf:org/repo:QUANT`` URI means (pure, no I/O).

A file matches when its name carries the quant as a whole token, case-insensitively:
``Q4_K_M`` matches ``Qwen3-1.7B-Q4_K_M.gguf`` and ``model.q4_k_m.gguf`` but not
``…-Q4_K_M_L.gguf``, and ``Q4_K`` does not match ``…-Q4_K_M.gguf``. Split shards
(``-00001-of-00003``) and vision projectors (``mmproj``) are never picked: gno loads
single-file language models only. Among several matches the choice is stable: the
shallowest path, then the shortest name, then alphabetical order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_SHARD = re.compile(r"-\d{5}-of-\d{5}\.gguf$", re.I)


def matches_quant(path: str, quant: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    if not name.lower().endswith(".gguf") or _SHARD.search(name) or "mmproj" in name.lower():
        return False
    token = re.compile(rf"(?<![A-Za-z0-9]){re.escape(quant)}(?![A-Za-z0-9_])", re.I)
    return token.search(name[: -len(".gguf")]) is not None


def pick_quant_file(paths: Iterable[str], quant: str) -> str | None:
    """The repo file a QUANT URI resolves to, or None when no file carries the quant."""
    candidates = [p for p in paths if matches_quant(p, quant)]
    if not candidates:
        return None
    return min(candidates, key=lambda p: (p.count("/"), len(p), p))
