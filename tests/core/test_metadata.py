from gno.core.document import analyze, first_h1, infer_content_type
from gno.core.frontmatter import extract_metadata, parse_frontmatter
from gno.core.language import detect_language
from gno.core.links import parse_links
from gno.core.mirror import canonicalize
from gno.core.tags import collect_tags, hashtags, is_valid_tag

DOC = canonicalize("""---
title:
  'A folded: title that
  spans lines'
tags: [Alpha, beta/Gamma]
author: Ada Lovelace
date: 2024-03-05
category: Notes, Ideas
flag: no
---
# Heading One

See [[Other Note|alias]] and [spec](../specs/a%20b.md#part) and [web](https://x.y).
Tagged #project/x and #日本 but not in `#code` or a URL like http://a.b/#frag.

```
[[inside fence]] #fenced
```
<!-- [[commented]] #hidden -->
""")


def test_frontmatter_is_yaml_without_type_coercion():
    fm = parse_frontmatter(DOC)
    assert fm.data["title"] == "A folded: title that spans lines"
    assert fm.data["flag"] == "no"
    assert fm.end_line == 10
    meta = extract_metadata(fm)
    assert meta.author == "Ada Lovelace"
    assert meta.frontmatter_date == "2024-03-05T00:00:00.000Z"
    assert meta.categories == ["notes", "ideas"]


def test_tags_come_from_frontmatter_and_body_outside_code():
    fm = parse_frontmatter(DOC)
    from gno.core.regions import Regions

    body_tags = hashtags(DOC, Regions(DOC, fm.end_offset))
    assert body_tags == ["project/x", "日本"]
    assert collect_tags(["Alpha", "beta/Gamma", "#project/x", "bad tag", ""]) == [
        "alpha",
        "beta/gamma",
        "project/x",
    ]
    assert is_valid_tag("a/b-c.d") and not is_valid_tag("a//b") and not is_valid_tag("-a")


def test_links_skip_code_comments_and_external():
    links = parse_links(DOC, "notes/today.md")
    assert [(lk.link_type, lk.target_ref_norm) for lk in links] == [
        ("wiki", "other note"),
        ("markdown", "specs/a b.md"),
    ]
    wiki, md = links
    assert wiki.link_text == "alias" and md.target_anchor == "part"
    line = DOC.split("\n")[wiki.start_line - 1]
    assert line[wiki.start_col - 1 : wiki.end_col - 1] == "[[Other Note|alias]]"
    assert parse_links("[x](../../escape.md)", "a.md") == []


def test_analysis_title_precedence_and_types():
    a = analyze(DOC, "notes/today.md", ".md", markdown_syntax=True)
    assert a.title == "A folded: title that spans lines"
    assert a.tags == ["alpha", "beta/gamma", "project/x", "日本"]
    assert analyze("# Only H1\ntext", "x.md", ".md", markdown_syntax=True).title == "Only H1"
    assert (
        analyze("no heading", "dir/file-name.txt", ".txt", markdown_syntax=False).title
        == "file-name"
    )
    assert first_h1("```\n# not this\n```\n# This\n") == "This"
    assert infer_content_type("src/app.py", ".py") == ("code", "path-ext")
    assert infer_content_type("meetings/standup.md", ".md")[0] == "meeting"
    assert infer_content_type("random.md", ".md") == ("prose", "fallback")


def test_language_detection():
    assert detect_language("短い") is None
    assert detect_language("これは日本語の文章です。サンプリングについて説明します。" * 3) == "ja"
    assert (
        detect_language("这是一个关于采样的中文段落，我们在这里讨论追踪数据的处理方式。" * 2)
        == "zh"
    )
    en = "The collector receives traces and it is the place where the sampling of spans is done for the service."
    assert detect_language(en) == "en"
    es = "El colector recibe las trazas y es el lugar donde se hace el muestreo de los spans para el servicio que"
    assert detect_language(es) == "es"
