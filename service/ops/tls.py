"""TLS and mutual TLS: the server's certificate files checked and turned into credentials, and
client channels for the health check and the tests.

A server given a certificate and key (``--tls-cert``, ``--tls-key``) serves its gRPC port (and its
HTTP port) over TLS only; given ``--tls-client-ca`` too, it also requires every client to show a
certificate that CA signed (mutual TLS), and refuses the handshake otherwise. Files are PEM; the
certificate file may hold the chain after the server's own certificate.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

import grpc


def _read(path: str) -> bytes | None:
    return Path(path).read_bytes() if path else None


@dataclass(frozen=True)
class ServerTls:
    """The server's certificate chain and key, and the CA its clients' certificates must come from (mTLS)."""

    cert: str
    key: str
    client_ca: str = ""

    def credentials(self) -> grpc.ServerCredentials:
        """gRPC server credentials from the files (read now)."""
        return grpc.ssl_server_credentials([(_read(self.key), _read(self.cert))],
                                           root_certificates=_read(self.client_ca),
                                           require_client_auth=bool(self.client_ca))


def server_tls(cert: str, key: str, client_ca: str) -> ServerTls | None:
    """The server's TLS settings, None for plaintext; ValueError with a clear message when the
    files do not make a usable certificate, key and CA."""
    if not cert and not key:
        if client_ca:
            raise ValueError("--tls-client-ca needs --tls-cert and --tls-key: mutual TLS is TLS first")
        return None
    if not (cert and key):
        raise ValueError("give both --tls-cert and --tls-key (or neither)")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        raise ValueError(f"cannot use the certificate {cert!r} with the key {key!r}: {_reason(exc)}") from None
    if client_ca:
        try:
            context.load_verify_locations(client_ca)
        except (OSError, ssl.SSLError) as exc:
            raise ValueError(f"cannot use the client CA file {client_ca!r}: {_reason(exc)}") from None
    return ServerTls(cert, key, client_ca)


def _reason(exc: OSError | ssl.SSLError) -> str:
    return getattr(exc, "reason", None) or exc.strerror or str(exc)


@dataclass(frozen=True)
class ClientTls:
    """How a client reaches a TLS server: the CA to trust (empty: the system's), its own
    certificate and key for mutual TLS, and the name the server's certificate must carry
    (empty: the host of the address dialled)."""

    ca: str = ""
    cert: str = ""
    key: str = ""
    server_name: str = ""

    def credentials(self) -> grpc.ChannelCredentials:
        """gRPC channel credentials from the files (read now)."""
        return grpc.ssl_channel_credentials(root_certificates=_read(self.ca), private_key=_read(self.key),
                                            certificate_chain=_read(self.cert))

    def options(self) -> list[tuple[str, str]]:
        """Channel options: the server name to check, when one is given."""
        return [("grpc.ssl_target_name_override", self.server_name)] if self.server_name else []


def channel(address: str, tls: ClientTls | None = None) -> grpc.Channel:
    """A blocking channel to ``address``: plaintext without ``tls``, else TLS as it says."""
    if tls is None:
        return grpc.insecure_channel(address)
    return grpc.secure_channel(address, tls.credentials(), tls.options())
