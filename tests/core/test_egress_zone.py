"""The zone of a socket peer (gno.core.egress.zone_of): loopback, lan or remote, failing
closed (remote) on anything that is not an address."""

from __future__ import annotations

import pytest

from gno.core.egress import zone_of


@pytest.mark.parametrize(
    ("peer", "zone"),
    [
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("::1", "loopback"),
        ("::ffff:127.0.0.1", "loopback"),
        ("10.1.2.3", "lan"),
        ("172.16.0.9", "lan"),
        ("172.31.255.255", "lan"),
        ("192.168.1.20", "lan"),
        ("169.254.3.4", "lan"),
        ("fd00::2", "lan"),
        ("fe80::1%eth0", "lan"),
        ("::ffff:192.168.0.7", "lan"),
        ("172.32.0.1", "remote"),
        ("192.0.2.2", "remote"),  # documentation range: not a private network
        ("100.64.0.1", "remote"),  # carrier-grade NAT: not this site's network
        ("8.8.8.8", "remote"),
        ("2001:db8::1", "remote"),
        ("testclient", "remote"),  # not an address: the most restricted zone
        ("127.evil", "remote"),
        ("", "remote"),
        (None, "remote"),
    ],
)
def test_zone_of(peer: str | None, zone: str) -> None:
    assert zone_of(peer) == zone
