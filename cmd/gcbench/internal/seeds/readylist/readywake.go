package readylist

import (
	"sync/atomic"

	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds"
)

// readyWaiter is the consumer's side of epoll's wait queue: the consumer
// sleeps on it when the ready list is empty, and a producer that has just
// made an event ready wakes it only if it is asleep.
//
// It follows ep_poll and ep_poll_callback (Linux fs/eventpoll.c). ep_poll
// adds the waiting task to ep->wq, checks for ready events once more, and
// only then sleeps; ep_poll_callback, after linking the item, calls
// wake_up(&ep->wq) only if waitqueue_active(&ep->wq). So a producer pays
// one read of a shared word per event while the consumer is busy, and a
// kernel wake only when the consumer really sleeps. The word here is
// waitqueue_active: 1 while the consumer is (about to be) asleep, set by
// the consumer and cleared by the one producer whose compare-and-swap wins
// the right to wake it with FUTEX_WAKE. The consumer sleeps with
// FUTEX_WAIT on the same word, a kernel sleep of its OS thread, as
// epoll_wait's is.
//
// Why a futex word and not the consumer parked on a channel: a channel
// wake readies a goroutine, and a goroutine locked to its thread then
// needs the Go scheduler to hand a processor to that thread before it
// runs; FUTEX_WAKE is the kernel waking the thread directly, as wake_up
// does. And why "is anyone waiting" rather than "was the list empty": the
// kernel's callback tests the wait queue, not the list, so a producer whose
// push finds the list empty while the consumer is still draining it wakes
// nobody, and that is the seed's behaviour.
//
// No wake-up is lost: the consumer sets the word before its last look at
// the list, and a producer reads it after its push, both sequentially
// consistent atomics, so either the consumer sees the push or the producer
// sees the word set (Dekker's argument, which the kernel gets from the
// wait queue's lock and barriers).
type readyWaiter struct {
	word atomic.Uint32 // 1: the consumer is asleep or about to be
	// wakes counts producers' wake-ups (won compare-and-swaps, each one
	// FUTEX_WAKE); the consumer's counters are its own (readyConsumer).
	wakes atomic.Int64
}

// wake wakes the consumer if it sleeps; producers call it after each
// event's ready path. While the consumer is awake it costs one load.
func (w *readyWaiter) wake() {
	if w.word.Load() == 1 && w.word.CompareAndSwap(1, 0) {
		w.wakes.Add(1)
		seeds.FutexWake(&w.word)
	}
}

// prepare announces that the consumer is about to sleep; it must look at
// the list once more afterwards (the recheck), then either sleep or
// cancel.
func (w *readyWaiter) prepare() { w.word.Store(1) }

// cancel withdraws prepare after a recheck found work. A producer may
// already have claimed the wake; its FUTEX_WAKE then finds nobody, or
// returns a later sleep early, which sleep's loop absorbs.
func (w *readyWaiter) cancel() { w.word.Store(0) }

// sleep blocks the consumer's thread until a producer has cleared the word,
// and returns how many times it entered the kernel to wait.
func (w *readyWaiter) sleep() (waits int64) {
	for w.word.Load() == 1 {
		seeds.FutexWait(&w.word, 1)
		waits++
	}
	return waits
}
