"""Which model plays which role: URIs, GNO's presets, overrides (engine.md §1.7).

A role's URI comes from, first to last: the process override (``GNO_EMBED_MODEL``
…), the collection's ``models`` block, the active preset of ``index.yml``
(``models.activePreset``, default ``slim-tuned``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gno.errors import ValidationError
from gno.paths import expand_home

ROLES = ("embed", "rerank", "expand", "gen")
ENV_OVERRIDES = {role: f"GNO_{role.upper()}_MODEL" for role in ROLES}

_QWEN_EMBED = "hf:Qwen/Qwen3-Embedding-0.6B-GGUF/Qwen3-Embedding-0.6B-Q8_0.gguf"
_QWEN_RERANK = "hf:ggml-org/Qwen3-Reranker-0.6B-Q8_0-GGUF/qwen3-reranker-0.6b-q8_0.gguf"
_QWEN3_17B = "hf:unsloth/Qwen3-1.7B-GGUF/Qwen3-1.7B-Q4_K_M.gguf"


@dataclass(frozen=True)
class Preset:
    """A named set of models, one per role."""

    id: str
    name: str
    embed: str
    rerank: str
    expand: str
    gen: str

    def uri(self, role: str) -> str:
        return str(getattr(self, role))


PRESETS: dict[str, Preset] = {
    p.id: p
    for p in (
        Preset(
            "slim-tuned", "Slim Tuned", _QWEN_EMBED, _QWEN_RERANK,
            "hf:guiltylemon/gno-expansion-slim-retrieval-v1/gno-expansion-auto-entity-lock-default-mix-lr95-f16.gguf",
            _QWEN3_17B,
        ),
        Preset("slim", "Slim", _QWEN_EMBED, _QWEN_RERANK, _QWEN3_17B, _QWEN3_17B),
        Preset(
            "balanced", "Balanced", _QWEN_EMBED, _QWEN_RERANK,
            "hf:bartowski/Qwen2.5-3B-Instruct-GGUF/Qwen2.5-3B-Instruct-Q4_K_M.gguf",
            "hf:bartowski/Qwen2.5-3B-Instruct-GGUF/Qwen2.5-3B-Instruct-Q4_K_M.gguf",
        ),
        Preset(
            "quality", "Quality", _QWEN_EMBED, _QWEN_RERANK,
            "hf:unsloth/Qwen3-4B-Instruct-2507-GGUF/Qwen3-4B-Instruct-2507-Q4_K_M.gguf",
            "hf:unsloth/Qwen3-4B-Instruct-2507-GGUF/Qwen3-4B-Instruct-2507-Q4_K_M.gguf",
        ),
    )
}  # fmt: skip
DEFAULT_PRESET = "slim-tuned"

_HF_FILE = re.compile(r"^hf:([\w.-]+)/([\w.-]+)/(.+\.gguf)$", re.I)
_HF_QUANT = re.compile(r"^hf:([\w.-]+)/([\w.-]+):([\w.-]+)$")


@dataclass(frozen=True)
class ModelUri:
    """A parsed model URI: ``hf:org/repo/file.gguf``, ``hf:org/repo:QUANT``,
    ``file:/abs/path.gguf`` or ``http(s)://host:port/path#model``."""

    raw: str
    scheme: str  # "hf" | "file" | "http"
    repo: str | None = None  # org/repo
    filename: str | None = None
    quant: str | None = None
    path: str | None = None
    url: str | None = None
    model: str | None = None


def is_endpoint(uri: str) -> bool:
    """An OpenAI-compatible endpoint (``http(s)://…``): a model off this process, which
    the collection egress policy judges (gno/services/inference_egress.py)."""
    return uri.strip().startswith(("http://", "https://"))


def parse_model_uri(raw: str) -> ModelUri:
    text = raw.strip()
    if m := _HF_FILE.match(text):
        return ModelUri(text, "hf", repo=f"{m.group(1)}/{m.group(2)}", filename=m.group(3))
    if m := _HF_QUANT.match(text):
        return ModelUri(text, "hf", repo=f"{m.group(1)}/{m.group(2)}", quant=m.group(3))
    if text.startswith("file:"):
        path = text[len("file:") :]
        if path.startswith("//"):
            path = path[2:]
        path = expand_home(path)
        if not os.path.isabs(path):
            raise ValidationError(f"Model file URI needs an absolute path: {raw}")
        return ModelUri(text, "file", path=path)
    if text.startswith(("http://", "https://")):
        url, _, model = text.partition("#")
        return ModelUri(text, "http", url=url, model=model or None)
    raise ValidationError(
        f"Unsupported model URI {raw!r}: use hf:org/repo/file.gguf, hf:org/repo:QUANT, "
        "file:/abs/path.gguf or http(s)://host:port/path#model"
    )


def active_preset(config_raw: Mapping[str, Any]) -> Preset:
    models = config_raw.get("models") or {}
    preset_id = models.get("activePreset") or DEFAULT_PRESET
    for item in models.get("presets") or []:  # presets defined in index.yml win over built-ins
        if isinstance(item, dict) and item.get("id") == preset_id:
            base = PRESETS.get(preset_id, PRESETS[DEFAULT_PRESET])
            return Preset(preset_id, item.get("name", preset_id),
                          *(item.get(role) or base.uri(role) for role in ROLES))  # fmt: skip
    if preset_id not in PRESETS:
        raise ValidationError(f"Unknown model preset {preset_id!r} (one of {', '.join(PRESETS)})")
    return PRESETS[preset_id]


def preset_label(config_raw: Mapping[str, Any]) -> tuple[str, str]:
    """(id, name) of the active preset; an id index.yml names but nothing defines is
    reported as it is written (status still answers)."""
    try:
        preset = active_preset(config_raw)
    except ValidationError:
        raw = str((config_raw.get("models") or {}).get("activePreset", ""))
        return raw, raw
    return preset.id, preset.name


def role_uri(
    role: str,
    config_raw: Mapping[str, Any],
    collection_models: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] = os.environ,
) -> tuple[str, str]:
    """(URI, where it came from: "env" | "override" | "preset") for a role."""
    if override := environ.get(ENV_OVERRIDES[role], "").strip():
        return override, "env"
    if collection_models and (value := collection_models.get(role)):
        return str(value), "override"
    preset = active_preset(config_raw)
    uri = preset.uri(role) or (preset.gen if role == "expand" else "")
    return uri, "preset"
