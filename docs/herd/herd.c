// herd: SGen's per-job dispatch on plain threads (pthreads, as SGen's pool
// runs on), to see what the kernel alone does with it. It is gcbench's
// perjob/broadcast protocol without the Go runtime, on workerpool's own
// primitives rather than glibc's: a futex mutex (Drepper, "Futexes Are
// Tricky", mutex 3), a futex condition variable that counts a waiter until
// it is back from its futex wait, W worker threads that look at a gated
// queue under the lock and take grabs of jobs once the gate is open
// (workerpool's grab size), and a collector that, per collection, spins
// through a mutator phase, then enqueues J = 8W + 1 jobs one at a time
// (lock, push, broadcast under the lock, unlock), opens the gate with a
// last broadcast and waits until the jobs are done. It prints the mean
// futile wake-ups (a worker woken that finds nothing to take, counted from
// the first enqueue to the return from the wait for the jobs) and pause per
// collection, leaving out the first five. Jobs, mutator and knobs spin on
// the clock: a thread preempted in a spin gets less CPU than asked.
//
// Two optional knobs add what a Go process has and plain threads have not:
// CPU spent after each return from a futex wait (the runtime's way back
// from a system call; a Go worker's wake calls are raw system calls and
// have none), and a thread that sleeps and spins in a loop (the runtime's
// sysmon, whose usleep(20) lasts 90-150 us with the kernel's timer slack).
// A third, COLLECTOR_US, is CPU the collector spends after each enqueue,
// outside the lock: it shows how the herd's length goes with the share of
// the core the collector takes.
//
//	gcc -O2 -pthread -o herd docs/herd/herd.c
//	taskset -c 0 ./herd WORKERS COLLECTIONS MUTATOR_US [RETURN_US [SLEEP_US SPIN_US [COLLECTOR_US]]]
//
// Linux only. docs/predict.md ("The Go runtime's effect") says what it is
// for.
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long futex(atomic_int *a, int op, int v) {
	return syscall(SYS_futex, a, op | FUTEX_PRIVATE_FLAG, v, NULL, NULL, 0);
}

static double return_us; // the RETURN_US knob
static double now_us(void);
static void spin(double us);
static void back_from_wait(void) {
	if (return_us > 0)
		spin(return_us);
}

// The queue lock: 0 free, 1 held, 2 held and maybe slept on.
static atomic_int lockword;

static void lock(void) {
	int c = 0;
	if (atomic_compare_exchange_strong(&lockword, &c, 1))
		return;
	if (c != 2)
		c = atomic_exchange(&lockword, 2);
	while (c != 0) {
		futex(&lockword, FUTEX_WAIT, 2);
		back_from_wait();
		c = atomic_exchange(&lockword, 2);
	}
}

static void unlock(void) {
	if (atomic_fetch_sub(&lockword, 1) != 1) {
		atomic_store(&lockword, 0);
		futex(&lockword, FUTEX_WAKE, 1);
	}
}

// The pool's state: what the threads change is under the lock, but for the
// futex words and waiters, which a worker leaves as soon as its futex wait
// returns, before it takes the lock again (as workerpool's futex.Cond does).
static atomic_int seq;     // the condition variable's futex word
static atomic_int waiters; // workers registered in a wait and not yet back from it
static long futile;        // wake-ups that found nothing to take
static int workers, jobs, gate, queued, done;
static atomic_int joined; // the collector's futex word: 1 when the jobs are done
static double job_us, sleep_us, spin_us_each, collector_us;

static double now_us(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void spin(double us) {
	double end = now_us() + us;
	while (now_us() < end)
		;
}

static void broadcast_locked(void) {
	if (atomic_load(&waiters) > 0) {
		atomic_fetch_add(&seq, 1);
		futex(&seq, FUTEX_WAKE, INT_MAX);
	}
}

static void *worker(void *arg) {
	(void)arg;
	lock();
	for (;;) {
		if (gate && queued > 0) {
			int k = queued / (2 * workers);
			k = k < 1 ? 1 : k > 64 ? 64 : k;
			queued -= k;
			unlock();
			spin(k * job_us);
			lock();
			done += k;
			if (done == jobs) {
				atomic_store(&joined, 1);
				futex(&joined, FUTEX_WAKE, 1);
			}
			continue;
		}
		int s = atomic_load(&seq);
		atomic_fetch_add(&waiters, 1);
		unlock();
		futex(&seq, FUTEX_WAIT, s);
		back_from_wait();
		atomic_fetch_sub(&waiters, 1);
		lock();
		if (!(gate && queued > 0))
			futile++;
	}
	return NULL;
}

static void *monitor(void *arg) {
	(void)arg;
	struct timespec ts = {0, (long)(sleep_us * 1000)};
	for (;;) {
		nanosleep(&ts, NULL);
		spin(spin_us_each);
	}
	return NULL;
}

// number parses a whole argument as a number in [lo, hi], or exits 2.
static double number(const char *arg, const char *what, double lo, double hi) {
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || *end != 0 || v < lo || v > hi) {
		fprintf(stderr, "herd: %s: want a number from %g to %g, got %s\n", what, lo, hi, arg);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv) {
	if (argc != 4 && argc != 5 && argc != 7 && argc != 8) {
		fprintf(stderr, "usage: herd WORKERS COLLECTIONS MUTATOR_US [RETURN_US [SLEEP_US SPIN_US [COLLECTOR_US]]]\n");
		return 2;
	}
	workers = (int)number(argv[1], "WORKERS", 1, 512);
	int collections = (int)number(argv[2], "COLLECTIONS", 6, 1e6);
	double mutator_us = number(argv[3], "MUTATOR_US", 0, 1e7);
	return_us = argc > 4 ? number(argv[4], "RETURN_US", 0, 1e4) : 0;
	sleep_us = argc > 5 ? number(argv[5], "SLEEP_US", 1, 999999) : 0;
	spin_us_each = argc > 5 ? number(argv[6], "SPIN_US", 0, 1e4) : 0;
	collector_us = argc > 7 ? number(argv[7], "COLLECTOR_US", 0, 1e4) : 0;
	jobs = 8 * workers + 1;
	job_us = 1900.0 / jobs; // 1.9 ms of serial work per collection, as gcbench's 512 MiB + 256 MiB heap has about
	pthread_t t;
	for (int i = 0; i < workers; i++)
		if (pthread_create(&t, NULL, worker, NULL) != 0) {
			perror("herd: pthread_create");
			return 1;
		}
	if (sleep_us > 0 && pthread_create(&t, NULL, monitor, NULL) != 0) {
		perror("herd: pthread_create");
		return 1;
	}
	usleep(100000); // every worker in its wait
	double sum_futile = 0, sum_pause = 0;
	for (int c = 0; c < collections; c++) {
		spin(mutator_us);
		lock();
		long before = futile;
		unlock();
		double start = now_us();
		atomic_store(&joined, 0);
		for (int j = 0; j < jobs; j++) {
			lock();
			queued++;
			broadcast_locked();
			unlock();
			if (collector_us > 0)
				spin(collector_us);
		}
		lock();
		gate = 1;
		broadcast_locked();
		unlock();
		while (atomic_load(&joined) == 0)
			futex(&joined, FUTEX_WAIT, 0);
		double pause = now_us() - start;
		lock();
		gate = 0;
		done = 0;
		long f = futile - before;
		unlock();
		if (c >= 5) {
			sum_futile += f;
			sum_pause += pause;
		}
	}
	int n = collections - 5;
	printf("workers %d, jobs %d: %.0f futile wake-ups per collection (a whole herd is %d), pause %.0f us\n",
	       workers, jobs, sum_futile / n, workers * jobs, sum_pause / n);
	return 0;
}
