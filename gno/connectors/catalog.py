"""The connectors `gno setup` and `/api/connectors` know: GNO's setup ids, each a skill
file of an agent or gno's entry in an MCP client's config."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Connector:
    id: str
    kind: str  # "skill" | "mcp"
    target: str  # skill target (claude, codex…) or MCP client (claude-desktop, cursor…)
    label: str


CONNECTORS: dict[str, Connector] = {
    c.id: c
    for c in (
        Connector("claude-code-skill", "skill", "claude", "Claude Code (skill)"),
        Connector("claude-desktop-mcp", "mcp", "claude-desktop", "Claude Desktop (MCP)"),
        Connector("cursor-mcp", "mcp", "cursor", "Cursor (MCP)"),
        Connector("codex-skill", "skill", "codex", "Codex (skill)"),
        Connector("opencode-skill", "skill", "opencode", "OpenCode (skill)"),
        Connector("openclaw-skill", "skill", "openclaw", "OpenClaw (skill)"),
        Connector("hermes-skill", "skill", "hermes", "Hermes (skill)"),
        # Every other client `gno mcp install` knows (user scope), beyond GNO's setup ids.
        Connector("claude-code-mcp", "mcp", "claude-code", "Claude Code (MCP)"),
        Connector("codex-mcp", "mcp", "codex", "Codex (MCP)"),
        Connector("zed-mcp", "mcp", "zed", "Zed (MCP)"),
        Connector("windsurf-mcp", "mcp", "windsurf", "Windsurf (MCP)"),
        Connector("opencode-mcp", "mcp", "opencode", "OpenCode (MCP)"),
        Connector("amp-mcp", "mcp", "amp", "Amp (MCP)"),
        Connector("lmstudio-mcp", "mcp", "lmstudio", "LM Studio (MCP)"),
    )
}
