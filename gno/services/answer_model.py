"""The ``gen`` model for answers: availability without loading it (``capabilities.answer``),
the fail-fast lookup (UNAVAILABLE naming the fix) and one generation call."""

from __future__ import annotations

from collections.abc import Callable

from gno.app import App
from gno.errors import GnoError, UnavailableError
from gno.ports import GenerationError, Generator


def answer_model(app: App) -> Generator:
    """The gen model, or UNAVAILABLE (exit 2, HTTP 503, MCP isError) naming the fix."""
    generator = app.generator("gen")
    if generator is None:
        why = app.unavailable.get("gen", "no gen model is configured")
        fix = (
            ""
            if "gno models pull" in why
            else " Run: gno models pull --gen, or set GNO_GEN_MODEL to a GGUF file "
            "or an OpenAI-compatible endpoint (http://host:port/v1#model)."
        )
        raise UnavailableError(f"No answer model is available: {why}.{fix}")
    return generator


def generate(
    generator: Generator,
    prompt: str,
    max_tokens: int,
    on_text: Callable[[str], None] | None = None,
) -> str:
    """One answer. A model that fails while answering (unreachable, timed out, an HTTP error,
    an invalid or oversized answer) is UNAVAILABLE, as a missing one is (exit 2, HTTP 503,
    MCP isError), its message naming the model's code: the fault is the model server's, not
    gno's, so never RUNTIME's "internal" HTTP 500."""
    try:
        return generator.generate(prompt, max_tokens=max_tokens, on_text=on_text)
    except GenerationError as exc:
        raise UnavailableError(f"Answer generation failed ({exc.code}): {exc.message}") from exc


def answer_available(app: App) -> bool:
    """capabilities.answer: the gen model is an endpoint, a local file or a cached download
    (checked on disk; nothing is loaded)."""
    from pathlib import Path

    from gno.models.cache import hf_cache_path
    from gno.models.catalog import parse_model_uri

    try:
        uri = parse_model_uri(app.model_uri("gen"))
    except GnoError:
        return False
    if uri.scheme == "http":
        return True
    if uri.scheme == "file":
        return Path(uri.path or "").is_file()
    cached = hf_cache_path(uri, app.paths.models_dir)
    return cached is not None and cached.is_file()
