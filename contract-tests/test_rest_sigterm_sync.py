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

import apsw
import pytest
from contract_helpers import gno_env, run_gno
from rest_helpers import start_server

httpx = pytest.importorskip("httpx")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.index_consistency import assert_consistent  # noqa: E402

FILES = 3000
DEADLINE = 60


@pytest.fixture(scope="module", autouse=True)
def _own_servers(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("--base-url"):
        pytest.skip("starts its own gno serve processes")


def _documents(db: Path) -> int:
    if not db.exists():
        return 0
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        conn.setbusytimeout(1000)
        return int(conn.execute("SELECT count(*) FROM documents").fetchone()[0])
    except apsw.Error:  # the schema is still being created
        return 0
    finally:
        conn.close()


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
    for args in (["init", "--json"], ["collection", "add", str(root), "--name", "many"]):
        assert run_gno(env, *args).returncode == 0
    db = Path(env["GNO_DATA_DIR"]) / "index-default.sqlite"

    srv = start_server(env)
    try:
        started = httpx.post(f"{srv.url}/api/sync", json={})
        assert started.status_code == 202 and started.json()["status"] == "running"
        deadline = time.monotonic() + DEADLINE
        while _documents(db) == 0:  # the first batch is committed: the job is mid-way
            assert time.monotonic() < deadline, "no batch was committed"
            time.sleep(0.05)
        srv.proc.send_signal(signal.SIGTERM)
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
    assert 0 < docs <= FILES
    final = json.loads(run_gno(env, "update", "--json").stdout)
    assert final["totalFilesAdded"] == FILES - docs
    assert assert_consistent(db) == FILES == len(list(root.iterdir()))
