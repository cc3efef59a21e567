"""Local reranking with llama-cpp-python (the ``Reranker`` port).

llama-cpp-python has no rerank API, so this drives the low-level path (stack.md
section 3.4): a model with ``<arch>.pooling_type`` RANK (4) is loaded with
``embedding=True, pooling_type=LLAMA_POOLING_TYPE_RANK``; each (query, document)
pair is decoded as one sequence and its score read from
``llama_get_embeddings_seq(ctx, 0)[0]`` (``float[n_cls_out]``; for BERT-style
heads n_cls_out is 1, for Qwen3 rerankers [0] is the "yes" probability).

The prompt is built like llama.cpp's server (``format_prompt_rerank`` in
``tools/server/server-common.cpp``):

- with a ``tokenizer.chat_template.rerank`` template in the GGUF, its
  ``{query}`` and ``{document}`` placeholders are filled in (control tokens are
  parsed in the template text only, never in the query or document);
- otherwise ``[BOS] query [EOS] [SEP] document [EOS]``, each special token only
  when the vocabulary's add_bos / add_eos / add_sep flag asks for it (EOS falls
  back to SEP when the model has none).

Truncation is done here, on token ids: the query is cut to half the token budget
left by the template/special tokens, the document to what remains, so llama.cpp
never sees more than its context (which would hit a GGML_ASSERT and abort the
process). Each document is decoded on its own; identical documents in one call
are scored once.

``llama_cpp`` (and with it numpy) is imported only when a model is loaded.
"""

from __future__ import annotations

import math
import re
import threading
from pathlib import Path
from typing import Any

from gno.adapters.llama.gguf import decode_pooled, load_model
from gno.ports import MODEL_LOAD_FAILED, RERANK_FAILED, RerankError

POOLING_RANK = 4  # llama_pooling_type LLAMA_POOLING_TYPE_RANK
TEMPLATE_KEY = "tokenizer.chat_template.rerank"
_TOKEN_NULL = -1  # LLAMA_TOKEN_NULL
_VOCAB_BPE = 2  # LLAMA_VOCAB_TYPE_BPE
_QUERY, _DOCUMENT = "{query}", "{document}"

# One part of the prompt: fixed token ids, or a slot (``_QUERY`` / ``_DOCUMENT``)
# with the text to put before the slot's own text when it is tokenized.
_Part = list[int] | tuple[str, str]


class LlamaReranker:
    """A ``Reranker`` over a GGUF cross-encoder with RANK pooling."""

    def __init__(
        self,
        path: str | Path,
        *,
        n_threads: int | None = None,
        max_tokens: int | None = None,
    ) -> None:
        path = Path(path).expanduser().resolve()
        self.model_id = "file:" + str(path)

        def pooling(arch: str, meta: dict[str, Any]) -> int:
            found = meta.get(f"{arch}.pooling_type")
            if found != POOLING_RANK:
                raise RerankError(
                    MODEL_LOAD_FAILED,
                    f"{path}: not a reranker ({arch}.pooling_type is {found}, RANK is 4)",
                )
            return POOLING_RANK

        loaded = load_model(path, RerankError, pooling, n_threads)
        llama_cpp, self._llama_cpp, self._llm = loaded.llama_cpp, loaded.llama_cpp, loaded.llm
        n_ctx = loaded.n_ctx
        template = loaded.meta.get(TEMPLATE_KEY)
        if not isinstance(template, str) or _DOCUMENT not in template:
            template = None

        try:
            n_cls_out = llama_cpp.llama_model_n_cls_out(self._llm._model.model)
            self._bpe = llama_cpp.llama_vocab_type(self._llm._model.vocab) == _VOCAB_BPE
            self._parts = self._template_parts(template) if template else self._default_parts()
        except Exception as exc:
            self._llm.close()
            raise RerankError(MODEL_LOAD_FAILED, f"{path}: {exc}") from exc
        if n_cls_out < 1:
            self._llm.close()
            raise RerankError(MODEL_LOAD_FAILED, f"{path}: RANK model without classifier output")

        self.prompt_format = "template" if template else "default"
        self._n_ctx = n_ctx
        self.max_tokens: int = max(4, min(max_tokens or n_ctx, n_ctx))
        fixed = sum(len(p) for p in self._parts if isinstance(p, list))
        self._n_query = sum(1 for p in self._parts if isinstance(p, tuple) and p[0] == _QUERY)
        self._n_doc = sum(1 for p in self._parts if isinstance(p, tuple) and p[0] == _DOCUMENT)
        self._budget = self.max_tokens - fixed  # tokens left for query and document text
        if self._budget < 2 * max(1, self._n_query + self._n_doc):
            self._llm.close()
            raise RerankError(
                MODEL_LOAD_FAILED,
                f"{path}: rerank prompt needs {fixed} tokens, context is {self.max_tokens}",
            )
        self._lock = threading.Lock()  # one llama context: one decode at a time

    # -- prompt layout ----------------------------------------------------------------

    def _tokenize(self, text: str, *, special: bool = False) -> list[int]:
        # add_bos=False: no special tokens added. special=False: "[SEP]" or "<|im_end|>"
        # typed in a query or document stays text, not a control token.
        if not text:
            return []
        return self._llm.tokenize(
            text.encode("utf-8", errors="replace"), add_bos=False, special=special
        )

    def _default_parts(self) -> list[_Part]:
        llama_cpp, vocab = self._llama_cpp, self._llm._model.vocab
        bos, eos, sep = (
            llama_cpp.llama_vocab_bos(vocab),
            llama_cpp.llama_vocab_eos(vocab),
            llama_cpp.llama_vocab_sep(vocab),
        )
        if eos == _TOKEN_NULL:
            eos = sep
        add_bos = llama_cpp.llama_vocab_get_add_bos(vocab) and bos != _TOKEN_NULL
        add_eos = llama_cpp.llama_vocab_get_add_eos(vocab) and eos != _TOKEN_NULL
        add_sep = llama_cpp.llama_vocab_get_add_sep(vocab) and sep != _TOKEN_NULL
        middle = ([eos] if add_eos else []) + ([sep] if add_sep else [])
        return [
            [bos] if add_bos else [],
            (_QUERY, ""),
            middle,
            (_DOCUMENT, ""),
            [eos] if add_eos else [],
        ]

    def _template_parts(self, template: str) -> list[_Part]:
        parts: list[_Part] = []
        pieces = re.split(r"(\{query\}|\{document\})", template)
        for i, piece in enumerate(pieces):
            if piece in (_QUERY, _DOCUMENT):
                prefix = ""
                # Byte-level BPE pre-tokenizers glue a single space to the word after
                # it (": what" -> ":", " what"); tokenized apart, the space would be a
                # token of its own. Move it into the slot to match whole-prompt tokens.
                if self._bpe and pieces[i - 1].endswith(" "):
                    pieces[i - 1] = pieces[i - 1][:-1]
                    parts[-1] = self._tokenize(pieces[i - 1], special=True)
                    prefix = " "
                parts.append((piece, prefix))
            else:
                parts.append(self._tokenize(piece, special=True))
        return parts

    def _query_slots(self, query: str) -> dict[tuple[str, str], list[int]]:
        """The query's tokens per query slot, each cut to its share of half the budget."""
        q_cap = self._budget // 2 // max(1, self._n_query)
        return {
            part: self._tokenize(part[1] + query)[:q_cap]
            for part in self._parts
            if isinstance(part, tuple) and part[0] == _QUERY
        }

    def _prompt(self, query_slots: dict[tuple[str, str], list[int]], document: str) -> list[int]:
        used = sum(
            len(query_slots[p]) for p in self._parts if isinstance(p, tuple) and p[0] == _QUERY
        )
        d_cap = (self._budget - used) // max(1, self._n_doc)
        tokens: list[int] = []
        for part in self._parts:
            if isinstance(part, list):
                tokens += part
            elif part[0] == _QUERY:
                tokens += query_slots[part]
            else:
                tokens += self._tokenize(part[1] + document)[:d_cap]
        return tokens

    # -- scoring ----------------------------------------------------------------------

    def _score(self, tokens: list[int]) -> float:
        ptr = decode_pooled(self._llm, self._llama_cpp, tokens)  # RANK: [0] is the score
        if ptr is None:
            raise RerankError(RERANK_FAILED, "llama.cpp returned no rank score")
        score = float(ptr[0])
        if not math.isfinite(score):
            raise RerankError(RERANK_FAILED, "model produced a non-finite score")
        return score

    def rerank(self, query: str, documents: list[str]) -> list[float]:
        if not documents:
            return []
        scores: dict[str, float] = {}
        with self._lock:
            try:
                query_slots = self._query_slots(query)
                for document in documents:
                    if document in scores:
                        continue
                    tokens = self._prompt(query_slots, document)
                    if not tokens:
                        raise RerankError(RERANK_FAILED, "input has no tokens")
                    if len(tokens) > self._n_ctx:  # cannot happen; never let it reach llama.cpp
                        raise RerankError(RERANK_FAILED, f"{len(tokens)} tokens > n_ctx")
                    scores[document] = self._score(tokens)
            except RerankError:
                raise
            except Exception as exc:
                raise RerankError(RERANK_FAILED, f"rerank failed: {exc}") from exc
        return [scores[document] for document in documents]

    def close(self) -> None:
        self._llm.close()
