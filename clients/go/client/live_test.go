package client_test

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/cardgame-rules/cardgame/clients/go/client"
	cardgamev1 "github.com/cardgame-rules/cardgame/clients/go/gen/cardgame/v1"
)

// The tests in this file play against a live server, whose gRPC address CARDGAME_SERVER gives
// (host:port; `make run` at the repository's top serves one on 127.0.0.1:50051):
//
//	CARDGAME_SERVER=127.0.0.1:50051 go test ./...
//
// Without it they skip, saying why, so that `go test ./...` passes on a machine with no server;
// with CARDGAME_REQUIRE_SERVER set as well (tests/clients/test_go_client.py sets both) a missing
// address fails them instead, so a run meant to reach a server never passes by skipping.

const (
	// liveTimeout bounds each live test.
	liveTimeout = 2 * time.Minute
	// maxMoves bounds the moves of seat 0 in one whole game (a long Spades game takes some
	// hundreds).
	maxMoves = 5000
)

// live returns a client of the server CARDGAME_SERVER names and a context that ends with the
// test (or after liveTimeout), or skips (fails, with CARDGAME_REQUIRE_SERVER) without one.
func live(t *testing.T) (*client.Client, context.Context) {
	t.Helper()
	address := os.Getenv("CARDGAME_SERVER")
	if address == "" {
		if os.Getenv("CARDGAME_REQUIRE_SERVER") != "" {
			t.Fatal("CARDGAME_SERVER is not set, and CARDGAME_REQUIRE_SERVER says a server is required: " +
				"set CARDGAME_SERVER to the server's gRPC address (host:port)")
		}
		t.Skip("CARDGAME_SERVER is not set: set it to a cardgame server's gRPC address (host:port; " +
			"`make run` serves one on 127.0.0.1:50051) to run the tests against a live server")
	}
	c, err := client.Dial(address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), liveTimeout)
	t.Cleanup(cancel)
	return c, ctx
}

// create makes a game of game with its first `humans` seats human and basic bots in the others,
// seat 0 dealing first; it returns the answer and each human seat's context (its token).
func create(t *testing.T, ctx context.Context, c *client.Client, game *cardgamev1.GameDeclaration,
	humans int) (*cardgamev1.CreateGameResponse, []context.Context) {
	t.Helper()
	seats := make([]*cardgamev1.SeatConfig, game.Seats)
	for seat := range seats {
		seats[seat] = &cardgamev1.SeatConfig{Name: "Go " + string(rune('A'+seat)), Kind: cardgamev1.PlayerKind_PLAYER_KIND_BOT_BASIC}
		if seat < humans {
			seats[seat].Kind = cardgamev1.PlayerKind_PLAYER_KIND_HUMAN
		}
	}
	first := int32(0)
	created, err := c.CreateGame(ctx, &cardgamev1.CreateGameRequest{
		VariantName: game.Name, Seats: seats, FirstDealer: &first, RequestId: client.NewRequestID(),
	})
	if err != nil {
		t.Fatalf("CreateGame %s: %v", game.Name, err)
	}
	if len(created.SeatTokens) != humans {
		t.Fatalf("CreateGame %s: %d seat tokens for %d human seats", game.Name, len(created.SeatTokens), humans)
	}
	contexts := make([]context.Context, humans)
	for _, token := range created.SeatTokens {
		contexts[token.Seat] = client.WithSeatToken(ctx, token.Token)
	}
	return created, contexts
}

// view is GetGame's view for the caller ctx carries.
func view(t *testing.T, ctx context.Context, c *client.Client, gameID string) *cardgamev1.GameView {
	t.Helper()
	got, err := c.GetGame(ctx, &cardgamev1.GetGameRequest{GameId: gameID})
	if err != nil {
		t.Fatalf("GetGame: %v", err)
	}
	return got.View
}

// onTurn returns a seat with legal actions and one without, from each seat's view.
func onTurn(t *testing.T, views []*cardgamev1.GameView) (acting, waiting int) {
	t.Helper()
	acting, waiting = -1, -1
	for seat, v := range views {
		if len(v.LegalActions) > 0 && acting < 0 {
			acting = seat
		} else if len(v.LegalActions) == 0 && waiting < 0 {
			waiting = seat
		}
	}
	if acting < 0 || waiting < 0 {
		t.Fatalf("no seat to act and another to wait among %d views", len(views))
	}
	return acting, waiting
}

// TestPlaysEveryGameToTheEnd plays a whole game of every game the schema declares, seat 0 against
// bots, each of seat 0's moves a random one of its view's legal actions (by Notation), with
// expected_version; when seat 0 has nothing to do it waits on Watch. Then GetScore agrees
// with the last view.
func TestPlaysEveryGameToTheEnd(t *testing.T) {
	c, ctx := live(t)
	for index, game := range client.Games() {
		t.Run(game.Name, func(t *testing.T) {
			created, seats := create(t, ctx, c, game, 1)
			current := view(t, seats[0], c, created.GameId)
			rng := rand.New(rand.NewPCG(uint64(index), 7))
			moves := 0
			for current.Status != cardgamev1.GameStatus_GAME_STATUS_FINISHED {
				if moves == maxMoves {
					t.Fatalf("%s not over after %d moves of seat 0", game.Name, moves)
				}
				if len(current.LegalActions) == 0 {
					current = nextView(t, seats[0], c, current)
					continue
				}
				action := client.Notation(current.LegalActions[rng.IntN(len(current.LegalActions))])
				version := current.Version
				acted, err := c.Act(seats[0], &cardgamev1.ActRequest{
					GameId: created.GameId, RequestId: client.NewRequestID(), ExpectedVersion: &version, Action: action,
				})
				if err != nil {
					t.Fatalf("Act %q at version %d: %v", action, version, err)
				}
				if acted.View.Version <= version {
					t.Fatalf("Act %q left the game at version %d (was %d)", action, acted.View.Version, version)
				}
				current = acted.View
				moves++
			}
			if len(current.LegalActions) != 0 {
				t.Errorf("a finished game offers %d legal actions", len(current.LegalActions))
			}
			score, err := c.GetScore(ctx, &cardgamev1.GetScoreRequest{GameId: created.GameId})
			if err != nil {
				t.Fatalf("GetScore: %v", err)
			}
			if len(score.Hands) == 0 || score.Hands[0].HandNumber != 1 {
				t.Fatalf("GetScore of a finished game lists hands %v", score.Hands)
			}
			if score.GetWinnerSide() != current.GetWinnerSide() || !slices.Equal(score.WinnerSeats, current.WinnerSeats) {
				t.Errorf("GetScore's winner (side %d, seats %v) is not the view's (side %d, seats %v)",
					score.GetWinnerSide(), score.WinnerSeats, current.GetWinnerSide(), current.WinnerSeats)
			}
			t.Logf("%s: %d moves of seat 0, %d hands, winner seats %v", game.Name, moves, len(score.Hands), score.WinnerSeats)
		})
	}
}

// nextView waits through Watch for a view newer than current.
func nextView(t *testing.T, ctx context.Context, c *client.Client, current *cardgamev1.GameView) *cardgamev1.GameView {
	t.Helper()
	for view, err := range c.Watch(ctx, current.GameId, current.Version) {
		if err != nil {
			t.Fatalf("Watch from version %d: %v", current.Version, err)
		}
		return view
	}
	t.Fatalf("Watch from version %d ended with no view", current.Version)
	return nil
}

// TestARefusedMoveSaysWhyAndChangesNothing sends the action of the seat on turn from another
// seat (NOT_YOUR_TURN), a stale expected_version (ABORTED), a move from a spectator
// (PERMISSION_DENIED) and a move in a game that does not exist (NOT_FOUND), each refused with
// the game unchanged.
func TestARefusedMoveSaysWhyAndChangesNothing(t *testing.T) {
	c, ctx := live(t)
	game := client.Games()[0]
	created, seats := create(t, ctx, c, game, int(game.Seats))
	views := make([]*cardgamev1.GameView, len(seats))
	for seat := range seats {
		views[seat] = view(t, seats[seat], c, created.GameId)
	}
	acting, waiting := onTurn(t, views)
	action := client.Notation(views[acting].LegalActions[0])
	before := views[acting].Version

	_, err := c.Act(seats[waiting], &cardgamev1.ActRequest{GameId: created.GameId, RequestId: client.NewRequestID(), Action: action})
	if status.Code(err) != codes.FailedPrecondition || client.Reason(err) != "NOT_YOUR_TURN" {
		t.Errorf("seat %d sending seat %d's %q: got %v (reason %q), want FailedPrecondition NOT_YOUR_TURN",
			waiting, acting, action, err, client.Reason(err))
	}
	stale := before - 1
	_, err = c.Act(seats[acting], &cardgamev1.ActRequest{
		GameId: created.GameId, RequestId: client.NewRequestID(), ExpectedVersion: &stale, Action: action,
	})
	if status.Code(err) != codes.Aborted {
		t.Errorf("a stale expected_version: got %v, want Aborted", err)
	}
	_, err = c.Act(ctx, &cardgamev1.ActRequest{GameId: created.GameId, RequestId: client.NewRequestID(), Action: action})
	if status.Code(err) != codes.PermissionDenied {
		t.Errorf("a spectator's move: got %v, want PermissionDenied", err)
	}
	_, err = c.GetGame(ctx, &cardgamev1.GetGameRequest{GameId: strings.Repeat("0", len(created.GameId))})
	if status.Code(err) != codes.NotFound {
		t.Errorf("GetGame of a game that does not exist: got %v, want NotFound", err)
	}
	if after := view(t, seats[acting], c, created.GameId); after.Version != before || !proto.Equal(after.LegalActions[0], views[acting].LegalActions[0]) {
		t.Errorf("the refused moves changed the game: version %d, was %d", after.Version, before)
	}
}

// TestARetriedRequestIDAppliesOnce sends CreateGame and a move twice each with the same request
// id, as gRPC's retries do: the second answer is the first one, and the game moved once.
func TestARetriedRequestIDAppliesOnce(t *testing.T) {
	c, ctx := live(t)
	game := client.Games()[0]
	request := &cardgamev1.CreateGameRequest{VariantName: game.Name, RequestId: client.NewRequestID()}
	for range game.Seats {
		request.Seats = append(request.Seats, &cardgamev1.SeatConfig{Name: "Go"})
	}
	created, err := c.CreateGame(ctx, request)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.CreateGame(ctx, request)
	if err != nil {
		t.Fatal(err)
	}
	if again.GameId != created.GameId || !proto.Equal(again.SeatTokens[0], created.SeatTokens[0]) {
		t.Fatalf("CreateGame retried with request id %s made game %s, then %s", request.RequestId, created.GameId, again.GameId)
	}

	seats := make([]context.Context, len(created.SeatTokens))
	views := make([]*cardgamev1.GameView, len(created.SeatTokens))
	for _, token := range created.SeatTokens {
		seats[token.Seat] = client.WithSeatToken(ctx, token.Token)
		views[token.Seat] = view(t, seats[token.Seat], c, created.GameId)
	}
	acting, _ := onTurn(t, views)
	move := &cardgamev1.ActRequest{
		GameId: created.GameId, RequestId: client.NewRequestID(), Action: client.Notation(views[acting].LegalActions[0]),
	}
	first, err := c.Act(seats[acting], move)
	if err != nil {
		t.Fatalf("Act %q: %v", move.Action, err)
	}
	if first.View.Version <= views[acting].Version {
		t.Fatalf("Act %q did not move the game (version %d)", move.Action, first.View.Version)
	}
	second, err := c.Act(seats[acting], move)
	if err != nil {
		t.Fatalf("Act %q again with the same request id: %v", move.Action, err)
	}
	if second.View.Version != first.View.Version || !slices.Equal(second.View.Hand, first.View.Hand) {
		t.Errorf("the retried move answered version %d, the first %d", second.View.Version, first.View.Version)
	}
	if now := view(t, seats[acting], c, created.GameId); now.Version != first.View.Version {
		t.Errorf("after the retry the game is at version %d, after the move at %d: applied twice", now.Version, first.View.Version)
	}
}

// TestWatchGameStreamsTheMoves watches a game as a spectator: the stream starts with the current
// view and then brings one at the version a move led to.
func TestWatchGameStreamsTheMoves(t *testing.T) {
	c, ctx := live(t)
	game := client.Games()[0]
	created, seats := create(t, ctx, c, game, 1)
	watching, stop := context.WithCancel(ctx)
	defer stop()
	stream, err := c.WatchGame(watching, &cardgamev1.WatchGameRequest{GameId: created.GameId})
	if err != nil {
		t.Fatal(err)
	}
	got, err := stream.Recv()
	if err != nil {
		t.Fatalf("WatchGame's first view: %v", err)
	}
	start := view(t, seats[0], c, created.GameId)
	if got.View.Version != start.Version || got.View.ViewerSeat != nil || len(got.View.LegalActions) != 0 {
		t.Fatalf("the stream began at version %d (seat %v, %d legal actions), the game is at %d",
			got.View.Version, got.View.ViewerSeat, len(got.View.LegalActions), start.Version)
	}
	acted, err := c.Act(seats[0], &cardgamev1.ActRequest{
		GameId: created.GameId, RequestId: client.NewRequestID(), Action: client.Notation(start.LegalActions[0]),
	})
	if err != nil {
		t.Fatal(err)
	}
	for got.View.Version < acted.View.Version { // views in between may be skipped, none repeated
		previous := got.View.Version
		if got, err = stream.Recv(); err != nil {
			t.Fatalf("WatchGame after version %d: %v", previous, err)
		}
		if got.View.Version <= previous {
			t.Fatalf("WatchGame sent version %d after %d", got.View.Version, previous)
		}
	}
	if got.View.Version != acted.View.Version {
		t.Errorf("WatchGame went past version %d to %d", acted.View.Version, got.View.Version)
	}
}
