// SGen's thread-pool protocol on pthreads; see doc.go.
#ifndef GCBENCH_NATIVE_POOL_H
#define GCBENCH_NATIVE_POOL_H

#include <stdint.h>

enum { NP_MUTEX_NORMAL, NP_MUTEX_PI, NP_MUTEX_ADAPTIVE };
enum { NP_WAKE_BROADCAST, NP_WAKE_SIGNAL, NP_WAKE_TARGETED };

// An entry with NP_SPIN set is a synthetic job: the worker spins in C for
// the low bits' nanoseconds and makes no callback.
#define NP_SPIN (UINT64_C(1) << 63)

typedef struct np_pool np_pool;

// np_stats is a snapshot of the counters (see Stats in stats.go).
typedef struct {
	uint64_t enq_locks, enq_wakes;     // Enqueue, EnqueueBatch, StartBatch
	uint64_t locks, wakes;             // everyone's
	uint64_t woken, futile, jobs;      // workers'
	uint64_t join_sleeps;
	// workers' wake-ups by the CPU they woke on: the last waker's (the
	// thread of the last np_push or gate opening, at its wake call) or
	// another; unclassified where sched_getcpu failed.
	uint64_t woken_on_waker_cpu, woken_elsewhere, woken_unclassified;
} np_stats;

// np_snap classifies the workers at one instant (np_snapshot).
typedef struct {
	int runnable_on_caller_cpu, runnable_elsewhere;
	int asleep_on_mutex, asleep_on_work_cond;
} np_snap;

// np_new makes and starts a pool; it returns NULL with *err set to an errno
// value (or -1 for a mutex kind the system lacks).
np_pool *np_new(int workers, int mutex_kind, int wake, int gated, uintptr_t handle, int *err);
// np_push queues n entries under one lock acquisition. start opens the gate
// in the same hold and wakes after the unlock. It returns 0, or -1 after
// np_close began.
int np_push(np_pool *p, const uint64_t *entries, int n, int start);
void np_start(np_pool *p);
// np_join waits until every entry queued before it ran, or until the
// interrupt generation differs from gen (np_gen read before the caller
// checked its own cancellation); it returns 1 when done, 0 when
// interrupted, -1 on one of p's worker threads (inside a job), where it
// would wait for itself. A done join of a gated pool closes the gate
// (SGen's sgen_workers_join).
int np_join(np_pool *p, uint64_t gen);
uint64_t np_gen(np_pool *p);
void np_interrupt(np_pool *p);
// np_discard moves up to cap queued entries to out and returns how many.
int np_discard(np_pool *p, uint64_t *out, int cap);
// np_close lets every queued entry run and joins every worker thread, and
// returns 0; on one of p's worker threads it does nothing and returns -1.
// np_free then frees p, once no other call can be in progress.
int np_close(np_pool *p);
// np_on_worker reports whether the calling thread is one of p's workers.
int np_on_worker(np_pool *p);
// np_hold_mutex and np_release_mutex take and release the pool's mutex, on
// one thread, uncounted: for tests standing in for a convoy on it.
void np_hold_mutex(np_pool *p);
void np_release_mutex(np_pool *p);
void np_free(np_pool *p);
void np_stats_read(np_pool *p, np_stats *s, uint64_t *jobs_per_worker);
void np_tids(np_pool *p, int *tids);
int np_mutex_supported(int kind);
// np_snapshot classifies each worker from proc_task ("/proc/self/task")
// without taking the mutex; it returns 0, or -1 (s zero) if a read failed.
int np_snapshot(np_pool *p, const char *proc_task, np_snap *s);

#endif
