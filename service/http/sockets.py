"""TCP sockets for the server's ports, which several worker processes share (SO_REUSEPORT)."""

from __future__ import annotations

import socket


def tcp_socket(host: str) -> socket.socket:
    """A TCP socket of the address family of ``host`` ("[::1]" and "::" are IPv6)."""
    return socket.socket(socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET, socket.SOCK_STREAM)


def shared_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` (0: a port of the kernel's choosing) with SO_REUSEADDR
    and SO_REUSEPORT, not listening: the worker processes of one server each bind the same port."""
    sock = tcp_socket(host)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host.strip("[]"), port))
    except OSError:
        sock.close()
        raise
    return sock
