package client_test

import (
	"errors"
	"fmt"
	"regexp"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cardgame-rules/cardgame/clients/go/client"
	cardgamev1 "github.com/cardgame-rules/cardgame/clients/go/gen/cardgame/v1"
)

// The tests in this file need no server.

func TestNotationTakesTheFewestCardsOfAChoice(t *testing.T) {
	for _, tc := range []struct {
		action *cardgamev1.LegalAction
		want   string
	}{
		{&cardgamev1.LegalAction{Notation: "play AS"}, "play AS"},
		{&cardgamev1.LegalAction{Notation: "exchange", Cards: []string{"2C", "3D", "4H", "KS"}, MinCards: 2, MaxCards: 3},
			"exchange 2C 3D"},
		{&cardgamev1.LegalAction{Notation: "exchange", Cards: []string{"2C"}, MinCards: 0, MaxCards: 1}, "exchange"},
	} {
		if got := client.Notation(tc.action); got != tc.want {
			t.Errorf("Notation(%v) = %q, want %q", tc.action, got, tc.want)
		}
	}
}

func TestReasonReadsTheErrorInfo(t *testing.T) {
	refused, err := status.New(codes.FailedPrecondition, "not now").
		WithDetails(&errdetails.ErrorInfo{Reason: "WRONG_PHASE", Domain: "cardgame"})
	if err != nil {
		t.Fatal(err)
	}
	if got := client.Reason(refused.Err()); got != "WRONG_PHASE" {
		t.Errorf("Reason = %q, want WRONG_PHASE", got)
	}
	if got := client.Reason(fmt.Errorf("Act: %w", refused.Err())); got != "WRONG_PHASE" {
		t.Errorf("Reason of a wrapped error = %q, want WRONG_PHASE", got)
	}
	for _, err := range []error{nil, errors.New("plain"), status.Error(codes.NotFound, "no such game")} {
		if got := client.Reason(err); got != "" {
			t.Errorf("Reason(%v) = %q, want \"\"", err, got)
		}
	}
}

func TestNewRequestIDIsAFreshUUID(t *testing.T) {
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 100 {
		id := client.NewRequestID()
		if !uuid.MatchString(id) || seen[id] {
			t.Fatalf("NewRequestID() = %q: not a fresh version 4 UUID", id)
		}
		seen[id] = true
	}
}

func TestGamesAreDeclaredInTheSchema(t *testing.T) {
	games := client.Games()
	if len(games) == 0 {
		t.Fatal("Games() is empty")
	}
	names := map[string]bool{}
	for _, game := range games {
		if game.Name == "" || game.Title == "" || game.Seats < 2 || names[game.Name] {
			t.Errorf("a game declared without a name, a title or seats, or twice: %v", game)
		}
		names[game.Name] = true
	}
}

func TestDialTakesItsServiceConfig(t *testing.T) {
	// NewClient parses the default service config: a bad one fails here, not at the first call.
	c, err := client.Dial("127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}
