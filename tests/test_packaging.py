"""What `pip install gno` pulls in, and how versions are pinned: compatible ranges in
pyproject.toml, exact versions in constraints.txt (what `make install` applies)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
REQUIREMENT = re.compile(r"([A-Za-z0-9_.-]+)(\[[^\]]*\])?\s*(.*)")
HEAVY = {"markitdown", "pandas", "numpy", "onnxruntime", "magika", "llama-cpp-python"}


def _name(spec: str) -> str:
    match = REQUIREMENT.fullmatch(spec)
    assert match, spec
    return re.sub(r"[-_.]+", "-", match.group(1)).lower()


def _all_specs() -> list[str]:
    project = PYPROJECT["project"]
    return project["dependencies"] + [
        spec for specs in project["optional-dependencies"].values() for spec in specs
    ]


def test_base_install_is_light_and_office_is_an_extra() -> None:
    base = {_name(spec) for spec in PYPROJECT["project"]["dependencies"]}
    assert not base & HEAVY, base & HEAVY
    office = {_name(spec) for spec in PYPROJECT["project"]["optional-dependencies"]["office"]}
    assert office == {"markitdown"}


def test_pyproject_has_ranges_and_constraints_has_exact_versions() -> None:
    for spec in _all_specs():
        constraint = REQUIREMENT.fullmatch(spec).group(3)  # type: ignore[union-attr]
        assert "==" not in constraint and re.match(r"(~=|>=)", constraint), spec
        if constraint.startswith(">="):
            assert ",<" in constraint, f"{spec}: an upper bound (next major) is missing"
    pinned = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, sep, version = line.partition("==")
            assert sep and re.fullmatch(r"[0-9][0-9A-Za-z.+!-]*", version), line
            pinned[re.sub(r"[-_.]+", "-", name).lower()] = version
    missing = {_name(spec) for spec in _all_specs()} - set(pinned)
    assert not missing, f"constraints.txt lacks {missing}"


def test_make_install_uses_the_constraints_and_every_extra() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "-c constraints.txt" in makefile and ".[dev,models,office]" in makefile
