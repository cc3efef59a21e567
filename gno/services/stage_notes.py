"""What each model-free retrieval stage of one ``gno query`` pass did (issue 12 §5), as data:
``query --explain`` prints the messages, ``query diagnose`` (query-diagnose@1.4
``meta.retrieval.stages``) returns them with a status, the reason a stage was skipped and
the target's place in what the stage added. A stage switched off in index.yml
(``retrieval:``) is ``skipped`` with reason ``disabled``; one that could not run here (no
vectors, an identifier query, no windowed vectors yet) is ``skipped`` with that reason."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from gno.retrieval_config import RetrievalConfig


class PassRecord(Protocol):
    """What the stages read of services.query.QueryRun (not imported: query imports us)."""

    explain: list[dict[str, str]]
    searched: Any  # embed.VectorSearch, None without a vector leg
    bonus: float


SKIPPED = "skipped: "
# Diagnose ids of the stages that have a --explain line of their own, and that line's name.
EXPLAINED = {"shape": "shape", "languageWeights": "language_weights", "outline": "outline",
             "feedback": "feedback", "vectorFeedback": "vector_feedback", "language": "language"}  # fmt: skip
ORDER = ("shape", "queryText", "windows", "languageWeights", "outline", "feedback",
         "vectorFeedback", "language", "topBonus")  # fmt: skip


@dataclass(frozen=True)
class StageNote:
    id: str  # one of ORDER
    status: str  # active | skipped
    reason: str | None  # why skipped (None when active)
    message: str  # the --explain text


def windows_note(enabled: bool, searched: Any) -> StageNote:
    """The windows stage: how many windows per chunk the searched vector set has, and why
    one when it has one (switched off; windows asked for but not embedded yet; a model
    without token counts, or ``maxWindows: 1``)."""
    if searched is None:
        return StageNote("windows", "skipped", "no vectors", "skipped: no vectors")
    if searched.windows > 1:
        return StageNote("windows", "active", None,
                         f"up to {searched.windows} windows per chunk, a chunk scored by its best window")  # fmt: skip
    if not enabled:
        reason = "disabled"
    elif searched.wanted > 1:
        reason = "no windowed vectors yet (gno embed)"
    else:
        reason = "one window asked for, or a model without token counts"
    return StageNote("windows", "skipped", reason, f"one vector per chunk ({reason})")


def _from_explain(stage_id: str, message: str | None) -> StageNote:
    if message is None:  # the pipeline never reached the stage (nothing to work on)
        return StageNote(stage_id, "skipped", "no candidates", "skipped: no candidates")
    if message.startswith(SKIPPED):
        return StageNote(stage_id, "skipped", message[len(SKIPPED) :], message)
    return StageNote(stage_id, "active", None, message)


def stage_notes(run: PassRecord, settings: RetrievalConfig) -> list[StageNote]:
    """Every model-free stage of this pass, in pipeline order."""
    lines = {line["stage"]: line["message"] for line in run.explain}
    notes = {sid: _from_explain(sid, lines.get(name)) for sid, name in EXPLAINED.items()}
    notes["windows"] = windows_note(settings.embed_windows, run.searched)
    searched = run.searched
    if searched is None:
        notes["queryText"] = StageNote("queryText", "skipped", "no vectors", "skipped: no vectors")
    elif searched.plain_query:
        notes["queryText"] = StageNote("queryText", "active", None, "the bare query embedded")
    else:
        reason = "disabled" if not settings.plain_query_text else "a model trained with prompts"
        notes["queryText"] = StageNote(
            "queryText", "skipped", reason, "the query embedded with its prompt"
        )
    notes["topBonus"] = (
        StageNote("topBonus", "active", None, f"RRF top-rank bonuses ×{run.bonus:g}")
        if run.bonus != 1.0
        else StageNote("topBonus", "skipped", "disabled", "RRF top-rank bonuses ×1 (GNO's)")
    )
    return [notes[sid] for sid in ORDER]
