"""Server reflection under both of its names: ``grpc.reflection.v1`` and ``grpc.reflection.v1alpha``.

grpcio-reflection serves only v1alpha, while current tools (grpcurl, Postman, grpcui) ask v1
first. The two versions are the same protocol: v1's ``reflection.proto`` is v1alpha's with the
package renamed, field for field and number for number, so their messages are the same bytes.
v1 is therefore served by the same servicer under v1's method name, and its descriptor, v1alpha's
renamed, joins the default descriptor pool, so reflection describes both versions of itself.
"""

from __future__ import annotations

from collections.abc import Iterable

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection
from grpc_reflection.v1alpha import reflection_pb2 as v1alpha

V1ALPHA = reflection.SERVICE_NAME
V1 = "grpc.reflection.v1.ServerReflection"
V1_FILE = "grpc/reflection/v1/reflection.proto"
_METHOD = "ServerReflectionInfo"


def _add_v1_descriptor(pool: descriptor_pool.DescriptorPool) -> None:
    """Add v1's reflection.proto (v1alpha's, renamed) to ``pool``, unless it is there already."""
    try:
        pool.FindFileByName(V1_FILE)
        return
    except KeyError:
        pass
    file = descriptor_pb2.FileDescriptorProto()
    v1alpha.DESCRIPTOR.CopyToProto(file)
    old, new = f".{file.package}.", ".grpc.reflection.v1."
    file.name, file.package = V1_FILE, "grpc.reflection.v1"
    file.ClearField("options")
    for message in file.message_type:
        for field in message.field:
            if field.type_name.startswith(old):
                field.type_name = new + field.type_name[len(old):]
    for service in file.service:
        for method in service.method:
            method.input_type = new + method.input_type[len(old):]
            method.output_type = new + method.output_type[len(old):]
    pool.Add(file)


def enable(service_names: Iterable[str], server: grpc.aio.Server) -> None:
    """Serve reflection, v1 and v1alpha, on ``server`` for ``service_names`` (both reflection
    services are added to the list)."""
    _add_v1_descriptor(descriptor_pool.Default())
    servicer = reflection.aio.ReflectionServicer((*service_names, V1, V1ALPHA))
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo, request_deserializer=v1alpha.ServerReflectionRequest.FromString,
        response_serializer=v1alpha.ServerReflectionResponse.SerializeToString)
    for name in (V1, V1ALPHA):
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(name, {_METHOD: handler}),))
