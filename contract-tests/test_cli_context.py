"""`gno context …` and `gno ask` as real processes: outputs valid against their schemas,
GNO's exit codes, no partial --output file, and ask's fail-fast without a gen model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from contract_helpers import MISC, NOTES, gno_env, gno_err, gno_ok, run_gno, write_tree


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("context")
    notes = write_tree(root / "corpus" / "notes", NOTES)
    misc = write_tree(root / "corpus" / "misc", MISC)
    env = gno_env(root)
    env["GNO_GEN_MODEL"] = f"file:{root / 'no-such-gen.gguf'}"
    gno_ok(env, "init", "--json")
    gno_ok(env, "collection", "add", str(notes), "--name", "notes", "--json")
    gno_ok(env, "collection", "add", str(misc), "--name", "misc", "--json")
    gno_ok(env, "update", "--json")
    return env


def _files(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def test_configured_contexts(env: dict[str, str]) -> None:
    assert run_gno(env, "context", "add", "/", "Prefer the runbooks.").returncode == 0
    assert run_gno(env, "context", "add", "notes:", "Drafts.").returncode == 0
    assert run_gno(env, "context", "add", "notes:", "Older drafts.").returncode == 0
    gno_err(env, 1, "context", "add", "notes:", "Drafts.", "--json")  # exact duplicate
    gno_err(env, 1, "context", "add", "not a scope", "x", "--json")
    listed = gno_ok(env, "context", "list", "--json")
    assert {"scope": "notes:", "text": "Drafts."} in listed
    assert gno_ok(env, "context", "check", "--json")["valid"] is True
    gno_err(env, 1, "context", "rm", "notes:", "--json")  # two texts: ambiguous, nothing removed
    assert len(gno_ok(env, "context", "list", "--json")) == 3
    assert run_gno(env, "context", "rm", "notes:", "Older drafts.").returncode == 0
    capsule = gno_ok(env, "context", "build", "lighthouse", "--budget", "12000", "--fast", "--json")
    guidance = {c["text"] for c in capsule["guidance"]["configuredContexts"]}
    assert "Prefer the runbooks." in guidance  # trusted guidance, never evidence
    assert all("Prefer the runbooks." not in e["text"] for e in capsule["evidence"])
    assert run_gno(env, "context", "rm", "notes:").returncode == 0
    assert run_gno(env, "context", "rm", "/").returncode == 0


def test_build_output_verify_and_bad_capsules(env: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "cap.json"
    args = ["context", "build", "lighthouse keeper", "--budget", "12000", "--fast"]
    done = run_gno(env, *args, "--json", "--output", str(out))
    assert done.returncode == 0 and done.stdout == ""
    capsule = json.loads(out.read_text())
    receipt = gno_ok(env, "context", "verify", str(out), "--json")
    assert receipt["capsuleId"] == capsule["capsuleId"]
    assert receipt["contentStatus"] == "unchanged"
    md = run_gno(env, "context", "verify", str(out))
    assert md.returncode == 0 and md.stdout.startswith("# Capsule verification")
    assert "\n# Context Capsule\n" in run_gno(env, *args).stdout  # Markdown by default

    before = _files(tmp_path)
    target = tmp_path / "never.json"
    zero = gno_err(env, 1, *args[:3], "--budget", "0", "--json", "--output", str(target))
    assert zero["details"] == {"reason": "--budget must be 1 to 1,000,000"}
    missing = gno_err(env, 1, *args[:3], "--json", "--output", str(target))
    assert missing["details"] == {"reason": "--budget is required"}
    both = ["--no-project-affinity", "--project-root", str(tmp_path)]
    assert "not both" in gno_err(env, 1, *args, *both, "--json")["message"]
    plain = gno_ok(env, *args, "--no-project-affinity", "--json")
    assert plain["capsuleId"] == capsule["capsuleId"]  # no hints: the same Capsule
    gno_err(
        env, 1, "context", "build", "   ", "--budget", "12000", "--json", "--output", str(target)
    )
    gno_err(env, 1, *args, "-c", "nope", "--json", "--output", str(target))
    assert _files(tmp_path) == before  # no partial file, no temporary left behind

    text = out.read_text()
    cases: dict[str, str] = {
        "truncated.json": text[: len(text) // 2],
        "not-json.json": "not json at all",
        "forged.json": json.dumps(capsule | {"goal": "forged goal"}),
        "other-index.json": json.dumps(
            capsule | {"scope": capsule["scope"] | {"indexName": "elsewhere"}}
        ),
    }
    codes = {}
    receipt_file = tmp_path / "receipt.json"
    for name, body in cases.items():
        (tmp_path / name).write_text(body)
        before = _files(tmp_path)
        codes[name] = gno_err(
            env,
            1,
            "context",
            "verify",
            str(tmp_path / name),
            "--json",
            "--output",
            str(receipt_file),
        )
        assert _files(tmp_path) == before  # no receipt, no temporary file left behind
    assert all(c["code"] == "VALIDATION" for c in codes.values())
    assert codes["truncated.json"]["message"] == "Context input is invalid."
    assert codes["not-json.json"]["message"] == "Context input is invalid."
    assert codes["forged.json"]["message"].startswith("Capsule identity does not match")
    assert codes["other-index.json"]["message"].startswith("Capsule identity does not match")

    # A sealed Capsule compiled in another index (its own id intact) fails on the index.
    run_gno(env, "--index", "elsewhere", "update")
    other = tmp_path / "elsewhere.json"
    built = run_gno(env, "--index", "elsewhere", *args, "--json", "--output", str(other))
    assert built.returncode == 0, built.stderr
    foreign = gno_err(env, 1, "context", "verify", str(other), "--json")
    assert foreign["message"].startswith("Capsule identity does not match")
    assert foreign["details"] == {"reason": "index"}


def test_ask_without_a_gen_model(env: dict[str, str]) -> None:
    retrieval = gno_ok(env, "ask", "lighthouse", "--json")
    assert retrieval["results"] and "answer" not in retrieval
    failed = gno_err(env, 2, "ask", "lighthouse", "--answer", "--json")
    assert "gno models pull --gen" in failed["message"]
    gno_err(env, 1, "ask", "lighthouse", "--verify", "--no-answer", "--json")


def test_ask_flags_for_people_and_scripts(env: dict[str, str]) -> None:
    """--answer with a loopback model: --show-sources lists the sources under the answer,
    --no-answer stays retrieval-only, --explain writes stage lines to stderr, --md and
    --json carry the same answer (valid ask@1.0)."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from contract_helpers import assert_valid

    from tests.fake_openai import FakeOpenAI

    with FakeOpenAI(mode="ok") as fake:
        fake.chat_reply = lambda body: "The keeper tends the lighthouse [1]."
        own = env | {"GNO_GEN_MODEL": f"{fake.url}/v1#fake-gen"}
        plain = run_gno(own, "ask", "lighthouse", "--answer")
        assert plain.returncode == 0, plain.stderr
        assert plain.stdout.startswith("The keeper tends the lighthouse [1].")
        assert "(score " not in plain.stdout  # sources only with --show-sources
        shown = run_gno(own, "ask", "lighthouse", "--answer", "--show-sources")
        assert shown.returncode == 0 and "(score " in shown.stdout
        calls = fake.count("/v1/chat/completions")
        quiet = gno_ok(own, "ask", "lighthouse", "--answer", "--no-answer", "--json")
        assert "answer" not in quiet and fake.count("/v1/chat/completions") == calls
        explained = run_gno(own, "ask", "lighthouse", "--answer", "--explain")
        assert explained.returncode == 0 and explained.stderr.lstrip().startswith("[")
        payload = gno_ok(own, "ask", "lighthouse", "--answer", "--json")
        assert_valid("gno://schemas/ask@1.0", payload)
        assert payload["answer"] == "The keeper tends the lighthouse [1]."
        md = run_gno(own, "ask", "lighthouse", "--answer", "--md")
        assert md.returncode == 0 and "## Citations" in md.stdout and payload["answer"] in md.stdout


def test_output_keeps_an_existing_file_on_failure(env: dict[str, str], tmp_path: Path) -> None:
    """--output replaces a file only once the whole result exists: a failing build leaves an
    existing file byte-identical, and a folder that does not exist is an input error."""
    target = tmp_path / "kept.json"
    target.write_text("previous capsule\n")
    args = ["context", "build", "lighthouse keeper", "--fast", "--json", "--output", str(target)]
    gno_err(env, 1, *args, "--budget", "0")
    gno_err(env, 1, *args, "--budget", "12000", "-c", "nope")
    assert target.read_text() == "previous capsule\n" and _files(tmp_path) == {"kept.json"}
    assert run_gno(env, *args, "--budget", "12000").returncode == 0
    assert json.loads(target.read_text())["schemaVersion"] == "1.1"
    assert _files(tmp_path) == {"kept.json"}  # the temporary file was renamed, none left
    missing = ["--budget", "12000", "--output", str(tmp_path / "no-such-dir" / "x.json")]
    gno_err(env, 1, *args[:-2], *missing)
