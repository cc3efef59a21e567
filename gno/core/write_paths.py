"""The rules a path must pass before gno writes a file there (pure: no file system).

Every write (capture, document create, folder create, rename, move, memory) names its
target as a path relative to a collection root. ``check_rel_path`` turns that text into
a normalized POSIX path or raises ``InvalidPathError`` naming the rule it broke, before
anything touches the disk. What the file system adds (a symlink leading out of the
root) is checked by ``gno.file_writes.resolve_inside``.

Rules (documented in spec/writes.md):
- relative, non-empty, at most 1,024 bytes of UTF-8 and 255 bytes per segment;
- no ``..``, no absolute path, no drive letter, no backslash (a Windows separator would
  mean a different file on another machine);
- no NUL, control characters (C0, DEL, C1) or surrogate code points;
- no segment that Windows reserves (``CON``, ``NUL``, ``COM1`` …, with or without an
  extension) or that ends in a dot or space;
- no segment in a sensitive folder (``.git``, ``.ssh``, ``.gnupg``, ``node_modules``,
  ``.gno``): a note never lands in a repository's or a key store's internals.
"""

from __future__ import annotations

from gno.errors import InvalidPathError

MAX_PATH_BYTES = 1024
MAX_SEGMENT_BYTES = 255
SENSITIVE_SEGMENTS = frozenset({".git", ".ssh", ".gnupg", "node_modules", ".gno", ".hg", ".svn"})
_RESERVED_STEMS = frozenset(
    {"con", "prn", "aux", "nul"} | {f"com{i}" for i in range(10)} | {f"lpt{i}" for i in range(10)}
)


def _refuse(rel: str, why: str) -> InvalidPathError:
    shown = rel if len(rel) <= 80 else rel[:77] + "..."
    return InvalidPathError(f"Cannot write to {shown!r}: {why}")


def check_segment(segment: str, rel: str = "") -> str:
    """One file or folder name, checked alone (a title turned into a file name, say)."""
    rel = rel or segment
    if segment in ("", ".", ".."):
        raise _refuse(rel, "empty, '.' or '..' path segments are not allowed")
    if "/" in segment:  # a name, not a path: ``p/q`` made two folders, ``x/n.md`` a folder
        raise _refuse(rel, "a name is one path segment, without '/'")
    # C0, DEL and C1 (U+0080-U+009F, e.g. U+009B, a terminal's CSI) are all controls.
    if any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or 0xD800 <= ord(c) <= 0xDFFF for c in segment):
        raise _refuse(rel, "control characters and invalid UTF-8 are not allowed")
    if len(segment.encode("utf-8")) > MAX_SEGMENT_BYTES:
        raise _refuse(rel, f"a name is longer than {MAX_SEGMENT_BYTES} bytes")
    if segment[-1] in ". ":
        raise _refuse(rel, "a name may not end with a dot or a space")
    if segment.split(".", 1)[0].lower() in _RESERVED_STEMS:
        raise _refuse(rel, f"{segment!r} is a reserved device name")
    if segment.lower() in SENSITIVE_SEGMENTS:
        raise _refuse(rel, f"{segment!r} is a protected folder")
    return segment


def check_rel_path(rel: str) -> str:
    """``rel`` as a normalized POSIX path relative to a collection root, or ``InvalidPathError``."""
    if not isinstance(rel, str) or not rel.strip():
        raise _refuse(str(rel), "the path is empty")
    if "\\" in rel:
        raise _refuse(rel, "backslashes are not allowed; use '/'")
    if rel.startswith("/") or (len(rel) > 1 and rel[1] == ":"):
        raise _refuse(rel, "the path must be relative to the collection root")
    if len(rel.encode("utf-8", "surrogatepass")) > MAX_PATH_BYTES:
        raise _refuse(rel, f"the path is longer than {MAX_PATH_BYTES} bytes")
    segments = [s for s in rel.split("/") if s not in ("", ".")]
    if not segments:
        raise _refuse(rel, "the path names no file")
    for segment in segments:
        check_segment(segment, rel)
    return "/".join(segments)
