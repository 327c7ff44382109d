// Command playhand plays one hand against a cardgame server over gRPC: it creates a game with a
// fixed first dealer, a human seat 0 for itself and bots in the other seats, then makes seat 0's
// moves, each one chosen from the legal actions of its view, until the first hand is scored, and
// prints that hand's score. It exits with status 1 (and the reason on stderr) when a call fails.
//
//	playhand -server 127.0.0.1:50051 -game spades -seats 4 -first-dealer 0
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"time"

	"github.com/cardgame-rules/cardgame/clients/go/client"
	cardgamev1 "github.com/cardgame-rules/cardgame/clients/go/gen/cardgame/v1"
)

// maxMoves bounds the moves of one hand (a hand of Spades takes seat 0 at most 13 plays, a bid,
// a reveal and a deal; every game's hand fits well within it).
const maxMoves = 200

// idleWait is how long to wait before asking again when seat 0 has nothing to do.
const idleWait = 50 * time.Millisecond

type options struct {
	server      string
	game        string
	seats       int
	firstDealer int
	bot         string
	seed        int64
	apiKey      string
	timeout     time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.server, "server", envOr("CARDGAME_SERVER", "127.0.0.1:50051"), "gRPC address of the server (CARDGAME_SERVER)")
	flag.StringVar(&o.game, "game", "spades", "the game, by name: spades, spades2, buck_euchre, hearts")
	flag.IntVar(&o.seats, "seats", 4, "the game's number of players (2 for spades2)")
	flag.IntVar(&o.firstDealer, "first-dealer", 0, "the seat that deals the first hand")
	flag.StringVar(&o.bot, "bot", "basic", "the bots in seats 1 and up: random, basic or strong")
	flag.Int64Var(&o.seed, "seed", 1, "seed of the choice among seat 0's legal actions")
	flag.StringVar(&o.apiKey, "api-key", os.Getenv("CARDGAME_API_KEY"), "API key for CreateGame, on a server that requires one (CARDGAME_API_KEY)")
	flag.DurationVar(&o.timeout, "timeout", time.Minute, "give up after this long")
	flag.Parse()
	if err := run(o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "playhand:", err)
		os.Exit(1)
	}
}

func envOr(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}

var bots = map[string]cardgamev1.PlayerKind{
	"random": cardgamev1.PlayerKind_PLAYER_KIND_BOT_RANDOM,
	"basic":  cardgamev1.PlayerKind_PLAYER_KIND_BOT_BASIC,
	"strong": cardgamev1.PlayerKind_PLAYER_KIND_BOT_STRONG,
}

func run(o options, out io.Writer) error {
	bot, ok := bots[o.bot]
	if !ok {
		return fmt.Errorf("-bot must be random, basic or strong, not %q", o.bot)
	}
	if o.seats < 2 || o.firstDealer < 0 || o.firstDealer >= o.seats {
		return fmt.Errorf("-seats must be at least 2 and -first-dealer a seat below it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	c, err := client.Dial(o.server)
	if err != nil {
		return err
	}
	defer c.Close()

	seats := []*cardgamev1.SeatConfig{{Name: "Go player", Kind: cardgamev1.PlayerKind_PLAYER_KIND_HUMAN}}
	for seat := 1; seat < o.seats; seat++ {
		seats = append(seats, &cardgamev1.SeatConfig{Name: fmt.Sprintf("Bot %d", seat), Kind: bot})
	}
	firstDealer := int32(o.firstDealer)
	createCtx := ctx
	if o.apiKey != "" {
		createCtx = client.WithAPIKey(ctx, o.apiKey)
	}
	created, err := c.CreateGame(createCtx, &cardgamev1.CreateGameRequest{
		VariantName: o.game, Seats: seats, FirstDealer: &firstDealer, RequestId: client.NewRequestID(),
	})
	if err != nil {
		return fmt.Errorf("CreateGame: %w", err)
	}
	if len(created.SeatTokens) != 1 || created.SeatTokens[0].Seat != 0 {
		return fmt.Errorf("CreateGame returned %d seat tokens, expected one for seat 0", len(created.SeatTokens))
	}
	gameID := created.GameId
	seatCtx := client.WithSeatToken(ctx, created.SeatTokens[0].Token)
	got, err := c.GetGame(seatCtx, &cardgamev1.GetGameRequest{GameId: gameID})
	if err != nil {
		return fmt.Errorf("GetGame: %w", err)
	}
	view := got.View
	fmt.Fprintf(out, "game %s: %s, first dealer seat %d, playing seat %d\n", gameID, view.VariantTitle, view.Dealer, view.GetViewerSeat())

	rng := rand.New(rand.NewSource(o.seed))
	moves := 0
	for !handScored(view) {
		if moves == maxMoves {
			return fmt.Errorf("the hand is not over after %d moves", maxMoves)
		}
		if len(view.LegalActions) == 0 {
			// Nothing to do until others have acted: ask again (WatchGame would push the change).
			select {
			case <-ctx.Done():
				return fmt.Errorf("waiting for a turn: %w", ctx.Err())
			case <-time.After(idleWait):
			}
			if got, err = c.GetGame(seatCtx, &cardgamev1.GetGameRequest{GameId: gameID}); err != nil {
				return fmt.Errorf("GetGame: %w", err)
			}
			view = got.View
			continue
		}
		action := client.Notation(view.LegalActions[rng.Intn(len(view.LegalActions))])
		version := view.Version
		acted, err := c.Act(seatCtx, &cardgamev1.ActRequest{
			GameId: gameID, RequestId: client.NewRequestID(), ExpectedVersion: &version, Action: action,
		})
		if err != nil {
			return fmt.Errorf("Act %q at version %d: %w", action, version, err)
		}
		moves++
		view = acted.View
		fmt.Fprintf(out, "move %d: %s (now version %d, %s)\n", moves, action, view.Version, view.Phase)
	}

	score, err := c.GetScore(seatCtx, &cardgamev1.GetScoreRequest{GameId: gameID})
	if err != nil {
		return fmt.Errorf("GetScore: %w", err)
	}
	if len(score.Hands) == 0 {
		return errors.New("GetScore lists no finished hand")
	}
	hand := score.Hands[0]
	fmt.Fprintf(out, "hand %d scored (dealer seat %d)\n", hand.HandNumber, hand.Dealer)
	for _, side := range hand.Sides {
		fmt.Fprintf(out, "side %d (seats %v): %d tricks, %d points, total %d\n",
			side.Side, side.Seats, side.Tricks, side.HandPoints, side.TotalAfter)
	}
	return nil
}

// handScored tells whether the first hand is over: the game waits for the next deal, has
// moved on to a later hand, or is over.
func handScored(view *cardgamev1.GameView) bool {
	return view.Status == cardgamev1.GameStatus_GAME_STATUS_FINISHED || view.HandNumber > 1 ||
		(view.PhaseName == "deal" && view.HandNumber >= 1)
}
