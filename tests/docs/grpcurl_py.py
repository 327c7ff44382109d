"""A grpcurl work-alike for the part of grpcurl the documentation's shell blocks use, through grpcio.

``python tests/docs/grpcurl_py.py [-plaintext] [-H 'name: value']... [-d JSON] [-max-time S] ADDRESS
(list [SERVICE] | SERVICE/METHOD)``. Like grpcurl it learns every type from the server's
reflection service (no .proto files, no generated stubs), reads the request as proto JSON
(lowerCamelCase names, enums by name), prints each response as indented JSON without default
values, prints a failed call's status and its details (their types also found through
reflection) to stderr as ``ERROR:`` / ``Code:`` / ``Message:`` / ``Details:``, and exits with
64 + the status code (``list``: 0).
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
from typing import Any

import grpc
from google.protobuf import any_pb2, descriptor_pool, json_format, message_factory
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase
from grpc_status import rpc_status

STATUS_CODE_OFFSET = 64


def camel(code: grpc.StatusCode) -> str:
    """grpc-go's name of a status code: FAILED_PRECONDITION → FailedPrecondition."""
    return {"CANCELLED": "Canceled"}.get(code.name, "".join(p.capitalize() for p in code.name.split("_")))


def to_json(message: Any) -> str:
    """A message as grpcurl prints it (proto JSON, two-space indent, defaults left out)."""
    return json_format.MessageToJson(message, indent=2)


def detail_json(detail: any_pb2.Any, pool: descriptor_pool.DescriptorPool) -> str:
    """One status detail as JSON, its type found through reflection (as grpcurl finds it), or
    grpcurl's stand-in with the raw bytes when the server does not describe the type."""
    name = detail.type_url.rpartition("/")[2]
    try:
        message = message_factory.GetMessageClass(pool.FindMessageTypeByName(name))()
    except KeyError:
        return json.dumps({"@error": f"{name} is not recognized; see @value for raw binary message data",
                           "@type": detail.type_url, "@value": base64.b64encode(detail.value).decode()}, indent=2)
    message.ParseFromString(detail.value)
    fields = json.loads(json_format.MessageToJson(message))
    return json.dumps({"@type": detail.type_url, **fields}, indent=2)


def print_status(error: grpc.RpcError, pool: descriptor_pool.DescriptorPool) -> int:
    """Print a failed call as grpcurl does and return grpcurl's exit code for it."""
    assert isinstance(error, grpc.Call)
    code = error.code()
    lines = ["ERROR:", f"  Code: {camel(code)}", f"  Message: {error.details()}"]
    status = rpc_status.from_call(error)
    if status is not None and status.details:
        lines.append("  Details:")
        for i, detail in enumerate(status.details, 1):
            lines.append(f"  {i})\t" + detail_json(detail, pool).replace("\n", "\n  "))
    print("\n".join(lines), file=sys.stderr)
    return STATUS_CODE_OFFSET + code.value[0]


def main(argv: list[str]) -> int:
    """Run one grpcurl command line."""
    parser = argparse.ArgumentParser(prog="grpcurl", prefix_chars="-")
    parser.add_argument("-plaintext", action="store_true")
    parser.add_argument("-H", action="append", default=[], dest="headers")
    parser.add_argument("-d", dest="data", default="")
    parser.add_argument("-max-time", dest="max_time", type=float, default=None)
    parser.add_argument("address")
    parser.add_argument("verb")
    parser.add_argument("symbol", nargs="?")
    args = parser.parse_args(argv)
    if not args.plaintext:
        parser.error("only -plaintext connections are supported")
    metadata = []
    for header in args.headers:
        name, _, value = header.partition(":")
        metadata.append((name.strip().lower(), value.strip()))
    with grpc.insecure_channel(args.address) as channel:
        database = ProtoReflectionDescriptorDatabase(channel)
        if args.verb == "list":
            if args.symbol:
                pool = descriptor_pool.DescriptorPool(database)
                service = pool.FindServiceByName(args.symbol)
                print("\n".join(f"{service.full_name}.{m.name}" for m in service.methods))
            else:
                print("\n".join(sorted(database.get_services())))
            return 0
        return invoke(channel, database, args.verb, args.data, metadata, args.max_time)


def invoke(channel: grpc.Channel, database: ProtoReflectionDescriptorDatabase, symbol: str, data: str,
           metadata: list[tuple[str, str]], max_time: float | None) -> int:
    """Call ``service/method`` (unary or server streaming) with the JSON request ``data``."""
    service_name, _, method_name = symbol.replace("/", ".").rpartition(".")
    pool = descriptor_pool.DescriptorPool(database)
    method = pool.FindServiceByName(service_name).FindMethodByName(method_name)
    request_class = message_factory.GetMessageClass(method.input_type)
    response_class = message_factory.GetMessageClass(method.output_type)
    request = json_format.Parse(data or "{}", request_class())
    path = f"/{service_name}/{method_name}"
    options: dict[str, Any] = {"metadata": metadata or None, "timeout": max_time}
    try:
        if method.server_streaming:
            call = channel.unary_stream(path, request_serializer=request_class.SerializeToString,
                                        response_deserializer=response_class.FromString)
            for response in call(request, **options):
                print(to_json(response), flush=True)
        else:
            unary = channel.unary_unary(path, request_serializer=request_class.SerializeToString,
                                        response_deserializer=response_class.FromString)
            print(to_json(unary(request, **options)))
    except grpc.RpcError as error:
        return print_status(error, pool)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except json_format.ParseError as exc:
        print(f"Error invoking method: {json.dumps(str(exc))}", file=sys.stderr)
        sys.exit(1)
