"""gno_ask over MCP stdio with a loopback OpenAI-compatible gen model: the verified answer
validates against ask@1.0, its text rewrites [evidence:<id>] as [n]; a contradiction
abstains."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
from contract_helpers import GNO, NOTES, assert_valid, gno_env, gno_ok, write_tree
from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.fake_openai import FakeOpenAI


def _reply(verdict: str) -> Any:
    def reply(body: dict[str, Any]) -> str:
        prompt = str(body["messages"][-1]["content"])
        if "gno-claim-verifier-v1" in prompt:
            claims = json.loads(prompt.split(">>\n", 1)[1].rsplit("\n<<", 1)[0])["claims"]
            return json.dumps(
                {"verdicts": [{"claim": c["claim"], "verdict": verdict} for c in claims]}
            )
        return "The zephyrquartz protocol keeps the lighthouse running [1]."

    return reply


def test_gno_ask_verified_and_abstained(tmp_path: Path) -> None:
    env = gno_env(tmp_path)
    notes = write_tree(tmp_path / "corpus" / "notes", NOTES)
    gno_ok(env, "init", "--json")
    gno_ok(env, "collection", "add", str(notes), "--name", "notes", "--json")
    gno_ok(env, "update", "--json")
    with FakeOpenAI(mode="ok") as server:
        env["GNO_GEN_MODEL"] = f"{server.url}/v1#fake-gen"
        params = StdioServerParameters(command=str(GNO), args=["mcp"], env=env)

        async def session() -> None:
            async with Client(params, mode="legacy") as client:
                server.chat_reply = _reply("supported")
                result = await client.call_tool(
                    "gno_ask", {"query": "zephyrquartz lighthouse", "verify": True}
                )
                assert not result.is_error, result.content[0].text
                payload = result.structured_content
                assert_valid("gno://schemas/ask@1.0", payload)
                assert payload["verification"]["claims"]["answerStatus"] == "verified"
                text = result.content[0].text
                assert "[evidence:" in payload["answer"] and "[evidence:" not in text.split("\n")[0]
                assert "Verification: verified" in text
                server.chat_reply = _reply("contradicted")
                result = await client.call_tool(
                    "gno_ask", {"query": "zephyrquartz lighthouse", "verify": True}
                )
                payload = result.structured_content
                assert (
                    payload["verification"]["claims"]["abstentionReason"]
                    == "contradiction_detected"
                )
                assert "answer" not in payload

        anyio.run(session)


def test_gno_ask_without_a_gen_model_or_without_verify_is_an_error(tmp_path: Path) -> None:
    """No gen model: isError naming the fix, before any retrieval; verify must be the
    literal true (false, "true" or missing are refused)."""
    env = gno_env(tmp_path)
    notes = write_tree(tmp_path / "corpus" / "notes", NOTES)
    gno_ok(env, "init", "--json")
    gno_ok(env, "collection", "add", str(notes), "--name", "notes", "--json")
    gno_ok(env, "update", "--json")
    env["GNO_GEN_MODEL"] = f"file:{tmp_path / 'missing-gen.gguf'}"
    params = StdioServerParameters(command=str(GNO), args=["mcp"], env=env)

    async def session() -> None:
        async with Client(params, mode="legacy") as client:
            missing = await client.call_tool("gno_ask", {"query": "lighthouse", "verify": True})
            assert missing.is_error
            assert missing.structured_content["error"] == "UNAVAILABLE"
            assert "gno models pull --gen" in missing.content[0].text
            for verify in ({"verify": False}, {"verify": "true"}, {}):
                refused = await client.call_tool("gno_ask", {"query": "lighthouse"} | verify)
                assert refused.is_error, verify

    anyio.run(session)
