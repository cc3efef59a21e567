"""GNO's note presets: what a new note of each kind starts with (pure data).

A preset adds frontmatter keys (``type`` and fields to fill in) and a body scaffold
under the title heading. Capture and document creation use the same table; the
REST ``GET /api/note-presets`` lists it.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class NotePreset:
    id: str
    name: str
    description: str
    frontmatter: dict[str, str] = field(default_factory=dict)
    body: str = ""  # the scaffold below the title heading ("" = nothing)


PRESETS: tuple[NotePreset, ...] = (
    NotePreset("blank", "Blank note", "A title and nothing else."),
    NotePreset(
        "project-note",
        "Project note",
        "Goal, status and next steps of a project.",
        {"type": "project", "status": "active"},
        "## Goal\n\n## Status\n\n## Next steps\n\n- \n",
    ),
    NotePreset(
        "research-note",
        "Research note",
        "A question, what was found and the sources.",
        {"type": "research"},
        "## Question\n\n## Findings\n\n## Sources\n\n- \n",
    ),
    NotePreset(
        "decision-note",
        "Decision note",
        "Context, the decision, alternatives and consequences.",
        {"type": "decision", "status": "proposed"},
        "## Context\n\n## Decision\n\n## Alternatives\n\n## Consequences\n",
    ),
    NotePreset(
        "prompt-pattern",
        "Prompt pattern",
        "A reusable prompt with when to use it.",
        {"type": "prompt"},
        "## When to use\n\n## Prompt\n\n```text\n\n```\n\n## Notes\n",
    ),
    NotePreset(
        "source-summary",
        "Source summary",
        "Key points and quotes of one source.",
        {"type": "source"},
        "## Summary\n\n## Key points\n\n- \n\n## Quotes\n",
    ),
    NotePreset(
        "idea-original",
        "Original idea",
        "An idea of your own, why it matters and open questions.",
        {"type": "idea"},
        "## Idea\n\n## Why it matters\n\n## Open questions\n",
    ),
    NotePreset(
        "person",
        "Person",
        "Who someone is, how you know them, notes from meetings.",
        {"type": "person", "role": "", "organization": ""},
        "## About\n\n## How we met\n\n## Notes\n",
    ),
    NotePreset(
        "company-project",
        "Company or project",
        "An organisation or project: what it does, people, links.",
        {"type": "company", "website": ""},
        "## Overview\n\n## People\n\n## Notes\n",
    ),
    NotePreset(
        "meeting",
        "Meeting",
        "Attendees, agenda, notes and action items.",
        {"type": "meeting", "attendees": ""},
        "## Agenda\n\n## Notes\n\n## Action items\n\n- [ ] \n",
    ),
)
BY_ID = {p.id: p for p in PRESETS}


def preset(preset_id: str | None) -> NotePreset | None:
    return BY_ID.get(preset_id) if preset_id else None
