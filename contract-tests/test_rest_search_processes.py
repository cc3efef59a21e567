"""`gno serve`'s search processes (``GNO_SEARCH_PROCESSES``, gno/rest/search_processes.py):
BM25 searches answered by worker processes beside the owner are byte for byte what the
owner answers alone; the workers really answer them, inherit nothing of the owner (no
data-directory lock, no listening socket), follow index.yml edits, are replaced when one
dies, and die with the owner, even on SIGKILL."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from contract_helpers import run_gno
from rest_helpers import Server, build_corpus, running

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

DEADLINE = 30.0
BODIES: list[dict[str, Any]] = [
    {"query": "lighthouse", "limit": 10},
    {"query": "lighthouse keeper", "limit": 1, "intent": "unique"},
    {"query": "zephyrquartz", "collection": "notes"},
    {"query": "lighthouse", "minScore": 0.5, "full": True},
    {"query": "nothing-matches-this-word"},
    {"query": 'unbalanced "quote'},  # an error envelope from the handler
    {"query": "candles", "categories": "notes,misc"},
]


def _stat(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if _stat(int(entry.name))[1] == str(pid):
                    found.append(int(entry.name))
            except OSError:
                continue
    return sorted(found)


def _cpu_ticks(pids: list[int]) -> int:
    return sum(int(_stat(p)[11]) + int(_stat(p)[12]) for p in pids)


def _until(check: Any, what: str) -> Any:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        if result := check():
            return result
        time.sleep(0.05)
    raise AssertionError(f"not before the deadline: {what}")


def _ready_workers(server: Server, count: int) -> list[int]:
    """The server's ``count`` children once they wait for work: asleep, and their CPU
    time has stopped moving (their imports are done). A search starts them."""
    with httpx.Client(base_url=server.url, timeout=DEADLINE) as http:
        assert http.post("/api/search", json={"query": "start"}).status_code == 200

    def settled() -> list[int] | None:
        kids = _children(server.proc.pid)
        if len(kids) != count:
            return None
        before = _cpu_ticks(kids)
        time.sleep(0.3)
        asleep = all(_stat(p)[0] == "S" for p in kids)
        return kids if asleep and _cpu_ticks(kids) == before else None

    return _until(settled, f"{count} search processes")


def _answers(url: str) -> list[tuple[int, bytes]]:
    out = []
    with httpx.Client(base_url=url, timeout=DEADLINE) as http:
        for body in BODIES:
            for path in ("/api/search", "/api/op/search"):
                answer = http.post(path, json=body)
                out.append((answer.status_code, answer.content))
    return out


def _env(tmp_path: Path, processes: int) -> dict[str, str]:
    env = build_corpus(tmp_path, vectors=False)
    return {**env, "GNO_SEARCH_PROCESSES": str(processes)}


def test_search_processes_answer_exactly_what_the_server_alone_answers(tmp_path: Path) -> None:
    env = _env(tmp_path, 0)
    with running(env, "--no-watch") as alone:
        expected = _answers(alone.url)
        assert _children(alone.proc.pid) == []
    assert {status for status, _ in expected} == {200, 400}
    with running({**env, "GNO_SEARCH_PROCESSES": "2"}, "--no-watch") as server:
        assert _children(server.proc.pid) == []  # none before the first search
        workers = _ready_workers(server, 2)
        before = _cpu_ticks(workers)
        for _ in range(10):  # unique intents: no answer comes from the result cache
            got = _answers(server.url)
        assert got == expected
        with httpx.Client(base_url=server.url, timeout=DEADLINE) as http:
            for i in range(100):
                body = {"query": "lighthouse keeper", "intent": f"n{i}"}
                assert http.post("/api/search", json=body).status_code == 200
        # The workers did the searching: they sleep in recv() otherwise.
        assert _cpu_ticks(workers) > before


def test_search_processes_inherit_nothing_and_die_with_the_owner(tmp_path: Path) -> None:
    env = _env(tmp_path, 2)
    with running(env, "--no-watch") as server:
        workers = _ready_workers(server, 2)
        for pid in workers:
            fds = [os.readlink(p) for p in Path(f"/proc/{pid}/fd").iterdir() if p.is_symlink()]
            assert not [f for f in fds if f.endswith("resident.lock")], fds
            # One socket: its end of the pair to the owner (not the listening socket).
            assert len([f for f in fds if f.startswith("socket:")]) == 1, fds
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait(timeout=DEADLINE)
        _until(lambda: not any(Path(f"/proc/{p}").exists() for p in workers), "workers gone")


def test_a_killed_search_process_is_replaced_and_no_search_fails(tmp_path: Path) -> None:
    env = _env(tmp_path, 2)
    with running(env, "--no-watch") as server:
        workers = _ready_workers(server, 2)
        expected = _answers(server.url)
        os.kill(workers[0], signal.SIGKILL)
        assert _answers(server.url) == expected
        replaced = _ready_workers(server, 2)
        assert workers[0] not in replaced and workers[1] in replaced


def test_an_index_yml_edit_reaches_answers_from_search_processes(tmp_path: Path) -> None:
    env = _env(tmp_path, 2)
    with running(env, "--no-watch") as server:
        _ready_workers(server, 2)
        body = {"query": "lighthouse", "collection": "misc"}
        with httpx.Client(base_url=server.url, timeout=DEADLINE) as http:
            first = http.post("/api/search", json=body).json()["results"]
            assert first and all("context" not in hit for hit in first)
            done = run_gno(env, "context", "add", "misc:", "Keeper logs, not runbooks.")
            assert done.returncode == 0, done.stderr
            for i in range(6):  # each worker and the owner see the edit
                hits = http.post("/api/search", json={**body, "intent": str(i)}).json()
                assert [h["context"] for h in hits["results"]] == [
                    "Keeper logs, not runbooks."
                ] * len(first)
