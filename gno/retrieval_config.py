"""The ``retrieval:`` block of index.yml: switches for the retrieval stages of issue 12, each
of which can be turned on or off to compare (bench/quality.py does). The defaults are what
the tune half of bench/devset.jsonl chose and its test half confirmed (bench/README.md):
feedback and vector feedback did not help on the tune half and stay off; embedding windows
cost twice the embedding work and did not help on the whole corpus (tune 0.633 -> 0.608,
test 0.620 -> 0.620; three of four halves measured so far), so they are off until a model
or corpus shows a gain. ``languageWeights`` applies only with an embedding model known to
read English only (gno.core.embedding_text.english_only_model): whole corpus, MiniLM,
tune 0.633 -> 0.641, test 0.620 -> 0.639 (bench/README.md, "Quality, session 11").
``outlineLeg``: whole corpus, MiniLM, tune 0.641 -> 0.651, test 0.639 -> 0.651; level on the
400-file subset (bench/README.md, "Quality, session 12").

    retrieval:
      embedWindows: false       # overlapping windows for chunks longer than the model reads
      maxWindows: 2             # windows per chunk, 1..8
      feedback: false           # pseudo-relevance feedback terms on the BM25 leg
      vectorFeedback: false     # and on the vector leg (the query vector moved to the top hits)
      shapeWeights: true        # fusion weights from the query's shape
      languagePreference: true  # prefer the page in the query's language among translations
      languageWeights: true     # with an English-only model (MiniLM): English questions lean
                                # on the vector list, other languages keep keyword weights
      outlineLeg: true          # questions: BM25 over titles, descriptions, headings and
                                # paths, fused as a list of its own (weight 1)
      plainQueryText: true      # the bare query for models trained without query prompts (MiniLM)
      halfTopBonus: true        # RRF's top-rank bonuses (+0.10 rank 1, +0.04 rank ≤ 5) halved

Unknown keys are ignored (GNO does not know the block; it keeps it as it is).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gno.core.windows import MAX_WINDOWS_CAP
from gno.errors import ConfigError

_SWITCHES = {
    "embedWindows": "embed_windows",
    "feedback": "feedback",
    "vectorFeedback": "vector_feedback",
    "shapeWeights": "shape_weights",
    "languagePreference": "language_preference",
    "languageWeights": "language_weights",
    "outlineLeg": "outline_leg",
    "plainQueryText": "plain_query_text",
    "halfTopBonus": "half_top_bonus",
}


@dataclass(frozen=True)
class RetrievalConfig:
    embed_windows: bool = False
    max_windows: int = 2
    feedback: bool = False
    vector_feedback: bool = False
    shape_weights: bool = True
    language_preference: bool = True
    language_weights: bool = True
    outline_leg: bool = True
    plain_query_text: bool = True
    half_top_bonus: bool = True


def parse_retrieval(raw: Any, source: str = "index.yml") -> RetrievalConfig:
    if raw is None:
        return RetrievalConfig()
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: retrieval must be a mapping")
    values: dict[str, Any] = {}
    for key, field_name in _SWITCHES.items():
        if key in raw:
            if not isinstance(raw[key], bool):
                raise ConfigError(f"{source}: retrieval.{key} must be true or false")
            values[field_name] = raw[key]
    if "maxWindows" in raw:
        count = raw["maxWindows"]
        if (
            isinstance(count, bool)
            or not isinstance(count, int)
            or not 1 <= count <= MAX_WINDOWS_CAP
        ):
            raise ConfigError(f"{source}: retrieval.maxWindows must be 1..{MAX_WINDOWS_CAP}")
        values["max_windows"] = count
    return RetrievalConfig(**values)
