// Package readylist is the stress-epoll protocol, run against package
// jobs/mpsc.
// It keeps the guarantees every seed protocol keeps (see package
// cmd/gcbench/internal/seeds): interleaving, statistics from package
// stats, bounded counts, cancellation within milliseconds, actors on OS
// threads.
//
// Measure and Compare reproduce stress-epoll
// (stress-epoll.c in github.com/rouming/test-tools), the benchmark of
// Linux's lockless epoll ready list: producers each signal their own
// eventfd a fixed number of times, one consumer collects the ready items
// and sums their counters until it has seen every event, and the result is
// events per millisecond at 8, 16 and 32 producers. Here an eventfd is an
// atomic counter and the ready list is package jobs/mpsc's List (a push is
// one atomic swap, the lockless list) or a mutex-guarded list (the
// spinlock-guarded list it replaced). A producer reaches the list only
// when its counter leaves zero (Transition), or on every event through a
// deduplicating ready path, as the kernel's ep_poll_callback does
// (Callback). Whatever the interleaving, the consumer sums every event
// exactly once and pops no more items than there were events.
//
// As in stress-epoll, producers and consumer are threads, and the
// consumer sleeps while nothing is ready: it announces that it waits,
// looks at the list once more, and sleeps on a futex word that the next
// producer to find it waiting clears and wakes (ep_poll adding itself to
// ep->wq, ep_poll_callback's waitqueue_active and wake_up; see
// readyWaiter). It never polls, so its CPU goes to the producers, and the
// list's cost is the producers' per-event ready path plus the wake-ups
// that the list's emptiness brings about.
//
// Report.Table is the seed's table as gcbench readylist prints it.
package readylist
