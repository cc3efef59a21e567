"""Fetching an ``hf:`` model into gno's cache: ``gno models pull`` and automatic downloads.

Invariants:

- ``<models>/hf/<org>/<repo>/<file>`` only ever holds a complete file that passed
  validation. Bytes land in ``<models>/.partial/<key>/`` (same file system) and are
  renamed into place after the size, the GGUF header and, when the hub gave one, the
  SHA-256 check out; a file that fails is deleted and reported, never left behind.
- One process at a time writes a given file (a lock per ``<repo>/<file>``); another
  pull of the same file waits, then finds it cached and downloads nothing.
- A replaced file is swapped by rename, so a process that has the old one loaded keeps
  reading the old inode.
- Only ``hf:`` URIs are fetched; callers skip ``file:`` and ``http(s):`` models.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gno.errors import ModelDownloadError, ValidationError
from gno.models import manifest
from gno.models.cache import hf_cache_path
from gno.models.catalog import ModelUri
from gno.models.locks import cache_lock, lock_path
from gno.models.progress import DownloadProgress
from gno.models.quant import pick_quant_file

_SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class Fetched:
    path: Path
    downloaded: bool  # False: the file was already in the cache
    size: int
    sha256: str | None  # known when this call downloaded it


def fetch_model(
    role: str,
    uri: ModelUri,
    models_dir: Path,
    *,
    force: bool = False,
    progress: DownloadProgress | None = None,
) -> Fetched:
    """The cached file of an ``hf:`` URI, downloaded first when missing (or when ``force``)."""
    if uri.scheme != "hf" or not uri.repo:
        raise ValidationError(f"Only hf: models can be downloaded, not {uri.raw}")
    if not force and (cached := hf_cache_path(uri, models_dir)) and cached.is_file():
        return _already_cached(models_dir, cached, role)
    client = _hub_client()
    filename = uri.filename or _resolve_quant(client, uri)
    target = _target(models_dir, uri.repo, filename)
    key = f"{uri.repo}/{filename}"
    label = f"{role}: {filename}"

    def waiting() -> None:
        if progress is not None:
            progress(f"{label} (waiting for another download)", 0, None)

    with cache_lock(models_dir, key, on_wait=waiting):
        if not force and target.is_file():  # another process finished it while we waited
            return _already_cached(models_dir, target, role)
        staging = models_dir / ".partial" / lock_path(models_dir, key).stem
        shutil.rmtree(staging, ignore_errors=True)  # leftovers of a killed pull
        staging.mkdir(parents=True)
        try:
            report = (lambda done, total: progress(label, done, total)) if progress else None
            remote = client.download(uri.repo, filename, staging, report)
            digest = _validate(remote.path, filename, remote.size, remote.etag)
            size = remote.path.stat().st_size
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(remote.path, target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        if progress is not None:
            progress(label, size, size)
        manifest.record_pull(
            models_dir,
            {
                "uri": uri.raw,
                "roles": [role],
                "path": str(target),
                "size": size,
                "sha256": digest,
                "etag": remote.etag,
                "revision": remote.revision,
                "pulledAt": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
            },
        )
    return Fetched(target, True, size, digest)


def _already_cached(models_dir: Path, path: Path, role: str) -> Fetched:
    manifest.note_role(models_dir, path, role)
    return Fetched(path, False, path.stat().st_size, None)


def _hub_client() -> Any:
    try:
        from gno.adapters.hf_hub import client
    except ImportError as exc:
        raise ModelDownloadError(
            f"Model downloads need huggingface_hub ({exc.name} is missing): pip install 'gno[models]'"
        ) from None
    return client


def _resolve_quant(client: Any, uri: ModelUri) -> str:
    files = client.list_files(uri.repo)
    picked = pick_quant_file(files, uri.quant or "")
    if picked is None:
        ggufs = [f for f in files if f.lower().endswith(".gguf")]
        shown = ", ".join(ggufs[:8]) + (", …" if len(ggufs) > 8 else "") if ggufs else "none"
        raise ModelDownloadError(
            f"{uri.repo} has no single-file GGUF named with {uri.quant} (GGUF files: {shown})"
        )
    return picked


def _target(models_dir: Path, repo: str, filename: str) -> Path:
    """``<models>/hf/<repo>/<filename>``; names that could leave the cache are refused."""
    parts = [*repo.split("/"), *filename.split("/")]
    if any(not p or p in (".", "..") or p.startswith(".") or "\\" in p for p in parts):
        raise ValidationError(
            f"Unsafe model path {repo}/{filename}: no empty, hidden or '..' parts"
        )
    return models_dir / "hf" / repo / filename


def _validate(path: Path, filename: str, size: int | None, etag: str | None) -> str:
    """The SHA-256 of a good download; a bad one is deleted and raises ModelDownloadError."""
    from gno.adapters.llama.gguf import read_gguf_metadata

    problem = None
    actual = path.stat().st_size
    if size is not None and actual != size:
        problem = f"it has {actual} bytes where the hub announced {size}"
    else:
        try:
            read_gguf_metadata(path)
        except (ValueError, OSError) as exc:
            problem = f"it is not a valid GGUF file ({exc})"
    digest = ""
    if problem is None:
        with path.open("rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()
        expected = (etag or "").lower()
        if _SHA256.match(expected) and digest != expected:
            problem = f"its SHA-256 {digest[:12]}… differs from the hub's {expected[:12]}…"
    if problem is not None:
        path.unlink(missing_ok=True)
        raise ModelDownloadError(f"Downloaded {filename}, but {problem}; the file was removed")
    return digest
