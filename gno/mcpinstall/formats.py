"""One client config file, in its own format: find, set and remove gno's entry.

Each editor changes only gno's entry and returns the new text; everything else
in the file (other servers, settings, comments) is carried over:

- JSONC (most clients): minimal text splices, see ``jsonc.py``;
- TOML (Codex): a new entry is appended as its own ``[mcp_servers.gno]`` tables,
  an existing one is cut out or replaced line-wise (``tomltext.py``), each result
  checked with tomlkit (which edits structurally when the layout needs it);
- YAML (LibreChat): gno's block is rendered by ruamel.yaml in the file's own
  indentation and spliced in line-wise (``yamltext.py``), each result checked;
  ruamel's round trip (comments, order, quotes kept) covers other layouts.

A file the format's parser rejects, or whose servers key is not a table/object,
raises ``ClientConfigError`` naming the file; the caller then writes nothing.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

from gno.errors import ClientConfigError
from gno.mcpinstall.entry import SERVER_NAME
from gno.mcpinstall.targets import Target

MAX_YAML_VALUES = 1_000_000  # far more than 64 MiB of YAML holds without aliases


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
    editors: dict[str, Callable[[Path, str, str], ClientConfig]] = {
        "jsonc": JsoncConfig,
        "toml": TomlConfig,
        "yaml": YamlConfig,
    }
    editor = editors[target.format]
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

        self.path, self.text, self.container = path, text, container
        self.newline = "\r\n" if "\r\n" in text else "\n"
        try:
            self.doc = tomlkit.parse(text)
        except TOMLKitError as exc:
            raise _malformed(path, f"not valid TOML ({exc})") from None
        servers = self.doc.get(container)
        if servers is not None and not isinstance(servers, dict):
            raise _malformed(path, f"{container} is not a table")

    def entry(self) -> Any:
        return _toml_entry(self.doc, self.container)

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

    def _tables_text(self, entry: dict[str, Any]) -> str:
        import tomlkit

        fresh = tomlkit.document()
        fresh.add(self.container, {SERVER_NAME: self._table(entry)})
        return tomlkit.dumps(fresh).strip("\n").replace("\n", self.newline) + self.newline

    def _verified(self, text: str | None, entry: Any) -> bool:
        """``text`` parses, holds ``entry`` as gno's entry, and nothing else changed."""
        import tomlkit
        from tomlkit.exceptions import TOMLKitError

        if text is None:
            return False
        try:
            doc = tomlkit.parse(text)
        except TOMLKitError:
            return False
        same_rest = _toml_rest(doc, self.container) == _toml_rest(self.doc, self.container)
        return same_rest and _toml_entry(doc, self.container) == entry

    def _appended(self, text: str, entry: dict[str, Any]) -> str:
        """``text`` with gno's tables after its last line: every existing byte stays put."""
        body = text.rstrip("\r\n")
        return (body + self.newline * 2 if body else "") + self._tables_text(entry)

    def _verified_of(
        self, candidates: Iterable[Callable[[], str | None]], entry: Any
    ) -> str | None:
        """The first candidate text that verifies (None: none does)."""
        for make in candidates:
            text = make()
            if text is not None and self._verified(text, entry):
                return text
        return None

    def _first_verified(self, candidates: Iterable[Callable[[], str | None]], entry: Any) -> str:
        """The first candidate text that verifies. tomlkit's structural edit comes last and
        is checked like the others: with gno's entry in dotted keys (``mcp_servers.gno.x =
        …``) it writes the new tables above the file's other top-level keys, which TOML then
        reads as part of gno's env. A file no candidate edits cleanly is left untouched."""
        if (text := self._verified_of(candidates, entry)) is not None:
            return text
        raise _malformed(
            self.path,
            f"gno cannot change its {self.container}.{SERVER_NAME} entry in this layout "
            "without touching other settings",
        )

    def _structural(self, entry: dict[str, Any] | None) -> str | None:
        """The edit done by tomlkit, on a fresh parse (``self.doc`` stays the original);
        None when tomlkit refuses it."""
        import tomlkit
        from tomlkit.exceptions import TOMLKitError
        from tomlkit.items import InlineTable

        doc = tomlkit.parse(self.text)
        try:
            if entry is None:
                del doc[self.container][SERVER_NAME]
            else:
                servers = doc.setdefault(self.container, tomlkit.table(is_super_table=True))
                servers[SERVER_NAME] = self._table(entry, inline=isinstance(servers, InlineTable))
            return tomlkit.dumps(doc)
        except (TOMLKitError, KeyError):
            return None

    def _removals(self) -> list[Callable[[], str | None]]:
        from gno.mcpinstall.tomltext import splice

        return [
            lambda: splice(self.text, self.container, SERVER_NAME, ""),
            lambda: self._structural(None),
        ]

    def _moved_to_the_end(self, entry: dict[str, Any]) -> str | None:
        removed = self._verified_of(self._removals(), None)
        return None if removed is None else self._appended(removed, entry)

    def with_entry(self, entry: dict[str, Any]) -> str:
        from gno.mcpinstall.tomltext import splice

        candidates: list[Callable[[], str | None]] = []
        if self.entry() is None:  # append as new tables
            candidates.append(lambda: self._appended(self.text, entry))
        else:  # in place, else cut out and appended
            candidates.append(
                lambda: splice(self.text, self.container, SERVER_NAME, self._tables_text(entry))
            )
            candidates.append(lambda: self._moved_to_the_end(entry))
        # Layouts the text rules do not cover (inline tables): tomlkit.
        candidates.append(lambda: self._structural(entry))
        return self._first_verified(candidates, entry)

    def without_entry(self) -> str:
        if self.entry() is None:
            return self.text
        return self._first_verified(self._removals(), None)


def _toml_entry(doc: Any, container: str) -> Any:
    servers = doc.get(container) or {}
    found: Any = servers.get(SERVER_NAME)
    return found.unwrap() if hasattr(found, "unwrap") else found


def _toml_rest(doc: Any, container: str) -> Any:
    """The document as plain data without gno's entry (and without an emptied servers table)."""
    data = doc.unwrap()
    servers = {k: v for k, v in (data.get(container) or {}).items() if k != SERVER_NAME}
    data.pop(container, None)
    if servers:
        data[container] = servers
    return data


class YamlConfig:
    def __init__(self, path: Path, text: str, container: str) -> None:
        from ruamel.yaml import YAML
        from ruamel.yaml.comments import CommentedMap
        from ruamel.yaml.error import YAMLError
        from ruamel.yaml.util import load_yaml_guess_indent

        from gno.core.yaml_depth import expanded_shape, nesting_depth
        from gno.mcpinstall.jsonc import MAX_DEPTH
        from gno.mcpinstall.yamltext import servers_indent

        self.path, self.text, self.container = path, text, container
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.yaml = YAML()  # round-trip: comments, order and quotes survive
        self.yaml.preserve_quotes = True
        if nesting_depth(text) > MAX_DEPTH:  # ruamel recurses once per level
            raise _malformed(path, f"it nests deeper than {MAX_DEPTH} levels")
        try:
            data, seq_indent, offset = load_yaml_guess_indent(text, yaml=self.yaml)
        except YAMLError as exc:
            raise _malformed(path, f"not valid YAML ({exc})") from None
        # Aliases are copied out by every comparison of the file's data (a JSON dump):
        # a few hundred bytes of ``[*a, *a, …]`` lines expand to billions of values.
        shape = expanded_shape(data, MAX_YAML_VALUES)
        if shape is None or shape[1] > MAX_DEPTH:
            raise _malformed(
                path,
                f"its aliases expand to more than {MAX_YAML_VALUES:,} values or "
                f"{MAX_DEPTH} levels, or a value holds itself",
            )
        # New lists follow the file's style; without lists, LibreChat's documented one.
        self.indent = servers_indent(text, container) or 2
        if seq_indent and offset is not None:
            self.yaml.indent(mapping=self.indent, sequence=seq_indent, offset=offset)
        else:
            self.yaml.indent(mapping=self.indent, sequence=self.indent + 2, offset=self.indent)
        self.data = CommentedMap() if data is None else data
        if not isinstance(self.data, dict):
            raise _malformed(path, "the top level is not a mapping")
        servers = self.data.get(container)
        if servers is not None and not isinstance(servers, dict):
            raise _malformed(path, f"{container} is not a mapping")

    def entry(self) -> Any:
        servers = self.data.get(self.container) or {}
        found = servers.get(SERVER_NAME)
        return None if found is None else _plain(found)

    def _dump(self, data: Any) -> str:
        out = io.StringIO()
        self.yaml.dump(data, out)
        return out.getvalue().replace("\n", self.newline)

    def _block(self, entry: dict[str, Any]) -> str:
        """``gno:`` and its entry, indented as a child of the servers key."""
        pad = " " * self.indent
        lines = self._dump({SERVER_NAME: entry}).splitlines(keepends=True)
        return "".join(pad + line if line.strip() else line for line in lines)

    def _verified(self, text: str | None, entry: Any) -> bool:
        from ruamel.yaml import YAML
        from ruamel.yaml.error import YAMLError

        if text is None:
            return False
        loader = YAML(pure=True)  # both sides read alike (dates, numbers, custom tags)
        try:
            data = loader.load(text) or {}
        except YAMLError:
            return False
        if not isinstance(data, dict) or not isinstance(data.get(self.container) or {}, dict):
            return False
        found = (data.get(self.container) or {}).get(SERVER_NAME)
        before = loader.load(self.text) or {}
        rest = _yaml_rest(data, self.container) == _yaml_rest(before, self.container)
        return rest and _plain(found) == _plain(entry)

    def with_entry(self, entry: dict[str, Any]) -> str:
        from ruamel.yaml.comments import CommentedMap

        from gno.mcpinstall.yamltext import put

        candidate = put(self.text, self.container, SERVER_NAME, self._block(entry))
        if candidate is None and self.container not in self.data:  # add the servers key
            body = self.text.rstrip("\r\n")
            gap = self.newline * 2 if body else ""
            candidate = f"{body}{gap}{self.container}:{self.newline}{self._block(entry)}"
        if candidate is not None and self._verified(candidate, entry):
            return candidate
        if self.data.get(self.container) is None:  # layouts the line rules miss: ruamel
            self.data[self.container] = CommentedMap()
        self.data[self.container][SERVER_NAME] = entry
        return self._checked(self._dump(self.data), entry)

    def without_entry(self) -> str:
        from gno.mcpinstall.yamltext import remove

        if self.entry() is None:
            return self.text
        candidate = remove(self.text, self.container, SERVER_NAME)
        if candidate is not None and self._verified(candidate, None):
            return candidate
        del self.data[self.container][SERVER_NAME]
        return self._checked(self._dump(self.data), None)

    def _checked(self, text: str, entry: Any) -> str:
        """ruamel's round trip, held to the same check as the line edits."""
        if self._verified(text, entry):
            return text
        raise _malformed(
            self.path,
            f"gno cannot change its {self.container}.{SERVER_NAME} entry in this layout "
            "without touching other settings",
        )


def _plain(value: Any) -> Any:
    """ruamel's commented containers and scalars as plain JSON-like data."""
    return json.loads(json.dumps(value, default=str))


def _yaml_rest(data: Any, container: str) -> Any:
    data = dict(_plain(data) or {})
    servers = {k: v for k, v in (data.pop(container, None) or {}).items() if k != SERVER_NAME}
    if servers:
        data[container] = servers
    return data
