package client_test

import (
	"context"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	"github.com/cardgame-rules/cardgame/clients/go/client"
	cardgamev1 "github.com/cardgame-rules/cardgame/clients/go/gen/cardgame/v1"
)

// drainingServer answers WatchGame as a server being restarted would: its first stream sends
// versions 1 and 2 then ends UNAVAILABLE (SHUTTING_DOWN); the next sends from the version asked
// (repeating version 2 once, as a server may) up to the game-over view at version 4.
type drainingServer struct {
	cardgamev1.UnimplementedGameServiceServer
	mu      sync.Mutex
	asked   []int64
	refuse  codes.Code
	streams int
}

func (s *drainingServer) WatchGame(request *cardgamev1.WatchGameRequest,
	stream grpc.ServerStreamingServer[cardgamev1.WatchGameResponse]) error {
	s.mu.Lock()
	s.asked = append(s.asked, request.GetFromVersion())
	s.streams++
	n := s.streams
	s.mu.Unlock()
	send := func(version int64, phase string) error {
		return stream.Send(&cardgamev1.WatchGameResponse{View: &cardgamev1.GameView{Version: version, PhaseName: phase}})
	}
	if s.refuse != codes.OK {
		return status.Error(s.refuse, "no such game")
	}
	if n == 1 {
		for _, v := range []int64{1, 2} {
			if err := send(v, "play"); err != nil {
				return err
			}
		}
		return status.Error(codes.Unavailable, "the server is shutting down: reconnect")
	}
	for _, v := range []int64{request.GetFromVersion(), 3} {
		if err := send(v, "play"); err != nil {
			return err
		}
	}
	return send(4, "game_over")
}

func serve(t *testing.T, server *drainingServer) *client.Client {
	t.Helper()
	listener := bufconn.Listen(1 << 20)
	s := grpc.NewServer()
	cardgamev1.RegisterGameServiceServer(s, server)
	go s.Serve(listener)
	t.Cleanup(s.Stop)
	c, err := client.Dial("passthrough:///bufnet", grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return listener.DialContext(ctx) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestWatchResumesFromTheLastVersionAfterADrain(t *testing.T) {
	server := &drainingServer{}
	c := serve(t, server)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var versions []int64
	for view, err := range c.Watch(ctx, "g1", 0) {
		if err != nil {
			t.Fatal(err)
		}
		versions = append(versions, view.GetVersion())
	}
	if want := []int64{1, 2, 3, 4}; !slices.Equal(versions, want) {
		t.Errorf("views %v, want %v (each version once, ending at game over)", versions, want)
	}
	if want := []int64{0, 2}; !slices.Equal(server.asked, want) {
		t.Errorf("streams opened from versions %v, want %v", server.asked, want)
	}
}

func TestWatchEndsWithARefusalThatIsNotAnOutage(t *testing.T) {
	c := serve(t, &drainingServer{refuse: codes.NotFound})
	var errs []error
	for view, err := range c.Watch(t.Context(), "gone", 0) {
		if view != nil {
			t.Fatalf("a view %v from a refused watch", view)
		}
		errs = append(errs, err)
	}
	if len(errs) != 1 || status.Code(errs[0]) != codes.NotFound {
		t.Errorf("errors %v, want one NOT_FOUND", errs)
	}
}

func TestWatchStopsWhenTheLoopDoes(t *testing.T) {
	server := &drainingServer{}
	c := serve(t, server)
	for view, err := range c.Watch(t.Context(), "g1", 0) {
		if err != nil || view.GetVersion() != 1 {
			t.Fatalf("first pair (%v, %v), want version 1", view, err)
		}
		break
	}
	if server.streams != 1 {
		t.Errorf("%d streams opened, want 1 (the loop stopped after the first view)", server.streams)
	}
}
