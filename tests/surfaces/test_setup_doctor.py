"""`gno setup` and `gno doctor` as real processes in temporary homes (XDG folders)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.surfaces.cli_schema import check_json_output

GNO = [sys.executable, "-m", "gno.cli.entry"]


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    base = tmp_path / "home"
    base.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GNO_")}
    env |= {
        "HOME": str(base),
        "XDG_CONFIG_HOME": str(base / ".config"),
        "XDG_DATA_HOME": str(base / ".local" / "share"),
        "XDG_CACHE_HOME": str(base / ".cache"),
        "HF_HUB_OFFLINE": "1",
    }
    return env


def gno(
    env: dict[str, str], *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*GNO, *args], env=env, capture_output=True, text=True, timeout=120, cwd=cwd
    )
    if done.returncode in (0, 2) and "--json" in args and done.stdout:
        check_json_output(args, done.stdout)  # every JSON answer against its schema
    return done


def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "sub").mkdir(parents=True)
    (root / "sampling.md").write_text("# Tail sampling\n\nKeep only slow traces.\n")
    (root / "sub" / "metrics.md").write_text("# Histogram buckets\n\nExemplars per bucket.\n")
    return root


def config_file(env: dict[str, str]) -> Path:
    return Path(env["XDG_CONFIG_HOME"]) / "gno" / "index.yml"


def test_setup_indexes_proves_and_is_safe_to_rerun(home: dict[str, str], tmp_path: Path) -> None:
    root = notes(tmp_path)
    first = gno(home, "setup", str(root), "--json")
    assert first.returncode == 0, first.stderr
    result = json.loads(first.stdout)
    assert result["status"] == "completed" and result["created"] is True
    assert result["collection"] == {"name": "notes", "path": str(root)}
    assert result["sync"]["filesAdded"] == 2
    assert result["activation"]["ready"] is True
    assert result["activation"]["stages"]["lexical"]["status"] == "passed"
    assert result["activation"]["evidence"]["resultUri"].startswith("gno://notes/")
    assert result["semantic"]["status"] == "pending"  # no model on disk: keyword search only
    config_before = config_file(home).read_text()

    again = gno(home, "setup", str(root), "--json")
    assert again.returncode == 0, again.stderr
    rerun = json.loads(again.stdout)
    assert rerun["created"] is False and rerun["sync"]["filesUnchanged"] == 2
    assert config_file(home).read_text() == config_before  # nothing added twice
    hits = gno(home, "search", "slow traces", "--json")
    assert [h["uri"] for h in json.loads(hits.stdout)["results"]] == ["gno://notes/sampling.md"]


@pytest.mark.parametrize(
    ("folder", "message"),
    [
        ("missing", "does not exist"),
        ("HOME", "home"),
        ("/", "system or home root"),
        ("empty", "Nothing to index"),
        ("onlybinary", "Nothing to index"),
    ],
)
def test_setup_refuses_bad_folders_and_configures_nothing(
    home: dict[str, str], tmp_path: Path, folder: str, message: str
) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "onlybinary").mkdir()
    (tmp_path / "onlybinary" / "blob.bin").write_bytes(b"\x00\x01")
    path = {"HOME": home["HOME"], "/": "/"}.get(folder, str(tmp_path / folder))
    done = gno(home, "setup", path)
    assert done.returncode == 1
    assert message in done.stderr
    assert not config_file(home).exists()  # nothing half-configured
    assert not (Path(home["XDG_DATA_HOME"]) / "gno").exists()


def test_setup_refusal_leaves_an_existing_config_unchanged(
    home: dict[str, str], tmp_path: Path
) -> None:
    root = notes(tmp_path)
    assert gno(home, "setup", str(root)).returncode == 0
    before = config_file(home).read_text()
    (tmp_path / "empty").mkdir()
    assert gno(home, "setup", str(tmp_path / "empty"), "--name", "empty").returncode == 1
    assert gno(home, "setup", str(root), "--name", "other").returncode == 1  # already "notes"
    assert config_file(home).read_text() == before


def test_setup_without_folder_off_a_terminal_is_a_usage_error(home: dict[str, str]) -> None:
    done = gno(home, "setup")
    assert done.returncode == 1 and "Missing folder" in done.stderr


def _on_a_terminal(
    env: dict[str, str], *args: str, answers: dict[bytes, bytes]
) -> tuple[int, bytes]:
    """Run gno on a pseudo-terminal, answering each prompt once; (exit code, output)."""
    import pty
    import select

    pid, fd = pty.fork()
    if pid == 0:  # the child: gno on the terminal
        os.execve(GNO[0], [*GNO, *args], env)
    output, pending = b"", dict(answers)
    while select.select([fd], [], [], 60)[0]:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
        for prompt in [p for p in pending if p in output]:
            os.write(fd, pending.pop(prompt))
    os.close(fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), output


def test_setup_with_yes_never_prompts(home: dict[str, str]) -> None:
    code, output = _on_a_terminal(home, "--yes", "setup", answers={})
    assert code == 1 and b"Missing folder" in output and b"Folder to index" not in output


def test_setup_on_a_terminal_asks_for_the_folder(home: dict[str, str], tmp_path: Path) -> None:
    import pty

    root = notes(tmp_path)
    pid, fd = pty.fork()
    if pid == 0:  # the child: gno on a pseudo-terminal
        os.execve(GNO[0], [*GNO, "setup"], home)
    output = b""
    answered = 0
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
        if answered == 0 and b"Folder to index" in output:
            os.write(fd, str(root).encode() + b"\n")
            answered = 1
        elif answered == 1 and b"Model preset" in output:
            os.write(fd, b"\n")  # the default preset
            answered = 2
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0, output.decode(errors="replace")
    assert b"Lexical proof: passed" in output
    assert "notes" in config_file(home).read_text()


def test_doctor_reports_checks_with_fixes_and_exit_code(
    home: dict[str, str], tmp_path: Path
) -> None:
    bare = gno(home, "doctor", "--json")
    assert bare.returncode == 2
    report = json.loads(bare.stdout)
    assert report["healthy"] is False
    config = next(c for c in report["checks"] if c["name"] == "config")
    assert config["status"] == "error" and config["command"] == "gno setup <folder>"

    assert gno(home, "setup", str(notes(tmp_path))).returncode == 0
    done = gno(home, "doctor", "--json")
    assert done.returncode == 0, done.stdout
    report = json.loads(done.stdout)
    by_name = {c["name"]: c for c in report["checks"]}
    assert report["healthy"] is True
    for name in ("config", "database", "fts", "collection-roots", "retrieval-activation"):
        assert by_name[name]["status"] == "ok", by_name[name]
    assert by_name["embed-model"]["status"] == "warn"
    assert by_name["embed-model"]["command"] == "gno models pull --embed"
    assert by_name["embedding-fingerprint"]["command"] == "gno embed"
    assert report["activation"]["usable"] is True


def test_doctor_reports_a_missing_folder_as_an_error(home: dict[str, str], tmp_path: Path) -> None:
    root = notes(tmp_path)
    assert gno(home, "setup", str(root)).returncode == 0
    root.rename(tmp_path / "moved")
    done = gno(home, "doctor")
    assert done.returncode == 2
    assert "collection-roots" in done.stdout and "notes:" in done.stdout


def test_doctor_reports_a_corrupt_index_without_crashing(
    home: dict[str, str], tmp_path: Path
) -> None:
    assert gno(home, "setup", str(notes(tmp_path))).returncode == 0
    db = Path(home["XDG_DATA_HOME"]) / "gno" / "index-default.sqlite"
    for extra in ("-wal", "-shm"):
        Path(f"{db}{extra}").unlink(missing_ok=True)
    db.write_bytes(b"this is not a database" * 200)
    done = gno(home, "doctor", "--json")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    report = json.loads(done.stdout)
    database = next(c for c in report["checks"] if c["name"] == "database")
    assert database["status"] == "error" and "cannot be read" in database["message"]
    assert database["command"].endswith("gno update")
    assert report["activation"] is None


def test_doctor_checks_that_each_model_file_is_loadable(
    home: dict[str, str], tmp_path: Path
) -> None:
    """A model on disk is `ok` only when its GGUF header parses and names an architecture;
    a file that merely starts with the magic, or is no GGUF at all, is an error with the
    command that fetches it again."""
    pytest.importorskip("gguf")
    from tests.tiny_gguf import write_tiny_llama

    assert gno(home, "setup", str(notes(tmp_path))).returncode == 0
    good = write_tiny_llama(tmp_path / "gen.gguf")
    cut = tmp_path / "embed.gguf"
    cut.write_bytes(good.read_bytes()[:40])  # the magic, then a header cut short
    text = tmp_path / "rerank.gguf"
    text.write_text("not a model\n")
    env = home | {
        "GNO_GEN_MODEL": f"file:{good}",
        "GNO_EMBED_MODEL": f"file:{cut}",
        "GNO_RERANK_MODEL": f"file:{text}",
    }
    done = gno(env, "doctor", "--json")
    assert done.returncode == 2, done.stdout
    by_name = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    assert by_name["gen-model"]["status"] == "ok", by_name["gen-model"]
    assert "loadable" in by_name["gen-model"]["message"]
    for role, why in (("embed", "truncated"), ("rerank", "bad magic")):
        found = by_name[f"{role}-model"]
        assert found["status"] == "error", found
        assert why in found["message"]
        assert found["command"] == f"gno models pull --{role} --force"


def test_setup_embeds_when_the_model_is_on_disk_and_keeps_the_preset(
    home: dict[str, str], tmp_path: Path
) -> None:
    """Embedding happens in setup only when the embedding model is a file on disk (never
    downloaded); --preset is made active in index.yml; --no-semantic skips embedding."""
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    pytest.importorskip("gguf", reason="gguf is needed to write the tiny test model")
    pytest.importorskip("sqlite_vec", reason="sqlite-vec is not installed")
    from tests.tiny_gguf import write_tiny_bert

    env = home | {"GNO_EMBED_MODEL": f"file:{write_tiny_bert(tmp_path / 'bert.gguf')}"}
    root = notes(tmp_path)
    skipped = gno(env, "setup", str(root), "--no-semantic", "--json")
    assert skipped.returncode == 0, skipped.stderr
    assert json.loads(skipped.stdout)["semantic"]["status"] == "skipped"

    done = gno(env, "setup", str(root), "--preset", "slim", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["semantic"]["status"] == "embedded" and result["semantic"]["embedded"] == 2
    assert result["activePreset"] == "slim"
    assert "activePreset: slim\n" in config_file(home).read_text()
    near = gno(env, "vsearch", "slow traces", "--json")
    assert near.returncode == 0, near.stderr
    assert {h["uri"] for h in json.loads(near.stdout)["results"]} == {
        "gno://notes/sampling.md",
        "gno://notes/sub/metrics.md",
    }
    unknown = gno(env, "setup", str(root), "--preset", "nope")
    assert unknown.returncode == 1 and "Unknown model preset" in unknown.stderr


def test_doctor_searches_the_vector_tables(home: dict[str, str], tmp_path: Path) -> None:
    """`vectors`: a stored chunk vector must find its own chunk through the KNN search;
    a vector table that no longer answers is an error naming the model."""
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    pytest.importorskip("gguf", reason="gguf is needed to write the tiny test model")
    pytest.importorskip("sqlite_vec", reason="sqlite-vec is not installed")
    import sqlite3

    from tests.tiny_gguf import write_tiny_bert

    model = write_tiny_bert(tmp_path / "bert.gguf")
    env = home | {"GNO_EMBED_MODEL": f"file:{model}"}
    before = gno(home, "setup", str(notes(tmp_path)), "--no-semantic")
    assert before.returncode == 0, before.stderr
    empty = {c["name"]: c for c in json.loads(gno(env, "doctor", "--json").stdout)["checks"]}
    assert empty["vectors"]["status"] == "ok" and "No vectors yet" in empty["vectors"]["message"]

    assert gno(env, "embed").returncode == 0
    done = gno(env, "doctor", "--json")
    by_name = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    assert by_name["vectors"]["status"] == "ok", by_name["vectors"]
    assert by_name["vectors"]["message"] == "Vector tables answer (1 embedding model(s))"

    db = Path(home["XDG_DATA_HOME"]) / "gno" / "index-default.sqlite"
    with sqlite3.connect(db) as conn:  # the stored vectors' table goes away
        conn.execute("DROP TABLE text_vectors")
    damaged = gno(env, "doctor", "--json")
    assert damaged.returncode == 2
    assert "Traceback" not in damaged.stderr
    vectors = {c["name"]: c for c in json.loads(damaged.stdout)["checks"]}["vectors"]
    assert vectors["status"] == "error", vectors
    assert vectors["details"][0].startswith(f"file:{model}: ")


def test_setup_proves_retrieval_when_the_first_title_word_is_common(
    home: dict[str, str], tmp_path: Path
) -> None:
    """The lexical proof tries corpus-derived probe words (each document's title words,
    several documents, at most 64 probes) until one finds its own document: a title whose
    longest word is in every other note (as "OpenTelemetry semantic conventions" in the
    opentelemetry-docs corpus) must not fail setup."""
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# Semantic conventions for quokkas\n\nA short note.\n")
    for i in range(30):
        body = " ".join(["semantic conventions"] * 40)
        (root / f"b{i:02}.md").write_text(f"# Note {i}\n\n{body}\n")
    done = gno(home, "setup", str(root), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "completed"
    assert result["activation"]["evidence"] == {
        "probe": "quokkas",
        "resultUri": "gno://notes/a.md",
    }
    status = json.loads(gno(home, "status", "--json").stdout)["activation"]
    assert status["collections"][0]["ready"] is True


CORPUS = Path(
    os.environ.get(
        "GNO_BENCH_CORPUS",
        Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "opentelemetry-docs",
    )
)


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus not found: {CORPUS} (../shared)")
def test_setup_on_the_opentelemetry_corpus_completes(home: dict[str, str]) -> None:
    """The real corpus: 2,000+ Markdown pages whose first titles all say "OpenTelemetry" or
    "Semantic conventions"; setup indexes it and proves keyword search with a word that
    finds its own page (before the probe tried several words, it failed here: exit 2)."""
    done = gno(home, "setup", str(CORPUS), "--name", "otel", "--json")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["status"] == "completed" and result["sync"]["filesAdded"] > 2000
    probe = result["activation"]["evidence"]
    hits = gno(home, "search", probe["probe"], "-c", "otel", "-n", "20", "--json")
    assert probe["resultUri"] in [h["uri"] for h in json.loads(hits.stdout)["results"]]
    doctor = gno(home, "doctor", "--json")
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["retrieval-activation"]["status"] == "ok", checks["retrieval-activation"]
