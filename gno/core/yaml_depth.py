"""How deep a YAML block may nest, bounded before PyYAML (which recurses once per level) sees
it: frontmatter blocks (gno/core/frontmatter.py) and index.yml (gno/config.py), which reads
it on every command without needing the frontmatter parser."""

from __future__ import annotations


def nesting_depth(block: str) -> int:
    """An upper bound of a YAML block's nesting: indentation levels, compact ``- - x``
    sequences and open ``[``/``{`` flow collections (quoted brackets count too: erring
    high only refuses absurd blocks sooner). Linear in the block's length."""
    deepest = flow = 0
    indents: list[int] = []
    for line in block.split("\n"):
        body = line.lstrip(" ")
        if not body or body.startswith("#"):
            continue
        indent = len(line) - len(body)
        while indents and indents[-1] >= indent:
            indents.pop()
        indents.append(indent)
        dashes = 0
        while body == "-" or body.startswith("- "):
            dashes += 1
            body = body[2:].lstrip(" ")
        peak = flow
        for ch in body:
            if ch in "[{":
                flow += 1
                peak = max(peak, flow)
            elif ch in "]}" and flow:
                flow -= 1
        deepest = max(deepest, len(indents) + dashes + peak)
    return deepest
