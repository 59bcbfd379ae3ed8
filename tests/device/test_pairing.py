"""Pairing (issue 11, point 2): one press of Pair admits exactly one waiting phone; two waiting, none, and
they are told; a flood of pair requests cannot hold the window open; paired phones can be listed and one
revoked; a token that cannot be written to disk is never handed out (point 9)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from device.pairing import Pairing, PairingRefused
from device.store import Store
from device.table import Table


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_one_press_admits_the_one_waiting_phone(tmp_path: Path) -> None:
    clock = Clock()
    pairing = Pairing(tmp_path / "tokens.json", clock=clock)
    asked = pairing.request("10.0.0.5", "Mozilla/5.0 (iPhone)")
    assert pairing.approve() == "granted"
    status, token, _ = pairing.poll(asked)
    assert status == "granted" and pairing.check(token)
    assert [p["label"] for p in pairing.phones()] == ["Mozilla/5.0 (iPhone)"]
    assert Pairing(tmp_path / "tokens.json").check(token), "a restart keeps the phone paired"


def test_two_phones_waiting_admits_neither_and_tells_both(tmp_path: Path) -> None:
    """The piggyback attack: an attacker asking at the same moment as the player gets nothing."""
    clock = Clock()
    pairing = Pairing(tmp_path / "tokens.json", clock=clock)
    player = pairing.request("10.0.0.5")
    attacker = pairing.request("10.0.0.66")
    assert pairing.approve() == "conflict"
    assert pairing.poll(player)[0] == "conflict"
    assert pairing.poll(attacker)[0] == "conflict"
    assert pairing.phones() == []
    assert pairing.status()["conflict"] is True and pairing.status()["open"] is False
    clock.now += 10
    assert pairing.status()["conflict"] is False, "the warning ends by itself"
    again = pairing.request("10.0.0.5")  # asking again, alone this time, works
    assert pairing.approve() == "granted" and pairing.poll(again)[0] == "granted"


def test_the_status_led_warns_when_a_press_admitted_nobody(tmp_path: Path) -> None:
    table = Table(Store(tmp_path / "state"), pairing=Pairing(tmp_path / "tokens.json"))
    try:
        table.request_pairing("10.0.0.5")
        table.request_pairing("10.0.0.6")
        assert table._status_pattern(table.snapshot()) == "pairing"
        assert table.approve_pairing() == "conflict"
        assert table.snapshot()["pairing"]["conflict"] is True
        assert table._status_pattern(table.snapshot()) == "pair_conflict"
    finally:
        table.close()


def test_a_flood_of_requests_from_one_address_cannot_hold_the_window_open(tmp_path: Path) -> None:
    clock = Clock()
    pairing = Pairing(tmp_path / "tokens.json", clock=clock)
    accepted = refused = 0
    for _ in range(2850):  # the attack of the issue: 2,850 requests in 5 seconds
        clock.now += 5 / 2850
        try:
            pairing.request("10.0.0.66")
            accepted += 1
        except PairingRefused as exc:
            assert exc.code == "too_many_pair_requests" and exc.retry_after >= 1
            refused += 1
    assert accepted == 3 and refused == 2847
    assert pairing.status()["waiting"] == 1, "asking again replaces the address's own request"
    clock.now += 31
    assert pairing.status()["open"] is False, "the window closes 30 s after the last accepted request"


def test_many_addresses_waiting_at_once_are_bounded(tmp_path: Path) -> None:
    pairing = Pairing(tmp_path / "tokens.json", clock=Clock(), max_waiting=4)
    for i in range(4):
        pairing.request(f"10.0.0.{i}")
    with pytest.raises(PairingRefused) as exc:
        pairing.request("10.0.0.99")
    assert exc.value.code == "pairing_busy"


def test_a_paired_phone_lists_the_others_and_revokes_one(tmp_path: Path) -> None:
    pairing = Pairing(tmp_path / "tokens.json", clock=Clock())
    tokens = []
    for i in range(3):
        rid = pairing.request(f"10.0.0.{i}", f"phone {i}")
        assert pairing.approve() == "granted"
        tokens.append(pairing.poll(rid)[1])
    phones = pairing.phones()
    assert [p["label"] for p in phones] == ["phone 0", "phone 1", "phone 2"]
    assert all("hash" not in p and "token" not in p for p in phones)
    assert pairing.phone_id(tokens[1]) == phones[1]["id"]
    assert pairing.revoke(phones[1]["id"]) is True
    assert [pairing.check(t) for t in tokens] == [True, False, True]
    assert pairing.revoke("nope") is False
    reloaded = Pairing(tmp_path / "tokens.json")
    assert [reloaded.check(t) for t in tokens] == [True, False, True]


def test_tokens_of_the_old_file_format_stay_paired(tmp_path: Path) -> None:
    import hashlib

    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"tokens": [hashlib.sha256(b"old-token").hexdigest()]}))
    pairing = Pairing(path)
    assert pairing.check("old-token") and len(pairing.phones()) == 1


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full to fake a full disk")
def test_no_token_is_handed_out_when_it_cannot_be_kept(tmp_path: Path) -> None:
    """The token file's temp file is /dev/full: every write fails with ENOSPC, as on a full SD card."""
    path = tmp_path / "tokens.json"
    (tmp_path / "tokens.tmp").symlink_to("/dev/full")
    pairing = Pairing(path, clock=Clock())
    rid = pairing.request("10.0.0.5")
    assert pairing.approve() == "storage_full"
    status, token, _ = pairing.poll(rid)
    assert status == "storage_full" and token is None
    assert pairing.phones() == [] and pairing.status()["storage_full"] is True
    assert not path.exists()


def test_a_seat_held_by_an_unpaired_phone_stays_held_across_a_restart(tmp_path: Path) -> None:
    """Issue 32 #3: unpair the player's phone, wait for the box to restart, sit down: still refused."""
    clock = Clock()
    pairing = Pairing(tmp_path / "tokens.json", clock=clock)
    tokens = []
    for address in ("10.0.0.5", "10.0.0.66"):
        rid = pairing.request(address)
        assert pairing.approve() == "granted"
        tokens.append(pairing.poll(rid)[1])
        clock.now += 10
    player, stranger = tokens
    assert pairing.bind_seat(player, 1, "p1") == "bound"
    assert pairing.revoke(pairing.phone_id(player))
    restarted = Pairing(tmp_path / "tokens.json", clock=clock)
    assert restarted.bind_seat(stranger, 1, "p1") == "press"
