//go:build cgo && linux

// SGen's thread pool (mono/sgen/sgen-thread-pool.c: thread_func, get_work,
// sgen_thread_pool_job_enqueue) on pthreads. One mutex guards everything;
// workers wait on work_cond. A worker holding the mutex takes one entry,
// releases the mutex to run it, takes it again to retire it and wake the
// joiner (SGen's mono_os_cond_signal(&done_cond)), and with the mutex still
// held looks for the next entry or waits on work_cond: one hold per job, as
// thread_func returns to get_work without unlocking.
//
// SGen's done_cond is a futex word here (done_seq), waited on by Join
// (sgen_thread_pool_wait_for_all_jobs) without the mutex: a retire under
// the mutex bumps it and wakes the joiner if one sleeps, as a signal would,
// and the joiner takes the mutex again to look, as pthread_cond_wait would.
// The one difference is the way out: an interrupted Join (its context
// ended) leaves without the mutex, which with thousands of workers queued
// on a PI mutex took about a second to get.
//
// Every counter but the wake counts is written with the mutex held, so each
// has one writer at a time; Go reads them without it, hence the relaxed
// atomic stores and loads. Wake counts are atomic adds: a StartBatch wakes
// after its unlock.

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pool.h"
#include "_cgo_export.h"

#define BUMP(x) __atomic_store_n(&(x), (x) + 1, __ATOMIC_RELAXED)
#define ADD(x, n) __atomic_store_n(&(x), (x) + (n), __ATOMIC_RELAXED)
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define NONE UINT64_MAX

typedef struct {
	np_pool *pool;
	pthread_t thread;
	int id, tid;
	uint64_t running;            // the sequence number of the entry being run, or NONE
	uint64_t locks, woken, futile, jobs;
	uint64_t woken_on_waker_cpu, woken_elsewhere, woken_unclassified;
} __attribute__((aligned(128))) np_worker;

struct np_pool {
	pthread_mutex_t lock;
	pthread_cond_t work_cond, ready_cond;
	uint32_t done_seq;           // the futex Join sleeps on: bumped by each wake of it
	uint64_t *q;                 // ring of entries; q[seq & (cap-1)]
	uint64_t cap, head, tail;    // head: next to take; tail: next to push (sequence numbers)
	int wake, gated, started, closing;
	int nworkers, ready, waiting, pending;
	int joiners;                 // Joins in progress (atomic: an interrupted one leaves without the mutex)
	int join_asleep;             // Joins asleep on done_seq since its last wake
	uint64_t intr_gen;
	int waker_cpu;               // sched_getcpu() of the last np_push or gate opening, under the mutex; -1 unknown
	uintptr_t handle;
	uint64_t enq_locks, enq_wakes, coord_locks, coord_wakes, join_sleeps;
	np_worker *workers;
};

static void spin_for(uint64_t ns) {
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((uint64_t)(t.tv_sec - t0.tv_sec) * 1000000000u + (uint64_t)(t.tv_nsec - t0.tv_nsec) < ns);
}

static int runnable(np_pool *p) { return p->started && p->head < p->tail; }

static void signal_n(np_pool *p, int n, uint64_t *wakes) {
	for (int i = 0; i < n; i++) {
		pthread_cond_signal(&p->work_cond);
		__atomic_fetch_add(wakes, 1, __ATOMIC_RELAXED);
	}
}

// wakes_for decides, with the mutex held, how many pthread_cond_signal calls
// n new entries deserve (-1: one broadcast), and books Targeted's pending
// wakes.
static int wakes_for(np_pool *p, int n) {
	switch (p->wake) {
	case NP_WAKE_BROADCAST:
		return -1;
	case NP_WAKE_SIGNAL:
		return n < p->nworkers ? n : p->nworkers;
	default: { // Targeted: only runnable jobs, only workers not already signalled
		if (!p->started)
			return 0;
		int idle = p->waiting - p->pending;
		int k = n < idle ? n : idle;
		if (k < 0)
			k = 0;
		p->pending += k;
		return k;
	}
	}
}

static void wake(np_pool *p, int k, uint64_t *wakes) {
	if (k < 0) {
		pthread_cond_broadcast(&p->work_cond);
		__atomic_fetch_add(wakes, 1, __ATOMIC_RELAXED);
	} else {
		signal_n(p, k, wakes);
	}
}

static void lock(np_pool *p, uint64_t *locks) {
	pthread_mutex_lock(&p->lock);
	BUMP(*locks);
}

// self is the pool whose worker this thread is, for np_on_worker: a Close
// or Join called from a job would otherwise wait for, or free, the very
// thread it runs on.
static __thread np_pool *self;

static void futex_wake_all(uint32_t *addr) {
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

// wake_joiners_locked is SGen's mono_os_cond_signal(&done_cond): it wakes
// the Join asleep (one collector, in SGen: "Only the main GC thread will
// ever wait on the done condition, so we don't have to broadcast"; here
// every Join asleep, the rare case of several), and makes no system call
// when none is, as glibc's signal makes none without a waiter.
static void wake_joiners_locked(np_pool *p) {
	if (p->join_asleep == 0)
		return;
	p->join_asleep = 0;
	__atomic_fetch_add(&p->done_seq, 1, __ATOMIC_SEQ_CST);
	futex_wake_all(&p->done_seq);
}

// retire_locked marks w's job done and wakes the joiner, as thread_func
// does after a job.
static void retire_locked(np_pool *p, np_worker *w) {
	w->running = NONE;
	BUMP(w->jobs);
	wake_joiners_locked(p);
}

// note_waker_locked records, with the mutex held, the CPU the waking
// thread (the collector: np_push, a gate opening) runs on, for
// classify_wakeup_locked.
static void note_waker_locked(np_pool *p) { p->waker_cpu = sched_getcpu(); }

// classify_wakeup_locked counts a return from the wait on work_cond, with
// the mutex re-taken, as on the CPU the last waker was on at its wake call
// or elsewhere (unclassified if either CPU is unknown). A worker woken onto
// the collector's CPU must preempt the collector or wait for it to sleep.
static void classify_wakeup_locked(np_pool *p, np_worker *w) {
	int cpu = sched_getcpu();
	if (cpu < 0 || p->waker_cpu < 0)
		BUMP(w->woken_unclassified);
	else if (cpu == p->waker_cpu)
		BUMP(w->woken_on_waker_cpu);
	else
		BUMP(w->woken_elsewhere);
}

// worker_main is thread_func with get_work: one hold per job. The worker
// takes an entry and releases the mutex to run it; it takes the mutex again
// to retire the entry and, still holding it, looks for the next or waits on
// work_cond (mono/sgen/sgen-thread-pool.c: thread_func relocks after
// job->func, sets STATE_DONE, remove_job, mono_os_cond_signal(&done_cond),
// and loops back to get_work without unlocking).
static void *worker_main(void *arg) {
	np_worker *w = arg;
	np_pool *p = w->pool;
	self = p;
	w->tid = (int)syscall(SYS_gettid);
	gcbenchNativeWarm(p->handle, w->id); // a C thread's first callback makes its M: not inside a job
	lock(p, &w->locks);
	p->ready++;
	pthread_cond_broadcast(&p->ready_cond);
	for (;;) {
		if (runnable(p)) {
			uint64_t seq = p->head++;
			uint64_t e = p->q[seq & (p->cap - 1)];
			w->running = seq;
			pthread_mutex_unlock(&p->lock);
			if (e & NP_SPIN)
				spin_for(e & ~NP_SPIN);
			else
				gcbenchNativeRun(p->handle, e, w->id);
			lock(p, &w->locks);
			retire_locked(p, w);
			continue; // get_work with the mutex still held
		}
		if (p->closing && p->head == p->tail)
			break;
		p->waiting++;
		pthread_cond_wait(&p->work_cond, &p->lock);
		BUMP(w->locks); // cond_wait re-took the mutex
		p->waiting--;
		if (p->pending > 0)
			p->pending--;
		BUMP(w->woken);
		classify_wakeup_locked(p, w);
		if (!runnable(p) && !(p->closing && p->head == p->tail))
			BUMP(w->futile);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int np_on_worker(np_pool *p) { return self == p; }

void np_hold_mutex(np_pool *p) { pthread_mutex_lock(&p->lock); }
void np_release_mutex(np_pool *p) { pthread_mutex_unlock(&p->lock); }

int np_mutex_supported(int kind) {
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	int err = 0;
	switch (kind) {
	case NP_MUTEX_NORMAL:
		err = pthread_mutexattr_settype(&a, PTHREAD_MUTEX_NORMAL);
		break;
	case NP_MUTEX_PI:
		err = pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
		break;
	case NP_MUTEX_ADAPTIVE:
		err = pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
		break;
	default:
		err = EINVAL;
	}
	pthread_mutex_t m;
	if (err == 0 && (err = pthread_mutex_init(&m, &a)) == 0)
		pthread_mutex_destroy(&m);
	pthread_mutexattr_destroy(&a);
	return err;
}

static void free_pool(np_pool *p) {
	free(p->q);
	free(p->workers);
	free(p);
}

np_pool *np_new(int workers, int mutex_kind, int wake, int gated, uintptr_t handle, int *err) {
	if ((*err = np_mutex_supported(mutex_kind)) != 0)
		return NULL;
	np_pool *p = calloc(1, sizeof *p);
	np_worker *ws = NULL;
	if (p == NULL || posix_memalign((void **)&ws, 128, sizeof *ws * (size_t)workers) != 0) {
		free(p);
		*err = ENOMEM;
		return NULL;
	}
	memset(ws, 0, sizeof *ws * (size_t)workers);
	p->workers = ws;
	p->cap = 256;
	p->q = malloc(sizeof *p->q * p->cap);
	if (p->q == NULL) {
		free_pool(p);
		*err = ENOMEM;
		return NULL;
	}
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	if (mutex_kind == NP_MUTEX_PI)
		pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	else
		pthread_mutexattr_settype(&a, mutex_kind == NP_MUTEX_ADAPTIVE ? PTHREAD_MUTEX_ADAPTIVE_NP : PTHREAD_MUTEX_NORMAL);
	pthread_mutex_init(&p->lock, &a);
	pthread_mutexattr_destroy(&a);
	pthread_cond_init(&p->work_cond, NULL);
	pthread_cond_init(&p->ready_cond, NULL);
	p->wake = wake;
	p->gated = gated;
	p->started = !gated;
	p->nworkers = workers;
	p->handle = handle;
	p->waker_cpu = -1;
	int made = 0;
	for (; made < workers; made++) {
		ws[made].pool = p;
		ws[made].id = made;
		ws[made].running = NONE;
		if ((*err = pthread_create(&ws[made].thread, NULL, worker_main, &ws[made])) != 0)
			break;
	}
	pthread_mutex_lock(&p->lock);
	if (made < workers) { // let the threads made so far exit, then fail
		p->closing = 1;
		pthread_cond_broadcast(&p->work_cond);
		pthread_mutex_unlock(&p->lock);
		for (int i = 0; i < made; i++)
			pthread_join(ws[i].thread, NULL);
		free_pool(p);
		return NULL;
	}
	while (p->ready < workers)
		pthread_cond_wait(&p->ready_cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
	return p;
}

static int grow(np_pool *p, uint64_t need) {
	uint64_t cap = p->cap;
	while (cap < need)
		cap *= 2;
	if (cap == p->cap)
		return 0;
	uint64_t *q = malloc(sizeof *q * cap);
	if (q == NULL)
		return -1;
	for (uint64_t s = p->head; s < p->tail; s++)
		q[s & (cap - 1)] = p->q[s & (p->cap - 1)];
	free(p->q);
	p->q = q;
	p->cap = cap;
	return 0;
}

int np_push(np_pool *p, const uint64_t *entries, int n, int start) {
	lock(p, &p->enq_locks);
	note_waker_locked(p);
	if (p->closing) {
		pthread_mutex_unlock(&p->lock);
		return -1;
	}
	if (grow(p, p->tail - p->head + (uint64_t)n) != 0) {
		pthread_mutex_unlock(&p->lock);
		return -2;
	}
	for (int i = 0; i < n; i++)
		p->q[(p->tail++) & (p->cap - 1)] = entries[i];
	if (!start || p->started) {
		if (n > 0)
			wake(p, wakes_for(p, n), &p->enq_wakes);
		pthread_mutex_unlock(&p->lock);
		return 0;
	}
	// StartBatch: the gate opens in the same hold, the one wake comes after
	// the unlock, so the woken do not find the mutex still held.
	p->started = 1;
	int q = (int)(p->tail - p->head);
	int k = p->wake == NP_WAKE_SIGNAL && q == 0 ? 0 : wakes_for(p, q);
	pthread_mutex_unlock(&p->lock);
	wake(p, k, &p->enq_wakes);
	return 0;
}

static void open_gate_locked(np_pool *p) {
	if (p->started)
		return;
	note_waker_locked(p);
	p->started = 1;
	int q = (int)(p->tail - p->head);
	if (p->wake == NP_WAKE_SIGNAL && q == 0)
		return;
	wake(p, wakes_for(p, q), &p->coord_wakes);
}

void np_start(np_pool *p) {
	lock(p, &p->coord_locks);
	open_gate_locked(p);
	pthread_mutex_unlock(&p->lock);
}

static int done_upto(np_pool *p, uint64_t target) {
	if (p->head < target)
		return 0;
	for (int i = 0; i < p->nworkers; i++)
		if (p->workers[i].running < target)
			return 0;
	return 1;
}

uint64_t np_gen(np_pool *p) { return __atomic_load_n(&p->intr_gen, __ATOMIC_SEQ_CST); }

// np_join is sgen_thread_pool_wait_for_all_jobs with a way out: under the
// mutex it looks, and if not done sleeps on done_seq with the mutex
// released, then takes the mutex to look again. The sequence number is
// read before the generation, and np_interrupt moves the generation before
// the sequence number, so that no interrupt falls between the look and the
// sleep; an interrupted Join returns without taking the mutex again.
int np_join(np_pool *p, uint64_t gen) {
	if (self == p)
		return -1; // it would wait for its own job
	lock(p, &p->coord_locks);
	uint64_t target = p->tail;
	if (!p->started && p->head < target)
		open_gate_locked(p); // a Join opens a closed gate for its own queued jobs
	__atomic_fetch_add(&p->joiners, 1, __ATOMIC_SEQ_CST);
	int done;
	for (;;) {
		uint32_t seq = __atomic_load_n(&p->done_seq, __ATOMIC_SEQ_CST);
		if ((done = done_upto(p, target)) || gen != np_gen(p))
			break;
		p->join_asleep++;
		BUMP(p->join_sleeps);
		pthread_mutex_unlock(&p->lock);
		syscall(SYS_futex, &p->done_seq, FUTEX_WAIT_PRIVATE, seq, NULL, NULL, 0);
		if (gen != np_gen(p)) { // interrupted: out without the mutex
			__atomic_fetch_sub(&p->joiners, 1, __ATOMIC_SEQ_CST);
			return 0;
		}
		lock(p, &p->coord_locks);
	}
	if (__atomic_sub_fetch(&p->joiners, 1, __ATOMIC_SEQ_CST) == 0 && done && p->gated && !p->closing)
		p->started = 0; // sgen_workers_join: started = FALSE
	pthread_mutex_unlock(&p->lock);
	return done;
}

// np_interrupt takes no mutex: it moves the generation, then wakes every
// Join asleep, which then returns without the mutex too.
void np_interrupt(np_pool *p) {
	__atomic_fetch_add(&p->intr_gen, 1, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&p->done_seq, 1, __ATOMIC_SEQ_CST);
	futex_wake_all(&p->done_seq);
}

int np_discard(np_pool *p, uint64_t *out, int cap) {
	lock(p, &p->coord_locks);
	int n = 0;
	while (n < cap && p->head < p->tail)
		out[n++] = p->q[(p->head++) & (p->cap - 1)];
	if (n > 0)
		wake_joiners_locked(p);
	pthread_mutex_unlock(&p->lock);
	return n;
}

int np_close(np_pool *p) {
	if (self == p)
		return -1; // pthread_join of itself, then a free under its feet
	lock(p, &p->coord_locks);
	p->closing = 1;
	p->started = 1;
	pthread_cond_broadcast(&p->work_cond);
	__atomic_fetch_add(&p->coord_wakes, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&p->lock);
	for (int i = 0; i < p->nworkers; i++)
		pthread_join(p->workers[i].thread, NULL);
	return 0;
}

void np_free(np_pool *p) {
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->work_cond);
	pthread_cond_destroy(&p->ready_cond);
	free_pool(p);
}

void np_stats_read(np_pool *p, np_stats *s, uint64_t *jobs_per_worker) {
	memset(s, 0, sizeof *s);
	s->enq_locks = LOAD(p->enq_locks);
	s->enq_wakes = LOAD(p->enq_wakes);
	s->locks = s->enq_locks + LOAD(p->coord_locks);
	s->wakes = s->enq_wakes + LOAD(p->coord_wakes);
	s->join_sleeps = LOAD(p->join_sleeps);
	for (int i = 0; i < p->nworkers; i++) {
		np_worker *w = &p->workers[i];
		s->locks += LOAD(w->locks);
		s->woken += LOAD(w->woken);
		s->futile += LOAD(w->futile);
		s->woken_on_waker_cpu += LOAD(w->woken_on_waker_cpu);
		s->woken_elsewhere += LOAD(w->woken_elsewhere);
		s->woken_unclassified += LOAD(w->woken_unclassified);
		jobs_per_worker[i] = LOAD(w->jobs);
		s->jobs += jobs_per_worker[i];
	}
}

void np_tids(np_pool *p, int *tids) {
	for (int i = 0; i < p->nworkers; i++)
		tids[i] = p->workers[i].tid;
}

// read_file reads up to cap-1 bytes of path into buf, NUL-terminated, and
// returns how many, or -1 where the kernel refuses (no such file, EACCES).
static int read_file(const char *path, char *buf, int cap) {
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int n = 0;
	for (;;) {
		ssize_t r = read(fd, buf + n, (size_t)(cap - 1 - n));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			close(fd);
			return -1;
		}
		if (r == 0 || (n += (int)r) == cap - 1)
			break;
	}
	close(fd);
	buf[n] = 0;
	return n;
}

// within reports whether address a lies inside the object at o of size n.
static int within(unsigned long long a, const void *o, size_t n) {
	uintptr_t b = (uintptr_t)o;
	return a >= b && a < b + n;
}

// np_snapshot reads, for each worker thread, proc_task/TID/stat (field 3,
// the state; field 39, the CPU it last ran on: proc(5)) and
// proc_task/TID/syscall (the system call it is blocked in and its first
// argument, the futex word's address for SYS_futex), and classifies the
// worker as runnable ('R') on the caller's CPU or elsewhere, or asleep in a
// futex call on the pool's mutex or on work_cond, or none of these. It
// takes no mutex: holding it would queue the workers on it, the very state
// it reads. It returns 0, or -1 (s zero) if any read failed.
int np_snapshot(np_pool *p, const char *proc_task, np_snap *s) {
	char path[256], buf[1024];
	memset(s, 0, sizeof *s);
	int me = sched_getcpu();
	if (me < 0)
		return -1;
	for (int i = 0; i < p->nworkers; i++) {
		int tid = p->workers[i].tid;
		snprintf(path, sizeof path, "%s/%d/stat", proc_task, tid);
		if (read_file(path, buf, sizeof buf) <= 0)
			goto fail;
		char *f = strrchr(buf, ')'); // the command may hold spaces and parentheses
		if (f == NULL)
			goto fail;
		char state = 0;
		int cpu = -1;
		// After ")": field 3 is the first, field 39 the 37th.
		char *save = NULL;
		int field = 3;
		for (char *t = strtok_r(f + 1, " ", &save); t != NULL; t = strtok_r(NULL, " ", &save), field++) {
			if (field == 3)
				state = t[0];
			else if (field == 39) {
				cpu = atoi(t);
				break;
			}
		}
		if (state == 0 || cpu < 0)
			goto fail;
		if (state == 'R') {
			if (cpu == me)
				s->runnable_on_caller_cpu++;
			else
				s->runnable_elsewhere++;
			continue;
		}
		snprintf(path, sizeof path, "%s/%d/syscall", proc_task, tid);
		if (read_file(path, buf, sizeof buf) <= 0)
			goto fail;
		long nr;
		unsigned long long addr;
		if (sscanf(buf, "%ld %llx", &nr, &addr) != 2 || nr != SYS_futex)
			continue; // "running", "-1 …" (not in a system call), or another call
		if (within(addr, &p->lock, sizeof p->lock))
			s->asleep_on_mutex++;
		else if (within(addr, &p->work_cond, sizeof p->work_cond))
			s->asleep_on_work_cond++;
	}
	return 0;
fail:
	memset(s, 0, sizeof *s);
	return -1;
}
