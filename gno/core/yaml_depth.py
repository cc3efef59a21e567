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
        # Walk an index over ``- - - x``: slicing the rest off per dash copied the line
        # once per dash, quadratic in a line of dashes (a 3 MB one took minutes).
        dashes = at = 0
        while body.startswith("-", at) and (at + 1 == len(body) or body[at + 1] == " "):
            dashes += 1
            at += 1
            while at < len(body) and body[at] == " ":
                at += 1
        peak = flow
        for ch in body[at:] if at else body:
            if ch in "[{":
                flow += 1
                peak = max(peak, flow)
            elif ch in "]}" and flow:
                flow -= 1
        deepest = max(deepest, len(indents) + dashes + peak)
    return deepest


def expanded_shape(data: object, limit: int) -> tuple[int, int] | None:
    """(values, depth) of parsed YAML once every alias is copied out, as a JSON dump or any
    walk of it does: ``&a [x, x]`` then ``[*a, *a]`` per line doubles at each line, so a
    few hundred bytes expand to billions of values, and ``&b [*a]`` per line nests one
    level deeper each. Counted without copying (each distinct list or mapping once,
    iteratively); None when the count passes ``limit`` or a value holds itself."""
    done: dict[int, tuple[int, int]] = {}
    opened: set[int] = set()
    stack: list[tuple[object, bool]] = [(data, False)]
    while stack:
        node, closing = stack.pop()
        if not isinstance(node, list | dict):
            continue
        key = id(node)
        items = [*node.keys(), *node.values()] if isinstance(node, dict) else node
        if closing:
            count, depth = 1, 1
            for item in items:
                if isinstance(item, list | dict):
                    c, d = done[id(item)]
                    count, depth = count + c, max(depth, d + 1)
                else:
                    count += 1
            if count > limit:
                return None
            done[key] = (count, depth)
            opened.discard(key)
            continue
        if key in done:
            continue
        if key in opened:  # depth-first: met again below itself
            return None
        opened.add(key)
        stack.append((node, True))
        stack.extend((item, False) for item in items if isinstance(item, list | dict))
    return done[id(data)] if isinstance(data, list | dict) else (1, 0)
