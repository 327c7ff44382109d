"""TLS and mutual TLS by flag, on the gRPC port, the HTTP port and for the health check, with a
throwaway CA made by the ``cryptography`` package."""

from __future__ import annotations

import datetime
import http.client
import ipaddress
import os
import ssl
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from service.ops.tls import ClientTls
from testkit.launcher import ROOT, TEST_TOKEN_SECRET, ServerProcess
from tests.support.players import code_of

TIMEOUT_S = 30
MISSING = pb.GetGameRequest(game_id="0" * 24)  # any call that reaches the servicer answers NOT_FOUND


@dataclass(frozen=True)
class Pki:
    """PEM files: a CA, a server certificate for localhost / 127.0.0.1, a client certificate, and a
    client certificate from another CA."""

    ca: str
    server_cert: str
    server_key: str
    client_cert: str
    client_key: str
    rogue_cert: str
    rogue_key: str


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _authority(common_name: str) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(_name(common_name)).issuer_name(_name(common_name))
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                         content_commitment=False, key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
            .sign(key, hashes.SHA256()))
    return cert, key


def _issue(ca: tuple[x509.Certificate, ec.EllipticCurvePrivateKey], common_name: str, server: bool,
           ) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    ca_cert, ca_key = ca
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    builder = (x509.CertificateBuilder().subject_name(_name(common_name)).issuer_name(ca_cert.subject)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
               .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH if server
                                                     else ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False))
    if server:
        builder = builder.add_extension(x509.SubjectAlternativeName(
            [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
    return builder.sign(ca_key, hashes.SHA256()), key


def _write(directory: Path, name: str, pair: tuple[x509.Certificate, ec.EllipticCurvePrivateKey]) -> tuple[str, str]:
    cert, key = pair
    cert_path, key_path = directory / f"{name}.crt", directory / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return str(cert_path), str(key_path)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    directory = tmp_path_factory.mktemp("pki")
    ca, rogue = _authority("cardgame test CA"), _authority("some other CA")
    ca_path, _ = _write(directory, "ca", ca)
    server = _write(directory, "server", _issue(ca, "localhost", server=True))
    client = _write(directory, "client", _issue(ca, "backend", server=False))
    stranger = _write(directory, "rogue", _issue(rogue, "backend", server=False))
    return Pki(ca_path, *server, *client, *stranger)


def _tls_flags(pki: Pki, mutual: bool) -> tuple[str, ...]:
    flags = ("--tls-cert", pki.server_cert, "--tls-key", pki.server_key, "--http-port", "0")
    return (*flags, "--tls-client-ca", pki.ca) if mutual else flags


@pytest.fixture(scope="module")
def tls_server(pki: Pki) -> Iterator[ServerProcess]:
    """A server whose ports speak TLS only."""
    with ServerProcess(*_tls_flags(pki, False), tls=ClientTls(ca=pki.ca)) as server:
        yield server


@pytest.fixture(scope="module")
def mtls_server(pki: Pki) -> Iterator[ServerProcess]:
    """A server that also requires client certificates from the test CA."""
    client = ClientTls(ca=pki.ca, cert=pki.client_cert, key=pki.client_key)
    with ServerProcess(*_tls_flags(pki, True), tls=client) as server:
        yield server


def _call(server: ServerProcess, tls: ClientTls | None) -> grpc.StatusCode:
    """The status of one GameService call to the server over a new channel (TLS as ``tls`` says)."""
    from service.ops.tls import channel

    with channel(server.address, tls) as chan:
        return code_of(pb_grpc.GameServiceStub(chan).GetGame, MISSING, timeout=5)


def _healthcheck(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("TLS_")}
    return subprocess.run([sys.executable, "-m", "service.healthcheck", "--timeout", "5", *args], cwd=ROOT,
                          env={**environment, **(env or {})}, capture_output=True, text=True, timeout=TIMEOUT_S)


def _https(port: int, context: ssl.SSLContext) -> int:
    """The HTTP status of a Connect GetGame call over TLS."""
    connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)
    try:
        connection.request("POST", "/cardgame.v1.GameService/GetGame", body=b'{"gameId": "' + b"0" * 24 + b'"}',
                           headers={"content-type": "application/json"})
        return connection.getresponse().status
    finally:
        connection.close()


def test_a_tls_server_answers_tls_clients_and_refuses_plaintext(pki: Pki, tls_server: ServerProcess):
    assert _call(tls_server, ClientTls(ca=pki.ca)) == grpc.StatusCode.NOT_FOUND
    assert _call(tls_server, ClientTls(ca=pki.ca, server_name="localhost")) == grpc.StatusCode.NOT_FOUND
    assert _call(tls_server, None) == grpc.StatusCode.UNAVAILABLE
    assert _call(tls_server, ClientTls(ca=pki.client_cert)) == grpc.StatusCode.UNAVAILABLE  # an untrusted server
    assert "(store: memory, TLS: on, version " in tls_server.log_text()


def test_the_http_port_speaks_tls_too(pki: Pki, tls_server: ServerProcess):
    port = tls_server.http_port
    assert _https(port, ssl.create_default_context(cafile=pki.ca)) == 404  # Connect's not_found
    plain = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        with pytest.raises((http.client.HTTPException, ConnectionError)):
            plain.request("GET", "/")
            plain.getresponse()
    finally:
        plain.close()


def test_the_health_check_reaches_a_tls_server(pki: Pki, tls_server: ServerProcess):
    assert _healthcheck("--address", tls_server.address, "--tls-ca", pki.ca).returncode == 0
    # beside the server in its container: the same TLS_CERT, and the CA in TLS_CA
    beside = {"PORT": str(tls_server.port), "TLS_CERT": pki.server_cert, "TLS_KEY": pki.server_key, "TLS_CA": pki.ca}
    assert _healthcheck(env=beside).returncode == 0
    plain = _healthcheck("--address", tls_server.address)
    assert plain.returncode == 1 and "UNAVAILABLE" in plain.stderr


def test_a_mutual_tls_server_requires_a_client_certificate_from_its_ca(pki: Pki, mtls_server: ServerProcess):
    assert _call(mtls_server, ClientTls(ca=pki.ca, cert=pki.client_cert, key=pki.client_key)) == \
        grpc.StatusCode.NOT_FOUND
    assert _call(mtls_server, ClientTls(ca=pki.ca)) == grpc.StatusCode.UNAVAILABLE
    assert _call(mtls_server, ClientTls(ca=pki.ca, cert=pki.rogue_cert, key=pki.rogue_key)) == \
        grpc.StatusCode.UNAVAILABLE
    assert _call(mtls_server, None) == grpc.StatusCode.UNAVAILABLE
    assert "(store: memory, TLS: mutual, version " in mtls_server.log_text()


def test_mutual_tls_on_the_http_port_and_for_the_health_check(pki: Pki, mtls_server: ServerProcess):
    port = mtls_server.http_port
    with_cert = ssl.create_default_context(cafile=pki.ca)
    with_cert.load_cert_chain(pki.client_cert, pki.client_key)
    assert _https(port, with_cert) == 404
    with pytest.raises((ssl.SSLError, ConnectionError)):
        _https(port, ssl.create_default_context(cafile=pki.ca))
    address = ("--address", mtls_server.address, "--tls-ca", pki.ca)
    assert _healthcheck(*address, "--tls-client-cert", pki.client_cert, "--tls-client-key",
                        pki.client_key).returncode == 0
    assert _healthcheck(*address, env={"TLS_CLIENT_CERT": pki.client_cert,
                                       "TLS_CLIENT_KEY": pki.client_key}).returncode == 0
    refused = _healthcheck(*address)
    assert refused.returncode == 1 and "UNAVAILABLE" in refused.stderr


@pytest.mark.parametrize("flags, message", [
    (("--tls-cert", "{server_cert}"), "give both --tls-cert and --tls-key"),
    (("--tls-client-ca", "{ca}"), "--tls-client-ca needs --tls-cert and --tls-key"),
    (("--tls-cert", "{server_cert}", "--tls-key", "{client_key}"), "cannot use the certificate"),
    (("--tls-cert", "{server_cert}", "--tls-key", "{server_key}", "--tls-client-ca", "/no/such/ca.pem"),
     "cannot use the client CA file"),
])
def test_unusable_tls_settings_are_refused_at_start(pki: Pki, flags: tuple[str, ...], message: str):
    args = [flag.format(**vars(pki)) for flag in flags]
    done = subprocess.run([sys.executable, "-m", "service", "--port", "0", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=TIMEOUT_S, env={**os.environ, "CARDGAME_TOKEN_SECRET": TEST_TOKEN_SECRET})
    assert done.returncode == 2 and message in done.stderr, done.stderr
