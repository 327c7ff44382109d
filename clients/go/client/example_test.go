package client_test

import (
	"context"
	"log"

	"cardgame/client"
	cardgamev1 "cardgame/gen/cardgame/v1"
)

// The README's example ("Use it"): a game with one human seat and three bots, and its deal.
// Compiled by `go vet` (make); not run, as it needs a server.
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
	view, err := c.Act(seat, &cardgamev1.ActRequest{GameId: created.GameId, RequestId: client.NewRequestID(), Action: "deal"})
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("hand %d dealt, version %d", view.View.HandNumber, view.View.Version)
}
