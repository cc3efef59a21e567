"""The CLI as a real process: lean imports, exit codes, Ctrl-C and SIGTERM during a sync."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.index_consistency import assert_consistent, wait_for_documents, writes_held

GNO = [sys.executable, "-m", "gno.cli.entry"]
HEAVY = (
    "fastapi",
    "mcp",
    "numpy",
    "llama_cpp",
    "markitdown",
    "uvicorn",
    "watchfiles",
    "rich",
    "tomlkit",
    "ruamel",
    "huggingface_hub",
    "httpx2",
    "filelock",
)


def run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [*GNO, *args], capture_output=True, text=True, timeout=60, env=os.environ.copy()
    )
    if check and done.returncode != 0:
        raise AssertionError(f"gno {' '.join(args)} failed ({done.returncode}): {done.stderr}")
    return done


def indexed(tmp_path: Path, n: int = 3) -> Path:
    root = tmp_path / "notes"
    root.mkdir()
    for i in range(n):
        (root / f"n{i}.md").write_text(f"# Note {i}\n\nsampling body {i}\n")
    run("init", str(root), "--name", "notes")
    run("update")
    return root


def test_search_path_loads_no_heavy_modules(tmp_path):
    indexed(tmp_path)
    probe = (
        "import sys; from gno.cli.entry import run; code = run(['search', 'sampling', '--json']); "
        f"heavy = sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r} "
        "or m.startswith(('gno.mcpinstall', 'gno.services.mcp_install'))); "
        "print('HEAVY', heavy, code, file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert "HEAVY [] 0" in done.stderr, done.stderr
    assert json.loads(done.stdout)["meta"]["totalResults"] == 3


def test_json_errors_go_to_stderr_with_exit_codes(tmp_path):
    done = run("status", "--json", check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert json.loads(done.stderr)["error"]["code"] == "RUNTIME"
    indexed(tmp_path)
    for args, code in (
        (["search", "", "--json"], 1),
        (["get", "#abcdef12", "--json"], 2),
        (["search", "x", "--bogus"], 1),
        (["search", "x", "--json", "--csv"], 1),
    ):
        done = run(*args, check=False)
        assert done.returncode == code, (args, done.stderr)
        assert done.stdout == ""
    plain = run("get", "nosuchform", check=False)
    assert plain.returncode == 1 and plain.stderr.startswith("Error: ")


def test_global_flags_anywhere_and_named_index(tmp_path):
    root = indexed(tmp_path)
    missing = run(
        "search", "sampling", "--index", "work", check=False
    )  # reads never create an index
    assert missing.returncode == 2 and "gno update --index work" in missing.stderr
    assert not (Path(os.environ["GNO_DATA_DIR"]) / "index-work.sqlite").exists()
    run("--index", "work", "init", str(root), "--name", "notes")
    run("update", "--index", "work")
    out = json.loads(run("search", "body", "--json", "--index", "work", "-n", "1").stdout)
    assert out["results"][0]["uri"].endswith("?index=work")
    data_dir = Path(os.environ["GNO_DATA_DIR"])
    assert {p.name for p in data_dir.glob("index-*.sqlite")} == {
        "index-default.sqlite",
        "index-work.sqlite",
    }
    bad = run("--index", "../x", "status", check=False)
    assert bad.returncode == 1


def _interrupted_update(tmp_path: Path, sig: signal.Signals) -> tuple[int, str, int, Path]:
    """`gno update --json` over 3000 files, sent ``sig`` while it is provably mid-way: the
    signal goes out while this test holds the index's write lock and fewer than 3000
    documents are committed, so the sync cannot have finished. Returns (exit code, stdout,
    documents committed before the signal, index path)."""
    root = tmp_path / "big"
    root.mkdir()
    for i in range(3000):
        (root / f"n{i:04d}.md").write_text(f"# Note {i}\n\n" + f"term{i} body text " * 40 + "\n")
    run("init", str(root), "--name", "big")
    # The sync waits for the held lock instead of failing with LOCKED after 200 ms.
    env = os.environ | {"GNO_BUSY_TIMEOUT_MS": "120000"}
    proc = subprocess.Popen(
        [*GNO, "update", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    db = Path(os.environ["GNO_DATA_DIR"]) / "index-default.sqlite"
    try:
        wait_for_documents(db)
        with writes_held(db) as before:
            assert 0 < before < 3000, "the sync finished before it could be interrupted"
            proc.send_signal(sig)
        # communicate() returns at EOF of the pipes, which workers would hold open
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "Traceback" not in err
    return proc.returncode, out, before, db


def test_ctrl_c_during_update_keeps_index_consistent(tmp_path):
    code, out, before, db = _interrupted_update(tmp_path, signal.SIGINT)
    assert code == 130 and json.loads(out)["interrupted"] is True
    docs = assert_consistent(db)
    assert before <= docs < 3000  # committed batches stay, the rest was never written
    final = json.loads(run("update", "--json").stdout)
    assert final["totalFilesAdded"] == 3000 - docs
    assert assert_consistent(db) == 3000


def test_sigterm_during_update_leaves_a_consistent_index(tmp_path):
    """SIGTERM stops `gno update` like Ctrl-C: what was committed stays, the open batch
    is dropped whole, no worker process outlives it, and the next update indexes
    exactly the rest."""
    code, out, before, db = _interrupted_update(tmp_path, signal.SIGTERM)
    assert code == 130 and json.loads(out)["interrupted"] is True
    docs = assert_consistent(db)
    assert before <= docs < 3000
    final = json.loads(run("update", "--json").stdout)
    assert final["totalFilesAdded"] == 3000 - docs
    assert assert_consistent(db) == 3000 == len(list((tmp_path / "big").iterdir()))
