"""What the configuration says about secrets given on the command line, where other processes
read them."""

from __future__ import annotations

import json
import logging

from service.ops import config, credentials
from service.rpc import apikeys
from testkit.launcher import ServerProcess

SECRET = "a-token-secret-of-at-least-thirty-two-bytes"


SECRET_ENV = ("CARDGAME_TOKEN_SECRET", "CARDGAME_TOKEN_SECRET_FILE", "CARDGAME_TOKEN_SECRET_PREVIOUS",
              "CARDGAME_API_KEYS", "CARDGAME_API_KEYS_FILE")


def _warnings(caplog, cfg: config.Config) -> list[logging.LogRecord]:
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        credentials.warn_about_secret_flags(cfg.secret_flags)
    return [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_a_secret_given_as_a_flag_is_warned_about_once(caplog, monkeypatch, tmp_path):
    for name in SECRET_ENV:
        monkeypatch.delenv(name, raising=False)
    _, entry = apikeys.new_key("shop")
    given = config.parse(["--token-secret", SECRET, f"--token-secret-previous={SECRET}x", "--api-keys", entry])
    assert given.secret_flags == ("--token-secret", "--token-secret-previous", "--api-keys")
    (record,) = _warnings(caplog, given)
    message = record.getMessage()
    assert record.levelno == logging.WARNING and record.name == "cardgame.config"
    for flag in given.secret_flags:
        assert flag in message
    assert "/proc/<pid>/cmdline" in message and "CARDGAME_TOKEN_SECRET_FILE" in message
    assert SECRET not in message and entry not in message
    abbreviated = config.parse(["--token-secret-p", SECRET])  # argparse takes an unambiguous abbreviation
    assert abbreviated.secret_flags == ("--token-secret-previous",)
    # The same secrets from the environment or from files: no warning.
    monkeypatch.setenv("CARDGAME_TOKEN_SECRET", SECRET)
    monkeypatch.setenv("CARDGAME_TOKEN_SECRET_PREVIOUS", SECRET + "x")
    monkeypatch.setenv("CARDGAME_API_KEYS", entry)
    from_env = config.parse([])
    assert from_env.token_secret == SECRET.encode() and from_env.api_keys == (entry,)
    assert from_env.secret_flags == () and _warnings(caplog, from_env) == []
    for name in SECRET_ENV:
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "secret").write_text(SECRET)
    (tmp_path / "keys").write_text(entry + "\n")
    from_files = config.parse(["--token-secret-file", str(tmp_path / "secret"),
                               "--api-keys-file", str(tmp_path / "keys")])
    assert from_files.secret_flags == () and _warnings(caplog, from_files) == []
    assert config.parse(["--token-secret", ""]).secret_flags == ()  # an empty flag carries no secret


def test_the_server_warns_at_start_of_a_secret_on_its_command_line():
    with ServerProcess("--token-secret", SECRET, env={"LOG_LEVEL": "INFO"}) as server:
        lines = [json.loads(line) for line in server.log_text().splitlines() if line.startswith("{")]
    warned = [line for line in lines if "/proc/<pid>/cmdline" in line["message"]]
    assert len(warned) == 1 and warned[0]["level"] == "WARNING" and "--token-secret" in warned[0]["message"]
    with ServerProcess(env={"LOG_LEVEL": "INFO"}) as server:  # the launcher's secret, from the environment
        assert "/proc/<pid>/cmdline" not in server.log_text()
