// Package client calls the cardgame.v1.GameService over gRPC with the stubs generated from
// proto/ (package cardgamev1, github.com/cardgame-rules/cardgame/clients/go/gen/cardgame/v1).
//
// Dial opens a connection whose calls gRPC retries when the server refuses them as UNAVAILABLE
// or RESOURCE_EXHAUSTED (ServiceConfig), and a call's context carries its credentials: a seat
// token (WithSeatToken) or a backend's API key (WithAPIKey). Every mutating request takes a
// request id, which NewRequestID makes: a retry with the same id returns the first answer and
// changes nothing, so gRPC's retries, which resend the same request, never apply a move twice.
// A move the rules refuse fails with FAILED_PRECONDITION and a stable reason code (Reason).
// Notation turns one of a view's legal actions into what Act takes, and Games lists the games
// the schema declares, with their names and seats.
package client

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	cardgamev1 "github.com/cardgame-rules/cardgame/clients/go/gen/cardgame/v1"
)

// ServiceConfig is the gRPC service config Dial gives a connection, the retry policy the Python
// client's channel carries (cardgame.retry): an attempt refused as UNAVAILABLE (a busy or
// restarting server) or RESOURCE_EXHAUSTED is sent again, up to 5 attempts in all, after a
// backoff of at most 0.02 s, 0.04 s, 0.08 s and 0.16 s (with jitter), within the call's own
// deadline, and as the server's retry pushback says (none when it says not to retry). Retry
// throttling stops the retries once failures outnumber successes, so they never multiply a
// server's overload. DeleteGame, which has no request id, is not retried.
const ServiceConfig = `{
  "methodConfig": [
    {"name": [{"service": "cardgame.v1.GameService"}],
     "retryPolicy": {"maxAttempts": 5, "initialBackoff": "0.02s", "maxBackoff": "0.5s", "backoffMultiplier": 2,
                     "retryableStatusCodes": ["UNAVAILABLE", "RESOURCE_EXHAUSTED"]}},
    {"name": [{"service": "cardgame.v1.GameService", "method": "DeleteGame"}]}
  ],
  "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}
}`

// Client is a connection to a server and the GameService stub on it.
type Client struct {
	cardgamev1.GameServiceClient
	Conn *grpc.ClientConn
}

// Dial makes a client of the server at target ("host:port"; any gRPC target). The connection
// is plaintext and retries as ServiceConfig says; opts come after those defaults and so
// override them: grpc.WithTransportCredentials(credentials.NewTLS(...)) for a server that
// speaks TLS, grpc.WithDisableRetry() for no retries. Like grpc.NewClient, Dial does not
// connect: the first call does, and a server it cannot reach fails that call with UNAVAILABLE.
func Dial(target string, opts ...grpc.DialOption) (*Client, error) {
	defaults := []grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultServiceConfig(ServiceConfig),
	}
	conn, err := grpc.NewClient(target, append(defaults, opts...)...)
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

// NewRequestID returns a random UUID (version 4) for a mutating request's request_id. Send the
// same id again to retry a request whose answer was lost: the server answers as it did the
// first time and applies nothing twice.
func NewRequestID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// Reason returns the stable reason code of a refused call: the reason of the
// google.rpc.ErrorInfo its gRPC status carries, such as "WRONG_PHASE", "NOT_YOUR_TURN" or
// "MUST_FOLLOW_SUIT" for a move the rules do not allow now (FAILED_PRECONDITION), or "" when
// err carries none (nil, not a gRPC status, or a status without an ErrorInfo).
func Reason(err error) string {
	var carrier interface{ GRPCStatus() *status.Status }
	if err == nil || !errors.As(err, &carrier) {
		return ""
	}
	for _, detail := range carrier.GRPCStatus().Details() {
		if info, ok := detail.(*errdetails.ErrorInfo); ok {
			return info.GetReason()
		}
	}
	return ""
}

// Notation returns what ActRequest.action takes for one of a view's legal actions: its
// notation as listed ("play AS", "bid 4", "deal") or, for an action that chooses cards (an
// exchange, a discard, a pass: MaxCards above 0), its notation followed by the fewest cards it
// allows, the first ones offered ("exchange 2C 3D 4H"). To choose other cards, join the
// notation and them with spaces yourself.
func Notation(action *cardgamev1.LegalAction) string {
	if action.GetMaxCards() == 0 {
		return action.GetNotation()
	}
	cards := action.GetCards()[:min(int(action.GetMinCards()), len(action.GetCards()))]
	return strings.Join(append([]string{action.GetNotation()}, cards...), " ")
}

// Games returns the games the schema declares (each case of RuleOptions' variant oneof carries
// its games as the (cardgame.v1.games) field option): each one's registry name for
// CreateGameRequest.variant_name, title, number of seats, the option that sets its length and
// Variant value. A server may play more games than the stubs it was generated with declare.
func Games() []*cardgamev1.GameDeclaration {
	var games []*cardgamev1.GameDeclaration
	fields := (&cardgamev1.RuleOptions{}).ProtoReflect().Descriptor().Oneofs().ByName("variant").Fields()
	for i := 0; i < fields.Len(); i++ {
		declared, _ := proto.GetExtension(fields.Get(i).Options(), cardgamev1.E_Games).([]*cardgamev1.GameDeclaration)
		games = append(games, declared...)
	}
	return games
}
