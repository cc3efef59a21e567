"""The record lane at mailbox scale: one ~50 MB mbox of ~20,000 messages.

    .venv/bin/python bench/records.py              # full size (~1 min on 2 vCPU)
    .venv/bin/python bench/records.py --messages 2000

The mailbox is written once with the standard library's ``mailbox``/``email`` (seeded
text, ~2.5 KB a message) into the bench cache (``GNO_BENCH_CACHE``) and reused. Then, in a
fresh index: ``gno update`` timed with its peak RSS (the child and its worker processes,
``os.wait4``), and three unchanged re-syncs (median), which must not read the mailbox.

Targets (issue 17): first index ≤ 30 s, peak RSS ≤ 250 MiB, unchanged re-sync ≤ 0.1 s
(its gno work: the `update` process minus the start of a `gno update` with nothing to
do — measured as a sync of an empty collection in the same run). CPU seconds are printed
too: on a shared machine the wall time says as much about the neighbours as about gno.
"""

from __future__ import annotations

import argparse
import email.message
import json
import mailbox
import os
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import cache_root
from run import GNO, MIB, fail, run_gno, workspace
from verdicts import verdict

RECIPE = 2  # bump when the mailbox recipe changes, so a stale cache is rebuilt
WORDS = [
    "budget",
    "travel",
    "offsite",
    "review",
    "hiring",
    "candidate",
    "roadmap",
    "launch",
    "release",
    "deadline",
    "invoice",
    "meeting",
    "agenda",
    "minutes",
    "proposal",
    "contract",
    "vendor",
    "shipment",
    "customer",
    "support",
    "ticket",
    "outage",
    "database",
    "migration",
    "latency",
    "backup",
    "restore",
    "security",
    "audit",
    "policy",
    "training",
    "onboarding",
    "quarter",
    "forecast",
    "revenue",
    "expense",
    "approval",
    "request",
    "feedback",
    "design",
    "prototype",
    "sprint",
]
TARGET_INDEX_S, TARGET_RSS_MIB, TARGET_NOOP_S = 30.0, 250.0, 0.1


def mailbox_file(messages: int) -> Path:
    root = cache_root() / f"records-v{RECIPE}-{messages}"
    path = root / "mail" / "archive.mbox"
    marker = root / ".complete"
    if marker.exists():
        return root
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()
    rng = random.Random(17)
    box = mailbox.mbox(str(path))
    try:
        for n in range(messages):
            msg = email.message.EmailMessage()
            msg["From"] = f"Person {n % 97} <p{n % 97}@example.org>"
            msg["To"] = f"team{n % 13}@example.org"
            msg["Subject"] = " ".join(rng.choices(WORDS, k=5)).capitalize()
            msg["Date"] = f"Tue, {n % 28 + 1:02d} Dec 2026 {n % 24:02d}:{n % 60:02d}:00 +0000"
            msg["Message-ID"] = f"<bench{n}@example.org>"
            paragraphs = [" ".join(rng.choices(WORDS, k=60)) + "." for _ in range(4)]
            msg.set_content("\n\n".join(paragraphs) + f"\n\nticket-{n}\n")
            box.add(msg)
        box.flush()
    finally:
        box.close()
    marker.touch()
    return root


@dataclass(frozen=True)
class Run:
    seconds: float
    cpu: float  # user + system seconds of the process and its worker processes
    peak_rss: int


def timed(argv: list[str], env: dict[str, str]) -> Run:
    """Wall time, CPU time and peak RSS of one child (``os.wait4``: its own figures, its
    waited-for worker processes included)."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.returncode != 0:
        fail(argv, proc.returncode, stderr)
    return Run(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=20_000)
    args = parser.parse_args()
    root = mailbox_file(args.messages)
    size_mb = (root / "mail" / "archive.mbox").stat().st_size / 1e6
    with workspace("records") as env:
        run_gno(env, "init", "--yes")
        empty = root.parent / "records-empty"
        empty.mkdir(exist_ok=True)
        run_gno(env, "collection", "add", str(empty), "--name", "empty")
        update_empty = [GNO, "update", "-c", "empty"]
        baseline = statistics.median(timed(update_empty, env).seconds for _ in range(3))
        run_gno(env, "collection", "add", str(root), "--name", "mail")
        first = timed([GNO, "update", "-c", "mail"], env)
        result = json.loads(run_gno(env, "update", "-c", "mail", "--json"))
        coll = result["collections"][0]
        if coll["errors"] or coll["filesUnchanged"] != 1:
            fail(["update"], 1, json.dumps(coll))
        status = json.loads(run_gno(env, "status", "--json"))
        docs = next(c for c in status["collections"] if c["name"] == "mail")["documentCount"]
        noop = statistics.median(
            timed([GNO, "update", "-c", "mail"], env).seconds for _ in range(3)
        )
    rss = first.peak_rss / MIB
    noop_work = max(0.0, noop - baseline)
    rows = [
        ("mailbox", f"{args.messages:,} messages, {size_mb:.1f} MB", ""),
        ("record documents indexed", f"{docs:,}", f"= {args.messages:,}"),
        ("first `gno update`", f"{first.seconds:.2f} s", f"≤ {TARGET_INDEX_S:.0f} s"),
        ("  its CPU time (all processes)", f"{first.cpu:.2f} s", ""),
        ("peak RSS", f"{rss:.0f} MiB", f"≤ {TARGET_RSS_MIB:.0f} MiB"),
        ("unchanged re-sync (process)", f"{noop:.3f} s", ""),
        ("`gno update` of an empty collection", f"{baseline:.3f} s", ""),
        ("unchanged re-sync (its work)", f"{noop_work:.3f} s", f"≤ {TARGET_NOOP_S} s"),
    ]
    width = max(len(r[0]) for r in rows)
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:>28}  {target}")
    for name, value, target, ok in (
        ("mailbox: record documents indexed", f"{docs:,}", f"= {args.messages:,}", docs == args.messages),
        ("mailbox: first gno update, s", f"{first.seconds:.2f}", f"≤ {TARGET_INDEX_S:.0f}", first.seconds <= TARGET_INDEX_S),
        ("mailbox: peak RSS, MiB", f"{rss:.0f}", f"≤ {TARGET_RSS_MIB:.0f}", rss <= TARGET_RSS_MIB),
        ("mailbox: unchanged re-sync work, s", f"{noop_work:.3f}", f"≤ {TARGET_NOOP_S}", noop_work <= TARGET_NOOP_S),
    ):  # fmt: skip
        verdict(17, name, value, target, ok)
    ok = (
        docs == args.messages
        and first.seconds <= TARGET_INDEX_S
        and rss <= TARGET_RSS_MIB
        and noop_work <= TARGET_NOOP_S
    )
    print("targets met" if ok else "TARGET MISSED")


if __name__ == "__main__":
    main()
