package client_test

import (
	"context"
	"fmt"
	"log"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cardgame-rules/cardgame/clients/go/client"
	cardgamev1 "github.com/cardgame-rules/cardgame/clients/go/gen/cardgame/v1"
)

// A game with one human seat and three bots, and its first move. Compiled by `go vet` and
// `go test`, not run: it needs a server (README.md's first game is run against one).
func Example() {
	ctx := context.Background()
	c, err := client.Dial("127.0.0.1:50051") // plaintext; pass grpc.WithTransportCredentials for TLS
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	first := int32(0)
	created, err := c.CreateGame(ctx, &cardgamev1.CreateGameRequest{
		VariantName: "spades", FirstDealer: &first, RequestId: client.NewRequestID(),
		Seats: []*cardgamev1.SeatConfig{
			{Name: "Ann"},
			{Name: "Bot 1", Kind: cardgamev1.PlayerKind_PLAYER_KIND_BOT_BASIC},
			{Name: "Bot 2", Kind: cardgamev1.PlayerKind_PLAYER_KIND_BOT_BASIC},
			{Name: "Bot 3", Kind: cardgamev1.PlayerKind_PLAYER_KIND_BOT_BASIC},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	seat := client.WithSeatToken(ctx, created.SeatTokens[0].Token)
	got, err := c.GetGame(seat, &cardgamev1.GetGameRequest{GameId: created.GameId})
	if err != nil {
		log.Fatal(err)
	}
	acted, err := c.Act(seat, &cardgamev1.ActRequest{
		GameId: created.GameId, RequestId: client.NewRequestID(), Action: client.Notation(got.View.LegalActions[0]),
	})
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("hand %d, version %d", acted.View.HandNumber, acted.View.Version)
}

func ExampleNotation() {
	fmt.Println(client.Notation(&cardgamev1.LegalAction{Notation: "play AS"}))
	fmt.Println(client.Notation(&cardgamev1.LegalAction{
		Notation: "exchange", Cards: []string{"2C", "3D", "4H", "KS"}, MinCards: 3, MaxCards: 3,
	}))
	// Output:
	// play AS
	// exchange 2C 3D 4H
}

func ExampleReason() {
	// A refusal as the server sends it: FAILED_PRECONDITION with an ErrorInfo.
	refused, _ := status.New(codes.FailedPrecondition, "no card is dealt yet").
		WithDetails(&errdetails.ErrorInfo{Reason: "WRONG_PHASE", Domain: "cardgame"})
	err := refused.Err()
	fmt.Println(status.Code(err), client.Reason(err))
	// Output: FailedPrecondition WRONG_PHASE
}

func ExampleGames() {
	for _, game := range client.Games() {
		fmt.Printf("%s: %s, %d seats\n", game.Name, game.Title, game.Seats)
	}
}
