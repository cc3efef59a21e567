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
from typing import Any

MAX_VALUES = 1_000_000  # as load_config: aliases copied out by any walk of the tree
MAX_DEPTH = 64


def rewritten(text: str, desired: dict[str, Any]) -> str | None:
    """``text`` (the current index.yml) changed to hold ``desired``, or None."""
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.util import load_yaml_guess_indent

    from gno.core.yaml_depth import expanded_shape, nesting_depth

    if nesting_depth(text) > MAX_DEPTH:  # ruamel recurses once per level
        return None
    yaml = YAML()  # round trip
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
        _gather_comments(tree)
        _merge_map(tree, desired)
        out = io.StringIO()
        yaml.dump(tree, out)
        result = out.getvalue()
    except Exception:  # best effort: the plain dump is always right
        return None
    return result if _reads_as(result, desired) else None


def _mapping_indent(text: str) -> int:
    """The indentation of the first nested mapping key (2 when there is none)."""
    lines = text.split("\n")
    for above, line in itertools.pairwise(lines):
        body = line.lstrip(" ")
        head = above.split("#", 1)[0].rstrip()
        if body and not body.startswith(("#", "-")) and head.endswith(":") and above[:1] != " ":
            return len(line) - len(body) or 2
    return 2


def _reads_as(result: str, desired: dict[str, Any]) -> bool:
    import yaml

    try:
        return _same(yaml.safe_load(result), desired)
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


def _merged(old: Any, new: Any) -> Any:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if not old or _flow(old):  # ``[]`` or ``{a: 1}`` stay as they were read: rewritten
        return _plain_to_tree(new)
    if isinstance(old, CommentedMap) and isinstance(new, dict):
        _merge_map(old, new)
        return old
    if isinstance(old, CommentedSeq) and isinstance(new, list):
        _merge_seq(old, new)
        return old
    return _plain_to_tree(new)


def _change(owner: Any, key: Any, new: Any) -> None:
    """``owner[key]`` becomes ``new``; the comment lines after it stay after it."""
    if _same(owner[key], new):
        return
    rest = _take_rest(_slot(owner, key))
    owner[key] = _merged(owner[key], new)
    entry = owner.ca.items.get(key)
    if not owner[key] and entry and len(entry) > 3 and not entry[3]:
        entry[3] = None  # an emptied list's leading comments: ruamel would break the line
    _put_rest(_slot(owner, key), rest)


def _merge_map(old: Any, new: dict[str, Any]) -> None:
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
            _change(old, key, value)
        else:
            at = list(old).index(previous) + 1 if previous is not None else 0
            rest = _take_rest(_slot(old, previous)) if previous is not None else ""
            old.insert(at, key, _plain_to_tree(value))
            _put_rest(_slot(old, key), rest)
        previous = key


def _merge_seq(old: Any, new: list[Any]) -> None:
    """Entries matched by content (difflib over their canonical JSON): unchanged ones keep
    their node, a changed one at the same place (a rename) is merged key by key."""
    matcher = difflib.SequenceMatcher(
        None, [_key(v) for v in old], [_key(v) for v in new], autojunk=False
    )
    pairs: list[tuple[int, int]] = []  # (old index, new index)
    gone: list[int] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        paired = min(i2 - i1, j2 - j1) if tag in ("equal", "replace") else 0
        pairs += [(i1 + n, j1 + n) for n in range(paired)]
        gone += range(i1 + paired, i2)
    for index in sorted(gone, reverse=True):
        _delete_item(old, index)
        pairs = [(i - (i > index), j) for i, j in pairs]
    for i, j in pairs:
        _change(old, i, new[j])
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
