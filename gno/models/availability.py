"""Where a model's file is, and whether gno may fetch it — decided in milliseconds.

Download policy, first match wins (engine.md §9.5): ``--offline`` (sets
``GNO_OFFLINE``), ``HF_HUB_OFFLINE``, ``GNO_OFFLINE`` (cached only),
``GNO_NO_AUTO_DOWNLOAD`` (no automatic download; ``gno models pull`` may), else
automatic. A model that is not there and may not be fetched fails at once with
the command that fixes it; nothing waits on a network. When the policy allows it,
a missing ``hf:`` model is fetched through ``gno.models.pull`` (the code path of
``gno models pull``), which is imported only then.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from gno.errors import ModelUnavailableError
from gno.models.cache import hf_cache_path
from gno.models.catalog import ModelUri

_TRUE = {"1", "true", "yes"}


@dataclass(frozen=True)
class DownloadPolicy:
    offline: bool
    allow_auto_download: bool
    source: str  # "default" | "hf-hub-offline" | "gno-offline" | "no-auto-download"


def download_policy(environ: Mapping[str, str] = os.environ) -> DownloadPolicy:
    def flag(name: str) -> bool:
        return environ.get(name, "").strip().lower() in _TRUE

    if flag("HF_HUB_OFFLINE"):
        return DownloadPolicy(True, False, "hf-hub-offline")
    if flag("GNO_OFFLINE"):
        return DownloadPolicy(True, False, "gno-offline")
    if flag("GNO_NO_AUTO_DOWNLOAD"):
        return DownloadPolicy(False, False, "no-auto-download")
    return DownloadPolicy(False, True, "default")


def local_model_file(role: str, uri: ModelUri, models_dir: Path, policy: DownloadPolicy) -> Path:
    """The GGUF file to load for a role, or a ModelUnavailableError naming the fix.

    A cached file is returned at once; a missing ``hf:`` file is downloaded first when
    ``policy`` allows automatic downloads (a ModelDownloadError when that fails)."""
    if uri.scheme == "file":
        path = Path(uri.path or "")
        if path.is_file():
            return path
        raise ModelUnavailableError(f"Model file for {role} not found: {path}")
    if uri.scheme == "http":
        raise ModelUnavailableError(f"{uri.raw} is a remote endpoint, not a local file")
    cached = hf_cache_path(uri, models_dir)
    if cached is not None and cached.is_file():
        return cached
    if policy.allow_auto_download:
        from gno.models.progress import stderr_download_progress
        from gno.models.pull import fetch_model

        with stderr_download_progress() as progress:
            return fetch_model(role, uri, models_dir, progress=progress).path
    why = {
        "hf-hub-offline": "HF_HUB_OFFLINE is set",
        "gno-offline": "offline mode is on (--offline or GNO_OFFLINE)",
        "no-auto-download": "automatic downloads are off (GNO_NO_AUTO_DOWNLOAD)",
        "default": "it has not been downloaded",
    }[policy.source]
    fix = (
        f"gno models pull --{role}" if not policy.offline else f"gno models pull --{role} (online)"
    )
    raise ModelUnavailableError(
        f"The {role} model {uri.raw} is not in the model cache and {why}. "
        f"Run: {fix}, or point {role} at a local file with GNO_{role.upper()}_MODEL=file:/path/model.gguf"
    )
