"""Stopping a child process within a bound: a signal, a wait, and SIGKILL when the wait runs out."""

from __future__ import annotations

import signal
import subprocess


def stop_process(proc: subprocess.Popen, sig: int = signal.SIGTERM, timeout_s: float = 10.0) -> int:
    """Send ``sig`` to ``proc`` (unless it has exited) and wait up to ``timeout_s`` for it to exit;
    SIGKILL it if it has not by then. Returns its exit code."""
    if proc.poll() is None:
        proc.send_signal(sig)
    try:
        return proc.wait(timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()
