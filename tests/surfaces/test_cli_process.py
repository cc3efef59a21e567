"""The CLI as a real process: lean imports, exit codes, Ctrl-C and SIGTERM during a sync."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from gno.adapters.sqlite.store import SqliteStore
from tests.index_consistency import assert_consistent

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


def test_ctrl_c_during_update_keeps_index_consistent(tmp_path):
    root = tmp_path / "big"
    root.mkdir()
    for i in range(3000):
        (root / f"n{i:04d}.md").write_text(
            f"# Note {i}\n\n" + f"word{i} sampling text " * 40 + "\n"
        )
    run("init", str(root), "--name", "big")
    proc = subprocess.Popen(
        [*GNO, "update", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    db = Path(os.environ["GNO_DATA_DIR"]) / "index-default.sqlite"
    deadline = time.time() + 30
    while time.time() < deadline:  # wait until the first batch is committed
        if (
            db.exists()
            and SqliteStore.open(db).conn.execute("SELECT count(*) FROM documents").fetchone()[0]
        ):
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    store = SqliteStore.open(db)
    docs = store.conn.execute("SELECT count(*) FROM documents WHERE active = 1").fetchone()[0]
    fts = store.conn.execute("SELECT count(*) FROM documents_fts").fetchone()[0]
    assert store.integrity_ok() and docs == fts
    if proc.returncode == 130:  # stopped mid-way (the usual case)
        assert json.loads(out)["interrupted"] is True and 0 < docs < 3000
    else:  # the sync won the race; it must then be complete
        assert proc.returncode == 0 and docs == 3000
    store.close()
    final = json.loads(run("update", "--json").stdout)
    assert final["totalFilesAdded"] == 3000 - docs


def test_sigterm_during_update_leaves_a_consistent_index(tmp_path):
    """SIGTERM stops `gno update` like Ctrl-C: what was committed stays, the open batch
    is dropped whole, no worker process outlives it, and the next update indexes
    exactly the rest."""
    root = tmp_path / "big"
    root.mkdir()
    for i in range(3000):
        (root / f"n{i:04d}.md").write_text(f"# Note {i}\n\n" + f"term{i} body text " * 40 + "\n")
    run("init", str(root), "--name", "big")
    proc = subprocess.Popen(
        [*GNO, "update", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    db = Path(os.environ["GNO_DATA_DIR"]) / "index-default.sqlite"
    deadline = time.time() + 30
    while time.time() < deadline:  # wait until the first batch is committed
        if (
            db.exists()
            and SqliteStore.open(db).conn.execute("SELECT count(*) FROM documents").fetchone()[0]
        ):
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    # communicate() returns at EOF of the pipes, which workers would hold open
    out, _ = proc.communicate(timeout=60)
    docs = assert_consistent(db)
    if proc.returncode == 130:  # stopped mid-way (the usual case)
        assert json.loads(out)["interrupted"] is True and 0 < docs < 3000
    else:  # the sync won the race; it must then be complete
        assert proc.returncode == 0 and docs == 3000
    final = json.loads(run("update", "--json").stdout)
    assert final["totalFilesAdded"] == 3000 - docs
    assert assert_consistent(db) == 3000 == len(list(root.iterdir()))
