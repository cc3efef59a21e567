"""REST spellings of the write operations -> their inputs (registry ``rest.body``)."""

from __future__ import annotations

from gno_contracts.models.api_capture_input import ApiCaptureInput
from gno_contracts.models.api_duplicate_input import ApiDuplicateInput
from gno_contracts.models.capture_input import CaptureInput
from gno_contracts.models.duplicate_note_input import DuplicateNoteInput

from gno.core.identity import path_id_ref


def capture(body: ApiCaptureInput, local: bool) -> CaptureInput:
    """REST says ``relPath`` where MCP says ``path``; REST never overwrites."""
    fields = body.model_dump(exclude_unset=True, exclude={"relPath", "overwrite"})
    if body.relPath is not None:
        fields["path"] = body.relPath
    return CaptureInput.model_validate(fields)


def duplicate(body: ApiDuplicateInput, local: bool) -> DuplicateNoteInput:
    uri = body.uri.strip() if body.uri else ""
    ref = uri if uri.startswith("gno://") else path_id_ref(body.id)
    fields = body.model_dump(exclude_unset=True, exclude={"id", "uri"})
    return DuplicateNoteInput.model_validate(fields | {"ref": ref})
