import pytest

from gno.core.globs import DEFAULT_EXCLUDES, FileRules, compile_globs
from gno.errors import ValidationError

SUPPORTED = {".md", ".txt", ".py"}


def rules(pattern="**/*", include=(), exclude=DEFAULT_EXCLUDES):
    return FileRules.build(pattern, include, exclude, SUPPORTED)


def test_pattern_semantics():
    assert compile_globs("**/*").match("a/b/c.md")
    assert not compile_globs("**/*").match(".hidden/c.md")
    assert not compile_globs("*.md").match("dir/a.md")
    alternatives = compile_globs("{docs/**/*.md,README.md}")
    assert (
        alternatives.match("README.md")
        and alternatives.match("docs/x/y.md")
        and not alternatives.match("x.md")
    )
    assert compile_globs("notes/[ab]?.md").match("notes/a1.md")
    for bad in ("/abs/**", "../x/*", "a/{b"):
        with pytest.raises(ValidationError):
            compile_globs(bad)


def test_include_exclude():
    r = rules()
    assert r.accepts("notes/a.md") and r.accepts("src/x.py")
    assert not r.accepts("notes/a.pdf")  # not a supported extension
    assert not r.accepts("Makefile")  # no extension
    assert not r.accepts("site/build/page.md")  # component exclude
    assert not r.accepts("node_modules/pkg/readme.md")
    assert rules(include=["md"]).accepts("a.md") and not rules(include=["md"]).accepts("a.txt")
    r = rules(exclude=["drafts/*.md", "private/secret"])
    assert not r.accepts("drafts/a.md") and r.accepts("drafts/sub/a.md")
    assert not r.accepts("private/secret/x.md") and r.accepts("private/other.md")
