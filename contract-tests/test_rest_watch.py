"""`gno serve`'s file watcher, `/api/events` and the full `/api/status`, against real
processes: files written into a collection folder become searchable and arrive as
document-changed events; excluded files cause no sync; collections added while
running are watched; a folder renamed away shows up in status and clears; SIGTERM
with an open event stream exits promptly and cleanly; `--no-watch` syncs nothing.

Every wait is a poll with a deadline; nothing here asserts a duration except that
shutdown beats the 10 s a hanging stream would cost.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from contract_helpers import assert_valid, run_gno
from rest_helpers import build_corpus, running, start_server

httpx = pytest.importorskip("httpx")
DEADLINE = 60.0
REMOTE = {"X-Forwarded-For": "203.0.113.9"}
EVENT_SCHEMA = "gno://schemas/document-event@1.0"
STATUS_SCHEMA = "gno://schemas/status@1.0"


@pytest.fixture(scope="module", autouse=True)
def _own_servers(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("--base-url"):
        pytest.skip("starts its own gno serve processes")


def poll(check: Callable[[], Any], what: str, deadline: float = DEADLINE) -> Any:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if result := check():
            return result
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def write_atomically(path: Path, text: str) -> None:
    """Write through a hidden temp file and rename: one file event, never a half file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


class EventStream:
    """An `/api/events` client on its own thread, as a browser's EventSource reads it."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.url, self.headers = f"{url}/api/events", headers or {}
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.comments: list[str] = []
        self.retry: int | None = None
        self.status: int | None = None
        self.content_type = ""
        self.error: BaseException | None = None
        self.ended = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        poll(lambda: ": connected" in self.comments or self.ended.is_set(), "the stream to open")

    def _read(self) -> None:
        name = ""
        try:
            timeout = httpx.Timeout(None, connect=10)
            with httpx.stream("GET", self.url, headers=self.headers, timeout=timeout) as answer:
                self.status, self.content_type = answer.status_code, answer.headers["content-type"]
                for line in answer.iter_lines():
                    if line.startswith(":"):
                        self.comments.append(line)
                    elif line.startswith("retry: "):
                        self.retry = int(line.removeprefix("retry: "))
                    elif line.startswith("event: "):
                        name = line.removeprefix("event: ")
                    elif line.startswith("data: "):
                        self.events.append((name, json.loads(line.removeprefix("data: "))))
        except BaseException as exc:
            self.error = exc
        finally:
            self.ended.set()

    def wait(self, what: str, **match: Any) -> dict[str, Any]:
        def found() -> dict[str, Any] | None:
            for name, data in list(self.events):
                if all(data.get(k) == v for k, v in match.items()):
                    assert name == data["type"]
                    assert_valid(EVENT_SCHEMA, data)
                    return data
            return None

        return poll(found, what)


def status(url: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    answer = httpx.get(f"{url}/api/status", headers=headers or {})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert_valid(STATUS_SCHEMA, body)
    assert {"onboarding", "health", "background", "bootstrap"} <= set(body)
    return body


def found(url: str, query: str) -> list[str]:
    hits = httpx.post(f"{url}/api/search", json={"query": query}).json()
    return [r["uri"] for r in hits["results"]]


def roots(env: dict[str, str]) -> dict[str, Path]:
    listed = json.loads(run_gno(env, "collection", "list", "--json").stdout)
    return {c["name"]: Path(c["path"]) for c in listed}


def wait_watching(url: str, *names: str) -> None:
    poll(
        lambda: set(names) <= set(status(url)["background"]["watcher"]["activeCollections"]),
        f"{names} to be watched",
    )


def jobs_counter(url: str) -> dict[str, int]:
    return httpx.get(f"{url}/api/resident/status").json()["jobs"]


# ---------------------------------------------------------------- watcher and events


def test_watched_changes_become_searchable_and_stream_as_events(tmp_path: Path) -> None:
    env = build_corpus(tmp_path / "home", vectors=False)
    notes = roots(env)["notes"]
    with running(env, "--events-keepalive-ms", "200") as srv:
        wait_watching(srv.url, "notes", "misc")
        local, remote = EventStream(srv.url), EventStream(srv.url, REMOTE)
        assert local.status == 200 and local.content_type.startswith("text/event-stream")
        assert local.retry == 3000

        # a new file: searchable, one event per client, watcher activity in status
        write_atomically(notes / "zebra.md", "# Zebra\n\nThe quixotic zebra grazes.\n")
        poll(lambda: "gno://notes/zebra.md" in found(srv.url, "quixotic zebra"), "zebra")
        added = local.wait("the zebra event", relPath="zebra.md", change="added")
        assert added["uri"] == "gno://notes/zebra.md" and added["origin"] == "watcher"
        twin = remote.wait("the remote zebra event", jobId=added["jobId"])
        assert "uri" not in twin and "relPath" not in twin and twin["collection"] == "notes"
        watcher = status(srv.url)["background"]["watcher"]
        assert watcher["lastEventAt"] and watcher["lastSyncAt"]
        assert status(srv.url)["background"]["events"]["connectedClients"] == 2
        poll(lambda: ": keep-alive" in local.comments, "a keep-alive comment")

        # excluded files cause no sync: only the sentinel written after them does
        poll(lambda: jobs_counter(srv.url)["active"] == 0, "an idle job queue")
        before = jobs_counter(srv.url)["recent"]
        write_atomically(notes / "node_modules" / "dep.md", "# Dependency\n")
        write_atomically(notes / "diagram.bin", "not an indexed type\n")
        write_atomically(notes / ".draft.md", "# Hidden\n")
        write_atomically(notes / "sentinel.md", "# Sentinel\n\nWritten last.\n")
        sentinel = local.wait("the sentinel event", relPath="sentinel.md")
        poll(lambda: jobs_counter(srv.url)["active"] == 0, "the sentinel job to end")
        assert jobs_counter(srv.url)["recent"] == before + 1
        job = httpx.get(f"{srv.url}/api/jobs/{sentinel['jobId']}").json()
        assert job["scope"] == {"collection": "notes", "paths": ["sentinel.md"]}
        assert found(srv.url, "dependency") == []

        # a deleted file leaves the results
        (notes / "zebra.md").unlink()
        poll(lambda: not found(srv.url, "quixotic zebra"), "zebra to leave the index")
        local.wait("the removal event", relPath="zebra.md", change="removed")

        # a collection added while running is watched from then on
        extra = tmp_path / "extra"
        write_atomically(extra / "ship.md", "# Ship\n\nThe harbour pilot.\n")
        added_collection = httpx.post(f"{srv.url}/api/collections", json={"path": str(extra)})
        assert added_collection.status_code == 202, added_collection.text
        wait_watching(srv.url, "extra")
        poll(lambda: "gno://extra/ship.md" in found(srv.url, "harbour pilot"), "the add job")
        write_atomically(extra / "lantern.md", "# Lantern\n\nA brass lantern on the quay.\n")
        poll(lambda: "gno://extra/lantern.md" in found(srv.url, "brass lantern"), "lantern")
        local.wait("the lantern event", uri="gno://extra/lantern.md")
        final = status(srv.url)
        assert final["background"]["watcher"]["expectedCollections"] == ["notes", "misc", "extra"]
        assert final["onboarding"]["steps"][0]["status"] == "complete"
        assert local.error is None and remote.error is None


def test_a_folder_renamed_away_is_reported_without_paths_and_clears(tmp_path: Path) -> None:
    env = build_corpus(tmp_path / "home", vectors=False)
    misc = roots(env)["misc"]
    # gno.example.org: an allowed Host that names no loopback address (a remote caller)
    with running(env, "--mcp-allowed-host", "gno.example.org") as srv:
        wait_watching(srv.url, "notes", "misc")
        assert status(srv.url)["health"]["state"] in ("healthy", "needs-attention")
        misc.rename(misc.with_name("misc-away"))
        body = status(srv.url)  # checked on every request: no wait needed
        [entry] = [c for c in body["collections"] if c["name"] == "misc"]
        assert entry["healthy"] is False and entry["rootError"]["code"] == "PATH_NOT_FOUND"
        assert str(misc) not in entry["rootError"]["message"]
        [access] = [c for c in body["health"]["checks"] if c["id"] == "folder-access"]
        assert access["status"] == "warn" and body["health"]["state"] == "needs-attention"
        assert body["healthy"] is False and entry["documentCount"] > 0  # documents stay
        failed = poll(
            lambda: status(srv.url)["background"]["watcher"]["failedCollections"],
            "the watcher to give up on misc",
        )
        assert [f["collection"] for f in failed] == ["misc"]
        assert str(misc) not in failed[0]["reason"]

        # a caller on another host: the same facts, no host path anywhere
        home = str(tmp_path)
        rebound = httpx.get(f"{srv.url}/api/status", headers={"Host": "evil.example"})
        assert rebound.status_code == 403 and home not in rebound.text  # Host allowlist
        for headers in (REMOTE, {"Host": "gno.example.org"}):
            answer = httpx.get(f"{srv.url}/api/status", headers=headers)
            assert home not in answer.text, answer.text[:500]
            remote = answer.json()
            assert_valid(STATUS_SCHEMA, remote)
            assert "configPath" not in remote and "dbPath" not in remote
            assert all("path" not in c for c in remote["collections"])
            assert "path" not in remote["bootstrap"]["cache"]
            assert all(e["path"] is None for e in remote["bootstrap"]["models"]["entries"])
            assert remote["bootstrap"]["runtime"]["kind"] == "python"
        assert status(srv.url)["bootstrap"]["cache"]["path"].startswith(home)

        misc.with_name("misc-away").rename(misc)
        back = status(srv.url)
        [entry] = [c for c in back["collections"] if c["name"] == "misc"]
        assert entry["healthy"] is True and "rootError" not in entry
        assert {c["id"]: c["status"] for c in back["health"]["checks"]}["folder-access"] == "ok"
        poll(
            lambda: not status(srv.url)["background"]["watcher"]["failedCollections"],
            "the watcher to pick misc up again",
        )
        wait_watching(srv.url, "misc")


def test_sigterm_with_an_open_event_stream_exits_promptly_and_cleanly(tmp_path: Path) -> None:
    env = build_corpus(tmp_path / "home", vectors=False)
    server = start_server(env)
    try:
        stream = EventStream(server.url)
        assert stream.status == 200
        server.proc.send_signal(signal.SIGTERM)
        # a stream left open would hold uvicorn's graceful shutdown for its full 10 s
        assert server.proc.wait(timeout=9) == 0
        assert stream.ended.wait(5) and stream.error is None  # the stream ended, not reset
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()


def test_no_watch_means_no_sync_until_asked(tmp_path: Path) -> None:
    env = build_corpus(tmp_path / "home", vectors=False)
    notes = roots(env)["notes"]
    with running(env, "--no-watch") as srv:
        watcher = status(srv.url)["background"]["watcher"]
        assert watcher["activeCollections"] == [] and watcher["expectedCollections"] == []
        write_atomically(notes / "okapi.md", "# Okapi\n\nThe okapi hides in the forest.\n")
        # nothing may happen, so there is nothing to wait for: watch for a while (past the
        # watcher's 1.6 s debounce) and see that nothing does
        end = time.monotonic() + 4
        while time.monotonic() < end:
            assert found(srv.url, "okapi forest") == []
            assert jobs_counter(srv.url)["recent"] == 0
            time.sleep(0.2)
        receipt = httpx.post(f"{srv.url}/api/sync", json={"collection": "notes"}).json()
        poll(
            lambda: (
                httpx.get(f"{srv.url}/api/jobs/{receipt['jobId']}").json()["status"] == "completed"
            ),
            "the asked-for sync",
        )
        assert found(srv.url, "okapi forest") == ["gno://notes/okapi.md"]


# ---------------------------------------------------------------- in process


def test_events_are_503_while_shutting_down(tmp_path: Path) -> None:
    import anyio

    from gno.app import App
    from gno.paths import Paths
    from gno.rest.app import ServeOptions, create_app

    app = App(Paths(tmp_path / "index.yml", tmp_path / "data", tmp_path / "cache", "default"))
    api = create_app(app, options=ServeOptions(mcp=None, watch=False, drain_on_shutdown=False))
    runtime = api.state.runtime
    runtime.stop_background()  # what the signal does first

    async def get() -> Any:
        transport = httpx.ASGITransport(app=api)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return await client.get("/api/events")

    answer = anyio.run(get)
    assert answer.status_code == 503
    assert answer.json()["error"]["code"] == "UNAVAILABLE"
    runtime.drain()
