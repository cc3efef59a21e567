"""The resident listener's boundary (gno/rest/gateway.py): flags a non-loopback bind
needs, the token file (creation, permissions, content, rotation) and the per-request
checks on ASGI scopes as uvicorn builds them."""

from __future__ import annotations

import base64
import os
import stat
from pathlib import Path

import pytest

from gno.rest.gateway import (
    Gateway,
    GatewayConfigError,
    TokenFile,
    build_gateway,
    refusal_response,
)

HOST, ORIGIN = "gno.test", "https://client.example"


def scope(
    headers: dict[str, str], peer: str = "127.0.0.1", path: str = "/mcp"
) -> dict[str, object]:
    return {
        "type": "http",
        "path": path,
        "client": (peer, 50000),
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
    }


def token_file(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "token"
    TokenFile.ensure(path)
    return path, path.read_text().strip()


@pytest.mark.parametrize(
    ("flags", "missing"),
    [
        ({}, ["--mcp-token-file", "--mcp-allowed-host", "--mcp-allowed-origin"]),
        ({"token_file": "t"}, ["--mcp-allowed-host", "--mcp-allowed-origin"]),
        ({"token_file": "t", "allowed_hosts": [HOST]}, ["--mcp-allowed-origin"]),
        ({"allowed_hosts": [HOST], "allowed_origins": [ORIGIN]}, ["--mcp-token-file"]),
    ],
)
@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "gno.lan"])
def test_a_non_loopback_bind_names_what_it_misses(
    host: str, flags: dict[str, object], missing: list[str], tmp_path: Path
) -> None:
    token = flags.get("token_file")
    with pytest.raises(GatewayConfigError) as raised:
        build_gateway(
            host,
            str(tmp_path / "t") if token else None,
            flags.get("allowed_hosts"),  # type: ignore[arg-type]
            flags.get("allowed_origins"),  # type: ignore[arg-type]
            whole_listener=True,
        )
    message = raised.value.message
    assert raised.value.exit_code == 2
    for name in ("--mcp-token-file", "--mcp-allowed-host", "--mcp-allowed-origin"):
        assert (name in message) == (name in missing), message
    assert not (tmp_path / "t").exists()  # nothing is created for a refused start


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"])
def test_loopback_binds_need_nothing(host: str) -> None:
    gateway = build_gateway(host, None, None, None, whole_listener=True)
    gateway.port = 3000
    assert gateway.loopback and gateway.token is None
    assert gateway.hosts() == ["127.0.0.1:3000", "localhost:3000", "[::1]:3000"]
    assert "http://localhost:3000" in gateway.origins()


@pytest.mark.parametrize("entry", ["*", "gno.lan:*", "a,b", "", " gno.lan", "gno.lan/x"])
def test_allowed_host_entries_are_exact(entry: str) -> None:
    with pytest.raises(GatewayConfigError, match="--mcp-allowed-host"):
        build_gateway("127.0.0.1", None, [entry], None, whole_listener=True)


@pytest.mark.parametrize("entry", ["client.example", "ftp://x", "https://*.x", "https://x/p"])
def test_allowed_origin_entries_are_exact(entry: str) -> None:
    with pytest.raises(GatewayConfigError, match="--mcp-allowed-origin"):
        build_gateway("127.0.0.1", None, None, [entry], whole_listener=True)


# ---------------------------------------------------------------- token file


def test_a_missing_token_file_is_created_0600_with_256_random_bits(tmp_path: Path) -> None:
    path, token = token_file(tmp_path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(base64.urlsafe_b64decode(token + "=")) == 32
    TokenFile.ensure(path)  # an existing good file is kept as it is
    assert path.read_text().strip() == token
    assert [p.name for p in tmp_path.iterdir()] == ["token"]  # no temporary file left
    (tmp_path / "other").mkdir()
    assert token_file(tmp_path / "other")[1] != token


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_looser_permissions_are_refused(tmp_path: Path, mode: int) -> None:
    path, _ = token_file(tmp_path)
    path.chmod(mode)
    with pytest.raises(GatewayConfigError, match="looser than 0600") as raised:
        TokenFile.ensure(path)
    assert path.read_text() not in raised.value.message  # the token is never shown


@pytest.mark.parametrize(
    "content", ["", "\n", "short-token", "has a space in it and is long enough ok", "é" * 40]
)
def test_bad_content_is_refused(tmp_path: Path, content: str) -> None:
    path = tmp_path / "token"
    path.write_text(content)
    path.chmod(0o600)
    with pytest.raises(GatewayConfigError, match="visible ASCII"):
        TokenFile.ensure(path)


def test_a_symlink_or_folder_is_refused(tmp_path: Path) -> None:
    real, _ = token_file(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(GatewayConfigError, match="cannot read"):
        TokenFile.ensure(link)
    with pytest.raises(GatewayConfigError, match="folder does not exist"):
        TokenFile.ensure(tmp_path / "missing" / "token")


# ---------------------------------------------------------------- per request


def remote_gateway(tmp_path: Path) -> tuple[Gateway, Path, str]:
    path, token = token_file(tmp_path)
    gateway = build_gateway("0.0.0.0", str(path), [HOST], [ORIGIN], whole_listener=True)
    gateway.port = 3000
    return gateway, path, token


def test_non_loopback_order_host_origin_bearer(tmp_path: Path) -> None:
    gateway, _, token = remote_gateway(tmp_path)
    bearer = {"Authorization": f"Bearer {token}"}
    assert gateway.refusal(scope({"Host": "127.0.0.1:3000", **bearer})) == 403
    assert gateway.refusal(scope({"Host": HOST})) == 401
    assert gateway.refusal(scope({"Host": HOST, "Authorization": "Bearer nope"})) == 401
    assert gateway.refusal(scope({"Host": HOST, "Authorization": token})) == 401
    assert gateway.refusal(scope({"Host": HOST, "Origin": "https://evil.example", **bearer})) == 403
    assert gateway.refusal(scope({"Host": HOST, **bearer}, peer="203.0.113.9")) is None
    assert gateway.refusal(scope({"Host": "GNO.TEST", "Origin": ORIGIN, **bearer})) is None
    assert gateway.refusal(scope({"Host": HOST, "Authorization": f"bearer {token}"})) is None


def test_forwarding_headers_change_nothing(tmp_path: Path) -> None:
    gateway, _, _ = remote_gateway(tmp_path)
    forwarded = {"Host": HOST, "X-Forwarded-For": "127.0.0.1", "Forwarded": "for=127.0.0.1"}
    assert gateway.refusal(scope(forwarded, peer="127.0.0.1")) == 401
    loopback = build_gateway("127.0.0.1", None, None, None, whole_listener=True)
    loopback.port = 3000
    headers = {"Host": "127.0.0.1:3000", "X-Forwarded-For": "127.0.0.1"}
    assert loopback.refusal(scope(headers, peer="127.0.0.1")) is None
    assert loopback.refusal(scope(headers, peer="10.0.0.5")) == 403  # peer, not header


def test_a_loopback_bind_with_a_token_file_requires_it_too(tmp_path: Path) -> None:
    path, token = token_file(tmp_path)
    gateway = build_gateway("127.0.0.1", str(path), None, None, whole_listener=False)
    gateway.port = 3000
    assert gateway.refusal(scope({"Host": "localhost:3000"})) == 401
    ok = {"Host": "localhost:3000", "Authorization": f"Bearer {token}"}
    assert gateway.refusal(scope(ok)) is None
    assert gateway.guards("/mcp") and gateway.guards("/mcp/") and not gateway.guards("/api/x")


def test_rotation_deletion_and_loosened_permissions_take_effect_at_once(tmp_path: Path) -> None:
    gateway, path, old = remote_gateway(tmp_path)
    headers = {"Host": HOST}
    assert gateway.refusal(scope({**headers, "Authorization": f"Bearer {old}"})) is None
    new = "n" * 40
    path.write_text(new + "\n")
    assert gateway.refusal(scope({**headers, "Authorization": f"Bearer {old}"})) == 401
    assert gateway.refusal(scope({**headers, "Authorization": f"Bearer {new}"})) is None
    path.chmod(0o644)
    assert gateway.refusal(scope({**headers, "Authorization": f"Bearer {new}"})) == 503
    path.chmod(0o600)
    assert gateway.refusal(scope({**headers, "Authorization": f"Bearer {new}"})) is None
    os.unlink(path)
    assert gateway.refusal(scope({**headers, "Authorization": f"Bearer {new}"})) == 503


def test_refusals_are_fixed_json_rpc_errors() -> None:
    import json

    unauthorized = refusal_response(401)
    assert unauthorized.headers["www-authenticate"] == "Bearer"
    assert json.loads(unauthorized.body) == {
        "jsonrpc": "2.0",
        "error": {"code": -32000, "message": "Unauthorized"},
        "id": None,
    }
    assert json.loads(refusal_response(403).body)["error"]["message"] == "Forbidden"
    assert "www-authenticate" not in refusal_response(503).headers
