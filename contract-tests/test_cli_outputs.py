"""Every CLI command, run as a real process with --json against a small real
corpus, prints what its registry output schema promises (errors: error@1.0 on
stderr, empty stdout, the documented exit code) and behaves as documented."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from contract_helpers import (
    MISC,
    NOTES,
    Indexed,
    assert_valid,
    gno_err,
    gno_ok,
    op_for_cli,
    operations,
    write_tree,
)

ALL_FILES = len(NOTES) + len(MISC)


def uri(rel: str, coll: str = "notes") -> str:
    return f"gno://{coll}/{rel}"


def uris(payload: dict[str, Any], key: str = "results") -> list[str]:
    return [item["uri"] for item in payload[key]]


def search(ix: Indexed, *args: str) -> dict[str, Any]:
    """Run a search (schema-validated) and check the invariants every result set keeps."""
    payload = ix.ok("search", *args, "--json")
    hits = payload["results"]
    assert payload["meta"]["totalResults"] == len(hits)
    assert payload["meta"]["mode"] == "bm25"
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True), "results are not ordered by score"
    assert len(set(uris(payload))) == len(hits), "a document appears twice"
    for h in hits:
        assert h["uri"].endswith("/" + h["source"]["relPath"])
    return payload


# refs, a glob and a missing ref
MULTI = ("multi-get", "notes/sub/gamma.md", "notes/*.md", "gno://notes/missing.md", "--json")

# Read-only commands whose stdout is schema-checked; the `indexed` fixture runs
# them once, in parallel, and the behaviour tests below read the same answers.
READ_COMMANDS: list[list[str]] = [
    ["search", "zephyrquartz", "--json"],
    ["search", "lighthouse", "--json", "-n", "2"],
    ["search", "lighthouse", "-c", "misc", "--json"],
    ["search", "lighthouse", "--tags-any", "urgent,japanese", "--json"],
    ["search", "lighthouse", "--tags-all", "project,urgent", "--json"],
    ["search", "lighthouse", "--since", "2024-01-01", "--json", "-n", "20"],
    ["search", '"tail sampling"', "--json"],
    ["search", "tail", "sampling", "--json"],
    ["search", "lighthouse -tail", "--json", "-n", "20"],
    ["search", "xylophonequasar", "--json"],
    ["search", "図書館", "--json"],
    ["search", "biblioteca", "--lang", "es", "--json"],
    ["search", "lighthouse", "--author", "Ada", "--source", "--json"],
    ["query", "lighthouse", "--json", "--explain"],  # no vectors here: bm25_only
    ["query", "where does the lighthouse beacon shine", "--fast", "--json", "-c", "notes"],
    ["query", "lighthouse", "--query-mode", "term:beacon", "--json"],
    ["get", "notes/alpha.md", "--json"],
    ["get", "gno://notes/beta.md:7", "--json"],
    ["get", "gno://notes/alpha.md", "--from", "2", "-l", "1", "--json"],
    ["get", "notes/japanese.md", "--json"],
    list(MULTI),
    ["multi-get", "notes/alpha.md,notes/beta.md", "--max-bytes", "60", "--json"],
    ["ls", "--json", "-n", "100"],
    ["ls", "notes", "--json", "-n", "100"],
    ["ls", "gno://notes/sub/", "--json"],
    ["ls", "--json", "-n", "3", "--offset", "2"],
    ["status", "--json"],
    ["peek", "--json"],
    ["collection", "list", "--json"],
    ["models", "list", "--json"],
    ["models", "path", "--json"],
    ["doctor", "--json"],
    ["skill", "paths", "--json"],
    ["context", "build", "lighthouse", "keeper", "--budget", "12000", "--fast", "--json"],
    ["context", "list", "--json"],
    ["context", "check", "--json"],
    ["ask", "lighthouse", "--json"],  # retrieval only: no model needed
    ["metadata", "-c", "notes", "--values", "2", "--json"],  # lane records
]

# Write commands exercised by the fixture and by test_collection_lifecycle.
LIFECYCLE_COMMANDS = {
    "init",
    "collection add",
    "collection list",
    "collection rename",
    "collection remove",
    "update",
    "cleanup",
    "ls",
    "status",
}
MODEL_COMMANDS = {  # exercised by test_cli_models.py and test_cli_models_pull.py
    "embed",
    "vsearch",
    "index",
    "models clear",
    "models pull",
    "models use",
}
MCP_COMMANDS = {"mcp install", "mcp status", "mcp uninstall"}  # by test_cli_mcp_install.py
WRITE_COMMANDS = {"capture", "tags add", "tags rm", "remember", "recall"}  # test_writes_surfaces
REFACTOR_COMMANDS = {"rename", "move"}  # by test_refactor_surfaces.py
AUDIT_COMMANDS = {"audit"}  # exit 4 with findings: by test_cli_audit.py
EGRESS_COMMANDS = {  # by test_egress_mcp.py (receipts need a caller off this machine)
    "collection policy get",
    "collection policy set",
    "collection policy check",
    "egress-audit list",
    "egress-audit show",
    "egress-audit status",
    "egress-audit delete",
    "egress-audit purge",
}
MAINTENANCE_COMMANDS = {
    "reset",
    "vec sync",
    "vec rebuild",
}  # tests/surfaces/test_cli_{reset,vec}.py
SPELLING_COMMANDS = {"collection clear-embeddings"}  # by tests/surfaces/test_cli_spellings.py
# by tests/surfaces/test_setup_doctor.py and tests/surfaces/test_connectors.py (temp homes)
SETUP_COMMANDS = {"setup", "skill install", "skill uninstall", "skill show"}
CONTEXT_COMMANDS = {  # by test_cli_context.py and test_rest_context.py
    "context add",
    "context rm",
    "context verify",
    "context watch",
    "context watches",
    "context unwatch",
    "context reverify",
}
TRACE_COMMANDS = {  # by test_trace_surfaces.py
    "trace list",
    "trace show",
    "trace label",
    "trace export",
    "trace replay",
    "trace delete",
    "trace purge",
}
GRAPH_COMMANDS = {  # by test_graph_surfaces.py
    "links",
    "backlinks",
    "similar",
    "graph",
    "graph query",
    "tags list",
    "changes",
    "diff",
    "impact",
}


def test_every_cli_operation_is_exercised() -> None:
    exercised = (
        {op_for_cli(argv).cli for argv in READ_COMMANDS}
        | LIFECYCLE_COMMANDS
        | MODEL_COMMANDS
        | MCP_COMMANDS
        | WRITE_COMMANDS
        | REFACTOR_COMMANDS
        | AUDIT_COMMANDS
        | EGRESS_COMMANDS
        | SPELLING_COMMANDS
        | MAINTENANCE_COMMANDS
        | SETUP_COMMANDS
        | CONTEXT_COMMANDS
        | GRAPH_COMMANDS
        | TRACE_COMMANDS
    )
    assert exercised == {op.cli for op in operations() if op.cli}


@pytest.mark.parametrize("argv", READ_COMMANDS, ids=lambda a: " ".join(a))
def test_command_output_matches_schema(indexed: Indexed, argv: list[str]) -> None:
    indexed.ok(*argv)  # exit 0, stdout JSON valid against the operation's output schema


# ------------------------------------------------------------------ setup outputs


def test_setup_outputs(indexed: Indexed) -> None:
    init = indexed.setup_output("init")
    assert init["created"] is True
    assert "collection" not in init
    for label, name, root in (
        ("add_notes", "notes", indexed.notes),
        ("add_misc", "misc", indexed.misc),
    ):
        change = indexed.setup_output(label)
        assert change["action"] == "added"
        assert change["collection"]["name"] == name
        assert Path(change["collection"]["path"]).resolve() == root.resolve()


def test_first_update_adds_every_file(indexed: Indexed) -> None:
    first = indexed.setup_output("update")
    per = {c["collection"]: c for c in first["collections"]}
    assert set(per) == {"notes", "misc"}
    assert per["notes"]["filesAdded"] == len(NOTES)
    assert per["misc"]["filesAdded"] == len(MISC)
    assert first["totalFilesAdded"] == ALL_FILES
    assert first["totalFilesErrored"] == 0
    assert all(c["errors"] == [] for c in first["collections"])


def test_second_update_changes_nothing(indexed: Indexed) -> None:
    again = indexed.setup_output("update_again")
    assert again["totalFilesAdded"] == 0
    assert again["totalFilesUpdated"] == 0
    assert again["totalFilesErrored"] == 0
    for c in again["collections"]:
        assert (
            c["filesUnchanged"]
            == c["filesProcessed"]
            == (len(NOTES) if c["collection"] == "notes" else len(MISC))
        )
        assert c["filesAdded"] == c["filesUpdated"] == c["filesMarkedInactive"] == 0


# ------------------------------------------------------------------ search


def test_unique_term_finds_its_only_file(indexed: Indexed) -> None:
    payload = search(indexed, "zephyrquartz")
    assert uris(payload) == [uri("alpha.md")]
    hit = payload["results"][0]
    assert hit["title"] == "Alpha Notes"
    assert {"project", "urgent", "kanban"} <= set(hit["tags"])  # frontmatter + #hashtag
    assert hit["source"]["documentDate"].startswith("2024-03-15")
    assert "zephyrquartz" in hit["snippet"]
    ls_docids = {d["uri"]: d["docid"] for d in indexed.ok("ls", "--json", "-n", "100")["documents"]}
    assert hit["docid"] == ls_docids[uri("alpha.md")]


def test_limit_caps_results(indexed: Indexed) -> None:
    assert len(search(indexed, "lighthouse -tail", "-n", "20")["results"]) >= 5
    assert len(search(indexed, "lighthouse", "-n", "2")["results"]) == 2


def test_collection_filter(indexed: Indexed) -> None:
    payload = search(indexed, "lighthouse", "-c", "misc")
    assert uris(payload) == [uri("readme.md", "misc")]
    assert payload["meta"]["collection"] == "misc"


def test_tags_any_returns_only_tagged_docs(indexed: Indexed) -> None:
    payload = search(indexed, "lighthouse", "--tags-any", "urgent,japanese")
    assert set(uris(payload)) == {uri("alpha.md"), uri("japanese.md")}
    for hit in payload["results"]:
        assert {"urgent", "japanese"} & set(hit["tags"])
    assert sorted(payload["meta"]["tagsAny"]) == ["japanese", "urgent"]


def test_tags_all_requires_every_tag(indexed: Indexed) -> None:
    payload = search(indexed, "lighthouse", "--tags-all", "project,urgent")
    assert uris(payload) == [uri("alpha.md")]


def test_since_drops_older_documents(indexed: Indexed) -> None:
    payload = search(indexed, "lighthouse", "--since", "2024-01-01", "-n", "20")
    found = set(uris(payload))
    assert uri("alpha.md") in found and uri("japanese.md") in found
    assert uri("beta.md") not in found  # dated 2023-01-10
    assert uri("sub/delta.md") not in found  # dated 2022-07-01
    assert payload["meta"]["since"].startswith("2024-01-01")


def test_phrase_requires_adjacent_terms(indexed: Indexed) -> None:
    loose = set(uris(search(indexed, "tail", "sampling")))
    assert {uri("beta.md"), uri("sub/gamma.md")} <= loose
    assert uris(search(indexed, '"tail sampling"')) == [uri("beta.md")]


def test_negation_excludes_documents(indexed: Indexed) -> None:
    found = set(uris(search(indexed, "lighthouse -tail", "-n", "20")))
    assert uri("alpha.md") in found
    assert not found & {uri("beta.md"), uri("sub/gamma.md")}


def test_query_without_hits(indexed: Indexed) -> None:
    payload = search(indexed, "xylophonequasar")
    assert payload["results"] == []
    assert payload["meta"]["totalResults"] == 0
    assert payload["meta"]["query"] == "xylophonequasar"


def test_japanese_query(indexed: Indexed) -> None:
    payload = search(indexed, "図書館")
    assert uris(payload) == [uri("japanese.md")]
    assert payload["results"][0]["snippetLanguage"] == "ja"


def test_spanish_query_with_lang_filter(indexed: Indexed) -> None:
    payload = search(indexed, "biblioteca", "--lang", "es")
    assert uris(payload) == [uri("spanish.md")]
    assert payload["results"][0]["snippetLanguage"] == "es"
    assert payload["meta"]["lang"] == "es"


def test_author_filter_and_source_path(indexed: Indexed) -> None:
    payload = search(indexed, "lighthouse", "--author", "Ada", "--source")
    assert uris(payload) == [uri("alpha.md")]
    abs_path = Path(payload["results"][0]["source"]["absPath"])
    assert abs_path.is_absolute() and abs_path.resolve() == (indexed.notes / "alpha.md").resolve()


# ------------------------------------------------------------------ get


def _docid(ix: Indexed, doc_uri: str) -> str:
    return {d["uri"]: d["docid"] for d in ix.ok("ls", "--json", "-n", "100")["documents"]}[doc_uri]


def test_get_by_docid(indexed: Indexed) -> None:
    docid = _docid(indexed, uri("sub/gamma.md"))
    doc = indexed.ok("get", docid, "--json")
    assert doc["docid"] == docid
    assert doc["uri"] == uri("sub/gamma.md")
    assert doc["content"] == NOTES["sub/gamma.md"].rstrip("\n")
    assert doc["totalLines"] == 3
    assert "returnedLines" not in doc


def test_get_by_collection_path(indexed: Indexed) -> None:
    doc = indexed.ok("get", "notes/alpha.md", "--json")
    assert doc["uri"] == uri("alpha.md")
    assert doc["title"] == "Alpha Notes"
    assert doc["totalLines"] == len(NOTES["alpha.md"].splitlines())
    assert doc["content"].splitlines() == NOTES["alpha.md"].splitlines()


def test_get_by_uri_with_line(indexed: Indexed) -> None:
    doc = indexed.ok("get", "gno://notes/beta.md:7", "--json")
    lines = NOTES["beta.md"].splitlines()
    assert doc["returnedLines"]["start"] == 7
    assert doc["returnedLines"]["end"] == len(lines)
    assert doc["content"].splitlines() == lines[6:]


def test_get_from_and_limit_returns_exactly_that_line(indexed: Indexed) -> None:
    doc = indexed.ok("get", "gno://notes/alpha.md", "--from", "2", "-l", "1", "--json")
    assert doc["returnedLines"] == {"start": 2, "end": 2}
    assert doc["content"] == NOTES["alpha.md"].splitlines()[1] == "title: Alpha Notes"


def test_get_japanese_document(indexed: Indexed) -> None:
    doc = indexed.ok("get", "notes/japanese.md", "--json")
    assert doc["title"] == "東京メモ"
    assert doc["language"] == "ja"
    assert "図書館" in doc["content"]


# ------------------------------------------------------------------ multi-get


def test_multi_get_refs_glob_and_missing(indexed: Indexed) -> None:
    payload = indexed.ok(*MULTI)
    got = uris(payload, "documents")
    top_md = {uri(rel) for rel in NOTES if rel.endswith(".md") and "/" not in rel}
    assert top_md | {uri("sub/gamma.md")} <= set(got)
    assert len(got) == len(set(got)), "a document was returned twice"
    assert payload["skipped"] == [{"ref": "gno://notes/missing.md", "reason": "not_found"}]
    meta = payload["meta"]
    assert meta["returned"] == len(got)
    assert meta["skipped"] == 1
    assert meta["maxBytes"] == 10240
    assert not any(d["truncated"] for d in payload["documents"])
    for doc in payload["documents"]:
        assert doc["content"] == NOTES[doc["uri"].removeprefix("gno://notes/")].rstrip("\n")


def test_multi_get_glob_star_stays_in_one_folder(indexed: Indexed) -> None:
    """`notes/*.md` is a glob over relPath: `*` does not cross `/` (GNO: minimatch;
    gno's own collection globs say the same), so sub/delta.md is not matched."""
    got = set(uris(indexed.ok(*MULTI), "documents"))
    assert uri("sub/delta.md") not in got


def test_multi_get_requested_counts_expanded_refs(indexed: Indexed) -> None:
    """meta.requested counts the refs after glob expansion (GNO: expanded + invalid
    refs), so requested = returned + skipped when nothing repeats."""
    meta = indexed.ok(*MULTI)["meta"]
    assert meta["requested"] == meta["returned"] + meta["skipped"]


def test_multi_get_byte_budget(indexed: Indexed) -> None:
    payload = indexed.ok("multi-get", "notes/alpha.md,notes/beta.md", "--max-bytes", "60", "--json")
    assert uris(payload, "documents") == [uri("alpha.md"), uri("beta.md")]
    assert payload["meta"] == {"requested": 2, "returned": 2, "skipped": 0, "maxBytes": 60}
    assert payload.get("skipped", []) == []
    for doc in payload["documents"]:
        assert doc["truncated"] is True
        assert len(doc["content"].encode("utf-8")) <= 60
        rel = doc["uri"].removeprefix("gno://notes/")
        assert NOTES[rel].startswith(doc["content"])  # cut at a line, from the top


# ------------------------------------------------------------------ ls / status / peek / collection list


def test_ls_all(indexed: Indexed) -> None:
    payload = indexed.ok("ls", "--json", "-n", "100")
    got = uris(payload, "documents")
    assert payload["meta"] == {"total": ALL_FILES, "returned": ALL_FILES, "offset": 0}
    assert got == sorted(got)
    assert set(got) == {uri(r) for r in NOTES} | {uri(r, "misc") for r in MISC}
    assert len({d["docid"] for d in payload["documents"]}) == ALL_FILES
    kinds = {d["uri"]: (d["source"]["ext"], d["source"]["mime"]) for d in payload["documents"]}
    assert kinds[uri("tool.py")][0] == ".py"
    assert kinds[uri("notes.txt")] == (".txt", "text/plain")
    assert kinds[uri("alpha.md")] == (".md", "text/markdown")


def test_ls_collection(indexed: Indexed) -> None:
    payload = indexed.ok("ls", "notes", "--json", "-n", "100")
    assert payload["meta"]["total"] == len(NOTES)
    assert all(u.startswith("gno://notes/") for u in uris(payload, "documents"))


def test_ls_uri_prefix(indexed: Indexed) -> None:
    payload = indexed.ok("ls", "gno://notes/sub/", "--json")
    assert uris(payload, "documents") == [uri("sub/delta.md"), uri("sub/gamma.md")]
    assert payload["meta"]["total"] == 2


def test_ls_paging(indexed: Indexed) -> None:
    everything = uris(indexed.ok("ls", "--json", "-n", "100"), "documents")
    page = indexed.ok("ls", "--json", "-n", "3", "--offset", "2")
    assert uris(page, "documents") == everything[2:5]
    assert page["meta"] == {"total": ALL_FILES, "returned": 3, "offset": 2}


def test_status(indexed: Indexed) -> None:
    status = indexed.ok("status", "--json")
    assert status["totalDocuments"] == ALL_FILES
    counts = {c["name"]: c["documentCount"] for c in status["collections"]}
    assert counts == {"notes": len(NOTES), "misc": len(MISC)}
    assert status["healthy"] is True
    assert Path(status["dbPath"]).is_file()


def test_peek_initialized(indexed: Indexed) -> None:
    peek = indexed.ok("peek", "--json")
    assert peek["initialized"] is True
    assert peek["counts"]["documents"] == ALL_FILES
    assert peek["counts"]["collections"] == 2
    everything = set(uris(indexed.ok("ls", "--json", "-n", "100"), "documents"))
    assert peek["recent"] and {r["uri"] for r in peek["recent"]} <= everything
    assert peek["serve"]["running"] is False


def test_collection_list(indexed: Indexed) -> None:
    listed = indexed.ok("collection", "list", "--json")
    by_name = {c["name"]: c for c in listed}
    assert set(by_name) == {"notes", "misc"}
    assert Path(by_name["notes"]["path"]).resolve() == indexed.notes.resolve()
    assert Path(by_name["misc"]["path"]).resolve() == indexed.misc.resolve()


# ------------------------------------------------------------------ uninitialized home


def test_peek_uninitialized(fresh_env: dict[str, str]) -> None:
    peek = gno_ok(fresh_env, "peek", "--json")
    assert peek["initialized"] is False
    assert peek["counts"] is None and peek["backlog"] is None and peek["lastIndexedAt"] is None
    assert peek["recent"] == []


def test_bare_gno_json_prints_usage(fresh_env: dict[str, str]) -> None:
    usage = gno_ok(fresh_env, "--json")  # validated against cli-usage@1.0
    assert usage["name"] == "gno"
    assert usage["examples"]


# ------------------------------------------------------------------ collection lifecycle (own home)


def test_collection_lifecycle(tmp_path: Path) -> None:
    from contract_helpers import gno_env

    env = gno_env(tmp_path / "home")
    first = write_tree(
        tmp_path / "first", {"one.md": "# One\n\nlifecycle marker\n", "two.txt": "lifecycle two\n"}
    )
    second = write_tree(tmp_path / "second", {"three.md": "# Three\n\nlifecycle three\n"})
    ran: set[str] = set()

    def ok(*args: str) -> Any:
        ran.add(op_for_cli(list(args)).cli)
        return gno_ok(env, *args)

    init = ok("init", str(first), "--name", "first", "--json")
    assert init["created"] is True
    assert init["collection"]["name"] == "first"
    assert ok("init", "--json")["created"] is False  # idempotent

    added = ok("collection", "add", str(second), "--name", "Second", "--json")
    assert added["action"] == "added"
    assert added["collection"]["name"] == "second"  # names are case-insensitive, stored lower-case
    assert [c["name"] for c in ok("collection", "list", "--json")] == ["first", "second"]
    gno_err(env, 1, "collection", "add", str(second), "--name", "second", "--json")  # duplicate
    gno_err(env, 1, "collection", "add", str(tmp_path), "--name", "No Spaces", "--json")
    assert [c["name"] for c in ok("collection", "list", "--json")] == [
        "first",
        "second",
    ]  # unchanged

    synced = ok("update", "--json")
    assert synced["totalFilesAdded"] == 3

    renamed = ok("collection", "rename", "first", "renamed", "--json")
    assert renamed["action"] == "renamed"
    assert renamed["previousName"] == "first"
    assert renamed["collection"]["name"] == "renamed"
    kept = ok("ls", "renamed", "--json")  # documents follow the rename without a re-sync
    assert sorted(uris(kept, "documents")) == ["gno://renamed/one.md", "gno://renamed/two.txt"]

    removed = ok("collection", "remove", "renamed", "--json")
    assert removed["action"] == "removed"
    assert removed["collection"]["name"] == "renamed"
    assert [c["name"] for c in ok("collection", "list", "--json")] == ["second"]
    assert ok("status", "--json")["totalDocuments"] == 1

    cleaned = ok("cleanup", "--json")
    assert cleaned["deletedDocuments"] == 2
    again = ok("cleanup", "--json")
    assert again["deletedDocuments"] == again["deletedContent"] == again["deletedChunks"] == 0

    assert ran == LIFECYCLE_COMMANDS


# ------------------------------------------------------------------ errors


def _error_cases(
    ix: Indexed, fresh: dict[str, str]
) -> dict[str, tuple[dict[str, str], int, list[str]]]:
    notes = str(ix.notes)
    return {
        "empty query": (ix.env, 1, ["search", "", "--json"]),
        "limit below minimum": (ix.env, 1, ["search", "lighthouse", "-n", "0", "--json"]),
        "bad since": (ix.env, 1, ["search", "lighthouse", "--since", "not-a-date", "--json"]),
        "unknown collection (search)": (
            ix.env,
            1,
            ["search", "lighthouse", "-c", "nope", "--json"],
        ),
        "invalid ref": (ix.env, 1, ["get", "nosuchform", "--json"]),
        "missing argument": (ix.env, 1, ["get", "--json"]),
        "get missing doc": (ix.env, 2, ["get", "gno://notes/missing.md", "--json"]),
        "status before init": (fresh, 2, ["status", "--json"]),
        "unknown option": (ix.env, 1, ["search", "lighthouse", "--no-such-option", "--json"]),
        "two formats": (ix.env, 1, ["search", "lighthouse", "--json", "--md"]),
        "invalid collection name": (
            ix.env,
            1,
            ["collection", "add", notes, "--name", "Bad Name!", "--json"],
        ),
        "nonexistent path": (
            ix.env,
            1,
            ["collection", "add", str(ix.root / "does-not-exist"), "--name", "ghost", "--json"],
        ),
        "filesystem root": (ix.env, 1, ["collection", "add", "/", "--name", "rootfs", "--json"]),
    }


ERROR_IDS = [
    "empty query", "limit below minimum", "bad since", "unknown collection (search)", "invalid ref",
    "missing argument", "get missing doc", "status before init", "unknown option", "two formats",
    "invalid collection name", "nonexistent path", "filesystem root",
]  # fmt: skip


@pytest.mark.parametrize("case", ERROR_IDS)
def test_error_contract(indexed: Indexed, fresh_env: dict[str, str], case: str) -> None:
    env, code, argv = _error_cases(indexed, fresh_env)[case]
    error = gno_err(env, code, *argv)
    if case == "get missing doc":
        assert "gno://notes/missing.md" in error["message"]


def test_error_cases_are_listed(indexed: Indexed, fresh_env: dict[str, str]) -> None:
    assert list(_error_cases(indexed, fresh_env)) == ERROR_IDS


# ------------------------------------------------------------------ the checker itself


def test_schema_check_can_fail() -> None:
    """Guard against a vacuous validator: a payload missing required keys fails."""
    with pytest.raises(pytest.fail.Exception):
        assert_valid("gno://schemas/search-results@1.0", {"results": []})
    with pytest.raises(pytest.fail.Exception):
        assert_valid(
            "gno://schemas/peek@1.0", {"schemaVersion": "peek@1.0", "generatedAt": "yesterday"}
        )
