"""`query-diagnose@1.4` (1.2 plus the retrieval stages in 1.3, plus the stage id
`languageWeights` in 1.4): one schema for payload versions 1.0, 1.1 and 1.2, the payload's
schemaVersion picking the branch (surfaces.md §1.5, §5.7). gno emits 1.0 (GNO's
byte-identical legacy form), or 1.2 when a content-type boost moved the target
(test_diagnose_boost_surfaces.py); it has no trusted project roots, so never 1.1."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from contract_helpers import validator
from gno_contracts.operations import OPERATIONS

EXAMPLES = Path(__file__).resolve().parents[1] / "schemas" / "examples" / "query-diagnose"
SCHEMA = "gno://schemas/query-diagnose@1.4"


def _example(name: str) -> dict[str, Any]:
    return json.loads((EXAMPLES / name).read_text())


def test_the_operation_answers_with_the_current_schema() -> None:
    op = next(o for o in OPERATIONS if o.id == "query_diagnose")
    assert op.output_schema == SCHEMA


def test_branches_follow_schema_version() -> None:
    check = validator(SCHEMA)
    legacy, boosted = _example("01.json"), _example("03-content-type-boost.json")
    assert legacy["schemaVersion"] == "1.0" and check.is_valid(legacy)
    assert boosted["schemaVersion"] == "1.2" and check.is_valid(boosted)
    receipt = boosted["contentTypeBoost"]
    # 1.0 carries no auxiliary receipt; 1.2 must carry one; 1.1 needs affinity.
    assert not check.is_valid(legacy | {"contentTypeBoost": receipt})
    assert not check.is_valid({k: v for k, v in boosted.items() if k != "contentTypeBoost"})
    assert not check.is_valid(legacy | {"schemaVersion": "1.1"})
    bad = copy.deepcopy(boosted)
    bad["contentTypeBoost"]["cappedContribution"] = 0.2  # outside ±0.05
    assert not check.is_valid(bad)


@pytest.mark.parametrize("version", ["1.3", "1.4", "2.0", 1.0])
def test_unknown_versions_are_invalid(version: Any) -> None:
    assert not validator(SCHEMA).is_valid(_example("01.json") | {"schemaVersion": version})


def test_1_3_adds_the_retrieval_stages_and_keeps_1_2_payloads_valid() -> None:
    check = validator(SCHEMA)
    staged = _example("04-retrieval-stages.json")
    assert check.is_valid(staged) and staged["schemaVersion"] == "1.0"
    assert staged["meta"]["retrieval"]["stages"][0]["id"] == "shape"
    older = copy.deepcopy(staged)  # a 1.2 payload: meta.retrieval without the 1.3 fields
    for key in ("stages", "topBonusFactor", "windowsConfigured"):
        del older["meta"]["retrieval"][key]
    assert check.is_valid(older)
    bad = copy.deepcopy(staged)
    bad["meta"]["retrieval"]["stages"][0]["id"] = "rerank"  # not a retrieval stage
    assert not check.is_valid(bad)
    bad = copy.deepcopy(staged)
    del bad["meta"]["retrieval"]["stages"][0]["reason"]  # reason is required (null if active)
    assert not check.is_valid(bad)


def test_1_4_adds_the_language_weights_stage_and_keeps_1_3_payloads_valid() -> None:
    check = validator(SCHEMA)
    staged = _example("04-retrieval-stages.json")
    ids = [stage["id"] for stage in staged["meta"]["retrieval"]["stages"]]
    assert ids == ["shape", "queryText", "windows", "languageWeights", "feedback",
                   "vectorFeedback", "language", "topBonus"]  # fmt: skip
    assert check.is_valid(staged)
    older = copy.deepcopy(staged)  # a 1.3 payload: the same stages without languageWeights
    older["meta"]["retrieval"]["stages"].pop(ids.index("languageWeights"))
    assert check.is_valid(older)
    bad = copy.deepcopy(staged)
    bad["meta"]["retrieval"]["stages"][ids.index("languageWeights")]["id"] = "languageWeight"
    assert not check.is_valid(bad)
