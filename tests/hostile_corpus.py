"""A generated collection of hostile files, and a way to make `chmod 000` bite as root.

Tests run as root, where permission bits do not stop reads (CAP_DAC_OVERRIDE and
CAP_DAC_READ_SEARCH). ``drop_file_capabilities`` (a ``preexec_fn``) removes both from
the child's bounding set before it executes, so a real `gno` process, still uid 0,
gets EACCES on a `chmod 000` folder exactly as a normal user would.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
from pathlib import Path

_PR_CAPBSET_DROP = 24
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 1, 2

# file name -> words only that file contains (each good file must be found by them)
GOOD = {
    "good/alpha.md": "alphaword",
    "good/nested/beta.md": "betaword",
    "good/gamma.txt": "gammaword",
    "locked-sibling/delta.md": "deltaword",
    "huge-line.md": "hugelineword",
    "inner-link-target.md": "linktargetword",
}
DEEP = 330  # the nesting that crashed `gno update`


def drop_file_capabilities() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def permissions_enforced(tmp: Path) -> bool:
    """Whether a child started with ``preexec`` below is refused a `chmod 000` folder."""
    probe = tmp / "perm-probe"
    probe.mkdir()
    probe.chmod(0)
    try:
        done = subprocess.run(
            ["ls", str(probe)], preexec_fn=preexec(), capture_output=True, timeout=30
        )
        return done.returncode != 0
    except OSError:
        return False
    finally:
        probe.chmod(0o755)
        probe.rmdir()


def preexec():  # type: ignore[no-untyped-def]
    return drop_file_capabilities if os.geteuid() == 0 else None


def build(root: Path, outside: Path) -> dict[str, str]:
    """Write the corpus; returns hostile path -> what must happen to it."""
    for rel, word in GOOD.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if rel == "huge-line.md":
            # one 4 MB line: must not blow time or memory
            path.write_text(f"# Huge line\n\n{word} " + "lorem " * 700_000 + "\n")
        else:
            path.write_text(f"# {rel}\n\nSome text with {word} in it.\n")
    expect: dict[str, str] = {}
    os.makedirs(root / "names", exist_ok=True)
    with open(os.path.join(os.fsencode(root / "names"), b"caf\xe9-\xff.md"), "wb") as f:
        f.write(b"# latin-1 name\n\nbadnameword\n")
    expect["names/caf\\xe9-\\xff.md"] = "INVALID_NAME"
    block = "a:\n" + "".join(" " * (i + 1) + "a:\n" for i in range(DEEP))
    (root / "deep-block.md").write_text(f"---\n{block}---\ndeepblockword\n")
    expect["deep-block.md"] = "CORRUPT"
    (root / "deep-flow.md").write_text("---\na: " + "[" * DEEP + "]" * DEEP + "\n---\nflowword\n")
    expect["deep-flow.md"] = "CORRUPT"
    (root / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 64)
    expect["binary.md"] = "UNSUPPORTED"
    (root / "garbage.txt").write_bytes(bytes((i * 97 + 13) % 256 for i in range(1, 5000)))
    expect["garbage.txt"] = "UNSUPPORTED"
    os.mkfifo(root / "pipe.md")
    expect["pipe.md"] = "UNSUPPORTED"
    # symlinks: a loop, one that leaves the root, one to a pipe; none is followed or read
    (root / "loop-a.md").symlink_to(root / "loop-b.md")
    (root / "loop-b.md").symlink_to(root / "loop-a.md")
    outside.mkdir(parents=True, exist_ok=True)
    (outside / "secret.md").write_text("# Secret\n\nescapedsecretword\n")
    (root / "escape.md").symlink_to(outside / "secret.md")
    (root / "escape-dir").symlink_to(outside, target_is_directory=True)
    (root / "self-dir").symlink_to(root, target_is_directory=True)
    (root / "pipe-link.md").symlink_to(root / "pipe.md")
    (root / "inner-link.md").symlink_to(root / "inner-link-target.md")
    for rel in ("loop-a.md", "loop-b.md", "escape.md", "pipe-link.md"):
        expect[rel] = "absent"
    # a folder the walk cannot read (made unreadable after the first sync)
    (root / "locked").mkdir()
    (root / "locked" / "kept.md").write_text("# Kept\n\nlockedword\n")
    return expect
