//go:build !linux

package main

import "time"

// waiter waits until given instants (with time.Sleep's precision, elsewhere than on Linux).
type waiter struct{}

func newWaiter() *waiter { return &waiter{} }

// until returns at due (or at once if due has passed).
func (*waiter) until(due time.Time) {
	time.Sleep(time.Until(due))
}

// close releases nothing.
func (*waiter) close() {}
