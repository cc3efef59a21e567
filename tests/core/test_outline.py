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
