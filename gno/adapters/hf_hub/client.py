"""Listing and downloading files of a model repo with ``huggingface_hub``.

``download`` first asks the hub for the file's metadata (commit, ETag, size) with
``get_hf_file_metadata``, then downloads that exact commit with ``hf_hub_download``
into a private staging folder, so what gno validates is what the metadata
described even if the repo changes meanwhile. Failures are never retried here
beyond what ``huggingface_hub`` does itself: a pull reports them and can be rerun.

The hub (or whatever ``HF_ENDPOINT`` names) is not trusted with the disk:
``huggingface_hub`` writes every byte a body holds and compares the size only at the
end, so a body longer than announced, or one that never ends, would fill the disk.
gno's progress bar sees each chunk before it is written and stops the download at the
first byte past the size the metadata announced (past ``MAX_HTTP_DOWNLOAD_SIZE``, the
hub's own 50 GB ceiling for such downloads, when it announced none).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import huggingface_hub
from huggingface_hub import errors as hub_errors
from huggingface_hub.utils import logging as hub_logging

from gno.errors import ModelDownloadError

ByteProgress = Callable[[int, int | None], None]  # (bytes done, bytes total or None)

# gno reports failures itself; the hub's own warnings would also break `--json` error output.
hub_logging.set_verbosity_error()


@dataclass(frozen=True)
class RemoteFile:
    """A file downloaded into the staging folder, with what the hub said about it."""

    path: Path
    size: int | None  # announced by the hub
    etag: str | None  # for LFS files (every GGUF on the hub) the SHA-256 of the content
    revision: str | None  # commit the bytes come from


def endpoint() -> str:
    return huggingface_hub.constants.ENDPOINT


def list_files(repo: str) -> list[str]:
    """Every file path of the repo's main revision."""
    try:
        return list(huggingface_hub.HfApi().list_repo_files(repo))
    except Exception as exc:
        raise hub_error(exc, repo, None) from None


class OversizeError(Exception):
    """The body went past the size the hub announced (raised before the chunk is written)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"more than the {limit} bytes announced")
        self.limit = limit


def download(repo: str, filename: str, staging: Path, report: ByteProgress | None) -> RemoteFile:
    """Download ``repo``/``filename`` to ``staging``/``filename`` (staging is gno's own folder)."""
    try:
        url = huggingface_hub.hf_hub_url(repo, filename)
        meta = huggingface_hub.get_hf_file_metadata(url)
        limit = (
            meta.size if meta.size is not None else huggingface_hub.constants.MAX_HTTP_DOWNLOAD_SIZE
        )
        local = huggingface_hub.hf_hub_download(
            repo,
            filename,
            revision=meta.commit_hash,
            local_dir=staging,
            cache_dir=staging / ".hub-cache",  # never read or fill the user's own HF cache
            tqdm_class=_forwarding_bar(report or _ignore, limit),  # never the hub's own bars
        )
    except Exception as exc:
        raise hub_error(exc, repo, filename) from None
    return RemoteFile(Path(str(local)), meta.size, meta.etag, meta.commit_hash)


def hub_error(exc: Exception, repo: str, filename: str | None) -> ModelDownloadError:
    """A hub failure as one sentence a user can act on."""
    what = f"{repo}/{filename}" if filename else repo
    if isinstance(exc, hub_errors.GatedRepoError):
        why = f"The repo {repo} is gated: accept its terms on the hub and set HF_TOKEN"
    elif isinstance(exc, hub_errors.RepositoryNotFoundError):
        why = f"The hub has no repo {repo} (or it is private: set HF_TOKEN)"
    elif isinstance(exc, hub_errors.RevisionNotFoundError):
        why = f"The hub has no main revision of {repo}"
    elif isinstance(exc, hub_errors.RemoteEntryNotFoundError):
        why = f"The repo {repo} has no file {filename}"
    elif isinstance(exc, hub_errors.HfHubHTTPError) and exc.response is not None:
        why = f"The hub answered HTTP {exc.response.status_code} for {what}"
    elif isinstance(exc, OversizeError):
        why = f"The hub sent {what} with {exc}; the download was stopped there"
    elif isinstance(exc, hub_errors.OfflineModeIsEnabled):
        why = "The hub client is in offline mode (HF_HUB_OFFLINE)"
    else:
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        why = f"Downloading {what} from {endpoint()} failed ({type(exc).__name__}: {detail})"
    return ModelDownloadError(why)


def _ignore(done: int, total: int | None) -> None:
    pass


def _forwarding_bar(report: ByteProgress, limit: int) -> type:
    """A tqdm class that draws nothing, forwards (done, total) to ``report`` and raises
    ``OversizeError`` once more than ``limit`` bytes came.

    ``huggingface_hub`` drives progress through a tqdm class; gno draws its own bar. The
    hub's download loop counts each chunk here before it writes it, so this is the one
    place that can stop an endless body before the disk holds it."""
    from tqdm.std import tqdm

    class _Null:
        def write(self, text: str) -> None:
            pass

        def flush(self) -> None:
            pass

    class ForwardingBar(tqdm):
        monitor_interval = 0  # no tqdm monitor thread

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.pop("name", None)
            kwargs.update(disable=False, file=_Null(), mininterval=0.1)
            super().__init__(*args, **kwargs)

        def update(self, n: float | None = 1) -> bool | None:
            shown = super().update(n)
            if self.n > limit:
                raise OversizeError(limit)
            return shown

        # tqdm's close() reads this result (its stubs say None).
        def display(self, msg: Any = None, pos: Any = None) -> bool:  # type: ignore[override]
            report(int(self.n), int(self.total) if self.total else None)
            return True

        # Having these makes Xet downloads drive one bar (bytes on disk), not two.
        def update_transfer(self, n: int) -> None:
            pass

        def set_transfer_postfix_str(self, text: str, refresh: bool = True) -> None:
            pass

    return ForwardingBar
