"""The watcher at the OS watch limit (Linux inotify: one watch per folder).

watchfiles does not report the limit: past it the notify crate leaves the remaining
folders unwatched without a word, and the root counted as active while changes in
those folders were never seen. Now a root that could not get every watch is reported
in ``failedCollections`` with the limit as its reason, a root that fits beside it stays
watched, and once watches are available again the root is watched and gets its
catch-up pass.

The limit is real but lowered for this test only: the watcher runs in a child process
in a user namespace of its own, whose ``/proc/sys/user/max_inotify_watches`` it may set
(the machine's own setting is never touched).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

LIMIT = 30  # watches in the namespace: "small" (3 folders) fits, "big" (41) does not
DEADLINE = 60

CHILD = r"""
import json, sys, time
from pathlib import Path

from gno.config import Collection, Config, save_config
from gno.paths import resolve_paths
from gno.resident.watcher import Watcher

small, big = Path(sys.argv[1]), Path(sys.argv[2])
limit = Path("/proc/sys/user/max_inotify_watches")
save_config(
    resolve_paths().config_file,
    Config(collections=[Collection("small", str(small)), Collection("big", str(big))]),
)
calls = []
watcher = Watcher(
    resolve_paths(),
    lambda name, paths: calls.append([name, paths]) or True,
    recheck_seconds=0.2,
    limit_retry_seconds=0.5,
)


def wait(check, what):
    deadline = time.monotonic() + 30
    while not check():
        if time.monotonic() > deadline:
            print(json.dumps({"timedOut": what, "state": watcher.state(), "calls": calls}))
            sys.exit(1)
        time.sleep(0.05)


def failed():
    return [f["collection"] for f in watcher.state()["failedCollections"]]


watcher.start()
wait(lambda: watcher.state()["activeCollections"] == ["small"] and failed() == ["big"], "big to fail")
limited = watcher.state()
(small / "a" / "seen.md").write_text("# seen\n")
wait(lambda: ["small", ["a/seen.md"]] in calls, "small to stay watched")
limit.write_text("100000\n")  # room for big now
wait(lambda: watcher.state()["activeCollections"] == ["small", "big"], "big to be watched")
wait(lambda: ["big", None] in calls, "big's catch-up pass")
(big / "d39" / "late.md").write_text("# late\n")  # the last folder: the first to go unwatched
wait(lambda: ["big", ["d39/late.md"]] in calls, "a change in big's last folder")
watcher.stop()
print(json.dumps({"limited": limited, "calls": calls}))
"""


def namespace_with_limit() -> list[str]:
    """A command prefix running in a new user namespace with LIMIT watches, or skip."""
    unshare = shutil.which("unshare")
    if not sys.platform.startswith("linux") or unshare is None:
        pytest.skip("needs Linux and unshare(1)")
    setup = f"echo {LIMIT} > /proc/sys/user/max_inotify_watches"
    probe = subprocess.run(
        [unshare, "--user", "--map-root-user", "sh", "-c", setup],
        capture_output=True,
        timeout=DEADLINE,
    )
    if probe.returncode != 0:
        pytest.skip("user namespaces (or their inotify limits) are not available here")
    return [unshare, "--user", "--map-root-user", "sh", "-c", f'{setup} && exec "$@"', "sh"]


def test_a_root_past_the_watch_limit_is_reported_not_half_watched(tmp_path: Path) -> None:
    prefix = namespace_with_limit()
    small, big = tmp_path / "small", tmp_path / "big"
    for folder in ("a", "b"):
        (small / folder).mkdir(parents=True)
    for i in range(40):
        (big / f"d{i}").mkdir(parents=True)
        (big / f"d{i}" / "note.md").write_text(f"# note {i}\n")
    done = subprocess.run(
        [*prefix, sys.executable, "-c", CHILD, str(small), str(big)],
        capture_output=True,
        text=True,
        timeout=DEADLINE * 2,
        env=os.environ.copy(),
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    [failure] = report["limited"]["failedCollections"]
    assert failure["collection"] == "big"
    assert "max_user_watches" in failure["reason"] and str(tmp_path) not in failure["reason"]
