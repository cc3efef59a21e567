"""The SDK: the same scenario through the local transport (the index in-process) and the
remote one (a real uvicorn serving gno's app on 127.0.0.1) gives the same answers; errors
come back as gno.errors classes on both; bad arguments fail before anything runs."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from gno import AsyncGno, Gno
from gno.app import App
from gno.errors import (
    DocumentNotFoundError,
    InvalidServerAnswerError,
    NotFoundError,
    ReadOnlyError,
    ServerUnreachableError,
    ValidationError,
)
from gno.paths import resolve_paths
from tests.conftest import sync
from tests.live_server import live_server

FILES = {
    "sampling.md": "# Tail sampling\n\nKeep only slow traces with the tail sampling processor.\n",
    "metrics.md": "# Metrics pipeline\n\nHistograms and exemplars travel with the collector.\n",
    "deep/logs.md": "# Log records\n\nSeverity text and trace context in every log record.\n",
}


@pytest.fixture
def served(make_app: Any) -> Iterator[str]:
    from gno.rest.app import ServeOptions, create_app

    app, _ = make_app(FILES)
    sync(app)
    owner = App(resolve_paths())
    api = create_app(owner, options=ServeOptions(mcp=None, watch=False, web_ui=False))
    with live_server(api) as (url, _server):
        yield url


def dumped(model: Any) -> Any:
    return model.model_dump(mode="json", exclude_unset=True)


def scenario(client: Gno) -> list[Any]:
    """What a script does: search, query, read one hit, read several, list, status."""
    hits = client.search(query="tail sampling", limit=3)
    first = hits.results[0]
    return [
        dumped(hits),
        dumped(client.query(query="slow traces", fast=True)),
        dumped(client.get(ref=first.uri)),
        dumped(client.multi_get(refs=[first.docid, "notes/metrics.md"])),
        dumped(client.ls(scope="notes")),
        dumped(client.collection_list()),
        dumped(client.search(query="exemplars", collection="notes", tagsAny=None)),
    ]


def test_local_and_remote_transports_answer_the_same(served: str) -> None:
    with Gno() as local, Gno(url=served) as remote:
        here, there = scenario(local), scenario(remote)
    assert here[0]["results"][0]["uri"] == "gno://notes/sampling.md"
    assert here == there


def test_errors_are_gno_error_classes_on_both_transports(served: str) -> None:
    with Gno() as local, Gno(url=served) as remote:
        for client in (local, remote):
            with pytest.raises(NotFoundError) as missing:
                client.get(ref="notes/nothing-here.md")
            assert "nothing-here" in missing.value.message
            with pytest.raises(ValidationError, match=r"docid|ref"):
                client.get(ref="#zz")
    assert isinstance(missing.value, DocumentNotFoundError | NotFoundError)


def test_wrong_argument_type_names_the_field_before_anything_runs(tmp_path: Any) -> None:
    # No index and no server: the validation error comes first, naming the field.
    local, remote = Gno(), Gno(url="http://127.0.0.1:9")
    for client in (local, remote):
        with pytest.raises(ValidationError, match="limit"):
            client.search(query="x", limit="ten")  # type: ignore[arg-type]
        with pytest.raises(ValidationError, match="query"):
            client.search(query="")


def test_writes_need_write_true(served: str, tmp_path: Any) -> None:
    folder = tmp_path / "more"
    folder.mkdir()
    (folder / "a.md").write_text("# Alpha\n\nbody words here\n")
    with Gno(url=served) as remote, pytest.raises(ReadOnlyError):
        remote.collection_add(path=str(folder), name="more")
    with Gno(url=served, write=True) as remote:
        added = remote.collection_add(path=str(folder), name="more")
        assert added.collection == "more" or "more" in str(dumped(added))
        remote.update(collection="more")
        hits = remote.search(query="alpha", collection="more")
    assert [h.uri for h in hits.results] == ["gno://more/a.md"]


def _closed_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    return port


def test_server_down_is_a_connection_error_naming_the_url() -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    with Gno(url=url, timeout=2.0) as remote, pytest.raises(ServerUnreachableError) as down:
        remote.search(query="anything")
    assert url in down.value.message
    assert down.value.code == "UNAVAILABLE"


def test_silent_server_times_out_with_the_url() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)  # accepts the connection, never answers
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    try:
        with Gno(url=url, timeout=0.5) as remote, pytest.raises(ServerUnreachableError) as slow:
            remote.status()
    finally:
        listener.close()
    assert url in slow.value.message and "Timeout" in slow.value.message


def test_async_twin_gives_the_same_answers(served: str) -> None:
    async def both() -> tuple[Any, Any]:
        async with AsyncGno() as local, AsyncGno(url=served) as remote:
            a, b = await asyncio.gather(
                local.search(query="trace context"), remote.search(query="trace context")
            )
            return dumped(a), dumped(b)

    here, there = asyncio.run(both())
    assert here["results"][0]["uri"] == "gno://notes/deep/logs.md"
    assert here == there


def test_every_registry_operation_is_a_method() -> None:
    import inspect

    from gno_contracts.operations import OPERATIONS

    for op in OPERATIONS:
        method = getattr(Gno, op.id)
        assert op.summary.split()[0] in (method.__doc__ or ""), op.id
        assert inspect.iscoroutinefunction(getattr(AsyncGno, op.id)), op.id
        assert all(
            p.kind is inspect.Parameter.KEYWORD_ONLY
            for p in inspect.signature(method).parameters.values()
            if p.name != "self"
        ), op.id


def test_remote_token_is_sent(make_app: Any) -> None:
    from gno.errors import ForbiddenError
    from gno.rest.app import ServeOptions, create_app
    from gno.rest.security import Gates

    app, _ = make_app(FILES)
    sync(app)
    owner = App(resolve_paths())
    options = ServeOptions(mcp=None, watch=False, web_ui=False, gates=Gates(token="s3cret"))
    with live_server(create_app(owner, options=options)) as (url, _server):
        with Gno(url=url) as anonymous, pytest.raises(ForbiddenError):
            anonymous.search(query="sampling")
        with Gno(url=url, token="s3cret") as allowed:
            hits = allowed.search(query="sampling")
    assert [h.uri for h in hits.results] == ["gno://notes/sampling.md"]


def test_local_client_beside_a_running_gno_serve(make_app: Any, tmp_path: Any) -> None:
    """A real `gno serve` owns the data directory; the local SDK still reads, and with
    write=True syncs, and the server keeps answering with what the SDK wrote."""
    import os
    import re
    import subprocess
    import sys

    app, root = make_app(FILES)
    sync(app)
    app.close()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gno.cli.entry", "serve", "--port", "0", "--no-watch"],
        env=os.environ.copy(),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = next(
            m.group(1) for line in proc.stdout if (m := re.search(r"(http://\S+:\d+)", line))
        )
        with Gno() as local:
            assert local.search(query="exemplars").results[0].uri == "gno://notes/metrics.md"
        (root / "new.md").write_text("# Quokka notes\n\nquokka facts\n")
        with Gno(write=True) as local:
            local.update(collection="notes")
        with Gno(url=url) as remote:
            hits = remote.search(query="quokka")
        assert [h.uri for h in hits.results] == ["gno://notes/new.md"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert proc.returncode == 0


def _gno_serve() -> tuple[Any, str]:
    """A real `gno serve` process on a free loopback port (the environment's index)."""
    import os
    import re
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "gno.cli.entry", "serve", "--port", "0", "--no-watch"],
        env=os.environ.copy(),
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if m := re.search(r"(http://127\.0\.0\.1:\d+)", line):
            return proc, m.group(1)
    proc.kill()
    raise AssertionError("gno serve did not print its URL")


def capsule_scenario(client: Gno) -> list[Any]:
    """The capsule and ask operations a script calls: compile, verify, retrieval-only ask."""
    capsule = client.context_build(goal="tail sampling", budgetTokens=12000, depthPolicy="fast")
    sealed = capsule.model_dump(mode="json", exclude_unset=True)
    verified = dumped(client.context_verify(capsule=sealed))
    asked = dumped(client.ask(query="slow traces", fast=True))
    return [sealed, verified, asked]


def test_both_transports_against_a_real_gno_serve_process(make_app: Any) -> None:
    """The issue's contract test: the same scenario through the local transport and
    through a `gno serve` process (not an in-process server) gives the same answers."""
    app, _ = make_app(FILES)
    sync(app)
    app.close()
    proc, url = _gno_serve()
    try:
        with Gno() as local, Gno(url=url) as remote:
            here = scenario(local) + capsule_scenario(local)
            there = scenario(remote) + capsule_scenario(remote)
            with pytest.raises(NotFoundError):
                remote.get(ref="notes/nothing-here.md")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert here[0]["results"][0]["uri"] == "gno://notes/sampling.md"
    capsule, verified, _asked = here[-3:]
    assert capsule["evidence"][0]["uri"] == "gno://notes/sampling.md"
    assert verified["capsuleId"] == capsule["capsuleId"]
    assert verified["contentStatus"] == "unchanged"
    assert here == there
    assert proc.returncode == 0


def test_index_and_config_arguments_override_the_environment(make_app: Any, tmp_path: Any) -> None:
    """`Gno(index=…)` opens another index of the same config, `Gno(config=…)` another
    config file (as --index/--config); a local client is read-only unless write=True."""
    import yaml

    app, _ = make_app(FILES)
    sync(app)
    app.close()
    with Gno(write=True, index="work") as work:
        work.update()  # the same config's collections, into index-work.sqlite
    other_root = tmp_path / "elsewhere"
    other_root.mkdir()
    (other_root / "quokka.md").write_text("# Quokka facts\n\nquokka island\n")
    other_config = tmp_path / "other" / "index.yml"
    other_config.parent.mkdir()
    default_config = resolve_paths().config_file
    data = yaml.safe_load(default_config.read_text())
    data["collections"] = [{"name": "zoo", "path": str(other_root), "pattern": "**/*.md"}]
    other_config.write_text(yaml.safe_dump(data))

    with Gno(config=other_config, index="zoo", write=True) as zoo:
        zoo.update()
        assert [h.uri for h in zoo.search(query="quokka").results] == [
            "gno://zoo/quokka.md?index=zoo"
        ]
        assert [c.name for c in zoo.collection_list().root] == ["zoo"]
    with Gno() as default, Gno(index="work") as work:
        assert default.search(query="quokka").results == []
        assert work.status().indexName == "work"
        assert default.status().indexName == "default"
        assert [h.uri for h in work.search(query="exemplars").results] == [
            "gno://notes/metrics.md?index=work"
        ]
        with pytest.raises(ReadOnlyError):
            default.update()
    with pytest.raises(ValidationError, match="index"):
        Gno(index="../escape")


def test_max_answer_bytes_bounds_what_a_remote_client_reads(served: str) -> None:
    """The answer cap guards a client against a server sending without end; a client that
    reads whole documents larger than the default sets its own."""
    with Gno(url=served) as remote:
        size = len(remote.get(ref="notes/sampling.md").model_dump_json())
    with (
        Gno(url=served, max_answer_bytes=size // 2) as small,
        pytest.raises(InvalidServerAnswerError, match=f"more than {size // 2} bytes"),
    ):
        small.get(ref="notes/sampling.md")
    with Gno(url=served, max_answer_bytes=size * 4) as enough:
        assert "tail sampling" in enough.get(ref="notes/sampling.md").content
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValidationError, match="max_answer_bytes"):
            Gno(url=served, max_answer_bytes=bad)  # type: ignore[arg-type]
