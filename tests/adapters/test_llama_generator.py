"""LlamaGenerator on real llama.cpp with the tiny random llama that tests/tiny_gguf.py writes.

The weights are random, so the text means nothing; what is tested is what must hold
for any model: grammar-constrained JSON, determinism, prompts longer than the context,
timeouts and the context sizing rule. One thread each: on a busy 2-core machine two
OpenMP threads per decode spin against each other (stack.md §3.2).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
pytest.importorskip("gguf", reason="gguf is needed to write the tiny test model")

import jsonschema

from gno.adapters.llama.generator import MIN_CONTEXT, LlamaGenerator
from gno.core.expansion import ANSWER_SCHEMA
from gno.ports import (
    GENERATE_TIMEOUT,
    INVALID_OUTPUT,
    GenerationError,
    Generator,
)
from tests.tiny_gguf import write_tiny_llama


def json_loads(text: str):
    return json.loads(text, strict=False)  # the grammar lets raw control characters into strings


# Bounded strings and arrays: even a random model finishes this object in 200 tokens.
# (llama-cpp-python's converter enforces types, keys, enums and lengths, not number ranges.)
SMALL = {
    "type": "object",
    "properties": {
        "ok": {"type": "boolean"},
        "words": {"type": "array", "items": {"type": "string", "maxLength": 6}, "maxItems": 3},
        "kind": {"enum": ["note", "code"]},
    },
    "required": ["ok", "words", "kind"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def model_path(tmp_path_factory) -> Path:
    return write_tiny_llama(tmp_path_factory.mktemp("gen") / "tiny-llama.gguf")


@pytest.fixture(scope="module")
def generator(model_path) -> LlamaGenerator:
    gen = LlamaGenerator(model_path, n_threads=1)
    yield gen
    gen.close()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_schema_output_is_json_matching_the_schema(tmp_path, seed) -> None:
    gen = LlamaGenerator(write_tiny_llama(tmp_path / f"m{seed}.gguf", seed=seed), n_threads=1)
    try:
        assert isinstance(gen, Generator)
        for prompt in ("expand: trace sampling", "ünïcödé → 日本語 query", ""):
            text = gen.generate(prompt, schema=SMALL, max_tokens=200)
            jsonschema.validate(json_loads(text), SMALL)
    finally:
        gen.close()


def test_same_prompt_same_text(generator) -> None:
    first = generator.generate("search the index", schema=SMALL, max_tokens=200)
    generator.generate("something else in between", max_tokens=8)
    assert generator.generate("search the index", schema=SMALL, max_tokens=200) == first


def test_expansion_schema_is_json_or_invalid_output(generator) -> None:
    # A random model may ramble until max_tokens; then the answer is refused, never
    # returned half-written.
    try:
        text = generator.generate("query: slow traces", schema=ANSWER_SCHEMA, max_tokens=512)
    except GenerationError as exc:
        assert exc.code == INVALID_OUTPUT
    else:
        jsonschema.validate(json_loads(text), ANSWER_SCHEMA)


def test_cut_off_json_is_invalid_output(generator) -> None:
    unbounded = {"type": "object", "properties": {"s": {"type": "string"}}, "required": ["s"]}
    with pytest.raises(GenerationError) as info:
        generator.generate("x", schema=unbounded, max_tokens=3)
    assert info.value.code == INVALID_OUTPUT


def test_prompt_far_longer_than_the_context(generator) -> None:
    long = "the trace sample query index document model vector " * 400  # ~3,600 tokens
    assert generator.n_ctx_train == 256
    text = generator.generate(long + " end", schema=SMALL, max_tokens=200)
    jsonschema.validate(json_loads(text), SMALL)
    tokens, new = generator._fit(long, 10_000)
    assert new == 128 and len(tokens) + new <= generator.max_context


def test_prompt_text_cannot_inject_control_tokens(generator) -> None:
    tokens, _ = generator._fit("a </s> b <s>", 16)
    body = tokens[len(generator._head) : len(tokens) - len(generator._tail)]
    assert 2 not in body and 1 not in body  # </s> and <s> stay text


def test_timeout(generator) -> None:
    with pytest.raises(GenerationError) as info:
        generator.generate("anything", max_tokens=64, timeout=0.0)
    assert info.value.code == GENERATE_TIMEOUT
    assert generator.generate("anything", max_tokens=4)  # still usable afterwards


def test_context_grows_with_the_prompt_up_to_the_cap(tmp_path) -> None:
    gen = LlamaGenerator(
        write_tiny_llama(tmp_path / "long.gguf", n_ctx=4096), max_context=3000, n_threads=1
    )
    try:
        assert (gen.n_ctx, gen.max_context) == (MIN_CONTEXT, 3000)
        gen.generate("short", max_tokens=16)
        assert gen.n_ctx == MIN_CONTEXT
        prompt = "trace " * 1200  # about 1,200 tokens
        text = gen.generate(prompt, schema=SMALL, max_tokens=200)
        jsonschema.validate(json_loads(text), SMALL)
        assert MIN_CONTEXT < gen.n_ctx <= 3000
        gen.generate("trace " * 5000, max_tokens=16)  # beyond the cap: truncated, not grown
        assert gen.n_ctx == 3000
    finally:
        gen.close()


def test_model_without_chat_template(tmp_path) -> None:
    gen = LlamaGenerator(write_tiny_llama(tmp_path / "bare.gguf", chat_template=False), n_threads=1)
    try:
        assert gen._tail == [] and gen._head == [1]  # just <s>
        jsonschema.validate(json_loads(gen.generate("hi", schema=SMALL, max_tokens=200)), SMALL)
    finally:
        gen.close()
