"""Bad Capsule input fails with its documented code before any retrieval runs (issue 21
"Bad input"): budgets of 0 or beyond the limits, negative safety margins, empty goals and
queries, unknown collections, malformed URI prefixes and tags, unreadable dates."""

from __future__ import annotations

from typing import Any

import pytest
from gno_contracts.models.context_input import ContextInput

from gno.errors import (
    InvalidBudgetError,
    InvalidFilterError,
    InvalidGoalError,
    InvalidUriError,
)
from gno.services import context_build
from tests.conftest import sync
from tests.services.test_context_capsule import FILES

GOOD = {"goal": "tail sampling", "budgetTokens": 12000, "depthPolicy": "fast"}
CASES = [
    ({"budgetTokens": 0}, InvalidBudgetError),
    ({"budgetTokens": 1_000_001}, InvalidBudgetError),
    ({"budgetBytes": 0}, InvalidBudgetError),
    ({"budgetBytes": 4_000_001}, InvalidBudgetError),
    ({"safetyMarginTokens": -1}, InvalidBudgetError),
    ({"safetyMarginTokens": 12000}, InvalidBudgetError),
    ({"safetyMarginBytes": 48000}, InvalidBudgetError),
    ({"goal": " \u3000\n\t"}, InvalidGoalError),
    ({"query": "   "}, InvalidGoalError),
    ({"collections": ["nope"]}, InvalidFilterError),
    ({"collections": ["Not A Name!"]}, InvalidFilterError),
    ({"uriPrefix": "gno://nope/sub"}, InvalidFilterError),
    ({"uriPrefix": "https://example.com/x"}, InvalidUriError),
    ({"tagsAll": ["bad tag!"]}, InvalidFilterError),
    ({"since": "not a date"}, InvalidFilterError),
]


@pytest.mark.parametrize(("change", "error"), CASES)
def test_bad_input_fails_before_retrieval(
    make_app: Any, monkeypatch: pytest.MonkeyPatch, change: dict[str, Any], error: type
) -> None:
    app, _ = make_app(FILES)
    sync(app)
    ran: list[str] = []
    real = context_build.retrieve

    def spy(*args: Any, **kwargs: Any) -> Any:
        ran.append("retrieve")
        return real(*args, **kwargs)

    monkeypatch.setattr(context_build, "retrieve", spy)
    context_build.compile_capsule(app, ContextInput.model_validate(GOOD))
    assert ran == ["retrieve"]  # the spy sees retrieval when the input is good
    ran.clear()
    with pytest.raises(error):
        context_build.compile_capsule(app, ContextInput.model_validate(GOOD | change))
    assert ran == []
