"""`--json` output: a large answer goes through orjson (Python's json indents in pure
Python: 42 ms for 1,000 journal entries), a small one through the standard library (orjson's
import costs more than it saves), and both write the same text."""

from __future__ import annotations

import json
import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from gno.render import _estimated_size, _large_json, json_text

# What the two writers agree on: every JSON value but floats below 1e-4 (Python writes 1e-05
# and 1e-07 where orjson, and so REST, write 0.00001 and 1e-7) and integers past 64 bits
# (orjson refuses them; json_text then falls back).
FLOATS = st.floats(min_value=1e-4, max_value=1e300, allow_nan=False) | st.just(0.0)
SCALARS = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | FLOATS | st.text()
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)


@given(VALUES)
def test_orjson_writes_what_the_standard_library_writes(value) -> None:
    assert _large_json(value) == json.dumps(value, indent=2, ensure_ascii=False)


def _page(entries: int) -> dict:
    """A changes@1.0-like page: nested objects, non-ASCII, control characters, C1."""
    return {
        "schemaVersion": "1.0",
        "changes": [
            {
                "id": f"gno-change-id-v1.{i}",
                "current": {"relPath": f"docs/é{i}.md", "active": True, "score": 0.25},
                "structureDelta": {
                    "headings": {"added": ["## 中文 \x01\x9b", "# A"], "removed": []}
                },
            }
            for i in range(entries)
        ],
        "warnings": [],
    }


def test_a_large_answer_is_the_same_text_and_escapes_c1() -> None:
    page = _page(2000)
    assert _estimated_size(page) > 160 * 1024
    text = json_text(page)
    assert text == json.dumps(page, indent=2, ensure_ascii=False).replace("\x9b", "\\u009b")
    assert "\x9b" not in text and json.loads(text) == page


def test_what_orjson_refuses_still_prints() -> None:
    page = _page(2000) | {"big": 2**70}
    assert _large_json(page) is None  # orjson refused it: the standard library writes it
    assert json.loads(json_text(page)) == page


def _loads_orjson(entries: int) -> bool:
    probe = (
        "import sys; from gno.render import json_text; from tests.surfaces.test_cli_json_text "
        f"import _page; json_text(_page({entries})); print('orjson' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return done.stdout.strip() == "True"


def test_only_a_large_answer_imports_orjson() -> None:
    assert not _loads_orjson(20)
    assert _loads_orjson(2000)
