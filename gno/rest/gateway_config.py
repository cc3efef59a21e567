"""The ``gateway`` block of ``index.yml`` (engine.md §1.3, surfaces.md §3.6), read and
checked once when `gno serve` or `gno daemon` starts.

Each key is the default of the server flag of the same meaning; a flag given on the
command line wins (flag → config → built-in default). Keys:

| key | flag | note |
|---|---|---|
| ``host`` | ``--host`` | `gno daemon` only (`gno serve` binds loopback, whatever the file says) |
| ``tokenFile`` | ``--mcp-token-file`` | ``~`` expanded |
| ``allowedHosts`` / ``allowedOrigins`` | ``--mcp-allowed-host`` / ``--mcp-allowed-origin`` | lists of exact values |
| ``enableWrite`` | ``--mcp-enable-write`` | MCP write tools at ``/mcp`` |
| ``toolProfile`` | ``--mcp-tool-profile`` | ``full`` or ``core`` (read by ``resolve_tool_profile``) |
| ``limits.maxBodyBytes`` | ``--max-body-bytes`` | 1 … 16 MiB |
| ``limits.maxRequestsPerMinute``, ``maxSessions``, ``sessionIdleTimeoutMs`` | – | `/mcp`'s limits (gno/rest/mcp_limits.py) |
| ``limits.maxConcurrentRequests``, ``maxQueuedRequests`` | – | the gateway's requests running and waiting: `POST /mcp` on serve, every route of the daemon (gno/resident/capacity.py, gno/rest/security.py) |

A malformed block stops the start (``ConfigError``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gno.core.jsonrpc import MAX_MESSAGE_BYTES
from gno.errors import ConfigError

MAX_BODY_LIMIT = MAX_MESSAGE_BYTES  # `gno mcp` reads lines up to the same length
_INT_LIMITS = {  # name -> minimum
    "maxBodyBytes": 1,
    "maxRequestsPerMinute": 1,
    "maxConcurrentRequests": 1,
    "maxQueuedRequests": 0,
    "maxSessions": 1,
    "sessionIdleTimeoutMs": 1000,
}
KEYS = frozenset(
    {"host", "tokenFile", "allowedHosts", "allowedOrigins", "enableWrite", "toolProfile", "limits"}
)


@dataclass(frozen=True)
class GatewayConfig:
    host: str | None = None
    token_file: str | None = None
    allowed_hosts: list[str] = field(default_factory=list)
    allowed_origins: list[str] = field(default_factory=list)
    enable_write: bool | None = None
    tool_profile: str | None = None
    limits: dict[str, int] = field(default_factory=dict)


def _text(block: dict[str, Any], key: str) -> str | None:
    value = block.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"index.yml: gateway.{key} must be a non-empty string")
    return value.strip()


def _texts(block: dict[str, Any], key: str) -> list[str]:
    value = block.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"index.yml: gateway.{key} must be a list of strings")
    return list(value)


def _limits(value: Any) -> dict[str, int]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError("index.yml: gateway.limits must be a mapping")
    limits = {}
    for key, number in value.items():
        minimum = _INT_LIMITS.get(key)
        if minimum is None:
            continue  # a limit of a newer GNO: ignored like any unknown key
        if isinstance(number, bool) or not isinstance(number, int) or number < minimum:
            raise ConfigError(f"index.yml: gateway.limits.{key} must be an integer ≥ {minimum}")
        limits[key] = number
    if limits.get("maxBodyBytes", 0) > MAX_BODY_LIMIT:
        raise ConfigError(f"index.yml: gateway.limits.maxBodyBytes must be ≤ {MAX_BODY_LIMIT}")
    return limits


def gateway_config(raw: dict[str, Any] | None) -> GatewayConfig:
    """The ``gateway`` block of a parsed ``index.yml`` (absent: every value unset)."""
    block = (raw or {}).get("gateway")
    if block is None:
        return GatewayConfig()
    if not isinstance(block, dict):
        raise ConfigError("index.yml: gateway must be a mapping")
    enable_write = block.get("enableWrite")
    if enable_write is not None and not isinstance(enable_write, bool):
        raise ConfigError("index.yml: gateway.enableWrite must be true or false")
    profile = _text(block, "toolProfile")
    if profile is not None and profile not in ("full", "core"):
        raise ConfigError("index.yml: gateway.toolProfile must be full or core")
    return GatewayConfig(
        host=_text(block, "host"),
        token_file=_text(block, "tokenFile"),
        allowed_hosts=_texts(block, "allowedHosts"),
        allowed_origins=_texts(block, "allowedOrigins"),
        enable_write=enable_write,
        tool_profile=profile,
        limits=_limits(block.get("limits")),
    )
