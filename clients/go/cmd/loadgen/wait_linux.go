package main

import (
	"os"
	"syscall"
	"time"
	"unsafe"
)

// spinGuard is how long before a call is due the waiter stops sleeping and watches the clock.
//
// time.Sleep wakes up late by up to a millisecond (the runtime's poller waits whole
// milliseconds), which would count against each call's latency. A timerfd, which the runtime's
// poller watches like a socket, wakes its goroutine some 100 µs late without holding a thread
// in a system call (as nanosleep would, keeping the runtime's monitor busy); the last stretch
// is spun, a few percent of a core at hundreds of calls a second.
const spinGuard = 150 * time.Microsecond

// clockMonotonic is CLOCK_MONOTONIC, the timerfd's clock.
const clockMonotonic = 1

// itimerspec is the kernel's struct itimerspec.
type itimerspec struct {
	interval, value syscall.Timespec
}

// waiter waits until given instants, precisely; one goroutine uses it.
type waiter struct {
	fd    uintptr
	timer *os.File // the timerfd, non-blocking: a Read parks the goroutine in the poller
}

// newWaiter makes a waiter; without a timerfd it falls back on time.Sleep.
func newWaiter() *waiter {
	fd, _, errno := syscall.RawSyscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic,
		syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errno != 0 {
		return &waiter{}
	}
	return &waiter{fd: fd, timer: os.NewFile(fd, "timerfd")}
}

// until returns at due (or at once if due has passed).
func (w *waiter) until(due time.Time) {
	if left := time.Until(due) - spinGuard; left > 0 && !w.sleep(left) {
		time.Sleep(left)
	}
	for time.Now().Before(due) {
	}
}

// sleep waits for d on the timerfd; false if it cannot.
func (w *waiter) sleep(d time.Duration) bool {
	if w.timer == nil {
		return false
	}
	spec := itimerspec{value: syscall.NsecToTimespec(int64(d))} // relative, once
	_, _, errno := syscall.Syscall6(syscall.SYS_TIMERFD_SETTIME, w.fd, 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0)
	if errno != 0 {
		return false
	}
	var expirations [8]byte
	_, err := w.timer.Read(expirations[:])
	return err == nil
}

// close releases the timerfd.
func (w *waiter) close() {
	if w.timer != nil {
		w.timer.Close()
	}
}
