"""pdfminer follows a chain of indirect references until it meets something else
(``resolve1``, ``resolve_all``: ``while isinstance(x, PDFObjRef)``), so an object whose whole
body is a reference to itself (``2 0 obj 2 0 R endobj``) or to one that leads back to it
made it loop forever: a 600-byte PDF ran into the 60 s deadline, and ``TIMEOUT`` is retried
by every sync. ``bound_reference_chains`` makes each ``PDFObjRef.resolve`` follow the chain
itself, remembering what it passed: a chain that comes back on itself resolves to the
caller's default, as a reference to an object the file does not hold does (ISO 32000 §7.3.10:
such a reference is the null object). Nothing changes for a chain that ends.
"""

from __future__ import annotations

import threading
from typing import Any

_MAX_HOPS = 10_000  # a longer chain is as undefined as a loop (and no writer makes one)
_lock = threading.Lock()
_installed = False


def bound_reference_chains() -> None:
    """Install the bounded ``resolve`` on pdfminer's ``PDFObjRef`` (once per process)."""
    global _installed
    with _lock:
        if _installed:
            return
        from pdfminer.pdftypes import PDFObjRef

        one_step = PDFObjRef.resolve

        def resolve(self: PDFObjRef, default: object = None) -> Any:
            seen = {(id(self.doc), self.objid)}
            value = one_step(self, default)
            for _ in range(_MAX_HOPS):
                if not isinstance(value, PDFObjRef):
                    return value
                key = (id(value.doc), value.objid)
                if key in seen:
                    return default
                seen.add(key)
                value = one_step(value, default)
            return default

        PDFObjRef.resolve = resolve  # type: ignore[method-assign]
        _installed = True
