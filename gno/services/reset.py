"""`gno reset`: delete gno's index data, and unless kept its config file and its cache.
Which files are gno's, and in which order they go, is ``gno.reset_files``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gno_contracts.models.reset_input import ResetInput
    from gno_contracts.models.reset_result import ResetResult

    from gno.app import App


def reset(app: App, inp: ResetInput) -> ResetResult:
    from gno_contracts.models.reset_result import ResetResult

    from gno.reset_files import reset_folders

    done = reset_folders(
        app.paths, confirm=inp.confirm, keep_config=inp.keepConfig, keep_cache=inp.keepCache
    )
    return ResetResult.model_validate({"results": done, "errors": []})
