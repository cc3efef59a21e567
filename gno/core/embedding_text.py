"""What text a chunk or a query becomes before embedding (engine.md §9.2), and the
fingerprint that says when stored vectors no longer match that recipe."""

from __future__ import annotations

import hashlib
import json

QWEN_QUERY_INSTRUCTION = "Instruct: Retrieve relevant documents for the given query\nQuery: "
# Sentence-transformers models trained on plain sentence pairs, no task prompt (all-MiniLM-*,
# all-mpnet-*, paraphrase-*, multi-qa-*): GNO's "task: search result | query:" prefix is
# noise to them (issue 12: −0.04 nDCG@10 on both halves of bench/devset.jsonl with MiniLM).
PLAIN_QUERY_MODELS = ("minilm", "mpnet", "paraphrase-", "multi-qa-")
# Of those, the families trained on English text only (all-MiniLM-*, all-mpnet-*,
# multi-qa-*, paraphrase-MiniLM-*, msmarco-*): a URI naming one and not "multilingual"
# (paraphrase-multilingual-MiniLM-L12-v2 reads 50 languages). The ``languageWeights``
# stage leans on their vectors for English questions only.
ENGLISH_ONLY_MODELS = ("minilm", "mpnet", "multi-qa-", "msmarco-")


def profile_id(model_uri: str) -> str:
    lowered = model_uri.lower()
    return "qwen" if "qwen" in lowered and "embed" in lowered else "default"


def document_text(model_uri: str, title: str | None, chunk: str) -> str:
    if profile_id(model_uri) == "qwen":
        return f"{title}\n{chunk}" if title else chunk
    return f"title: {title or 'none'} | text: {chunk}"


def plain_query_model(model_uri: str) -> bool:
    """A model trained without query prompts (see PLAIN_QUERY_MODELS)."""
    lowered = model_uri.lower()
    return profile_id(model_uri) == "default" and any(n in lowered for n in PLAIN_QUERY_MODELS)


def english_only_model(model_uri: str) -> bool:
    """A model known to read English only (see ENGLISH_ONLY_MODELS); unknown models: False."""
    lowered = model_uri.lower()
    return (
        profile_id(model_uri) == "default"
        and "multilingual" not in lowered
        and any(n in lowered for n in ENGLISH_ONLY_MODELS)
    )


def query_text(model_uri: str, query: str, plain: bool = False) -> str:
    """The query as the model reads it. With ``plain`` (the ``plainQueryText`` switch) a
    model trained without query prompts gets the bare query; the others keep their prompt.
    Only the query side changes: stored document vectors keep their recipe."""
    if profile_id(model_uri) == "qwen":
        return QWEN_QUERY_INSTRUCTION + query
    if plain and plain_query_model(model_uri):
        return query
    return f"task: search result | query: {query}"


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def embed_fingerprint(model_uri: str, dims: int, windows: int = 1) -> str:
    """Changes when the model, its width or the text recipe changes; vectors are keyed by it.
    ``windows`` > 1 (embedding windows, gno.core.windows) is a recipe of its own; 1 keeps
    the fingerprint of indexes built before windows existed."""
    recipe: dict[str, object] = {
        "chunking": "markdown-char-semantic-v1",
        "contextualFormatting": "contextual-embedding-v1",
        "dimensions": dims,
        "modelUri": model_uri,
        "profile": profile_id(model_uri),
    }
    if windows > 1:
        recipe["windows"] = f"overlapping-v1-max{windows}"
    return hashlib.sha256(json.dumps(recipe, separators=(",", ":")).encode()).hexdigest()
