"""Configured content types (issue 17 item 2, engine.md §1.6, §5.4 step 9): rules from
``index.yml`` classify documents, a rules change re-ingests exactly the documents it
concerns, ``searchBoost`` moves hybrid ranking, and status and diagnose report it."""

from __future__ import annotations

from typing import Any

from gno_contracts.models.query_diagnose_input import QueryDiagnoseInput
from gno_contracts.models.query_input import QueryInput
from gno_contracts.models.status_input import StatusInput

from gno.app import App
from gno.config import load_config, save_config
from gno.core.content_types import boost_contribution, parse_content_types
from gno.paths import resolve_paths
from gno.services.diagnose import diagnose
from gno.services.query import query
from gno.services.status import index_status
from tests.conftest import search, sync

FILES = {
    "people/ada.md": "# Ada\n\nAda wrote about the orrery engine.\n",
    "notes/engine.md": "# Engine\n\nNotes on the orrery engine.\n",
    "misc/standup.md": "---\ntype: meeting\n---\n# Standup\n\nWe talked about lunch.\n",
}
PERSON = {"id": "person", "prefixes": ["people/"], "preset": "person"}
MEETING = {"id": "meeting", "prefixes": [], "preset": "meeting", "searchBoost": 1.0}


def configure(app: App, rules: list[dict[str, Any]]) -> App:
    """Write ``contentTypes`` to index.yml; a fresh App reads it (as a new process would)."""
    config = load_config(app.paths.config_file)
    config.raw["contentTypes"] = rules
    save_config(app.paths.config_file, config)
    return App(resolve_paths())


def types(app: App) -> dict[str, tuple[str, str]]:
    rows = app.store().conn.execute(
        "SELECT rel_path, content_type, content_type_source FROM documents WHERE active = 1"
    )
    return {r[0]: (r[1], r[2]) for r in rows}


def test_rules_classify_and_a_rules_change_reingests_only_what_it_concerns(make_app):
    app, _ = make_app(FILES)
    sync(app)
    assert types(app)["people/ada.md"] == ("prose", "fallback")
    app = configure(app, [PERSON])
    first = sync(app).collections[0]
    assert (first.filesUpdated, first.filesUnchanged) == (1, 2)  # people/ada.md only
    assert types(app)["people/ada.md"] == ("person", "prefix")
    app = configure(app, [PERSON, MEETING])
    second = sync(app).collections[0]
    assert (second.filesUpdated, second.filesUnchanged) == (1, 2)  # the `type: meeting` note
    assert types(app)["misc/standup.md"] == ("meeting", "frontmatter-type")
    app = configure(app, [PERSON | {"searchBoost": 2.0}, MEETING])
    third = sync(app).collections[0]
    assert third.filesUpdated == 0  # a boost changes ranking, not what was ingested
    app = configure(app, [MEETING])
    fourth = sync(app).collections[0]
    assert (fourth.filesUpdated, fourth.filesUnchanged) == (1, 2)  # the person rule went
    assert types(app)["people/ada.md"] == ("prose", "fallback")
    assert search(app, "orrery").results  # nothing lost on the way


def position(app: App, **kw: Any) -> int:
    out = query(app, QueryInput(query="orrery", rerank=False, noGraph=True, limit=50, **kw))
    uris = [r.uri for r in out.results]
    return next(i for i, uri in enumerate(uris) if uri.endswith("people/ada.md"))


# Thirty notes that match "orrery" more or less strongly, and one person in the middle:
# normalized fusion scores of neighbours differ by about 1/30, so a ±0.05 nudge moves it.
CROWD = {
    f"notes/n{i:02d}.md": f"# N{i}\n\n" + "orrery " * (1 + i % 6) + f"filler {i}\n"
    for i in range(30)
}
CROWD["people/ada.md"] = "# Ada\n\norrery orrery orrery filler ada\n"


def test_search_boost_moves_ranking_and_is_reported(make_app):
    app, _ = make_app(CROWD)
    sync(app)
    baseline = position(app)
    app = configure(app, [PERSON | {"searchBoost": 2.0}])
    sync(app)
    boosted = position(app)
    explained = query(app, QueryInput(query="orrery", rerank=False, explain=True, limit=50))
    receipts = [r.contentTypeBoost for r in explained.meta.explain.results if r.contentTypeBoost]
    assert len(receipts) == 1
    receipt = receipts[0]
    assert receipt.contentType == "person" and receipt.ruleSource.value == "prefix"
    assert receipt.cappedContribution == 0.05 and receipt.configuredFactor == 2.0
    assert receipt.finalScore == min(1.0, round(receipt.baseScore + 0.05, 6))
    app = configure(app, [PERSON | {"searchBoost": 0.5}])
    demoted = position(app)
    assert boosted < baseline < demoted
    report = diagnose(
        app, QueryDiagnoseInput(query="orrery", target="notes/people/ada.md", limit=50)
    )
    assert report.target.status.value == "diagnosed", report.target
    assert report.schemaVersion.value == "1.2", report.meta
    assert report.contentTypeBoost is not None
    assert report.contentTypeBoost.cappedContribution == -0.05
    other = diagnose(app, QueryDiagnoseInput(query="orrery", target="notes/notes/n01.md"))
    assert other.schemaVersion.value == "1.0" and other.contentTypeBoost is None
    assert report.target.contentTypeSource == "prefix"
    assert report.target.contentTypeFingerprintMatches is True  # a boost is not a re-ingest
    app = configure(app, [PERSON | {"searchBoost": 0.5, "graphHints": ["works_at"]}])
    stale = diagnose(app, QueryDiagnoseInput(query="orrery", target="notes/people/ada.md"))
    assert stale.target.graphHints == ["works_at"]
    assert stale.target.contentTypeFingerprintMatches is False  # until the next sync
    assert sync(app).collections[0].filesUpdated == 1
    fresh = diagnose(app, QueryDiagnoseInput(query="orrery", target="notes/people/ada.md"))
    assert fresh.target.contentTypeFingerprintMatches is True
    app = configure(app, [PERSON | {"searchBoost": 0.5}])
    sync(app)
    status = index_status(app, StatusInput())
    assert [(r.id, r.searchBoost) for r in status.contentTypeBoost.rules] == [("person", 0.5)]
    assert status.contentTypeBoost.rulesFingerprint == parse_content_types([PERSON]).fingerprint


def test_rule_validation_and_boost_mapping():
    parsed = parse_content_types(
        [
            PERSON,
            {"id": "x", "prefixes": ["a"], "preset": "nope"},
            {"id": "y", "prefixes": ["b"], "preset": "meeting", "searchBoost": 3},
            {"id": "z", "prefixes": ["c"], "preset": "meeting", "graphHints": ["bogus"]},
            {"id": "deep", "prefixes": ["people/team", "people/team/"], "preset": "person"},
        ]
    )
    assert [r.id for r in parsed.rules] == ["deep", "person"]  # longest prefix first
    assert parsed.rules[0].prefixes == ("people/team",)  # duplicates folded
    assert len(parsed.warnings) == 3
    assert parsed.classify("people/team/bo.md", None) == ("deep", "prefix")
    assert parsed.classify("people/ada.md", "deep") == ("deep", "frontmatter-type")
    assert parsed.classify("peoplex/a.md", None) is None
    assert (boost_contribution(0.5), boost_contribution(1.0), boost_contribution(2.0)) == (
        -0.05,
        0.0,
        0.05,
    )
    assert parsed.fingerprint != parse_content_types([PERSON]).fingerprint
    boosted = parse_content_types([PERSON | {"searchBoost": 2.0}])
    assert boosted.fingerprint == parse_content_types([PERSON]).fingerprint
    assert boosted.ranking_fingerprint != parse_content_types([PERSON]).ranking_fingerprint


def test_the_neutral_fingerprint_is_the_digest_of_no_rule() -> None:
    """NEUTRAL is written out (no hashlib at import): it must stay the digest ``_sha`` gives
    for no rule, which indexes built before it was written out hold."""
    from gno.core.content_types import NEUTRAL, _sha

    assert _sha(None) == NEUTRAL
