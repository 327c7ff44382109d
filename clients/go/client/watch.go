package client

import (
	"context"
	"errors"
	"io"
	"iter"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cardgamev1 "github.com/cardgame-rules/cardgame/clients/go/gen/cardgame/v1"
)

// WatchReconnectTimeout is how long Watch keeps reopening a lost stream before it gives up with
// the error that ended it; the first reopen after a stream delivered something is immediate.
var WatchReconnectTimeout = 30 * time.Second

// watchBackoff is the pause between two reopens that found the server still away.
const watchBackoff = 100 * time.Millisecond

// Watch returns the caller's views of a game after every change from fromVersion on (0: the
// current view first), ending after the game-over view. ctx carries the caller's credentials
// (WithSeatToken; none for a spectator) and ends the watch when done.
//
// A stream that ends early (a server draining for a restart answers UNAVAILABLE, reason
// SHUTTING_DOWN; a lost connection; a stream closed before game over) is reopened at once from
// the last version seen, so no view is repeated and none is missed; a server still away is
// tried again every 0.1 s for WatchReconnectTimeout. Any other refusal (NOT_FOUND,
// PERMISSION_DENIED, ...) ends the watch with its error, as the last pair of the sequence.
//
//	for view, err := range c.Watch(client.WithSeatToken(ctx, token), gameID, 0) {
//		if err != nil { return err }
//		show(view)
//	}
func (c *Client) Watch(ctx context.Context, gameID string, fromVersion int64) iter.Seq2[*cardgamev1.GameView, error] {
	return func(yield func(*cardgamev1.GameView, error) bool) {
		last := fromVersion
		var downSince time.Time
		for {
			received, err := c.watchOnce(ctx, gameID, &last, yield)
			if err == nil || errors.Is(err, errStop) {
				return
			}
			if ctx.Err() != nil {
				yield(nil, ctx.Err())
				return
			}
			if !reconnectable(err) {
				yield(nil, err)
				return
			}
			now := time.Now()
			if received || downSince.IsZero() {
				downSince = now // a new outage: reopen at once
			} else {
				if now.Sub(downSince) > WatchReconnectTimeout {
					yield(nil, err)
					return
				}
				select {
				case <-ctx.Done():
					yield(nil, ctx.Err())
					return
				case <-time.After(watchBackoff):
				}
			}
		}
	}
}

// errStop says the caller's loop stopped (or the game ended): the watch ends without an error.
var errStop = errors.New("watch stopped")

// errEnded is a stream that the server closed before the game was over.
var errEnded = status.Error(codes.Unavailable, "the watch stream ended before the game was over")

// watchOnce opens one WatchGame stream from *last and yields its new views; it reports whether
// any arrived, and nil (the game is over) or errStop (the caller stopped) or the stream's error.
func (c *Client) watchOnce(ctx context.Context, gameID string, last *int64,
	yield func(*cardgamev1.GameView, error) bool) (bool, error) {
	streamCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.WatchGame(streamCtx, &cardgamev1.WatchGameRequest{GameId: gameID, FromVersion: *last})
	if err != nil {
		return false, err
	}
	received := false
	for {
		message, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return received, errEnded
		}
		if err != nil {
			return received, err
		}
		view := message.GetView()
		if view.GetVersion() <= *last {
			continue
		}
		received = true
		*last = view.GetVersion()
		if !yield(view, nil) {
			return received, errStop
		}
		if view.GetPhaseName() == "game_over" {
			return received, nil
		}
	}
}

// reconnectable reports whether a watch stream's error is one to reopen the stream after (the
// caller's own context being still live): the server was unavailable (draining, restarting,
// unreachable), or the connection or a proxy broke the stream mid-way (CANCELLED, INTERNAL,
// UNKNOWN, or DEADLINE_EXCEEDED from a proxy's stream timeout), as the Python client's watch does.
func reconnectable(err error) bool {
	switch status.Code(err) {
	case codes.Unavailable, codes.Canceled, codes.Internal, codes.Unknown, codes.DeadlineExceeded:
		return true
	}
	return false
}
