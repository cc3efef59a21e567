"""Search output for people (issue 11 item 10): on a terminal, matched terms highlighted
and snippet line numbers, no colour with --no-color or NO_COLOR, long output paged
unless --no-pager; piped output stays plain for scripts."""

from __future__ import annotations

import sys
from pathlib import Path

from gno.render.style import MATCH, highlight, term_stems
from tests.surfaces.terminal import on_terminal
from tests.surfaces.test_cli_process import indexed, run

ESC = "\x1b["


def test_terminal_search_highlights_terms_and_numbers_lines(tmp_path: Path) -> None:
    indexed(tmp_path)
    code, shown = on_terminal("search", "sampling", "--no-pager")
    assert code == 0
    assert f"{MATCH}sampling" in shown
    assert "3: " in shown  # the snippet's first line is line 3 of the mirror


def test_no_color_and_NO_COLOR_keep_the_text_plain(tmp_path: Path) -> None:
    indexed(tmp_path)
    for args, env in (
        (("search", "sampling", "--no-pager", "--no-color"), None),
        (("search", "sampling", "--no-pager"), {"NO_COLOR": "1"}),
    ):
        code, shown = on_terminal(*args, env=env)
        assert code == 0 and "sampling body" in shown
        assert ESC not in shown, args


def test_piped_output_is_plain(tmp_path: Path) -> None:
    indexed(tmp_path)
    out = run("search", "sampling").stdout
    assert ESC not in out and "3: " not in out


def test_hostile_text_gets_no_escape_through_highlighting() -> None:
    pattern = term_stems("tail sampling -secret")
    shown = highlight("tail\x1b]0;pwned\x07 sampling secret", pattern, True)
    assert "\x1b]" not in shown and "\x07" not in shown
    assert shown.count(MATCH) == 2  # tail and sampling; the excluded word is not marked


def test_long_output_goes_through_the_pager(tmp_path: Path) -> None:
    indexed(tmp_path, n=12)
    seen = tmp_path / "paged.txt"
    pager = tmp_path / "pager.py"
    pager.write_text(f"import sys\nopen({str(seen)!r}, 'w').write(sys.stdin.read())\n")
    env = {"PAGER": f"{sys.executable} {pager}"}
    code, shown = on_terminal("search", "sampling", "-n", "12", env=env, rows=10, keyboard=True)
    assert code == 0
    assert "12 result(s)" in seen.read_text() and "12 result(s)" not in shown
    seen.unlink()
    code, shown = on_terminal("search", "sampling", "-n", "12", env=env, rows=10)
    assert code == 0 and "12 result(s)" in shown and not seen.exists()  # no keyboard: no pager
    args = ("search", "sampling", "-n", "12", "--no-pager")
    code, shown = on_terminal(*args, env=env, rows=10, keyboard=True)
    assert code == 0 and "12 result(s)" in shown and not seen.exists()
