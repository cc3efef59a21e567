"""Local text generation with llama-cpp-python (the ``Generator`` port).

Prompt layout: the prompt is one user message in the GGUF's chat template
(``tokenizer.chat_template``), rendered around a placeholder so the template's
own text is tokenized with control tokens parsed and the prompt text without
(``<|im_end|>`` typed in a query stays text). A model without a template gets
the bare prompt after its BOS token.

Context (engine.md §9.4): ``max(1024, prompt tokens + max tokens + 512)``, capped
at the trained context and at ``max_context``. llama-cpp-python cannot resize a
context, so the model is reloaded with a larger one when a prompt needs it.

Truncation is done here, on token ids: when the prompt does not fit next to
``max_tokens`` (itself at most half the cap), the middle of the prompt text is
dropped, keeping its start (instructions) and its end (the question), so
llama.cpp never sees more tokens than its context.

JSON output: a schema becomes a GBNF grammar (llama-cpp-python's converter), so
even a random model can only emit JSON of that shape; output cut off at
``max_tokens`` is ``INVALID_OUTPUT``. The timeout is checked after every token.

``llama_cpp`` (and with it numpy) is imported only when a model is loaded.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gno.adapters.llama.gguf import LoadedModel, load_model
from gno.ports import (
    DEFAULT_GENERATE_TOKENS,
    GENERATE_FAILED,
    GENERATE_SEED,
    GENERATE_TEMPERATURE,
    GENERATE_TIMEOUT,
    INVALID_OUTPUT,
    GenerationError,
)

MIN_CONTEXT = 1024
CONTEXT_MARGIN = 512
_SLOT = "\u0000gno-prompt\u0000"  # stands for the prompt while the template renders


class LlamaGenerator:
    """A ``Generator`` over a GGUF instruction model."""

    enforces_schema = True  # a schema is a grammar: the output cannot leave it

    def __init__(
        self,
        path: str | Path,
        *,
        n_threads: int | None = None,
        max_context: int | None = None,
    ) -> None:
        self._path = Path(path).expanduser().resolve()
        self.model_id = "file:" + str(self._path)
        self._threads = n_threads
        self._lock = threading.Lock()  # one llama context: one generation at a time
        self._grammars: dict[str, Any] = {}
        self._loaded = self._load(MIN_CONTEXT)
        self.n_ctx_train = self._loaded.n_ctx_train
        self.max_context = min(self.n_ctx_train, max_context or self.n_ctx_train)
        try:
            self._head, self._tail = self._template_parts()
        except Exception as exc:
            self.close()
            raise GenerationError(GENERATE_FAILED, f"{self._path}: {exc}") from exc

    def _load(self, n_ctx: int) -> LoadedModel:
        return load_model(
            self._path, GenerationError, None, self._threads, n_ctx=n_ctx, seed=GENERATE_SEED
        )

    @property
    def n_ctx(self) -> int:
        return self._loaded.n_ctx

    # -- prompt layout ----------------------------------------------------------------

    def _tokenize(self, text: str, *, special: bool, bos: bool = False) -> list[int]:
        if not text and not bos:
            return []
        return self._loaded.llm.tokenize(
            text.encode("utf-8", errors="replace"), add_bos=bos, special=special
        )

    def _template_parts(self) -> tuple[list[int], list[int]]:
        """Token ids before and after the prompt text in one rendered user turn."""
        llm = self._loaded.llm
        model = llm._model
        wants_bos = bool(model.add_bos_token()) and model.token_bos() != -1
        bos_text = model.token_get_text(model.token_bos()) if model.token_bos() != -1 else ""
        eos_text = model.token_get_text(model.token_eos()) if model.token_eos() != -1 else ""
        template = llm.metadata.get("tokenizer.chat_template")
        rendered = None
        if isinstance(template, str) and template.strip():
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            formatter = Jinja2ChatFormatter(template, eos_text, bos_text)
            try:  # enable_thinking: Qwen3 templates answer directly instead of thinking first
                rendered = formatter(
                    messages=[{"role": "user", "content": _SLOT}], enable_thinking=False
                ).prompt
            except Exception:  # a template this renderer cannot run: bare prompt
                rendered = None
        if rendered is None or rendered.count(_SLOT) != 1:
            return (self._tokenize("", special=True, bos=wants_bos), [])
        head, tail = rendered.split(_SLOT)
        has_bos = bool(bos_text) and head.startswith(bos_text)
        return (
            self._tokenize(head, special=True, bos=wants_bos and not has_bos),
            self._tokenize(tail, special=True),
        )

    def _fit(self, prompt: str, max_tokens: int) -> tuple[list[int], int]:
        """(prompt token ids, tokens to generate), together within ``max_context``."""
        new = max(1, min(max_tokens, self.max_context // 2))
        room = self.max_context - new - len(self._head) - len(self._tail) - 1
        if room < 1:
            raise GenerationError(
                GENERATE_FAILED, f"context of {self.max_context} tokens is too small"
            )
        body = self._tokenize(prompt, special=False)
        if len(body) > room:  # keep the start and the end, drop the middle
            keep_end = room // 2
            body = body[: room - keep_end] + (body[-keep_end:] if keep_end else [])
        return self._head + body + self._tail, new

    def _ensure_context(self, needed: int) -> None:
        if needed > self._loaded.n_ctx:
            self._loaded.llm.close()
            self._loaded = self._load(needed)

    def _grammar(self, schema: dict[str, Any]) -> Any:
        key = json.dumps(schema, sort_keys=True)
        if key not in self._grammars:
            from llama_cpp.llama_grammar import LlamaGrammar

            try:
                self._grammars[key] = LlamaGrammar.from_json_schema(key, verbose=False)
            except Exception as exc:
                raise GenerationError(
                    GENERATE_FAILED, f"cannot turn the JSON schema into a grammar: {exc}"
                ) from exc
        return self._grammars[key]

    # -- generation -------------------------------------------------------------------

    def generate(
        self,
        prompt: str,
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int = DEFAULT_GENERATE_TOKENS,
        timeout: float | None = None,
        on_text: Callable[[str], None] | None = None,
    ) -> str:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            try:
                grammar = self._grammar(schema) if schema is not None else None
                tokens, new = self._fit(prompt, max_tokens)
                needed = min(self.max_context, max(MIN_CONTEXT, len(tokens) + new + CONTEXT_MARGIN))
                self._ensure_context(needed)
                if len(tokens) + new > self._loaded.n_ctx:  # cannot happen; never reach llama.cpp
                    raise GenerationError(GENERATE_FAILED, f"{len(tokens)} tokens > n_ctx")
                sent = [0]  # characters of the answer already handed to on_text
                out, stopped = self._complete(tokens, new, grammar, deadline, on_text, sent)
            except GenerationError:
                raise
            except Exception as exc:
                raise GenerationError(GENERATE_FAILED, f"generation failed: {exc}") from exc
        if stopped == "timeout":
            raise GenerationError(GENERATE_TIMEOUT, f"no answer within {timeout} s")
        choice = out["choices"][0]
        text = choice.get("text") or ""
        if on_text is not None and len(text) > sent[0]:  # what the last steps added
            on_text(text[sent[0] :])
        if schema is not None:
            if stopped == "length" or choice.get("finish_reason") == "length":
                raise GenerationError(INVALID_OUTPUT, f"JSON answer cut off at {new} tokens")
            try:  # strict=False: the grammar lets raw control characters into strings
                json.loads(text, strict=False)
            except ValueError as exc:
                raise GenerationError(INVALID_OUTPUT, f"answer is not JSON: {exc}") from exc
        return text

    def _complete(
        self,
        tokens: list[int],
        new: int,
        grammar: Any,
        deadline: float | None,
        on_text: Callable[[str], None] | None = None,
        sent: list[int] | None = None,
    ) -> tuple[dict[str, Any], str | None]:
        """One completion and why it was stopped from here ("timeout", "length" or None).

        The token limit is enforced here too: llama-cpp-python skips its own
        ``max_tokens`` check while a token ends inside a UTF-8 sequence, so a model
        emitting stray bytes would otherwise run until the context is full."""
        from llama_cpp import StoppingCriteriaList

        stopped: str | None = None
        limit = len(tokens) + new
        sent = sent if sent is not None else [0]

        def stop(ids: Any, _logits: Any) -> bool:
            nonlocal stopped
            if on_text is not None:  # stream: the decoded answer so far, minus what was sent
                text = self._loaded.llm.detokenize(list(ids[len(tokens) :])).decode(
                    "utf-8", "ignore"
                )
                if len(text) > sent[0]:
                    on_text(text[sent[0] :])
                    sent[0] = len(text)
            if deadline is not None and time.monotonic() > deadline:
                stopped = "timeout"
            elif len(ids) >= limit:
                stopped = "length"
            return stopped is not None

        out = self._loaded.llm.create_completion(
            tokens,
            max_tokens=new,
            temperature=GENERATE_TEMPERATURE,
            seed=GENERATE_SEED,
            grammar=grammar,
            stopping_criteria=StoppingCriteriaList([stop]),
        )
        return out, stopped

    def close(self) -> None:
        self._loaded.llm.close()
