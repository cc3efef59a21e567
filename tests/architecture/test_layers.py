"""Layers, checked on the source: every `import` of a gno module counts, including the
ones inside functions and under TYPE_CHECKING (a lazy import is still a dependency).

- no import cycles between gno's modules;
- the core (gno/core) imports only the core, ``gno.errors`` and ``gno.ports``;
- the ports (``gno.ports`` and the converter and model ports it re-exports) and the row
  modules (``gno.rows``, ``gno.sync_rows``, ``gno.journal_rows``) import
  only the core, ``gno.errors`` and each other;
- services never import adapters, the resident server or a surface;
- the surfaces (cli, rest, mcp) never import each other.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GNO = ROOT / "gno"
SURFACES = ("gno.cli", "gno.rest", "gno.mcp")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(GNO.rglob("*.py"))}


def _resolve(name: str) -> str | None:
    """The gno module ``name`` refers to (``gno.x.y`` may name a package's attribute)."""
    known = modules()
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def _imported(module: str, path: Path) -> Iterator[str]:
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            names = [f"{source}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            if name == "gno" or name.startswith("gno."):
                target = _resolve(name)
                if target is not None and target != module:
                    yield target


@cache
def graph() -> dict[str, frozenset[str]]:
    return {m: frozenset(_imported(m, p)) for m, p in modules().items()}


def _in(module: str, *prefixes: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    edges = graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _violations(
    sources: tuple[str, ...], allowed: tuple[str, ...] = (), banned: tuple[str, ...] = ()
) -> list[str]:
    return sorted(
        f"{module} -> {target}"
        for module, targets in graph().items()
        if _in(module, *sources)
        for target in targets
        if (allowed and not _in(target, *allowed)) or (banned and _in(target, *banned))
    )


def test_the_graph_sees_lazy_imports() -> None:
    assert "gno.web" in graph()["gno.rest.app"]  # imported inside create_app()
    assert "gno.mcp.server" in graph()["gno.mcp.hosting"]  # imported inside http_app()


def test_no_import_cycles_outside_the_cli() -> None:
    assert [c for c in cycles() if not all(_in(m, "gno.cli") for m in c)] == []


def test_no_import_cycles_in_the_cli() -> None:
    assert [c for c in cycles() if all(_in(m, "gno.cli") for m in c)] == []


def test_core_imports_only_core_errors_and_ports() -> None:
    assert _violations(("gno.core",), allowed=("gno.core", "gno.errors", "gno.ports")) == []


PORTS = ("gno.ports", "gno.store_ports", "gno.conversion_ports", "gno.model_ports")


def test_ports_and_rows_import_only_the_core_and_errors() -> None:
    rows = ("gno.rows", "gno.sync_rows", "gno.journal_rows")
    allowed = ("gno.core", "gno.errors", *rows, *PORTS)
    assert _violations((*PORTS, *rows), allowed=allowed) == []


def test_services_import_no_adapter_resident_server_or_surface() -> None:
    # gno.resident.process reads a detached server's pid file (standard library only):
    # `peek` reports whether one runs. Nothing else of the resident server is reachable.
    banned = ("gno.adapters", *SURFACES)
    runtime = [
        m for m in modules() if m.startswith("gno.resident.") and m != "gno.resident.process"
    ]
    assert _violations(("gno.services",), banned=(*banned, *runtime)) == []


@pytest.mark.parametrize("surface", ["gno.rest", "gno.mcp"])
def test_rest_and_mcp_import_no_other_surface(surface: str) -> None:
    others = tuple(s for s in SURFACES if s != surface)
    assert _violations((surface,), banned=others) == []


def test_cli_imports_no_other_surface() -> None:
    # Starting a server (REST with /mcp, or MCP on stdio) lives in gno/launch.py.
    assert _violations(("gno.cli",), banned=("gno.rest", "gno.mcp")) == []
