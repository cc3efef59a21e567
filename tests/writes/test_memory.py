"""Memory: remember outcomes, supersession, fencing, and budgeted recall on real files."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from gno_contracts.models.recall_input import RecallInput
from gno_contracts.models.remember_input import RememberInput

from gno.app import App
from gno.errors import (
    GnoError,
    MemoryFencedDerivedError,
    MemoryFencedReplayError,
    MemorySupersedeConflictError,
    ValidationError,
)
from gno.services.memory import fact_hash, recall, remember
from tests.conftest import sync


@pytest.fixture
def memory_app(make_app):
    app, root = make_app({".keep": ""}, name="memory")
    config = app.config
    config.collections[0].extra["memoryManaged"] = True
    app.save_config(config)
    return app, root


def _remember(app: App, text: str, **fields: object):
    return remember(
        app,
        RememberInput.model_validate(
            {"text": text, "collection": "memory", "scopes": ["project:gno"], **fields}
        ),
    )


def _recall(app: App, query: str, **fields: object):
    return recall(
        app,
        RecallInput.model_validate(
            {"query": query, "collection": "memory", "scopes": ["project:gno"], **fields}
        ),
    )


def _facts_on_disk(root: Path) -> list[Path]:
    return sorted(root.rglob("mem-*.md"))


def test_candidates_then_add_then_existing(memory_app) -> None:
    app, root = memory_app
    first = _remember(app, "Finn prefers trams over buses.")
    assert (
        first.outcome.value == "candidates"
        and first.candidates == []
        and _facts_on_disk(root) == []
    )
    added = _remember(app, "Finn prefers trams over buses.", decision="add")
    assert added.outcome.value == "added" and added.sync.status.value == "completed"
    assert added.fact is not None and added.fact.uri.startswith("gno://memory/facts/")
    assert len(_facts_on_disk(root)) == 1
    again = _remember(app, "  Finn   prefers trams over buses. ", decision="add")
    assert again.outcome.value == "existing" and len(_facts_on_disk(root)) == 1
    similar = _remember(app, "Finn prefers trams on weekdays.")
    assert similar.outcome.value == "candidates" and [c.uri for c in similar.candidates] == [
        added.fact.uri
    ]


def test_recall_returns_current_facts_in_scope_within_budget(memory_app) -> None:
    app, _ = memory_app
    _remember(app, "Finn prefers trams over buses.", decision="add")
    _remember(app, "Finn owns a red bicycle.", decision="add")
    remember(
        app,
        RememberInput(
            text="Finn likes trams in Berlin.",
            collection="memory",
            scopes=["other"],
            decision="add",
        ),
    )
    got = _recall(app, "what does Finn prefer trams bicycle")
    texts = sorted(f.text for f in got.facts)
    assert texts == [
        "Finn owns a red bicycle.",
        "Finn prefers trams over buses.",
    ]  # the other scope stays out
    assert got.retrieval.mode.value == "lexical" and len(got.receipt.spanHashes) == 2
    one = _recall(app, "Finn trams bicycle", maxFacts=1)
    assert len(one.facts) == 1 and one.truncated
    tight = _recall(app, "Finn trams bicycle", maxTokens=3)
    assert tight.facts == [] and tight.truncated and tight.budget.usedTokens == 0
    empty = _recall(app, "zebra")
    assert empty.facts == [] and empty.hint and "gno remember" in empty.hint


def test_supersede_replaces_the_fact_and_a_second_supersede_conflicts(memory_app) -> None:
    app, root = memory_app
    old = _remember(app, "Finn prefers trams.", decision="add").fact
    assert old is not None
    new = _remember(
        app,
        "Finn prefers bikes now.",
        decision="supersede",
        predecessorUri=old.uri,
        predecessorHash=old.contentHash,
    )
    assert (
        new.outcome.value == "superseded"
        and new.superseded is not None
        and new.superseded.uri == old.uri
    )
    got = _recall(app, "Finn prefers trams bikes")
    assert [f.text for f in got.facts] == ["Finn prefers bikes now."]
    assert len(_facts_on_disk(root)) == 2  # history stays on disk, only current facts are recalled
    with pytest.raises(MemorySupersedeConflictError) as caught:
        _remember(
            app,
            "Finn prefers cars.",
            decision="supersede",
            predecessorUri=old.uri,
            predecessorHash=old.contentHash,
        )
    assert caught.value.code == "MEMORY_SUPERSEDE_CONFLICT"
    assert new.fact is not None
    with pytest.raises(MemorySupersedeConflictError):
        _remember(
            app,
            "Finn prefers cars.",
            decision="supersede",
            predecessorUri=new.fact.uri,
            predecessorHash="sha256:" + "0" * 64,
        )


def test_concurrent_supersedes_one_wins(memory_app) -> None:
    app, _ = memory_app
    old = _remember(app, "The build uses make.", decision="add").fact
    assert old is not None
    outcomes: list[object] = []

    def attempt(text: str) -> None:
        mine = App(app.paths)
        try:
            outcomes.append(
                _remember(
                    mine,
                    text,
                    decision="supersede",
                    predecessorUri=old.uri,
                    predecessorHash=old.contentHash,
                )
            )
        except GnoError as exc:
            outcomes.append(exc)
        finally:
            mine.close()

    threads = [
        threading.Thread(target=attempt, args=(f"The build uses tool {i}.",)) for i in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    kinds = sorted(type(o).__name__ for o in outcomes)
    assert kinds == ["MemoryRemember", "MemorySupersedeConflictError"]


def test_fenced_replays_and_derived_inputs_are_refused(memory_app) -> None:
    app, root = memory_app
    _remember(app, "Finn prefers trams.", decision="add")
    receipt = _recall(app, "Finn trams").receipt.model_dump(mode="json")
    with pytest.raises(MemoryFencedReplayError):
        _remember(app, "Finn prefers  trams.", decision="add", receipt=receipt)
    with pytest.raises(MemoryFencedDerivedError):
        _remember(app, "Something new.", decision="add", derivedFrom=["gno://notes/a.md"])
    assert len(_facts_on_disk(root)) == 1


def test_memory_needs_a_memory_managed_collection(make_app) -> None:
    app, _ = make_app({"a.md": "# A\n"})
    with pytest.raises(ValidationError):
        remember(app, RememberInput(text="x", collection="notes", scopes=["s"], decision="add"))
    with pytest.raises(ValidationError):
        recall(app, RecallInput(query="x", collection="notes", scopes=["s"]))


def test_a_supersede_changes_only_the_memory_entry_of_an_annotated_fact(memory_app) -> None:
    """A person may annotate a fact file (a title, tags, a comment, notes under it, CRLF
    line ends): marking it superseded keeps every one of those bytes."""
    app, root = memory_app
    old = _remember(app, "Finn prefers trams.", decision="add").fact
    assert old is not None
    (path,) = _facts_on_disk(root)
    written = path.read_bytes().decode()
    head, _, body = written.removeprefix("---\n").partition("---\n")
    annotated = (
        "---\r\ntitle: Trams  # mine\r\ntags:\r\n  - keep\r\n"
        + head.replace("\n", "\r\n")
        + "---\r\n"
        + body.replace("\n", "\r\n")
        + "\r\nMore notes, by hand.\r\n"
    )
    path.write_bytes(annotated.encode())
    sync(app)
    new = _remember(
        app,
        "Finn prefers bikes now.",
        decision="supersede",
        predecessorUri=old.uri,
        predecessorHash=old.contentHash,
    )
    assert new.outcome.value == "superseded" and new.fact is not None
    marker = f"  supersededBy: {new.fact.uri}\r\n"
    expected = annotated.replace("\r\n---\r\n", "\r\n" + marker + "---\r\n", 1)
    # Before: the file was rewritten from its memory entry alone (title, tags, the comment
    # and the CRLF line ends gone).
    assert path.read_bytes() == expected.encode()
    assert _recall(app, "Finn prefers trams bikes").facts[0].text == "Finn prefers bikes now."


def test_a_supersede_keeps_a_multi_line_source_of_the_fact(memory_app) -> None:
    """YAML writes a multi-line value with blank lines inside its quotes: the memory entry
    is replaced whole, blank lines and all (a cut at the first blank line left the rest of
    the old entry behind, and the file's frontmatter broken)."""
    app, root = memory_app
    source = "meeting notes\n\nsecond paragraph"
    old = _remember(app, "Finn prefers trams.", decision="add", source=source).fact
    assert old is not None
    new = _remember(
        app,
        "Finn prefers bikes now.",
        decision="supersede",
        predecessorUri=old.uri,
        predecessorHash=old.contentHash,
    )
    assert new.fact is not None
    (path,) = (p for p in _facts_on_disk(root) if p.stem in old.uri)
    import yaml

    meta = yaml.safe_load(path.read_text().split("---\n")[1])["memory"]
    assert meta["source"] == source and meta["supersededBy"] == new.fact.uri


def test_a_supersede_of_a_fact_with_two_memory_entries_writes_nothing(memory_app) -> None:
    """A loader reads the last ``memory:``; gno marked the first superseded, so the old fact
    stayed current beside the new one. Now the supersede is refused before any write."""
    app, root = memory_app
    old = _remember(app, "Finn prefers trams.", decision="add").fact
    assert old is not None
    (path,) = _facts_on_disk(root)
    head, _, body = path.read_text().removeprefix("---\n").partition("---\n")
    doubled = "---\nmemory:\n  note: an old hand-written entry\n" + head + "---\n" + body
    path.write_text(doubled)
    sync(app)
    (current,) = [f for f in _recall(app, "Finn prefers trams").facts]
    with pytest.raises(ValidationError, match="2 top-level 'memory' entries"):
        _remember(
            app,
            "Finn prefers bikes now.",
            decision="supersede",
            predecessorUri=current.uri,
            predecessorHash=current.contentHash,
        )
    assert _facts_on_disk(root) == [path] and path.read_text() == doubled


def test_an_editors_save_of_the_predecessor_during_a_supersede_stays(
    memory_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person saves the old fact (an editor takes no writer lease) after gno read it and
    before gno's marked copy replaces it: the supersede is refused, the person's bytes stay,
    and no successor is left on disk naming a predecessor that does not name it back."""
    import gno.file_writes as file_writes

    app, root = memory_app
    old = _remember(app, "Finn prefers trams.", decision="add").fact
    assert old is not None
    (old_path,) = _facts_on_disk(root)
    edited = old_path.read_bytes() + b"\nA note the person typed.\n"
    real_temp_name = file_writes.temp_name
    saves = []

    def editor_saves_first(name: str) -> str:
        if name == old_path.name and not saves:
            old_path.write_bytes(edited)
            saves.append(name)
        return real_temp_name(name)

    monkeypatch.setattr(file_writes, "temp_name", editor_saves_first)
    with pytest.raises(MemorySupersedeConflictError) as caught:
        _remember(
            app,
            "Finn prefers bikes now.",
            decision="supersede",
            predecessorUri=old.uri,
            predecessorHash=old.contentHash,
        )
    assert saves == [old_path.name]  # the save happened inside the write
    assert "saved by an editor" in str(caught.value)
    assert old_path.read_bytes() == edited
    assert _facts_on_disk(root) == [old_path]


def test_a_successor_that_cannot_be_written_leaves_the_predecessor_current(
    memory_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gno.services.memory as memory

    app, root = memory_app
    old = _remember(app, "Finn prefers trams.", decision="add").fact
    assert old is not None
    (old_path,) = _facts_on_disk(root)
    before = old_path.read_bytes()
    failed = []

    def disk_full(*_: object, **__: object) -> None:
        failed.append(old_path.read_bytes())  # the predecessor is marked by now
        raise GnoError("Cannot write 'facts/…': No space left on device")

    monkeypatch.setattr(memory, "write_file", disk_full)
    with pytest.raises(GnoError, match="No space left"):
        _remember(
            app,
            "Finn prefers bikes now.",
            decision="supersede",
            predecessorUri=old.uri,
            predecessorHash=old.contentHash,
        )
    assert len(failed) == 1 and b"supersededBy" in failed[0]
    assert old_path.read_bytes() == before
    assert [f.text for f in _recall(app, "Finn trams").facts] == ["Finn prefers trams."]


def test_a_hand_edited_fact_with_odd_memory_fields_breaks_no_recall(memory_app) -> None:
    """The files are the truth, and people edit them: a ``contentHash`` that is a list (or
    an ``id`` that is a mapping) made every recall of the collection an internal error
    (the answer failed its own schema). Such a fact answers its text's own hash, which a
    supersede then accepts, and its path as its memory id."""
    app, root = memory_app
    odd = root / "facts" / "2026-01-01" / "mem-odd.md"
    odd.parent.mkdir(parents=True)
    odd.write_text(
        "---\nmemory:\n  id: {a: 1}\n  scopes: [project:gno, 5]\n  contentHash: [1]\n"
        "  createdAt: 2026-01-01\n---\n\nThe odd okapi fact\n"
    )
    sync(app)
    recalled = _recall(app, "okapi")
    [fact] = recalled.facts
    assert fact.contentHash == fact_hash("The odd okapi fact")
    assert recalled.receipt.memoryIds == ["facts/2026-01-01/mem-odd.md"]
    assert _remember(app, "The odd okapi fact", decision="add").outcome.value == "existing"
    done = _remember(
        app,
        "The even okapi fact",
        decision="supersede",
        predecessorUri=fact.uri,
        predecessorHash=fact.contentHash,
    )
    assert done.outcome.value == "superseded"
    assert [f.text for f in _recall(app, "okapi").facts] == ["The even okapi fact"]
