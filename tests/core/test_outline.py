"""A document's outline (gno.core.outline): the title and frontmatter linkTitle, the
frontmatter description and the Markdown headings outside code fences."""

from __future__ import annotations

from gno.core.outline import frontmatter_fields, headings, outline_fields

PAGE = """---
title: System Requirements
linkTitle: System
description: "What a machine needs to run the demo"
aliases: [system_requirements]
---

# Before you start

Some text mentioning `# not a heading` in a line.

```sh
# a shell comment, not a heading
```

## Memory and CPU ##

~~~
### fenced too
~~~
"""


def test_title_link_title_description_and_headings_outside_fences():
    assert frontmatter_fields(PAGE) == {
        "linkTitle": "System",
        "description": "What a machine needs to run the demo",
    }
    assert headings(PAGE) == ["Before you start", "Memory and CPU"]
    assert outline_fields("System Requirements", PAGE) == (
        "System Requirements System",
        "What a machine needs to run the demo\nBefore you start\nMemory and CPU",
    )


def test_a_page_without_frontmatter_or_with_a_folded_description():
    assert outline_fields(None, "plain text\n## Only heading\n") == ("", "Only heading")
    folded = "---\ndescription: >\n  long text on the next line\n---\n# Title\n"
    assert frontmatter_fields(folded) == {}
    assert outline_fields("T", folded) == ("T", "Title")
    assert frontmatter_fields("---\nno end of the block\n") == {}


def test_headings_skip_the_frontmatter_and_keep_a_closing_hash_that_is_part_of_a_word():
    page = "---\ntitle: T\n# a YAML comment\n---\n# C#\n  ## Indented ##\n#no space\n"
    assert headings(page) == ["C#", "Indented"]


def test_a_hostile_heading_line_is_read_in_linear_time():
    """The first outline pattern, `#{1,6}\\s+(.+?)\\s*#*\\s*$`, backtracked: a heading of
    1,000 spaces and one letter took 3 s to match, 4,000 spaces over a minute. Lines of
    100,000 spaces, hashes or both now take one scan each (a backtracking pattern hangs
    this test)."""
    spaces, hashes = " " * 100_000, "#" * 100_000
    page = f"# a{spaces}b\n## {hashes} x {spaces}\n# {hashes}\n#{spaces}#{spaces}#\n"
    # "# ###…" is an empty heading (all closing sequence); "#   #   #" keeps its middle "#"
    assert headings(page) == [f"a{spaces}b", f"{hashes} x", "#"]
