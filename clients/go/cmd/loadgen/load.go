package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	cardgamev1 "github.com/cardgame-rules/cardgame/clients/go/gen/cardgame/v1"
)

// noopMethod is the benchmark's no-op RPC (bench/noop.py): an ActRequest in, an ActResponse out.
const noopMethod = "/cardgame.bench.v1.Bench/Noop"

// pacedLead is how long after it is set up the paced schedule starts.
const pacedLead = 50 * time.Millisecond

// game is a plan's game as the calls go: at most one goroutine uses it at a time.
type game struct {
	id    string
	seats []metadata.MD // each seat's "authorization: Bearer <token>", nil for no token
	moves []move
	next  int
	noops int // no-op calls made: each carries the next seat's token, as a move's call carries one
}

// caller makes the plan's calls over one connection.
type caller struct {
	conn  *grpc.ClientConn
	stub  cardgamev1.GameServiceClient
	noop  bool
	games []*game
	hard  context.Context // the hard cap: every call's deadline is within it
}

func newCaller(conn *grpc.ClientConn, p *plan, hard context.Context) *caller {
	c := &caller{conn: conn, stub: cardgamev1.NewGameServiceClient(conn), noop: p.Method == "noop", hard: hard}
	for _, g := range p.Games {
		seats := make([]metadata.MD, len(g.Tokens))
		for seat, token := range g.Tokens {
			if token != "" {
				seats[seat] = metadata.Pairs("authorization", "Bearer "+token)
			}
		}
		c.games = append(c.games, &game{id: g.GameID, seats: seats, moves: g.Moves, next: g.Next})
	}
	return c
}

// exhausted tells whether g has no call left to take: its last move has been sent ("act").
func (c *caller) exhausted(g *game) bool {
	return !c.noop && g.next >= len(g.moves)
}

// call makes g's next call and waits for its answer.
func (c *caller) call(g *game) error {
	ctx, cancel := context.WithTimeout(c.hard, callTimeout)
	defer cancel()
	request := &cardgamev1.ActRequest{GameId: g.id, RequestId: requestID()}
	if c.noop {
		request.Action = "noop"
		if md := g.seats[g.noops%len(g.seats)]; md != nil {
			ctx = metadata.NewOutgoingContext(ctx, md)
		}
		g.noops++
		return c.conn.Invoke(ctx, noopMethod, request, new(cardgamev1.ActResponse))
	}
	m := g.moves[g.next]
	g.next++
	request.Action = m.Notation
	if md := g.seats[m.Seat]; md != nil {
		ctx = metadata.NewOutgoingContext(ctx, md)
	}
	_, err := c.stub.Act(ctx, request)
	return err
}

// rate is the closed loop: one goroutine per game sends its calls one after another until
// seconds have passed (a call sent before then is waited for and counted).
func (c *caller) rate(seconds float64) *tally {
	t := newTally(len(c.games))
	end := time.Now().Add(secondsOf(seconds))
	var wg sync.WaitGroup
	for _, g := range c.games {
		wg.Add(1)
		go func(g *game) {
			defer wg.Done()
			for !c.exhausted(g) && time.Now().Before(end) && c.hard.Err() == nil {
				sent := time.Now()
				err := c.call(g)
				t.add(sent, sent, time.Now(), err)
			}
		}(g)
	}
	wg.Wait()
	return t
}

// paced is the open loop: floor(rate*seconds) calls, call k due at start + k/rate, each sent
// to a game that has no call in flight (the idle games wait in a queue), its latency counted
// from when it was due. It stops early when every game is exhausted, or at the hard cap.
func (c *caller) paced(rate, seconds float64) *tally {
	total := int(math.Floor(rate * seconds))
	t := newTally(min(total, 1<<20))
	idle := make(chan *game, len(c.games))
	live := int64(0) // games not exhausted
	for _, g := range c.games {
		if !c.exhausted(g) {
			idle <- g
			live++
		}
	}
	gone := make(chan struct{}) // closed once every game is exhausted
	if live == 0 {
		close(gone)
	}
	var wg sync.WaitGroup
	wait := newWaiter()
	defer wait.close()
	start := time.Now().Add(pacedLead)
schedule:
	for k := 0; k < total; k++ {
		due := start.Add(time.Duration(float64(k) / rate * float64(time.Second)))
		wait.until(due)
		var g *game
		select {
		case g = <-idle:
		case <-gone:
			break schedule
		case <-c.hard.Done():
			break schedule
		}
		wg.Add(1)
		go func(g *game, due time.Time) {
			defer wg.Done()
			sent := time.Now()
			err := c.call(g)
			t.add(due, sent, time.Now(), err)
			if !c.exhausted(g) {
				idle <- g
			} else if atomic.AddInt64(&live, -1) == 0 {
				close(gone)
			}
		}(g, due)
	}
	wg.Wait()
	return t
}

// result sums up a run.
func (c *caller) result(t *tally) *result {
	r := &result{Calls: len(t.latencies), Errors: t.errors, Next: make([]int, len(c.games))}
	for i, g := range c.games {
		r.Next[i] = g.next
		if c.exhausted(g) {
			r.Exhausted++
		}
	}
	if !t.first.IsZero() {
		r.Seconds = t.last.Sub(t.first).Seconds()
	}
	if r.Seconds > 0 {
		r.Rate = float64(r.Calls) / r.Seconds
	}
	if len(t.latencies) > 0 {
		sort.Float64s(t.latencies)
		q := quantiles(t.latencies)
		r.LatencyMs = latency{P50: &q[49], P90: &q[89], P99: &q[98], Max: &t.latencies[len(t.latencies)-1]}
	}
	return r
}

// tally collects the calls' outcomes.
type tally struct {
	mu          sync.Mutex
	latencies   []float64      // ms, of the calls answered OK
	errors      map[string]int // the others, per code name
	first, last time.Time      // the first send, the last answer
}

func newTally(capacity int) *tally {
	return &tally{latencies: make([]float64, 0, capacity), errors: map[string]int{}}
}

// add records one call: its latency runs from `from` (its send, or when it was due) to its answer.
func (t *tally) add(from, sent, answered time.Time, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.first.IsZero() || sent.Before(t.first) {
		t.first = sent
	}
	if answered.After(t.last) {
		t.last = answered
	}
	if err != nil {
		t.errors[codeName(status.Code(err))]++
		return
	}
	t.latencies = append(t.latencies, float64(answered.Sub(from))/float64(time.Millisecond))
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// requestID is a request id as bench/service_moves.py makes them: 32 random hex digits.
func requestID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return hex.EncodeToString(b[:])
}
