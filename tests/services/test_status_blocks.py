"""The REST status blocks as functions of the base status: onboarding stages,
health states and the folder-access check, and the size label."""

from __future__ import annotations

from typing import Any

from gno.services.status_blocks import health, onboarding, size_label

IDLE = {"watcher": {"syncingCollections": []}, "embedding": {"running": False}}


def base(collections: int = 1, documents: int = 10, backlog: int = 0, **extra: Any) -> dict:
    colls = [
        {"name": f"c{i}", "documentCount": 0, "chunkCount": 0, "embeddedCount": 0}
        for i in range(collections)
    ]
    return {
        "collections": colls,
        "totalDocuments": documents,
        "embeddingBacklog": backlog,
        "recentErrors": 0,
    } | extra


def test_onboarding_stage_is_the_first_step_not_done() -> None:
    def stage(b: dict, embed_ready: bool, background: dict = IDLE) -> tuple[str, list[str]]:
        out = onboarding(b, embed_ready, background)
        assert out["ready"] == (out["stage"] == "ready")
        return out["stage"], [s["status"] for s in out["steps"]]

    assert stage(base(collections=0, documents=0), False) == (
        "add-collection",
        ["current", "upcoming", "upcoming"],
    )
    assert stage(base(backlog=4), False) == ("models", ["complete", "current", "upcoming"])
    assert stage(base(documents=0), True) == ("indexing", ["complete", "complete", "current"])
    assert stage(base(backlog=5), True)[0] == "indexing"
    busy = {"watcher": {"syncingCollections": ["c0"]}, "embedding": {"running": False}}
    assert stage(base(), True, busy)[0] == "indexing"
    assert stage(base(), True) == ("ready", ["complete"] * 3)


def test_health_states_and_the_folder_access_check() -> None:
    assert health(base(collections=0, documents=0), False)["state"] == "setup-required"
    assert health(base(), True)["state"] == "healthy"
    broken = base(collections=2)
    broken["collections"][1]["rootError"] = {"code": "PATH_NOT_FOUND", "message": "missing"}
    report = health(broken, True)
    assert report["state"] == "needs-attention"
    [access] = [c for c in report["checks"] if c["id"] == "folder-access"]
    assert access["status"] == "warn" and "c1" in access["summary"]
    assert access["actionKind"] == "open-collections"
    assert {c["id"]: c["status"] for c in health(base(), True)["checks"]}["folder-access"] == "ok"
    assert health(base(backlog=3), True)["state"] == "needs-attention"


def test_size_label() -> None:
    assert size_label(0) == "0 B"
    assert size_label(999) == "999 B"
    assert size_label(1_500) == "1.5 KB"
    assert size_label(639_150_592) == "639.2 MB"
    assert size_label(1_288_490_188) == "1.3 GB"
