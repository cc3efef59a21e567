"""SIGTERM while `gno serve` runs a sync job: the job stops at its next file, the process
exits 0 within the drain deadline and gives up the data directory, and the index is
consistent; a following `gno update` indexes exactly the files that were left."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest
from contract_helpers import gno_env, run_gno
from rest_helpers import start_server

httpx = pytest.importorskip("httpx")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.index_consistency import (  # noqa: E402
    assert_consistent,
    wait_for_documents,
    writes_held,
)

FILES = 3000
DEADLINE = 60


@pytest.fixture(scope="module", autouse=True)
def _own_servers(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("--base-url"):
        pytest.skip("starts its own gno serve processes")


def _wait_until_draining(url: str) -> None:
    """Until the server refuses new requests (503) or stops listening: it got the signal."""
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/api/health", timeout=5).status_code == 503:
                return
        except httpx.TransportError:
            return
        time.sleep(0.02)
    raise AssertionError("the server did not start draining")


def _lock_is_free(data_dir: Path) -> bool:
    fd = os.open(data_dir / "resident.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def test_sigterm_mid_sync_exits_cleanly_and_keeps_the_index_consistent(tmp_path: Path) -> None:
    root = tmp_path / "many"
    root.mkdir()
    for i in range(FILES):
        (root / f"n{i:04d}.md").write_text(f"# Note {i}\n\n" + f"word{i} shared text " * 40)
    env = gno_env(tmp_path / "home")
    # The job waits for the lock this test holds instead of failing with LOCKED.
    env["GNO_BUSY_TIMEOUT_MS"] = "120000"
    for args in (["init", "--json"], ["collection", "add", str(root), "--name", "many"]):
        assert run_gno(env, *args).returncode == 0
    db = Path(env["GNO_DATA_DIR"]) / "index-default.sqlite"

    srv = start_server(env)
    try:
        started = httpx.post(f"{srv.url}/api/sync", json={})
        assert started.status_code == 202 and started.json()["status"] == "running"
        wait_for_documents(db, DEADLINE)  # the first batch is committed: the job is mid-way
        # SIGTERM goes out while the job provably has files left: it cannot commit while
        # the write lock is held here. The lock is let go once the server is draining.
        with writes_held(db) as before:
            assert 0 < before < FILES, "the sync finished before it could be interrupted"
            srv.proc.send_signal(signal.SIGTERM)
            _wait_until_draining(srv.url)
        assert srv.proc.wait(timeout=DEADLINE) == 0  # drain deadline 10 s, plus margin
    finally:
        if srv.proc.poll() is None:
            srv.proc.kill()
            srv.proc.wait()
    # Worker processes inherit the server's stdout: EOF means none outlived it.
    eof = threading.Thread(target=lambda: srv.proc.stdout and srv.proc.stdout.read(), daemon=True)
    eof.start()
    eof.join(DEADLINE)
    assert not eof.is_alive(), "a worker process outlived the server"
    assert "Traceback" not in "".join(srv.stderr)
    assert _lock_is_free(Path(env["GNO_DATA_DIR"]))

    docs = assert_consistent(db)
    assert before <= docs < FILES  # the job stopped: committed batches stay, no more
    final = json.loads(run_gno(env, "update", "--json").stdout)
    assert final["totalFilesAdded"] == FILES - docs
    assert assert_consistent(db) == FILES == len(list(root.iterdir()))
