"""Collection content sent to a model endpoint (engine.md §9.5, spec/egress.md).

A GGUF model runs in this process: nothing leaves. An OpenAI-compatible endpoint
(``http://host:port/v1#model``) receives document text — chunks to embed, passages to
rerank, the sources of an answer — so before any request its host is classified (an
address literal by ``zone_of``; a name by what it resolves to, the most exposed address
counting; ``localhost`` and loopback addresses stay on the machine; a name that does not
resolve is ``remote``) and each collection whose content would be sent is judged by the
egress rule with action ``remote_inference``. The endpoint is the user's own
configuration, so it counts as authenticated and authorized: ``local_only`` content never
goes to it off the machine, ``lan`` content goes to a private-network endpoint, ``remote``
content anywhere. Query text alone (expansion, a query's embedding) is not collection
content and is not judged. Nothing is recorded: receipts are for requests a server
answers. Imported only when a model URI is an endpoint.
"""

from __future__ import annotations

import functools
import ipaddress
import socket
import urllib.parse
from collections.abc import Iterable

from gno.app import App
from gno.core import egress as rule
from gno.core.egress_lineage import state_of
from gno.errors import EgressDeniedError
from gno.models.catalog import is_endpoint

_EXPOSURE = {"loopback": 0, "lan": 1, "remote": 2}


def endpoint_zone(uri: str) -> str | None:
    """``lan`` or ``remote`` for an endpoint off this machine; None when nothing leaves it
    (a model file, a loopback endpoint)."""
    if not is_endpoint(uri):
        return None
    host = urllib.parse.urlsplit(uri.strip().partition("#")[0]).hostname
    zone = _host_zone(host.lower()) if host else "remote"
    return None if zone == "loopback" else zone


@functools.lru_cache(maxsize=64)
def _host_zone(host: str) -> str:
    if host == "localhost" or host.endswith(".localhost"):
        return "loopback"
    try:
        ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        pass
    else:
        return rule.zone_of(host)
    try:
        found = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return "remote"  # unresolvable: the request would fail; judge it the strictest way
    zones = [rule.zone_of(str(info[4][0])) for info in found] or ["remote"]
    return max(zones, key=_EXPOSURE.__getitem__)


def denied(app: App, uri: str, collections: Iterable[str], content_class: str) -> list[str]:
    """The collections whose content may not go to the model endpoint ``uri``."""
    zone = endpoint_zone(uri)
    names = list(dict.fromkeys(collections))
    if zone is None or not names:
        return []
    rows = app.store().egress_policies()
    trusted = rule.Caller(authenticated=True, authorized=True)
    return [
        name
        for name in names
        if not rule.decide(
            [state_of(name, rows)],
            action="remote_inference",
            zone=zone,
            content_class=content_class,
            caller=trusted,
        ).allowed
    ]


def refusal(role: str, names: list[str], zone: str | None) -> EgressDeniedError:
    """Content-free: which role's endpoint and which collections, never any text."""
    shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    return EgressDeniedError(
        f"EGRESS_DENIED: the {role} model is an endpoint off this machine ({zone}) and the "
        f"egress policy of {shown} keeps its content here; use a local model or relax the "
        "policy (gno collection policy set)",
        details={"reason": "REMOTE_INFERENCE_DENIED", "collections": names[:64]},
    )


def check(app: App, role: str, collections: Iterable[str], content_class: str) -> None:
    """Raise ``EgressDeniedError`` when the ``role`` model's endpoint may not receive
    content of one of ``collections``."""
    uri = app.model_uri(role)
    names = denied(app, uri, collections, content_class)
    if names:
        raise refusal(role, names, endpoint_zone(uri))


def check_sources(app: App, role: str, uris: Iterable[str]) -> None:
    """``check`` for the documents of these ``gno://`` URIs (an answer's sources)."""
    check(app, role, (uri.removeprefix("gno://").split("/", 1)[0] for uri in uris), "snippet")
