"""index.yml rewritten with the user's comments, blank lines, key order and quoting kept.

Users edit index.yml by hand; a change gno makes (a collection added, renamed or removed,
a context, a model choice) should touch only the entries it changes. The file on disk is
read with ruamel.yaml's round-trip loader, the new configuration is merged into that tree
(an untouched entry keeps its node, so its comments stay), and the tree is dumped again.

ruamel.yaml files the comment lines *between* two entries under the last value of the
first one (the "rest" of that value's end-of-line comment token), so a comment that
introduces entry B travels with entry A. The merge moves those rests where they belong:
when an entry goes, the comment introducing the next one moves to the entry before it;
when one is added after an entry, that entry's rest (which introduces what came next)
moves to the new one; a replaced value hands its rest to its replacement.

Every other byte stays as the user wrote it, scalars too: ruamel reads YAML 1.2 and would
write back its own spelling of a value (``yes`` read as a string, compared with PyYAML's
``True`` and so "changed" to ``true``; ``~`` as an empty value, ``0755`` as ``493``). So a
plain scalar is loaded as its source text (``_Plain``) and dumped as that text, and whether
an entry changed is judged on what PyYAML reads from the file (``seen``, walked beside the
tree): an entry PyYAML reads as the new value keeps its node and its spelling.

What the round trip still rewrites on its own (``---``, a plain scalar folded over two
lines, ``key:   value``, CRLF) is kept too: the edit is applied to the file's own lines
(``gno.core.line_splice``), the lines it does not touch copied byte for byte.

Only a rewrite imports ruamel.yaml (a read keeps PyYAML and its JSON cache). The result is
read back with PyYAML, the loader every command uses, and must equal the configuration
being saved; anything else (a file that no longer parses, an alias bomb, a layout the
merge cannot keep) answers None and the caller writes the plain dump instead: comments
are kept when possible, the configuration is right always.
"""

from __future__ import annotations

import difflib
import io
import itertools
import json
from collections.abc import Callable
from typing import Any

from gno.core.line_splice import spliced

MAX_VALUES = 1_000_000  # as load_config: aliases copied out by any walk of the tree
MAX_DEPTH = 64
MISSING: Any = object()  # no PyYAML reading to compare with: the node's own value is used
# Tags a plain scalar gets from the resolver alone: those are kept as their source text.
_IMPLICIT = {f"tag:yaml.org,2002:{t}" for t in ("str", "null", "bool", "int", "float", "timestamp")}


class _Plain(str):
    """A plain scalar of the file as its source text (``yes``, ``~``, ``0755``), dumped as
    that text with the tag the resolver gave it, so the emitter writes it plain again."""

    tag: Any


def _round_trip() -> Any:
    """ruamel's round-trip YAML whose plain scalars load as ``_Plain`` and dump verbatim."""
    from ruamel.yaml import YAML
    from ruamel.yaml.constructor import RoundTripConstructor
    from ruamel.yaml.nodes import ScalarNode

    class KeepSpelling(RoundTripConstructor):
        def construct_non_recursive_object(self, node: Any, tag: Any = None) -> Any:
            implicit = getattr(node.tag, "handle", None) is None  # no `!!int` written
            plain = tag is None and isinstance(node, ScalarNode) and not node.style
            if plain and implicit and str(node.tag) in _IMPLICIT:
                kept = _Plain(node.value)
                kept.tag = node.tag
                return kept
            return super().construct_non_recursive_object(node, tag)

    yaml = YAML()  # round trip
    yaml.Constructor = KeepSpelling
    yaml.representer.add_representer(_Plain, lambda r, v: r.represent_scalar(v.tag, str(v)))
    return yaml


Normalize = Callable[[Any], Any]


def _as_read(data: Any, normalize: Normalize | None) -> Any:
    """What a file PyYAML read as ``data`` stands for, with the defaults a save fills in
    (``normalize``); the data itself when it does not validate."""
    if normalize is None:
        return data
    try:
        return normalize(data)
    except Exception:  # not a valid config: compared as read
        return data


def rewritten(text: str, desired: dict[str, Any], normalize: Normalize | None = None) -> str | None:
    """``text`` (the current index.yml) changed to hold ``desired``, or None. With
    ``normalize`` (the read-and-save of a file's data), an entry the file leaves out because
    it is a default stays left out: the result need only read as ``desired`` once
    normalized, so a rewrite never adds ``pattern``/``include``/``exclude`` to entries it
    did not change."""
    import yaml as pyyaml
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.util import load_yaml_guess_indent

    from gno.core.yaml_depth import expanded_shape, nesting_depth

    if nesting_depth(text) > MAX_DEPTH:  # ruamel recurses once per level
        return None
    yaml = _round_trip()
    yaml.preserve_quotes = True
    yaml.width = 4096  # never fold a long line the user wrote on one line
    try:
        tree, sequence, offset = load_yaml_guess_indent(text, yaml=yaml)
        shape = expanded_shape(tree, MAX_VALUES)
        if shape is None or shape[1] > MAX_DEPTH or not isinstance(tree, CommentedMap):
            return None
        mapping = _mapping_indent(text)
        if sequence and offset is not None:
            yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
        else:  # no block list to learn from: the layout gno's plain dump uses
            yaml.indent(mapping=mapping, sequence=mapping, offset=0)
        seen = _as_read(pyyaml.safe_load(text), normalize)  # the shape check came first
        _gather_comments(tree)
        baseline = _dumped(yaml, tree)
        _merge_map(tree, desired, seen if isinstance(seen, dict) else MISSING)
        result = _dumped(yaml, tree)
    except Exception:  # best effort: the plain dump is always right
        return None
    # The round trip's edit on the user's own lines (every other byte kept), else the
    # round trip itself (comments kept, some spellings of the dump's own).
    for candidate in (spliced(text, baseline, result), result):
        if candidate is not None and _reads_as(candidate, desired, normalize):
            return candidate
    return None


def _dumped(yaml: Any, tree: Any) -> str:
    out = io.StringIO()
    yaml.dump(tree, out)
    return out.getvalue()


def _mapping_indent(text: str) -> int:
    """The indentation of the first nested mapping key (2 when there is none)."""
    lines = text.split("\n")
    for above, line in itertools.pairwise(lines):
        body = line.lstrip(" ")
        head = above.split("#", 1)[0].rstrip()
        if body and not body.startswith(("#", "-")) and head.endswith(":") and above[:1] != " ":
            return len(line) - len(body) or 2
    return 2


def _reads_as(result: str, desired: dict[str, Any], normalize: Normalize | None) -> bool:
    import yaml

    try:
        return _same(_as_read(yaml.safe_load(result), normalize), desired)
    except yaml.YAMLError:
        return False


def _same(a: Any, b: Any) -> bool:
    """Equal as data, booleans told from numbers (``True == 1`` in Python, not in YAML)."""
    try:
        return _key(a) == _key(b)
    except (TypeError, ValueError):  # a mapping with keys JSON cannot sort
        return False


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


# -- where the comment lines after a value live ---------------------------------------


def _slot(owner: Any, key: Any) -> tuple[Any, Any, int]:
    """The comment slot after ``owner[key]``'s last line: inside the value when it is a
    non-empty block collection, else beside the key (index 2 of a mapping's comment
    entry, 0 of a list's)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    value = owner[key]
    while isinstance(value, CommentedMap | CommentedSeq) and len(value) and not _flow(value):
        owner, key = value, (list(value)[-1] if isinstance(value, CommentedMap) else len(value) - 1)
        value = owner[key]
    return owner, key, 2 if isinstance(owner, CommentedMap) else 0


def _flow(value: Any) -> bool:
    """A non-empty flow collection (``[a, b]``); an empty one is written ``[]`` however
    it was read, and ruamel reads its line's comment from the key's entry."""
    return hasattr(value, "fa") and len(value) > 0 and bool(value.fa.flow_style())


def _token(slot: tuple[Any, Any, int]) -> Any:
    owner, key, index = slot
    value = owner[key]
    if _flow(value) and value.ca.comment and value.ca.comment[0] is not None:
        return value.ca.comment[0]  # a flow collection ends its line itself
    entry = owner.ca.items.get(key)
    return entry[index] if entry else None


def _set_token(slot: tuple[Any, Any, int], token: Any) -> None:
    owner, key, index = slot
    value = owner[key]
    if _flow(value):  # what ruamel reads after a flow collection (``[]`` excepted)
        value.ca.comment = [token, value.ca.comment[1] if value.ca.comment else None]
    owner.ca.items.setdefault(key, [None, None, None, None])[index] = token


def _take_rest(slot: tuple[Any, Any, int]) -> str:
    """Remove and return the comment lines after the slot's own line."""
    token = _token(slot)
    if token is None:
        return ""
    head, _, rest = token.value.partition("\n")
    token.value = head + "\n"
    return rest


def _put_rest(slot: tuple[Any, Any, int], rest: str) -> None:
    """Set the comment lines after the slot's line to ``rest`` (keeping its own comment)."""
    from ruamel.yaml.error import CommentMark
    from ruamel.yaml.tokens import CommentToken

    token = _token(slot)
    if token is None:
        if rest:  # a token whose line has no comment of its own starts with its newline
            _set_token(slot, CommentToken("\n" + rest, CommentMark(0)))
        return
    token.value = token.value.partition("\n")[0] + "\n" + rest


def _gather_comments(node: Any, *, root: bool = True) -> None:
    """Move the comment lines between entries into one place, the rest of the slot before
    them: ruamel also files them as an entry's leading comment, or as a list's end
    comments after a flow value (``[]``) ends its last entry."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if not isinstance(node, CommentedMap | CommentedSeq) or _flow(node):
        return
    keys = list(node) if isinstance(node, CommentedMap) else list(range(len(node)))
    for key in keys:
        _gather_comments(node[key], root=False)
    for before, key in itertools.pairwise(keys):
        entry = node.ca.items.get(key)
        if isinstance(node, CommentedSeq) and entry and entry[1]:
            _add_rest(_slot(node, before), _lines(entry[1]))
            entry[1] = None
    post = node.ca._post  # ruamel offers no accessor for the end comments
    if keys and post and not root:  # the document's own end comments stay at its end
        _add_rest(_slot(node, keys[-1]), _lines(post))
        node.ca._post = []


def _lines(tokens: list[Any]) -> str:
    """Comment tokens as the text they stand for, each at its column."""
    return "".join(
        t.value if t.value.startswith("\n") or not t.value.strip() else " " * t.column + t.value
        for t in tokens
    )


def _add_rest(slot: tuple[Any, Any, int], more: str) -> None:
    _put_rest(slot, _take_rest(slot) + more)


def _plain_to_tree(value: Any) -> Any:
    """A new value as ruamel nodes, so comments can be attached to it."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(value, dict):
        return CommentedMap((k, _plain_to_tree(v)) for k, v in value.items())
    if isinstance(value, list):
        return CommentedSeq(_plain_to_tree(v) for v in value)
    return value


# -- the merge -------------------------------------------------------------------------


def _merged(old: Any, new: Any, seen: Any) -> Any:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if not old or _flow(old):  # ``[]`` or ``{a: 1}`` stay as they were read: rewritten
        return _plain_to_tree(new)
    if isinstance(old, CommentedMap) and isinstance(new, dict):
        _merge_map(old, new, seen if isinstance(seen, dict) else MISSING)
        return old
    if isinstance(old, CommentedSeq) and isinstance(new, list):
        _merge_seq(old, new, seen)
        return old
    return _plain_to_tree(new)


def _child(seen: Any, key: Any) -> Any:
    """PyYAML's reading of entry ``key`` of a mapping it read as ``seen``."""
    if isinstance(seen, dict) and isinstance(key, str) and key in seen:
        return seen[key]
    return MISSING


def _change(owner: Any, key: Any, new: Any, seen: Any) -> None:
    """``owner[key]`` (read by PyYAML as ``seen``) becomes ``new``; the comment lines after
    it stay after it. An entry read as ``new`` already is left as written."""
    if _same(owner[key] if seen is MISSING else seen, new):
        return
    rest = _take_rest(_slot(owner, key))
    owner[key] = _merged(owner[key], new, seen)
    entry = owner.ca.items.get(key)
    if not owner[key] and entry and len(entry) > 3 and not entry[3]:
        entry[3] = None  # an emptied list's leading comments: ruamel would break the line
    _put_rest(_slot(owner, key), rest)


def _merge_map(old: Any, new: dict[str, Any], seen: Any) -> None:
    for key in [k for k in old if k not in new]:
        keys = list(old)
        at = keys.index(key)
        rest = _take_rest(_slot(old, key))  # introduces the key after it: keep
        if at:  # the key before it loses what introduced the removed key
            _take_rest(_slot(old, keys[at - 1]))
            _put_rest(_slot(old, keys[at - 1]), rest)
        del old[key]
        old.ca.items.pop(key, None)
    previous = None
    for key, value in new.items():
        if key in old:
            _change(old, key, value, _child(seen, key))
        elif _child(seen, key) is not MISSING and _same(seen[key], value):
            continue  # a default the file leaves out, unchanged: still left out
        else:
            at = list(old).index(previous) + 1 if previous is not None else 0
            rest = _take_rest(_slot(old, previous)) if previous is not None else ""
            old.insert(at, key, _plain_to_tree(value))
            _put_rest(_slot(old, key), rest)
        previous = key


def _merge_seq(old: Any, new: list[Any], seen: Any) -> None:
    """Entries matched by content (difflib over their canonical JSON, as PyYAML reads
    them): unchanged ones keep their node, a changed one at the same place (a rename) is
    merged key by key."""
    views = list(seen) if isinstance(seen, list) and len(seen) == len(old) else []
    views = views or [MISSING] * len(old)
    matcher = difflib.SequenceMatcher(
        None,
        [_key(o if v is MISSING else v) for o, v in zip(old, views, strict=True)],
        [_key(v) for v in new],
        autojunk=False,
    )
    pairs: list[tuple[int, int]] = []  # (old index, new index)
    gone: list[int] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        paired = min(i2 - i1, j2 - j1) if tag in ("equal", "replace") else 0
        pairs += [(i1 + n, j1 + n) for n in range(paired)]
        gone += range(i1 + paired, i2)
    for index in sorted(gone, reverse=True):
        _delete_item(old, index)
        del views[index]
        pairs = [(i - (i > index), j) for i, j in pairs]
    for i, j in pairs:
        _change(old, i, new[j], views[i])
    kept = {j for _, j in pairs}
    for j, value in enumerate(new):
        if j in kept:
            continue
        rest = _take_rest(_slot(old, j - 1)) if j else ""
        old.insert(j, _plain_to_tree(value))
        _put_rest(_slot(old, j), rest)


def _delete_item(seq: Any, index: int) -> None:
    """Remove entry ``index``: the comment introducing it goes, the one introducing the
    entry after it stays (moved to the entry before, or before the new first entry)."""
    from ruamel.yaml.error import CommentMark
    from ruamel.yaml.tokens import CommentToken

    rest = _take_rest(_slot(seq, index))
    if index:
        _take_rest(_slot(seq, index - 1))
        _put_rest(_slot(seq, index - 1), rest)
    elif rest.strip() and len(seq) > 1:  # after the list's leading comment
        lines = [line.strip() for line in rest.split("\n") if line.strip()]
        column = len(rest.lstrip("\n")) - len(rest.lstrip("\n").lstrip(" "))
        if seq.ca.comment is None:
            seq.ca.comment = [None, []]
        if seq.ca.comment[1] is None:
            seq.ca.comment[1] = []
        seq.ca.comment[1].extend(CommentToken(f"{line}\n", CommentMark(column)) for line in lines)
    del seq[index]
    if not seq and seq.ca.comment:
        if seq.ca.comment[1]:
            seq.ca.comment[1][:] = []  # no entry left to introduce (the parent shares it)
        seq.ca.comment = None
    if not seq:
        seq.fa.set_flow_style()  # written ``[]``: its line's comment then follows it
    items = seq.ca.items
    for position in sorted(k for k in items if k >= index):
        moved = items.pop(position)
        if position > index:
            items[position - 1] = moved
