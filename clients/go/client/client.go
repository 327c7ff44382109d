// Package client calls the cardgame.v1.GameService over gRPC with the stubs generated from
// proto/ (package cardgamev1): Dial opens a connection, and a call's context carries its
// credentials, a seat token (WithSeatToken) or a backend's API key (WithAPIKey). Every mutating
// request takes a request id, which NewRequestID makes: a retry with the same id returns the
// first answer and changes nothing.
package client

import (
	"context"
	"crypto/rand"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	cardgamev1 "cardgame/gen/cardgame/v1"
)

// Client is a connection to a server and the GameService stub on it.
type Client struct {
	cardgamev1.GameServiceClient
	Conn *grpc.ClientConn
}

// Dial connects to target ("host:port"). Without options the connection is plaintext
// (grpc.WithInsecure); pass grpc.WithTransportCredentials(...) for a server that speaks TLS.
func Dial(target string, opts ...grpc.DialOption) (*Client, error) {
	if len(opts) == 0 {
		opts = []grpc.DialOption{grpc.WithInsecure()}
	}
	conn, err := grpc.Dial(target, opts...)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", target, err)
	}
	return &Client{GameServiceClient: cardgamev1.NewGameServiceClient(conn), Conn: conn}, nil
}

// Close closes the connection.
func (c *Client) Close() error {
	return c.Conn.Close()
}

// WithSeatToken returns ctx with a seat token as the call's credentials
// ("authorization: Bearer <token>"): the call acts for that seat and sees its cards.
func WithSeatToken(ctx context.Context, token string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
}

// WithAPIKey returns ctx with a backend's API key ("x-api-key"), which CreateGame needs on a
// server configured with API keys.
func WithAPIKey(ctx context.Context, key string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "x-api-key", key)
}

// NewRequestID returns a random UUID (version 4) for a mutating request's request_id.
func NewRequestID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
