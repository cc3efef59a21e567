"""The record lane's writes, checked at their commit and counted from what they did there,
as ``sync_apply`` counts files. A CLI ``gno update`` beside a server's sync plans the same
records from the same index: whichever commits second finds them saved, brought back or
inactivated already, writes nothing of that, and reports those records unchanged — both
reported every record as added. Each write returns an ``AfterCommit`` that counts it once
its batch committed (``sync_apply._count``); ``RecordSync`` (services/sync_records.py)
queues them, and each container's report last, so it counts what its records came to."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from gno.core.records import container_dir
from gno.services.sync_tally import AfterCommit
from gno.sync_rows import ContainerState, DocState

if TYPE_CHECKING:
    from gno.ports import Store

Write = Callable[[], object]


class Tally(Protocol):
    inactivated: int

    def changed(self, rel_path: str, kind: str) -> None: ...


class Counts(Protocol):
    counts: Counter[str]  # record-import@1.0 counts of one container's import


class RecordCommits:
    def __init__(self, store: Store, collection: str, tally: Callable[[], Tally]) -> None:
        self.store = store
        self.collection = collection
        self.tally = tally

    def _changed(self, imp: Counts, rel: str, kind: str) -> AfterCommit:
        def report() -> None:
            imp.counts[kind] += 1
            self.tally().changed(rel, "added" if kind == "reactivated" else kind)

        return AfterCommit(report)

    @staticmethod
    def _unchanged(imp: Counts) -> AfterCommit:
        return AfterCommit(lambda: imp.counts.update(("unchanged",)))

    def save(
        self, imp: Counts, rel: str, planned: DocState | None, content_hash: str, write: Write
    ) -> Write:
        """``write`` (a record's document saved), unless another sync saved these same
        contents since this one read the row it planned from."""
        was = None if planned is None else (planned.id, planned.source_hash, planned.active)

        def guarded() -> object:
            now = self.store.document_by_path(self.collection, rel)
            moved = (None if now is None else (now.id, now.source_hash, now.active)) != was
            if moved and now is not None and now.active and now.source_hash == content_hash:
                return self._unchanged(imp)  # saved by another sync, from the same bytes
            write()
            return self._changed(imp, rel, "added" if now is None else "updated")

        return guarded

    def reactivate(self, imp: Counts, rel: str, doc_id: int) -> Write:
        """An unchanged record brought back, while it is still inactive at the commit."""

        def guarded() -> object:
            now = self.store.document_by_path(self.collection, rel)
            if now is None or now.id != doc_id or now.active:
                return self._unchanged(imp)
            self.store.reactivate(doc_id)
            return self._changed(imp, rel, "reactivated")

        return guarded

    def inactivate(
        self,
        imp: Counts | None,
        container: str,
        gone: list[tuple[str, int]],
        then: Callable[[], object] | None = None,
    ) -> Write:
        """The records a container no longer holds (or all of a removed one's) leave
        search; only those still active at the commit are inactivated and counted."""

        def guarded() -> object:
            states = self.store.record_states(self.collection, container_dir(container))
            still = [
                (path, doc_id)
                for path, doc_id in gone
                if (s := states.get(path)) is not None and s.id == doc_id and s.active
            ]
            if still:
                self.store.inactivate([doc_id for _, doc_id in still])
            if then is not None:
                then()

            def report() -> None:
                tally = self.tally()
                for path, _ in still:
                    tally.changed(path, "removed")
                tally.inactivated += len(still)
                if imp is not None:
                    imp.counts["inactivated"] += len(still)

            return AfterCommit(report)

        return guarded

    def settle(
        self,
        rel: str,
        planned: ContainerState | None,
        done: ContainerState,
        report: Callable[[str], None],
    ) -> Write:
        """The container's own outcome, ``report``ed once its records were counted:
        ``unchanged`` when another sync saved this same import of it since this one read
        its row, else ``added`` (new) or ``updated``."""

        def guarded() -> object:
            now = self.store.record_container(self.collection, rel)
            same = now is not None and (now.source_hash, now.fingerprint, now.complete) == (
                done.source_hash,
                done.fingerprint,
                done.complete,
            )
            if now != planned and same:
                status = "unchanged"
            else:
                status = "added" if planned is None else "updated"
            return AfterCommit(lambda: report(status))

        return guarded
