"""``POST /api/ask``: GNO's REST body (filters as comma strings, limit clamped to 20) to the
``ask`` operation input. Without ``verify`` it is the raw ask: results, and an answer when
the gen model is available (retrieval only otherwise)."""

from __future__ import annotations

from gno_contracts.models.api_ask_input import ApiAskInput
from gno_contracts.models.ask_input import AskInput

from gno.rest.bodies import _query_fields

ASK_LIMIT_MAX = 20


def ask(body: ApiAskInput, local: bool) -> AskInput:
    fields = _query_fields(body, local)  # type: ignore[arg-type]
    fields.pop("includeAbsPath", None)
    fields["limit"] = min(body.limit, ASK_LIMIT_MAX)
    fields["answer"] = True  # GNO's REST ask answers; without a gen model it is 503
    if body.explain:
        fields["explain"] = True
    for name in ("maxAnswerTokens", "contextBudgetTokens", "contextBudgetBytes"):
        if (value := getattr(body, name)) is not None:
            fields[name] = value
    if body.verify:
        fields["verify"] = True
    return AskInput.model_validate(fields)
