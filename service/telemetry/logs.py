"""Logs as JSON lines on stderr: one object per record, written whole, in every server process.

Each line holds ``timestamp`` (ISO-8601, UTC, milliseconds), ``level``, ``logger``, ``message``,
``pid``, then the record's extra fields (``logger.info(..., extra={...})``) in the order given,
and ``exception`` with the traceback when there is one. A line reaches stderr in a single
``write(2)``, so the lines of several worker processes sharing one stderr (a pipe, a file, a
terminal) never mix, whatever their length on a file and up to ``PIPE_BUF`` (4 KiB) on a pipe.

Start-up lines (``announce``) are written whatever the log level, once per process: the
"listening on" lines that people and scripts wait for.

>>> import json, logging
>>> record = logging.LogRecord("cardgame.demo", logging.INFO, __file__, 1, "dealt %d hands", (2,), None)
>>> record.game_id = "g1"
>>> line = json.loads(JsonFormatter().format(record))
>>> [line[k] for k in ("level", "logger", "message", "game_id")]
['INFO', 'cardgame.demo', 'dealt 2 hands', 'g1']
"""

from __future__ import annotations

import json
import logging
import os
import sys
from datetime import UTC, datetime
from typing import Any

# Every attribute a LogRecord has of its own; anything else on a record is an extra field.
_STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """Formats a record as one JSON object on one line (newlines inside values are escaped)."""

    def format(self, record: logging.LogRecord) -> str:
        fields: dict[str, Any] = {
            "timestamp": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")
                         .replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "pid": record.process,
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                fields[key] = value
        if record.exc_info:
            fields["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            fields["exception"] = record.exc_text
        if record.stack_info:
            fields["stack"] = self.formatStack(record.stack_info)
        return json.dumps(fields, ensure_ascii=False, default=str)


class LineHandler(logging.Handler):
    """Writes each formatted record and its newline to a file descriptor in one ``write(2)``."""

    def __init__(self, fd: int):
        super().__init__()
        self.fd = fd

    def emit(self, record: logging.LogRecord) -> None:
        try:
            data = (self.format(record) + "\n").encode("utf-8", "replace")
            while data:  # a regular file or a terminal takes it whole; a full pipe may take part of it
                data = data[os.write(self.fd, data):]
        except Exception:
            self.handleError(record)


def configure(level: str = "INFO") -> None:
    """Send every log record of this process (warnings included) to stderr as JSON lines, from ``level`` on."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    handler = LineHandler(sys.stderr.fileno())
    handler.setFormatter(JsonFormatter())
    root.addHandler(handler)
    root.setLevel(getattr(logging, level.upper(), logging.INFO))
    logging.captureWarnings(True)


def announce(logger: logging.Logger, message: str, *args: object, **fields: object) -> None:
    """Log a start-up line at INFO level whatever the configured level (e.g. "listening on ...")."""
    record = logger.makeRecord(logger.name, logging.INFO, "(announce)", 0, message, args, None, extra=fields)
    logger.handle(record)
