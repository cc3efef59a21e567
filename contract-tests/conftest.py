"""Fixtures of the contract tests: a small real corpus indexed by the real CLI."""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import browser_helpers
import pytest
from contract_helpers import MISC, NOTES, Indexed, gno_env, key, run_gno, write_tree
from hypothesis import settings

# Property tests carry no wall-clock limit (see tests/conftest.py).
settings.register_profile("gno", deadline=None)
settings.load_profile("gno")

SETUP = [  # (label, argv); {notes}/{misc} are the collection roots
    ("init", ["init", "--json"]),
    ("add_notes", ["collection", "add", "{notes}", "--name", "notes", "--json"]),
    ("add_misc", ["collection", "add", "{misc}", "--name", "misc", "--json"]),
    ("update", ["update", "--json"]),
    ("update_again", ["update", "--json"]),
]


def _run_raw(env: dict[str, str], args: list[str]) -> dict[str, Any]:
    proc = run_gno(env, *args)
    return {
        "args": args,
        "returncode": proc.returncode,
        "stdout": proc.stdout,
        "stderr": proc.stderr,
    }


def _build(root: Path, reads: list[list[str]]) -> dict[str, Any]:
    notes = write_tree(root / "corpus" / "notes", NOTES)
    misc = write_tree(root / "corpus" / "misc", MISC)
    env = gno_env(root)
    raw: dict[str, Any] = {}
    for label, argv in SETUP:
        args = [a.format(notes=notes, misc=misc) for a in argv]
        raw[label] = _run_raw(env, args)
        if raw[label]["returncode"] != 0:  # everything else depends on it: stop here
            break
    else:
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            for args, result in zip(
                reads, pool.map(lambda a: _run_raw(env, a), reads), strict=True
            ):
                raw[key(args)] = result
    return {"notes": str(notes), "misc": str(misc), "raw": raw}


@pytest.fixture(scope="module")
def indexed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Indexed:
    reads = [list(a) for a in getattr(request.module, "READ_COMMANDS", [])]
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    # With xdist every worker has its own basetemp under one per-run folder.
    shared = tmp_path_factory.getbasetemp().parent if worker else tmp_path_factory.getbasetemp()
    root = shared / f"gno-corpus-{request.module.__name__}"
    root.mkdir(exist_ok=True)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = root / "built.json"
        if done.exists():
            built = json.loads(done.read_text(encoding="utf-8"))
        else:
            built = _build(root, reads)
            done.write_text(json.dumps(built), encoding="utf-8")
    ix = Indexed(root, gno_env(root), Path(built["notes"]), Path(built["misc"]), built["raw"])
    for label, _ in SETUP:
        failed = ix.raw.get(label)
        if failed is None or failed["returncode"] != 0:
            pytest.fail(f"corpus setup failed at {label}: {failed and failed['stderr']}")
    return ix


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--base-url",
        default=None,
        help="Run the REST contract tests against this already running `gno serve` "
        "(e.g. http://127.0.0.1:3000); otherwise they start their own.",
    )


@pytest.fixture
def fresh_env(tmp_path: Path) -> dict[str, str]:
    """Environment of a gno home that was never initialized."""
    return gno_env(tmp_path / "home")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run order inside contract-tests (speed only, tests stay independent): the
    long sequential tests first, then everything else, and the tests sharing the
    indexed corpus last, so with xdist no worker idles behind the other."""
    here = Path(__file__).parent

    def rank(item: pytest.Item) -> int:
        if item.name == "test_collection_lifecycle":
            return 0
        return 2 if "indexed" in getattr(item, "fixturenames", ()) else 1

    ours = [i for i in items if here in Path(str(i.path)).parents]
    if ours:
        others = [i for i in items if i not in ours]
        items[:] = others + sorted(ours, key=rank)


# The Web UI tests' real Chromium (see browser_helpers.py).
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(browser_helpers.CHROMIUM).exists():
        pytest.skip(
            f"Chromium not found at {browser_helpers.CHROMIUM}: run `make browser` (apt-get install chromium)"
        )
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=browser_helpers.CHROMIUM, args=browser_helpers.CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    page.set_default_timeout(browser_helpers.TIMEOUT_MS)
    yield page
    context.close()
