"""One client config file, in its own format: find, set and remove gno's entry.

Each editor changes only gno's entry and returns the new text; everything else
in the file (other servers, settings, comments) is carried over:

- JSONC (most clients): minimal text splices, see ``jsonc.py``;
- TOML (Codex): tomlkit, which keeps comments and layout; a new entry is
  appended as its own ``[mcp_servers.gno]`` tables so no comment moves;
- YAML (LibreChat): ruamel.yaml round-trip, which keeps comments, key order and
  quoting, with the file's own indentation guessed and reused.

A file the format's parser rejects, or whose servers key is not a table/object,
raises ``ClientConfigError`` naming the file; the caller then writes nothing.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any, Protocol

from gno.errors import ClientConfigError
from gno.mcpinstall.entry import SERVER_NAME
from gno.mcpinstall.targets import Target


class ClientConfig(Protocol):
    def entry(self) -> Any:
        """gno's entry as plain data, None when there is none."""

    def with_entry(self, entry: dict[str, Any]) -> str: ...

    def without_entry(self) -> str: ...


def _malformed(path: Path, why: str) -> ClientConfigError:
    return ClientConfigError(
        f"Cannot edit {path}: {why}. gno left the file untouched; fix it and run the command again",
        details={"path": str(path)},
    )


def open_config(target: Target, path: Path, text: str | None) -> ClientConfig:
    """An editor over ``text`` (None: the file does not exist yet)."""
    editor = {"jsonc": JsoncConfig, "toml": TomlConfig, "yaml": YamlConfig}[target.format]
    return editor(path, text or "", target.container)


class JsoncConfig:
    def __init__(self, path: Path, text: str, container: str) -> None:
        from gno.mcpinstall.jsonc import MISSING, JsoncDocument, JsoncError

        self._missing = MISSING
        self.key = [container, SERVER_NAME]
        try:
            self.doc = JsoncDocument(text)
        except JsoncError as exc:
            raise _malformed(path, f"not valid JSON ({exc})") from None
        servers = self.doc.get([container])
        if servers is not MISSING and not isinstance(servers, dict):
            raise _malformed(path, f'"{container}" is not an object')

    def entry(self) -> Any:
        found = self.doc.get(self.key)
        return None if found is self._missing else found

    def with_entry(self, entry: dict[str, Any]) -> str:
        return self.doc.set(self.key, entry)

    def without_entry(self) -> str:
        return self.doc.remove(self.key)


class TomlConfig:
    def __init__(self, path: Path, text: str, container: str) -> None:
        import tomlkit
        from tomlkit.exceptions import TOMLKitError

        self.text, self.container = text, container
        try:
            self.doc = tomlkit.parse(text)
        except TOMLKitError as exc:
            raise _malformed(path, f"not valid TOML ({exc})") from None
        servers = self.doc.get(container)
        if servers is not None and not isinstance(servers, dict):
            raise _malformed(path, f"{container} is not a table")

    def entry(self) -> Any:
        servers = self.doc.get(self.container)
        found = servers.get(SERVER_NAME) if servers is not None else None
        return found.unwrap() if hasattr(found, "unwrap") else found

    def _table(self, entry: dict[str, Any], inline: bool = False) -> Any:
        """``[mcp_servers.gno]`` + ``[mcp_servers.gno.env]``, or one inline table
        when the servers already live in an inline table (which cannot hold tables)."""
        import tomlkit

        make = tomlkit.inline_table if inline else tomlkit.table
        table = make()
        for key, value in entry.items():
            if isinstance(value, dict):
                sub = make()
                sub.update(value)
                table.append(key, sub)
            else:
                table.append(key, value)
        return table

    def with_entry(self, entry: dict[str, Any]) -> str:
        import tomlkit
        from tomlkit.exceptions import TOMLKitError

        if self.entry() is None:
            # Appending keeps every existing byte in place; tomlkit inserting into
            # the mcp_servers super-table would pull the next table's comment along.
            fresh = tomlkit.document()
            fresh.add(self.container, {SERVER_NAME: self._table(entry)})
            body = self.text.rstrip("\n")
            candidate = (body + "\n\n" if body else "") + tomlkit.dumps(fresh).lstrip("\n")
            try:
                if _toml_entry(candidate, self.container) == entry:
                    return candidate
            except TOMLKitError:
                pass  # e.g. mcp_servers is an inline table: edit it in place below
        from tomlkit.items import InlineTable

        servers = self.doc.setdefault(self.container, tomlkit.table(is_super_table=True))
        servers[SERVER_NAME] = self._table(entry, inline=isinstance(servers, InlineTable))
        return tomlkit.dumps(self.doc)

    def without_entry(self) -> str:
        import tomlkit

        if self.entry() is None:
            return self.text
        del self.doc[self.container][SERVER_NAME]
        text = tomlkit.dumps(self.doc)
        if text.endswith("\n\n") and not self.text.endswith("\n\n"):
            text = text.rstrip("\n") + "\n"  # the blank line gno added before its tables
        return text


def _toml_entry(text: str, container: str) -> Any:
    import tomlkit

    servers = tomlkit.parse(text).get(container) or {}
    found = servers.get(SERVER_NAME)
    return found.unwrap() if found is not None else None


class YamlConfig:
    def __init__(self, path: Path, text: str, container: str) -> None:
        from ruamel.yaml import YAML
        from ruamel.yaml.comments import CommentedMap
        from ruamel.yaml.error import YAMLError
        from ruamel.yaml.util import load_yaml_guess_indent

        self.text, self.container = text, container
        self.yaml = YAML()  # round-trip: comments, order and quotes survive
        self.yaml.preserve_quotes = True
        try:
            data, seq_indent, offset = load_yaml_guess_indent(text, yaml=self.yaml)
        except YAMLError as exc:
            raise _malformed(path, f"not valid YAML ({exc})") from None
        if seq_indent and offset is not None:  # write new lists the way the file does
            self.yaml.indent(mapping=2, sequence=seq_indent, offset=offset)
        self.data = CommentedMap() if data is None else data
        if not isinstance(self.data, dict):
            raise _malformed(path, "the top level is not a mapping")
        servers = self.data.get(container)
        if servers is not None and not isinstance(servers, dict):
            raise _malformed(path, f"{container} is not a mapping")

    def entry(self) -> Any:
        servers = self.data.get(self.container) or {}
        found = servers.get(SERVER_NAME)
        return None if found is None else json.loads(json.dumps(found))  # plain types

    def _dump(self) -> str:
        out = io.StringIO()
        self.yaml.dump(self.data, out)
        return out.getvalue()

    def with_entry(self, entry: dict[str, Any]) -> str:
        from ruamel.yaml.comments import CommentedMap

        if self.data.get(self.container) is None:
            self.data[self.container] = CommentedMap()
        self.data[self.container][SERVER_NAME] = entry
        return self._dump()

    def without_entry(self) -> str:
        if self.entry() is None:
            return self.text
        del self.data[self.container][SERVER_NAME]
        return self._dump()
