"""Where the server's secrets come from: the token secret, the earlier ones still accepted, and the
API keys, from flags, environment or files; and the warning for a secret given on the command
line, where every local user can read it."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Sequence
from pathlib import Path

from service.rpc import apikeys
from service.table import tokens

log = logging.getLogger("cardgame.config")

# Flags that carry a secret, and the forms that keep it out of /proc/<pid>/cmdline.
SECRET_FLAG_ALTERNATIVES = {
    "--token-secret": "CARDGAME_TOKEN_SECRET_FILE or CARDGAME_TOKEN_SECRET",
    "--token-secret-previous": "CARDGAME_TOKEN_SECRET_PREVIOUS",
    "--api-keys": "CARDGAME_API_KEYS_FILE or CARDGAME_API_KEYS",
}


class SecretFlag(argparse.Action):
    """The action of a flag that carries a secret: stores its value and notes that a secret came on
    the command line (argparse calls an action only for a flag given there, whatever abbreviation
    or ``--flag=value`` form it takes); ``--help`` never shows its value."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        setattr(namespace, self.dest, values)
        if values:
            given = getattr(namespace, "secret_flags", [])
            namespace.secret_flags = [*given, self.option_strings[0]]


def warn_about_secret_flags(flags: Sequence[str]) -> None:
    """Log one WARNING when secrets came as command-line flags: any local user can read a process's
    command line in /proc/<pid>/cmdline, while its environment is its own user's and a file has
    its own permissions."""
    if not flags:
        return
    instead = "; ".join(f"{flag}: {SECRET_FLAG_ALTERNATIVES[flag]}" for flag in flags)
    log.warning("secrets given as command-line flags (%s), which every local user can read in "
                "/proc/<pid>/cmdline: give them through a file or the environment instead (%s)",
                ", ".join(flags), instead,
                extra={"flags": list(flags)})


def _read(p: argparse.ArgumentParser, path: str, what: str) -> str:
    try:
        return Path(path).read_text()
    except OSError as exc:
        p.error(f"cannot read the {what} file {path!r}: {exc.strerror}")


def _previous_secrets(p: argparse.ArgumentParser, text: str) -> tuple[bytes, ...]:
    """The earlier token secrets of ``--token-secret-previous``, each checked."""
    found = tuple(part.strip().encode() for part in text.split(",") if part.strip())
    for secret in found:
        try:
            tokens.check_secret(secret)
        except ValueError as exc:
            p.error(f"--token-secret-previous: {exc}")
    return found


def read_secrets(p: argparse.ArgumentParser, a: argparse.Namespace) -> tuple[bytes, tuple[str, ...], tuple[bytes, ...]]:
    """The token secret, the API key entries and the earlier token secrets, from flags,
    environment and files, checked (a parser error for any that is not usable)."""
    secret = a.token_secret.encode()
    if a.token_secret_file:
        if secret:
            p.error("give --token-secret or --token-secret-file, not both")
        secret = _read(p, a.token_secret_file, "token secret").strip().encode()
    if secret:
        try:
            tokens.check_secret(secret)
        except ValueError as exc:
            p.error(str(exc))
    text = a.api_keys + "\n" + (_read(p, a.api_keys_file, "API keys") if a.api_keys_file else "")
    entries = apikeys.split_entries(text)
    try:
        apikeys.ApiKeys(entries)
    except ValueError as exc:
        p.error(str(exc))
    return secret, entries, _previous_secrets(p, a.token_secret_previous)
