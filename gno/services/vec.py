"""`gno vec sync` and `gno vec rebuild`: the KNN tables (sqlite-vec, two-bit codes) made to
agree with the stored vectors again. The float vectors (``text_vectors`` + ``chunk_vectors``)
are the only source of truth and neither command touches them, so a rebuild loses nothing:
it drops each vector set's table and refills it in one transaction.

Every vector set of the index is repaired, not only the active model's: a set kept for a
model used before is searched again when that model comes back."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gno.errors import UnavailableError

if TYPE_CHECKING:
    from gno_contracts.models.vec_input import VecInput
    from gno_contracts.models.vec_rebuild_result import VecRebuildResult
    from gno_contracts.models.vec_sync_result import VecSyncResult

    from gno.app import App


def _repaired(app: App, rebuild: bool) -> list[tuple[str, int, int, int]]:
    """Per vector set (model URI, added, removed, rows now); [] with no vector set at all,
    or none holding a vector while sqlite-vec is missing: nothing to repair."""
    store = app.store()
    sets = store.embed_model_uris()
    if not sets:
        return []
    if not store.load_vec():
        if not any(store.vector_count(model_id) for model_id in sets):
            return []
        raise UnavailableError(
            "The vector index needs sqlite-vec, which is not installed: pip install 'gno[models]'"
        )
    return store.repair_knn(rebuild)


def vec_sync(app: App, inp: VecInput) -> VecSyncResult:
    from gno_contracts.models.vec_sync_result import VecSyncResult

    sets = _repaired(app, rebuild=False)
    return VecSyncResult.model_validate(
        {
            "added": sum(s[1] for s in sets),
            "removed": sum(s[2] for s in sets),
            "model": app.embed_model_uri(),
            "vectorSets": [
                {"model": uri, "added": added, "removed": removed, "count": count}
                for uri, added, removed, count in sets
            ],
        }
    )


def vec_rebuild(app: App, inp: VecInput) -> VecRebuildResult:
    from gno_contracts.models.vec_rebuild_result import VecRebuildResult

    sets = _repaired(app, rebuild=True)
    return VecRebuildResult.model_validate(
        {
            "count": sum(s[3] for s in sets),
            "model": app.embed_model_uri(),
            "vectorSets": [{"model": uri, "count": count} for uri, _, _, count in sets],
        }
    )
