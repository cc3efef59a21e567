"""`gno models pull` and automatic downloads, as real processes against a fake hub."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from gno.models.catalog import PRESETS, ROLES, parse_model_uri
from tests.fake_hub import FakeHub
from tests.models.gno_process import GNO, error, gno, models_dir, ok, with_tty_stderr

pytestmark = pytest.mark.slow

TINY_REPO = "test-org/tiny-GGUF"
PRESET = PRESETS["slim-tuned"]


def serve_preset(hub: FakeHub, tiny: dict[str, bytes], preset_id: str = "slim-tuned") -> None:
    """Serve the preset's four model files (tiny stand-ins) under their real names."""
    content = {"embed": tiny["embed"], "rerank": tiny["rerank"]}
    for role in ROLES:
        uri = parse_model_uri(PRESETS[preset_id].uri(role))
        hub.add(uri.repo, uri.filename, content.get(role, tiny["llama"]))


def cached_file(env: dict[str, str], role: str, preset_id: str = "slim-tuned") -> Path:
    uri = parse_model_uri(PRESETS[preset_id].uri(role))
    return models_dir(env) / "hf" / uri.repo / uri.filename


def leftovers(env: dict[str, str]) -> list[Path]:
    """Partial downloads left in the cache (there must never be any)."""
    partial = models_dir(env) / ".partial"
    return [p for p in partial.rglob("*") if p.is_file()] if partial.exists() else []


def test_pull_one_role_downloads_only_it_and_writes_the_manifest(hub, hub_env, tiny_models):
    serve_preset(hub, tiny_models)
    result = ok(hub_env, "models", "pull", "--embed", "--json")
    [embed] = result["results"]
    target = cached_file(hub_env, "embed")
    assert embed["status"] == "downloaded" and embed["path"] == str(target)
    assert target.read_bytes() == tiny_models["embed"]
    assert embed["sha256"] == hashlib.sha256(tiny_models["embed"]).hexdigest()
    assert embed["size"] == len(tiny_models["embed"])
    assert (result["downloaded"], result["cached"], result["skipped"]) == (1, 0, 0)
    assert hub.count("GET", parse_model_uri(PRESET.rerank).repo, None) == 0
    assert not any(r.method == "GET" and "Reranker" in r.path for r in hub.requests)

    data = json.loads((models_dir(hub_env) / "manifest.json").read_text())
    [entry] = data["models"]
    assert entry["uri"] == PRESET.embed and entry["roles"] == ["embed"]
    assert entry["path"] == str(target) and entry["size"] == len(tiny_models["embed"])
    assert entry["sha256"] == entry["etag"] == embed["sha256"]
    assert entry["revision"] == FakeHub.commit(parse_model_uri(PRESET.embed).repo)
    assert entry["pulledAt"].endswith("Z")
    assert leftovers(hub_env) == []


def test_pull_all_then_skip_cached_then_force(hub, hub_env, tiny_models):
    serve_preset(hub, tiny_models)
    first = ok(hub_env, "models", "pull", "--json")  # default: every role
    assert [r["role"] for r in first["results"]] == list(ROLES)
    assert {r["status"] for r in first["results"]} == {"downloaded"}
    for role in ROLES:
        assert cached_file(hub_env, role).is_file()
    listed = ok(hub_env, "models", "list", "--json")
    assert all(listed[role]["cached"] for role in ROLES)

    seen = len(hub.requests)
    again = ok(hub_env, "models", "pull", "--all", "--json")
    assert {r["status"] for r in again["results"]} == {"cached"} and again["cached"] == 4
    assert hub.requests[seen:] == []  # cached files cost no request at all

    embed = parse_model_uri(PRESET.embed)
    before = hub.count("GET", embed.repo, embed.filename)
    forced = ok(hub_env, "models", "pull", "--embed", "--force", "--json")
    assert forced["results"][0]["status"] == "downloaded"
    assert hub.count("GET", embed.repo, embed.filename) == before + 1
    assert cached_file(hub_env, "embed").read_bytes() == tiny_models["embed"]


def test_one_file_for_two_roles_is_fetched_once_even_forced(hub, hub_env, tiny_models):
    hub.add(TINY_REPO, "tiny-Q8_0.gguf", tiny_models["llama"])
    shared = f"hf:{TINY_REPO}/tiny-Q8_0.gguf"
    env = hub_env | {"GNO_EXPAND_MODEL": shared, "GNO_GEN_MODEL": shared}
    for flags in ((), ("--force",)):
        result = ok(env, "models", "pull", "--expand", "--gen", *flags, "--json")
        assert [r["status"] for r in result["results"]] == ["downloaded", "cached"]
        assert result["results"][0]["path"] == result["results"][1]["path"]
    assert hub.count("GET", TINY_REPO, "tiny-Q8_0.gguf") == 2  # once per pull
    [entry] = json.loads((models_dir(env) / "manifest.json").read_text())["models"]
    assert entry["roles"] == ["expand", "gen"] and entry["uri"] == shared


def test_quant_uri_resolves_through_the_repo_listing(hub, hub_env, tiny_models):
    for name in ("tiny-Q4_K_M.gguf", "tiny-Q8_0.gguf", "tiny-Q4_K_M_L.gguf", "mmproj-Q4_K_M.gguf"):
        hub.add(TINY_REPO, name, tiny_models["llama"])
    hub.add(TINY_REPO, "README.md", b"# tiny")
    env = hub_env | {"GNO_GEN_MODEL": f"hf:{TINY_REPO}:q4_k_m"}
    [gen] = ok(env, "models", "pull", "--gen", "--json")["results"]
    assert gen["status"] == "downloaded"
    assert Path(gen["path"]) == models_dir(env) / "hf" / TINY_REPO / "tiny-Q4_K_M.gguf"
    assert hub.count("GET", TINY_REPO) == 1  # the listing
    assert [
        r.path.rsplit("/", 1)[-1]
        for r in hub.requests
        if r.method == "GET" and "/resolve/" in r.path
    ] == ["tiny-Q4_K_M.gguf"]
    listed = ok(env, "models", "list", "--json")["gen"]
    assert listed["cached"] is True and listed["path"] == gen["path"]
    assert ok(env, "models", "pull", "--gen", "--json")["results"][0]["status"] == "cached"
    assert hub.count("GET", TINY_REPO) == 1  # cached: no listing either

    missing = error(
        env | {"GNO_GEN_MODEL": f"hf:{TINY_REPO}:Q5_K_S"}, 2, "models", "pull", "--gen", "--json"
    )
    assert "no single-file GGUF named with Q5_K_S" in missing["message"]
    assert "tiny-Q8_0.gguf" in missing["message"]  # says what there is


@pytest.mark.parametrize(
    ("fault", "says"),
    [
        ("corrupt", "is not a valid GGUF file"),
        ("tamper", "SHA-256"),
        ("head500", "HTTP 500"),
        ("get500", "HTTP 500"),
        # a body past its announced size, or one that never ends, is stopped at that size
        # (huggingface_hub alone writes it all, filling the disk, and compares at the end)
        ("oversize", "bytes announced; the download was stopped"),
        ("endless", "bytes announced; the download was stopped"),
        ("redirect_loop", "TooManyRedirects"),
    ],
)
def test_bad_downloads_fail_with_exit_2_and_leave_nothing(hub, hub_env, tiny_models, fault, says):
    hub.add(TINY_REPO, "tiny-Q8_0.gguf", tiny_models["embed"])
    hub.fault(TINY_REPO, "tiny-Q8_0.gguf", fault)
    env = hub_env | {"GNO_EMBED_MODEL": f"hf:{TINY_REPO}/tiny-Q8_0.gguf"}
    err = error(env, 2, "models", "pull", "--embed", "--json")
    assert says in err["message"] and "gno models pull --embed" in err["message"]
    [result] = err["details"]["results"]
    assert result["status"] == "failed" and result["path"] is None
    assert not (models_dir(env) / "hf" / TINY_REPO / "tiny-Q8_0.gguf").exists()
    assert leftovers(env) == []
    manifest = models_dir(env) / "manifest.json"
    assert not manifest.exists() or json.loads(manifest.read_text())["models"] == []
    if fault in ("oversize", "endless"):
        assert f"more than the {len(tiny_models['embed'])} bytes" in err["message"]
    if fault in ("corrupt", "tamper"):
        assert "the file was removed" in err["message"]
    if fault == "corrupt":
        hub.fault(TINY_REPO, "tiny-Q8_0.gguf", None)  # the hub recovers: the same pull succeeds
        assert ok(env, "models", "pull", "--embed", "--json")["downloaded"] == 1


def test_missing_repo_and_file_are_named(hub, hub_env, tiny_models):
    hub.add(TINY_REPO, "tiny-Q8_0.gguf", tiny_models["embed"])
    env = hub_env | {
        "GNO_EMBED_MODEL": f"hf:{TINY_REPO}/tiny-Q8_0.gguf",
        "GNO_RERANK_MODEL": f"hf:{TINY_REPO}/absent.gguf",
        "GNO_GEN_MODEL": "hf:test-org/no-such-repo/m.gguf",
        "GNO_EXPAND_MODEL": "http://127.0.0.1:9/v1#remote",
    }
    done = gno(env, "models", "pull", "--json")
    assert done.returncode == 2 and done.stdout == ""
    err = json.loads(done.stderr)["error"]
    assert err["message"].startswith("2 of 4 model download(s) failed")
    assert f"{TINY_REPO} has no file absent.gguf" in err["message"]
    assert "no repo test-org/no-such-repo" in err["message"]
    assert "gno models pull --rerank --gen" in err["message"]
    status = {r["role"]: r["status"] for r in err["details"]["results"]}
    assert status == {
        "embed": "downloaded",
        "rerank": "failed",
        "expand": "skipped",
        "gen": "failed",
    }
    assert (models_dir(env) / "hf" / TINY_REPO / "tiny-Q8_0.gguf").is_file()  # the good one stays
    assert not any("/v1" in r.path for r in hub.requests)  # endpoints are never fetched

    text = gno(env, "models", "pull", "--rerank")
    assert text.returncode == 2 and text.stderr.startswith("Error: 1 of 1 model download(s) failed")


def test_remote_and_local_models_are_skipped(hub, hub_env, tiny_models, tmp_path):
    local = tmp_path / "local.gguf"
    local.write_bytes(tiny_models["embed"])
    env = hub_env | {
        "GNO_EMBED_MODEL": f"file:{local}",
        "GNO_RERANK_MODEL": "http://127.0.0.1:9/v1#reranker",
    }
    result = ok(env, "models", "pull", "--embed", "--rerank", "--json")
    embed, rerank = result["results"]
    assert embed["status"] == "skipped" and embed["path"] == str(local)
    assert rerank["status"] == "skipped" and "remote endpoint" in rerank["reason"]
    assert result["skipped"] == 2 and hub.requests == []


@pytest.mark.parametrize(
    ("extra", "flags", "says"),
    [
        ({"HF_HUB_OFFLINE": "1"}, (), "HF_HUB_OFFLINE is set"),
        ({"GNO_OFFLINE": "1"}, (), "offline mode is on"),
        ({}, ("--offline",), "offline mode is on"),
        ({"HF_HUB_OFFLINE": "1", "GNO_NO_AUTO_DOWNLOAD": "1"}, (), "HF_HUB_OFFLINE is set"),
    ],
)
def test_offline_refuses_to_pull(hub, hub_env, tiny_models, extra, flags, says):
    serve_preset(hub, tiny_models)
    err = error(hub_env | extra, 2, "models", "pull", *flags, "--json")
    assert says in err["message"] and "Cannot pull models" in err["message"]
    assert hub.requests == [] and not cached_file(hub_env, "embed").exists()


def init_notes(env: dict[str, str], tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "trace.md").write_text("# Tracing\n\nsample the trace before export\n")
    ok(env, "init", str(notes), "--name", "notes", "--json")
    ok(env, "update", "--json")


def test_no_auto_download_fails_fast_but_allows_pull(hub, hub_env, tiny_models, tmp_path):
    pytest.importorskip("llama_cpp", reason="embedding needs llama-cpp-python")
    serve_preset(hub, tiny_models)
    init_notes(hub_env, tmp_path)
    env = hub_env | {"GNO_NO_AUTO_DOWNLOAD": "1"}
    err = error(env, 2, "embed", "--json")
    assert "automatic downloads are off" in err["message"]
    assert "gno models pull --embed" in err["message"]
    assert hub.requests == []  # failed without touching the network
    assert ok(env, "models", "pull", "--embed", "--json")["downloaded"] == 1
    assert ok(env, "embed", "--json")["embedded"] == 1


def test_embed_downloads_a_missing_model_when_allowed(hub, hub_env, tiny_models, tmp_path):
    pytest.importorskip("llama_cpp", reason="embedding needs llama-cpp-python")
    serve_preset(hub, tiny_models)
    init_notes(hub_env, tmp_path)
    result = ok(hub_env, "embed", "--json")
    assert result["embedded"] == 1 and result["model"] == PRESET.embed
    assert cached_file(hub_env, "embed").read_bytes() == tiny_models["embed"]
    embed = parse_model_uri(PRESET.embed)
    assert hub.count("GET", embed.repo, embed.filename) == 1
    entry = json.loads((models_dir(hub_env) / "manifest.json").read_text())["models"][0]
    assert entry["roles"] == ["embed"]
    hits = ok(hub_env, "vsearch", "sample the trace", "--json")  # loads the cached file
    assert len(hits["results"]) == 1 and hub.count("GET", embed.repo, embed.filename) == 1


def test_two_concurrent_pulls_of_one_model_download_it_once(hub, hub_env, tiny_models):
    hub.add(TINY_REPO, "tiny-Q8_0.gguf", tiny_models["embed"])
    release = hub.hold(TINY_REPO, "tiny-Q8_0.gguf")
    env = hub_env | {"GNO_EMBED_MODEL": f"hf:{TINY_REPO}:Q8_0"}
    args = [*GNO, "models", "pull", "--embed", "--json"]
    cwd = Path(env["GNO_CONFIG_DIR"]).parent
    popen = {
        "env": env,
        "cwd": cwd,
        "stdout": subprocess.PIPE,
        "stderr": subprocess.PIPE,
        "text": True,
    }
    first = subprocess.Popen(args, **popen)
    try:
        assert hub.wait_until(lambda: hub.count("GET", TINY_REPO, "tiny-Q8_0.gguf") == 1)
        second = subprocess.Popen(args, **popen)
        try:
            # The second has listed the repo, found no cached file and goes for the lock
            # the first holds while its download hangs.
            assert hub.wait_until(lambda: hub.count("GET", TINY_REPO) == 2)
        finally:
            release.set()
            out2, err2 = second.communicate(timeout=120)
    finally:
        release.set()
        out1, err1 = first.communicate(timeout=120)
    assert first.returncode == 0, err1
    assert second.returncode == 0, err2
    statuses = sorted(json.loads(out)["results"][0]["status"] for out in (out1, out2))
    assert statuses == ["cached", "downloaded"]
    assert hub.count("GET", TINY_REPO, "tiny-Q8_0.gguf") == 1
    files = [p for p in (models_dir(env) / "hf").rglob("*") if p.is_file()]
    assert files == [models_dir(env) / "hf" / TINY_REPO / "tiny-Q8_0.gguf"]
    assert files[0].read_bytes() == tiny_models["embed"]
    assert leftovers(env) == []


def test_progress_bar_only_on_a_terminal(hub, hub_env, tiny_models):
    serve_preset(hub, tiny_models)
    code, shown = with_tty_stderr(hub_env, "models", "pull", "--embed")
    assert code == 0
    assert "embed: Qwen3-Embedding-0.6B-Q8_0.gguf" in shown and "kB" in shown
    code, shown = with_tty_stderr(hub_env, "models", "pull", "--rerank", "--no-progress")
    assert code == 0 and shown == ""
    code, shown = with_tty_stderr(hub_env, "models", "pull", "--expand", "--json")
    assert code == 0 and shown == ""
    piped = gno(hub_env, "models", "pull", "--gen")
    assert piped.returncode == 0 and piped.stderr == ""
    assert "gen: downloaded " + PRESET.gen in piped.stdout
