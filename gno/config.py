"""``index.yml``: load, validate, edit and save (atomically, keeping unknown keys)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gno.core.globs import DEFAULT_EXCLUDES, DEFAULT_PATTERN, compile_globs, split_globs
from gno.core.identity import normalize_collection_name, validate_context_scope
from gno.core.yaml_depth import expanded_shape, nesting_depth
from gno.errors import ConfigError, GnoError, ReadOnlyError, ValidationError
from gno.ingest.reading import FileTooLarge, NotRegularFile, read_regular

CONFIG_VERSION = "1.0"
MAX_CONFIG_BYTES = 1024 * 1024  # index.yml is a few KiB; --config may name anything
MAX_CONFIG_DEPTH = 64
MAX_CONFIG_VALUES = 1_000_000  # more than 1 MiB of YAML holds without aliases
LANGUAGE_RE = re.compile(r"^[a-z]{2,3}(-[a-z]{2}|-[a-z]{4})?$", re.I)
# GNO's "snowball english" needs a loadable extension; gno's porter + CJK bigrams
# is the equivalent English stemmer, so the GNO spelling is accepted as an alias.
TOKENIZERS = {
    "porter": "porter",
    "snowball english": "porter",
    "unicode61": "unicode61",
    "trigram": "trigram",
}
DEFAULT_TOKENIZER = "porter"


@dataclass
class Collection:
    """One indexed folder: its name, root, file rules and settings."""

    name: str
    path: str
    pattern: str = DEFAULT_PATTERN
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=lambda: list(DEFAULT_EXCLUDES))
    update_cmd: str | None = None
    language_hint: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # keys gno does not use yet, kept on save

    @property
    def read_only(self) -> bool:
        """``readOnly: true`` in index.yml: gno reads the folder but never writes to it."""
        return self.extra.get("readOnly") is True

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "path": self.path,
            "pattern": self.pattern,
            "include": list(self.include),
            "exclude": list(self.exclude),
        }
        if self.update_cmd:
            out["updateCmd"] = self.update_cmd
        if self.language_hint:
            out["languageHint"] = self.language_hint
        return out | self.extra


@dataclass
class ContextEntry:
    """Configured guidance for a scope (global, a collection or a URI prefix)."""

    scope_type: str  # global | collection | prefix
    scope_key: str
    text: str


@dataclass
class Config:
    """index.yml, validated; ``raw`` keeps every key, known or not."""

    collections: list[Collection] = field(default_factory=list)
    contexts: list[ContextEntry] = field(default_factory=list)
    fts_tokenizer: str = DEFAULT_TOKENIZER
    raw: dict[str, Any] = field(default_factory=dict)

    def find(self, name: str) -> Collection | None:
        wanted = name.lower()
        return next((c for c in self.collections if c.name == wanted), None)


def _str_list(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return split_globs(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ConfigError(f"{where} must be a list of strings")


def _optional_str(item: dict[str, Any], key: str, where: str) -> str | None:
    value = item.get(key)
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"{where}.{key} must be a string")
    return value


def _check_models(block: Any, where: str, *, roles_only: bool = False) -> None:
    """The shape of a ``models:`` block (index.yml's, or a collection's role overrides),
    checked once here so that no reader of it meets a list where it expects a mapping."""
    if block is None:
        return
    if not isinstance(block, dict):
        raise ConfigError(f"{where} must be a mapping")
    from gno.models.catalog import ROLES

    for key in ROLES if roles_only else ("activePreset",):
        _optional_str(block, key, where)
    if roles_only:
        return
    presets = block.get("presets")
    if presets is None:
        return
    if not isinstance(presets, list) or not all(isinstance(p, dict) for p in presets):
        raise ConfigError(f"{where}.presets must be a list of mappings")
    for i, preset in enumerate(presets):
        for key in ("id", "name", *ROLES):
            _optional_str(preset, key, f"{where}.presets[{i}]")


def validate_language(value: str | None) -> str | None:
    if value is None:
        return None
    if not LANGUAGE_RE.match(value):
        raise ValidationError(
            f"Invalid language hint {value!r} (expected BCP-47 like 'en' or 'pt-br')"
        )
    return value.lower()


def _collection(item: Any, i: int) -> Collection:
    where = f"collections[{i}]"
    if not isinstance(item, dict):
        raise ConfigError(f"{where} must be a mapping")
    known = {"name", "path", "pattern", "include", "exclude", "updateCmd", "languageHint"}
    try:
        name = normalize_collection_name(str(item.get("name", "")))
        path = item.get("path")
        if not isinstance(path, str) or not path.strip():
            raise ConfigError(f"{where}.path must be a folder path (a non-empty string)")
        pattern = _optional_str(item, "pattern", where) or DEFAULT_PATTERN
        compile_globs(pattern)
        _check_models(item.get("models"), f"{where}.models", roles_only=True)
        exclude = item.get("exclude")
        return Collection(
            name=name,
            path=path,
            pattern=pattern,
            include=_str_list(item.get("include"), f"{where}.include"),
            exclude=list(DEFAULT_EXCLUDES)
            if exclude is None
            else _str_list(exclude, f"{where}.exclude"),
            update_cmd=_optional_str(item, "updateCmd", where) or None,
            language_hint=validate_language(_optional_str(item, "languageHint", where)),
            extra={k: v for k, v in item.items() if k not in known},
        )
    except ConfigError:
        raise  # already names its key
    except ValidationError as exc:
        raise ConfigError(f"{where}: {exc.message}") from exc


def parse_config(data: Any, source: str = "index.yml") -> Config:
    if data is None:
        data = {"version": CONFIG_VERSION}
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the top level must be a mapping")
    if str(data.get("version")) != CONFIG_VERSION:
        raise ConfigError(
            f'{source}: unsupported config version {data.get("version")!r} (expected "1.0")'
        )
    tokenizer = str(data.get("ftsTokenizer") or DEFAULT_TOKENIZER)
    if tokenizer not in TOKENIZERS:
        raise ConfigError(f"{source}: ftsTokenizer must be one of {', '.join(TOKENIZERS)}")
    _check_models(data.get("models"), f"{source}: models")
    raw_collections = data.get("collections") or []
    if not isinstance(raw_collections, list):
        raise ConfigError(f"{source}: collections must be a list")
    collections = [_collection(item, i) for i, item in enumerate(raw_collections)]
    names = [c.name for c in collections]
    if len(set(names)) != len(names):
        raise ConfigError(f"{source}: duplicate collection names")
    contexts = []
    for i, item in enumerate(data.get("contexts") or []):
        if not isinstance(item, dict) or not all(
            isinstance(item.get(k), str) for k in ("scopeType", "scopeKey", "text")
        ):
            raise ConfigError(f"{source}: contexts[{i}] needs scopeType, scopeKey and text")
        try:
            validate_context_scope(item["scopeType"], item["scopeKey"])
        except ValidationError as exc:
            raise ConfigError(f"{source}: contexts[{i}]: {exc.message}") from exc
        contexts.append(ContextEntry(item["scopeType"], item["scopeKey"], item["text"]))
    return Config(collections, contexts, TOKENIZERS[tokenizer], data)


def load_config(path: Path, cache_dir: Path | None = None) -> Config:
    """Read and validate index.yml. With ``cache_dir``, its parsed form is kept there as
    JSON keyed by the file's SHA-256, so a command that only reads the config (`gno
    status`) skips PyYAML's import and parse while the file is unchanged."""
    try:
        text = read_regular(str(path), MAX_CONFIG_BYTES).decode("utf-8")
    except FileNotFoundError:
        raise
    except NotRegularFile as exc:  # /dev/zero streams forever, a named pipe blocks forever
        raise ConfigError(f"Config {path} is not a regular file ({exc})") from exc
    except FileTooLarge as exc:
        limit = MAX_CONFIG_BYTES // 1024
        raise ConfigError(f"Config {path} is larger than {limit} KiB") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"Cannot read config {path}: {exc}") from exc
    if nesting_depth(text) > MAX_CONFIG_DEPTH:  # PyYAML recurses once per level
        raise ConfigError(f"Config {path} nests deeper than {MAX_CONFIG_DEPTH} levels")
    from gno.config_cache import recall, remember

    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    found = recall(cache_dir, path, digest) if cache_dir is not None else None
    if found is not None:
        return parse_config(found.data, str(path))
    data = _parse_yaml(text, path)
    shape = expanded_shape(data, MAX_CONFIG_VALUES)
    if shape is None or shape[1] > MAX_CONFIG_DEPTH:  # YAML aliases, copied out by any walk
        raise ConfigError(
            f"Config {path} expands to more than {MAX_CONFIG_VALUES:,} values or "
            f"{MAX_CONFIG_DEPTH} levels (YAML aliases), or holds itself"
        )
    if cache_dir is not None:
        remember(cache_dir, path, digest, data)
    return parse_config(data, str(path))


def _parse_yaml(text: str, path: Path) -> Any:
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise ConfigError(f"Malformed config {path}{where}: {problem}") from exc


def dump_config(config: Config) -> dict[str, Any]:
    data = dict(config.raw)
    data["version"] = CONFIG_VERSION
    data.setdefault("ftsTokenizer", config.fts_tokenizer)
    data["collections"] = [c.to_dict() for c in config.collections]
    data["contexts"] = [
        {"scopeType": c.scope_type, "scopeKey": c.scope_key, "text": c.text}
        for c in config.contexts
    ]
    return data


def save_config(path: Path, config: Config) -> None:
    """Write atomically: a crash leaves either the old or the new file, never half. A
    symlinked index.yml (a dotfile repository) is written through to its real file, which
    keeps its mode (``gno.file_replace``). The user's comments, blank lines, key order and
    quoting are kept (``gno.config_rewrite``: only the entries that changed are rewritten);
    a file that cannot be kept so is written from its parsed form, every key in order. A
    read-only index.yml is ``READ_ONLY`` with nothing written (the caller's index rows roll
    back: ``App.save_config``)."""
    from gno.file_replace import kept_mode, read_only, real_file, replace_file  # writes only

    if read_only(path):  # the rename would replace it regardless of its mode
        raise ReadOnlyError(
            f"{path} is read-only; gno left it untouched (make it writable to let gno change it)"
        )
    desired = dump_config(config)
    try:
        real = real_file(path)
        real.parent.mkdir(parents=True, exist_ok=True)
        data = _rendered(real, desired)
        replace_file(real, lambda out: out.write(data), kept_mode(real))
    except OSError as exc:  # a read-only or full config folder: a clear error, not a bug
        raise GnoError(f"Cannot write config {path}: {exc.strerror or exc}") from exc


def _rendered(real: Path, desired: dict[str, Any]) -> bytes:
    """The new file: the current one with the changes merged in, else the plain dump."""
    try:
        current = read_regular(str(real), MAX_CONFIG_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        current = ""  # none yet, or nothing worth keeping: the plain dump
    if current.strip():
        from gno.config_rewrite import rewritten

        kept = rewritten(current, desired, lambda data: dump_config(parse_config(data)))
        if kept is not None:
            return kept.encode("utf-8")
    import yaml

    return yaml.safe_dump(desired, sort_keys=False, allow_unicode=True).encode()
