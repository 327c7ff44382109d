"""API keys (service/rpc/apikeys.py): checked against their hashes, made by the key generator, and
the key ids the server keeps for itself."""

from __future__ import annotations

import pytest

from service.errors import Unauthenticated
from service.ops import config
from service.rpc import apikeys


def test_api_keys_are_checked_against_their_hashes_and_several_may_be_configured():
    key_a, entry_a = apikeys.new_key("shop")
    key_b, entry_b = apikeys.new_key("shop")  # a rotation: both keys of one caller at once
    key_c, entry_c = apikeys.new_key("arcade")
    keys = apikeys.ApiKeys(apikeys.split_entries(f"{entry_a}, {entry_b}  # old and new\n{entry_c}\n"))
    assert keys.required and len(keys) == 3
    assert key_a not in entry_a and key_a.split(".")[1] not in entry_a  # only hashes are configured
    assert [keys.caller([("x-api-key", k)], "CreateGame") for k in (key_a, key_b, key_c)] == ["shop", "shop", "arcade"]
    with pytest.raises(Unauthenticated, match="needs an API key"):
        keys.caller([("authorization", "Bearer x")], "CreateGame")
    for bad in (key_a + "x", "shop", "arcade." + key_a.split(".")[1], "x" * 300, ""):
        with pytest.raises(Unauthenticated, match="not valid"):
            keys.caller([("x-api-key", bad)], "CreateGame")
    assert apikeys.ApiKeys().caller([], "CreateGame") == ""  # an open server
    with pytest.raises(ValueError, match="entry 2"):
        apikeys.ApiKeys([entry_a, "shop:abc"])
    with pytest.raises(ValueError):
        apikeys.new_key("no spaces")


def test_the_key_generator_prints_a_key_and_its_entry(capsys):
    assert apikeys.main(["backend-1"]) == 0
    out = capsys.readouterr().out
    key = out.split("secret): ")[1].split()[0]
    entry = out.split("--api-keys-file): ")[1].split()[0]
    assert apikeys.ApiKeys([entry]).caller([("x-api-key", key)], "CreateGame") == "backend-1"
    assert apikeys.main([]) == 2 and apikeys.main(["bad id"]) == 2


def test_key_ids_starting_with_an_underscore_are_reserved(capsys, monkeypatch):
    # The server's own owners (the open server's "_open") start with "_": no API key may be one.
    for reserved in ("_open", "_", "_x-1"):
        with pytest.raises(ValueError, match="reserved"):
            apikeys.new_key(reserved)
        assert apikeys.main([reserved]) == 2
        assert "reserved" in capsys.readouterr().err
    assert apikeys.new_key("shop_2")[1].startswith("shop_2:")  # "_" inside a key id is fine
    _, entry = apikeys.new_key("shop")
    with pytest.raises(ValueError, match=r"entry 2 \('_open'\).*reserved"):
        apikeys.ApiKeys([entry, "_open:" + "0" * 64])
    for name in ("CARDGAME_API_KEYS", "CARDGAME_API_KEYS_FILE"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(SystemExit):
        config.parse(["--api-keys", f"{entry},_open:{'0' * 64}"])
    err = capsys.readouterr().err
    assert "entry 2 ('_open')" in err and "reserved" in err
    monkeypatch.setenv("CARDGAME_API_KEYS", "_open:" + "0" * 64)
    with pytest.raises(SystemExit):
        config.parse([])
    assert "'_open'" in capsys.readouterr().err
