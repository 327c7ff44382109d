package client

import (
	"fmt"

	"google.golang.org/grpc/encoding"
	"google.golang.org/protobuf/proto"
)

// codec is gRPC's "proto" codec on google.golang.org/protobuf, the runtime the generated stubs
// are written for. It replaces the codec gRPC registers itself: Debian's gRPC (1.33) marshals
// through github.com/golang/protobuf 1.3, which cannot read the struct layout protoc-gen-go
// 1.28 generates (it panics on the first message). Importing this package installs it.
type codec struct{}

func init() {
	encoding.RegisterCodec(codec{})
}

func (codec) Name() string { return "proto" }

func (codec) Marshal(v interface{}) ([]byte, error) {
	message, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("proto codec: %T is not a protocol buffers message", v)
	}
	return proto.Marshal(message)
}

func (codec) Unmarshal(data []byte, v interface{}) error {
	message, ok := v.(proto.Message)
	if !ok {
		return fmt.Errorf("proto codec: %T is not a protocol buffers message", v)
	}
	return proto.Unmarshal(data, message)
}
