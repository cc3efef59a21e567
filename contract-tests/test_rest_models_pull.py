"""POST /api/models/pull and GET /api/models/status on a real `gno serve` whose hub is
the fake one on loopback: the pull runs as a background job, the status follows it to
the end, a second pull while one runs is 409 CONFLICT, a download never blocks a sync,
and a hub failure ends in ``failed[]`` with nothing left in the cache."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from contract_helpers import assert_valid, gno_env, run_gno, write_tree
from rest_helpers import running

httpx = pytest.importorskip("httpx")
pytest.importorskip("huggingface_hub", reason="downloads need the models extra")
pytest.importorskip("gguf", reason="gguf writes the tiny test model")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.fake_hub import FakeHub  # noqa: E402
from tests.tiny_gguf import write_tiny_bert  # noqa: E402

REPO = "test-org/tiny-GGUF"
FILE = "tiny-Q8_0.gguf"
DEADLINE = 60


@pytest.fixture(scope="module", autouse=True)
def _own_servers(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("--base-url"):
        pytest.skip("starts its own gno serve processes")


@pytest.fixture(scope="module")
def model_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return write_tiny_bert(tmp_path_factory.mktemp("tiny") / "tiny.gguf").read_bytes()


@pytest.fixture
def hub(model_bytes: bytes) -> Iterator[FakeHub]:
    with FakeHub() as server:
        server.add(REPO, FILE, model_bytes)
        yield server


@pytest.fixture
def env(tmp_path: Path, hub: FakeHub) -> dict[str, str]:
    """A gno home with one collection; embed from the fake hub, the other roles never
    downloaded (an HTTP endpoint and two local files that do not exist)."""
    base = {k: v for k, v in gno_env(tmp_path / "home").items() if not k.startswith("HF_")}
    env = base | {
        "HF_ENDPOINT": hub.url,
        "HF_HOME": str(tmp_path / "hf"),
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        "GNO_EMBED_MODEL": f"hf:{REPO}:Q8_0",
        "GNO_RERANK_MODEL": "http://127.0.0.1:9/v1#reranker",
        "GNO_EXPAND_MODEL": f"file:{tmp_path / 'no-expand.gguf'}",
        "GNO_GEN_MODEL": f"file:{tmp_path / 'no-gen.gguf'}",
    }
    notes = write_tree(tmp_path / "notes", {"a.md": "# A\n\nlighthouse\n"})
    for args in (["init", "--json"], ["collection", "add", str(notes), "--name", "notes"]):
        assert run_gno(env, *args).returncode == 0
    return env


def _cache(env: dict[str, str]) -> Path:
    return Path(env["GNO_CACHE_DIR"]) / "models"


def _leftovers(env: dict[str, str]) -> list[Path]:
    """Model bytes anywhere in the cache but at a final path (there must never be any)."""
    cache = _cache(env)
    if not cache.exists():
        return []
    final = cache / "hf"
    return [
        p
        for p in cache.rglob("*")
        if p.is_file() and final not in p.parents and p.suffix not in (".json", ".lock")
    ]


def _status(url: str) -> dict[str, Any]:
    status = httpx.get(f"{url}/api/models/status").json()
    assert_valid("gno://schemas/models-status@1.0", status)
    return status


def _until_idle(url: str) -> dict[str, Any]:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        if not (status := _status(url))["active"]:
            return status
        time.sleep(0.05)
    raise AssertionError("the download did not finish")


def _error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = response.json()
    assert_valid("gno://schemas/api-error@1.0", body)
    assert body["error"]["code"] == code
    return body["error"]


def test_pull_job_runs_to_completed_and_lands_the_file(
    env: dict[str, str], hub: FakeHub, model_bytes: bytes
) -> None:
    release = hub.hold(REPO, FILE)  # the file's bytes wait until the test says so
    with running(env) as srv:
        assert _status(srv.url) == {
            "active": False,
            "currentType": None,
            "progress": None,
            "completed": [],
            "failed": [],
            "startedAt": None,
        }
        started = httpx.post(f"{srv.url}/api/models/pull", content=b"")  # GNO's empty body
        assert started.status_code == 200, started.text
        receipt = started.json()
        assert_valid("gno://schemas/api-models-pull-receipt@1.0", receipt)
        assert receipt["started"] is True and "/api/models/status" in receipt["message"]

        assert hub.wait_until(lambda: hub.count("GET", REPO, FILE) >= 1)
        running_now = _status(srv.url)
        assert running_now["active"] is True and running_now["currentType"] == "embed"
        assert isinstance(running_now["startedAt"], int)
        busy = httpx.post(f"{srv.url}/api/models/pull", json={"roles": ["embed"]})
        assert _error(busy, 409, "CONFLICT")["details"]["activeJobId"] == receipt["jobId"]
        # a download touches no index: a sync starts beside it, and is the active job
        sync = httpx.post(f"{srv.url}/api/sync", json={})
        assert sync.status_code == 202 and sync.json()["status"] == "running"
        active = httpx.get(f"{srv.url}/api/jobs/active").json()["activeJob"]
        assert active is None or active["type"] == "sync"

        release.set()
        done = _until_idle(srv.url)
        assert done["completed"] == ["embed"] and done["failed"] == []
        assert done["currentType"] is None and done["progress"] is None
        assert done["startedAt"] == running_now["startedAt"]
        job = httpx.get(f"{srv.url}/api/jobs/{receipt['jobId']}").json()
        assert_valid("gno://schemas/api-job@1.0", job)
        assert job["type"] == "pull" and job["status"] == "completed"
        statuses = {r["role"]: r["status"] for r in job["result"]["results"]}
        assert statuses == {
            "embed": "downloaded",
            "rerank": "skipped",
            "expand": "skipped",
            "gen": "skipped",
        }
        assert str(_cache(env)) not in str(job)  # no host paths in the job result

    assert (_cache(env) / "hf" / REPO / FILE).read_bytes() == model_bytes
    assert _leftovers(env) == []


@pytest.mark.parametrize(
    ("fault", "says"), [("get500", "HTTP 500"), ("corrupt", "not a valid GGUF file")]
)
def test_hub_failure_ends_in_failed_with_nothing_cached(
    env: dict[str, str], hub: FakeHub, fault: str, says: str
) -> None:
    hub.fault(REPO, FILE, fault)
    with running(env) as srv:
        started = httpx.post(f"{srv.url}/api/models/pull", json={"roles": ["embed"]})
        assert started.status_code == 200, started.text
        done = _until_idle(srv.url)
        assert done["completed"] == []
        [failure] = done["failed"]
        assert failure["type"] == "embed" and says in failure["error"]
        job = httpx.get(f"{srv.url}/api/jobs/{started.json()['jobId']}").json()
        assert job["status"] == "failed" and says in job["error"]
        assert not (_cache(env) / "hf" / REPO / FILE).exists()
        assert _leftovers(env) == []
        # the next pull starts afresh once the hub is fixed
        hub.fault(REPO, FILE, None)
        again = httpx.post(f"{srv.url}/api/models/pull", json={"roles": ["embed"]})
        assert again.status_code == 200
        assert _until_idle(srv.url) | {"startedAt": 0} == {
            "active": False,
            "currentType": None,
            "progress": None,
            "completed": ["embed"],
            "failed": [],
            "startedAt": 0,
        }
    assert (_cache(env) / "hf" / REPO / FILE).is_file()


def test_offline_refuses_at_once(env: dict[str, str], hub: FakeHub) -> None:
    with running(env | {"GNO_OFFLINE": "1"}) as srv:
        refused = _error(httpx.post(f"{srv.url}/api/models/pull"), 503, "MODEL_UNAVAILABLE")
        assert "offline" in refused["message"]
        assert _status(srv.url)["startedAt"] is None
    assert hub.requests == []
