"""What a new note file is made of (pure): text rules, content hash, file names, the
note text with its frontmatter.

Rules (spec/writes.md): content is text — no NUL, no C0 control but TAB/LF/CR, no
DEL, no lone surrogate — and at most ``MAX_CONTENT_BYTES`` of UTF-8, refused (never
cut) beyond. ``contentHash`` is SHA-256 of the body with CRLF → LF and outer
whitespace trimmed (GNO's rule). A title becomes a file name by dropping what file
systems or links trip on; without a title or path, capture writes
``inbox/YYYY-MM-DD/capture-<first 12 hex of contentHash>.md`` (UTC date). A Markdown
note is never written to a path whose extension makes gno read the file as an export or a
converted document (``check_note_path``).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from datetime import datetime
from typing import Any

from gno.core.mime import OOXML_MIMES, RECORD_MIMES, extension
from gno.core.write_paths import check_segment
from gno.errors import InvalidPathError, ValidationError

MAX_CONTENT_BYTES = 1024 * 1024
MAX_TITLE_STEM = 100  # characters of a title kept in a file name
MAX_TITLE_BYTES = 200  # and at most this many UTF-8 bytes of them
MAX_SUFFIX = 999  # create_with_suffix tries name-2 … name-999
_UNSAFE = re.compile(r"[\\/:*?\"<>|#\[\]^\x00-\x1f\x7f-\x9f]+")
_DASHES = re.compile(r"[\s\-_]+")


# A note is Markdown with frontmatter: in a file of these formats it is no export and no
# PDF. Written there, a ".jsonl" became a broken chat export (the write then failed to sync,
# the file left behind) and an existing export was "opened" or overwritten by a note.
NOT_NOTE_EXTS = frozenset(RECORD_MIMES) | frozenset(OOXML_MIMES) | {".pdf"}


def check_note_path(rel: str, verb: str = "write a note") -> None:
    """``INVALID_PATH`` for a note path gno would read as an export or converted file."""
    ext = extension(rel)
    if ext in NOT_NOTE_EXTS:
        raise InvalidPathError(
            f"Cannot {verb} to {rel!r}: a {ext} file is not a note (gno reads it as "
            "an export or a converted document); use a .md path"
        )


def check_text(content: str, what: str = "Content") -> str:
    for ch in content:
        code = ord(ch)
        if (code < 0x20 and ch not in "\t\n\r") or code == 0x7F:
            raise ValidationError(f"{what} must be text: control character U+{code:04X}")
        if 0xD800 <= code <= 0xDFFF:
            raise ValidationError(f"{what} must be valid UTF-8 text (lone surrogate)")
    size = len(content.encode("utf-8"))
    if size > MAX_CONTENT_BYTES:
        raise ValidationError(
            f"{what} is {size} bytes; at most {MAX_CONTENT_BYTES} bytes (1 MiB) are accepted"
        )
    return content


def content_hash(body: str) -> str:
    return hashlib.sha256(body.replace("\r\n", "\n").strip().encode("utf-8")).hexdigest()


def file_name_for_title(title: str) -> str:
    """A safe ``.md`` file name for a title (``untitled.md`` when nothing is left)."""
    stem = unicodedata.normalize("NFC", title)
    stem = _UNSAFE.sub(" ", stem)
    stem = _DASHES.sub("-", stem.strip()).strip("-.").lower()
    stem = stem[:MAX_TITLE_STEM]
    while len(stem.encode("utf-8")) > MAX_TITLE_BYTES:  # a segment holds 255 bytes
        stem = stem[:-1]
    stem = stem.rstrip("-. ") or "untitled"
    try:
        check_segment(f"{stem}.md")
    except InvalidPathError:  # "CON" is a device on Windows, not a file: "note-con.md"
        stem = f"note-{stem}"
    return f"{stem}.md"


def capture_path(body_hash: str, now: datetime) -> str:
    return f"inbox/{now.strftime('%Y-%m-%d')}/capture-{body_hash[:12]}.md"


def suffixed(rel_path: str, n: int) -> str:
    """``a/name.md`` → ``a/name-<n>.md`` (the extension kept; none → appended)."""
    folder, _, name = rel_path.rpartition("/")
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        stem, ext = name, ""
    new = f"{stem}-{n}.{ext}" if ext else f"{stem}-{n}"
    return f"{folder}/{new}" if folder else new


def join_folder(folder: str | None, name: str) -> str:
    folder = (folder or "").strip().strip("/")
    return f"{folder}/{name}" if folder else name


def frontmatter_block(data: dict[str, Any]) -> str:
    """``---`` YAML ``---`` for these keys in order (empty dict: no block)."""
    if not data:
        return ""
    import yaml

    dumped = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False)
    return f"---\n{dumped}---\n"


def note_text(frontmatter: dict[str, Any], body: str) -> str:
    """The file: frontmatter, a blank line, the body with LF line ends and one final newline."""
    body = body.replace("\r\n", "\n").replace("\r", "\n").strip("\n")
    head = frontmatter_block(frontmatter)
    text = f"{head}\n{body}\n" if head else f"{body}\n"
    return text if body else (head or "\n")
