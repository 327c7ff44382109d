// Command loadgen loads a cardgame server with Act calls (or the benchmark's no-op calls) and
// measures the rate and latency the server gives them. It is the compiled counterpart of the
// Python load generator of bench/service_moves.py: on a machine whose cores the server shares,
// a generator that spends microseconds, not a millisecond, on each call leaves the server's
// latency figures its own.
//
// It reads a plan (JSON) on stdin and writes the result (JSON) on stdout:
//
//	{"address": "127.0.0.1:50051", "mode": "rate", "method": "act", "seconds": 3, "rate": 500,
//	 "games": [{"game_id": "...", "tokens": ["tok0", "tok1", "tok2", "tok3"],
//	            "moves": [[0, "deal"], [1, "bid 3"]], "next": 0}]}
//
//	{"calls": 1234, "errors": {"ABORTED": 2}, "seconds": 3.01, "rate": 410.0,
//	 "latency_ms": {"p50": 2.1, "p90": 3.0, "p99": 5.2, "max": 9.8}, "next": [617, 619], "exhausted": 0}
//
// Every call goes over one connection (plaintext HTTP/2). Method "act" sends each game's moves
// in order (moves[next], then next+1) with its seat's token; "noop" sends the benchmark's
// /cardgame.bench.v1.Bench/Noop (see bench/noop.py) with the game's seats' tokens in turn, so
// its calls carry the same header a move's does, and leaves next alone. Mode "rate" is a
// closed loop, one call after another per game for the plan's seconds: the maximum rate. Mode
// "paced" is an open loop: floor(rate*seconds) calls on a fixed schedule, each to an idle game,
// its latency counted from when it was due. Calls that fail are counted per gRPC code and left
// out of the latencies; the exit status is 0 all the same. A bad plan exits with status 2, a
// server that cannot be reached with 1, the reason on stderr.
//
// bench/loadgen.py builds it (make -C clients/go bin/loadgen) and runs it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
)

const (
	// dialTimeout bounds the wait for the connection.
	dialTimeout = 10 * time.Second
	// callTimeout is each call's deadline.
	callTimeout = 10 * time.Second
	// grace is how long, past the plan's seconds, calls may still be waited for: the hard cap
	// on the whole run.
	grace = 30 * time.Second
	// windowSize is the HTTP/2 flow-control window of the connection and of each call.
	windowSize = 1 << 20
	// maxSeconds and maxCalls bound what a plan may ask for.
	maxSeconds = 3600
	maxCalls   = 10_000_000
)

// plan is what stdin says to do.
type plan struct {
	Address string      `json:"address"`
	Mode    string      `json:"mode"`   // "rate" or "paced"
	Method  string      `json:"method"` // "act" or "noop"
	Seconds float64     `json:"seconds"`
	Rate    float64     `json:"rate"` // calls per second, for "paced"
	Games   []*planGame `json:"games"`
}

// planGame is one game of the plan: its id, a token per seat ("" for none), the moves to send
// and the index of the next one.
type planGame struct {
	GameID string   `json:"game_id"`
	Tokens []string `json:"tokens"`
	Moves  []move   `json:"moves"`
	Next   int      `json:"next"`
}

// move is one of a game's moves, written [seat, "notation"] in the plan.
type move struct {
	Seat     int
	Notation string
}

// UnmarshalJSON reads a move from its [seat, "notation"] pair.
func (m *move) UnmarshalJSON(data []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(data, &pair); err != nil || len(pair) != 2 {
		return fmt.Errorf("a move is [seat, \"notation\"], not %s", data)
	}
	if err := json.Unmarshal(pair[0], &m.Seat); err != nil {
		return fmt.Errorf("a move's seat is an integer, not %s", pair[0])
	}
	if err := json.Unmarshal(pair[1], &m.Notation); err != nil {
		return fmt.Errorf("a move's notation is a string, not %s", pair[1])
	}
	return nil
}

// latency holds the quantiles of the successful calls' latencies, in milliseconds (null when
// no call succeeded).
type latency struct {
	P50 *float64 `json:"p50"`
	P90 *float64 `json:"p90"`
	P99 *float64 `json:"p99"`
	Max *float64 `json:"max"`
}

// result is what stdout gets.
type result struct {
	Calls     int            `json:"calls"`   // calls answered OK
	Errors    map[string]int `json:"errors"`  // the other calls, per gRPC code name
	Seconds   float64        `json:"seconds"` // from the first send to the last answer
	Rate      float64        `json:"rate"`    // calls / seconds
	LatencyMs latency        `json:"latency_ms"`
	Next      []int          `json:"next"`      // each game's next index, in plan order
	Exhausted int            `json:"exhausted"` // games with no move left ("act")
}

// badPlan is an error in the plan (exit status 2).
type badPlan struct{ error }

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		if errors.As(err, &badPlan{}) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer) error {
	p, err := readPlan(in)
	if err != nil {
		return badPlan{err}
	}
	dialCtx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	defer cancel()
	conn, err := grpc.NewClient(p.Address, grpc.WithTransportCredentials(insecure.NewCredentials()),
		// Fixed flow-control windows, ample for these messages, turn off the bandwidth probe,
		// which would otherwise add a PING (and its ack) to many calls.
		grpc.WithInitialWindowSize(windowSize), grpc.WithInitialConnWindowSize(windowSize))
	if err != nil {
		return fmt.Errorf("cannot connect to %s: %w", p.Address, err)
	}
	if err := connect(dialCtx, conn); err != nil {
		conn.Close()
		return fmt.Errorf("cannot connect to %s: %w", p.Address, err)
	}
	defer conn.Close()

	// The hard cap: no call outlives it, and no loop waits past it.
	hard, stop := context.WithTimeout(context.Background(), secondsOf(p.Seconds)+pacedLead+grace)
	defer stop()
	c := newCaller(conn, p, hard)
	var t *tally
	if p.Mode == "rate" {
		t = c.rate(p.Seconds)
	} else {
		t = c.paced(p.Rate, p.Seconds)
	}
	return json.NewEncoder(out).Encode(c.result(t))
}

// connect connects conn before the first call is timed, and fails as soon as its first attempt
// does (a server that is not listening), or when ctx ends.
func connect(ctx context.Context, conn *grpc.ClientConn) error {
	conn.Connect()
	for {
		state := conn.GetState()
		switch state {
		case connectivity.Ready:
			return nil
		case connectivity.TransientFailure, connectivity.Shutdown:
			return fmt.Errorf("the connection is in state %s (is a server listening there?)", state)
		}
		if !conn.WaitForStateChange(ctx, state) {
			return fmt.Errorf("no connection within %s: %w", dialTimeout, ctx.Err())
		}
	}
}

// readPlan decodes and checks the plan.
func readPlan(in io.Reader) (*plan, error) {
	var p plan
	decoder := json.NewDecoder(in)
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(&p); err != nil {
		return nil, fmt.Errorf("reading the plan: %w", err)
	}
	switch {
	case p.Address == "":
		return nil, errors.New("the plan has no address")
	case p.Mode != "rate" && p.Mode != "paced":
		return nil, fmt.Errorf("mode is \"rate\" or \"paced\", not %q", p.Mode)
	case p.Method != "act" && p.Method != "noop":
		return nil, fmt.Errorf("method is \"act\" or \"noop\", not %q", p.Method)
	case !(p.Seconds > 0 && p.Seconds <= maxSeconds):
		return nil, fmt.Errorf("seconds must be above 0 and at most %d, not %v", maxSeconds, p.Seconds)
	case p.Mode == "paced" && !(p.Rate > 0 && math.Floor(p.Rate*p.Seconds) <= maxCalls):
		return nil, fmt.Errorf("rate must be above 0 and rate*seconds at most %d, not %v", maxCalls, p.Rate)
	case len(p.Games) == 0:
		return nil, errors.New("the plan has no games")
	}
	for i, g := range p.Games {
		if g == nil || g.GameID == "" {
			return nil, fmt.Errorf("game %d has no game_id", i)
		}
		if g.Next < 0 || g.Next > len(g.Moves) {
			return nil, fmt.Errorf("game %d: next %d is outside its %d moves", i, g.Next, len(g.Moves))
		}
		if p.Method != "act" {
			continue
		}
		for _, m := range g.Moves[g.Next:] {
			if m.Seat < 0 || m.Seat >= len(g.Tokens) {
				return nil, fmt.Errorf("game %d: a move of seat %d, which has no entry in its %d tokens",
					i, m.Seat, len(g.Tokens))
			}
		}
	}
	return &p, nil
}

// secondsOf converts seconds to a Duration.
func secondsOf(seconds float64) time.Duration {
	return time.Duration(seconds * float64(time.Second))
}
