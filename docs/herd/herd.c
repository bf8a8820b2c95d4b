// herd: SGen's per-job dispatch on plain pthreads, to see what the kernel
// alone does with it. It is gcbench's perjob/broadcast protocol without the
// Go runtime: a futex mutex (Drepper, "Futexes Are Tricky", mutex 3), a
// futex condition variable that counts its waiters, W worker threads that
// look at a gated queue under the lock and take grabs of jobs once the gate
// is open (workerpool's grab size), and a collector that, per collection,
// spins through a mutator phase, then enqueues J = 8W + 1 jobs one at a time
// (lock, push, broadcast under the lock, unlock), opens the gate with a
// last broadcast and waits until the jobs are done. It prints the mean
// futile wake-ups (a worker woken that finds nothing to take) and pause per
// collection, leaving out the first five.
//
// Two optional knobs add what a Go worker has and a pthread has not: CPU
// spent after each return from a futex wait before the worker looks at the
// lock (the runtime's way back from a system call), and a thread that
// sleeps and spins periodically (the runtime's sysmon).
//
//	gcc -O2 -pthread -o herd docs/herd/herd.c
//	taskset -c 0 ./herd WORKERS COLLECTIONS MUTATOR_US [RETURN_US [SLEEP_US SPIN_US]]
//
// Linux only. The README's gcbench predict section reports what it printed.
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
		c = atomic_exchange(&lockword, 2);
	}
}

static void unlock(void) {
	if (atomic_fetch_sub(&lockword, 1) != 1) {
		atomic_store(&lockword, 0);
		futex(&lockword, FUTEX_WAKE, 1);
	}
}

// The pool's state; everything but the futex words is under the lock.
static atomic_int seq;  // the condition variable's futex word
static int waiters;     // workers registered in a wait and not yet back
static long futile;     // wake-ups that found nothing to take
static int workers, jobs, gate, queued, done;
static atomic_int joined; // the collector's futex word: 1 when the jobs are done
static double job_us, return_us, sleep_us, spin_us_each;

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
	if (waiters > 0) {
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
		waiters++;
		unlock();
		futex(&seq, FUTEX_WAIT, s);
		if (return_us > 0)
			spin(return_us);
		lock();
		waiters--;
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

int main(int argc, char **argv) {
	if (argc < 4) {
		fprintf(stderr, "usage: herd WORKERS COLLECTIONS MUTATOR_US [RETURN_US [SLEEP_US SPIN_US]]\n");
		return 2;
	}
	workers = atoi(argv[1]);
	int collections = atoi(argv[2]);
	double mutator_us = atof(argv[3]);
	return_us = argc > 4 ? atof(argv[4]) : 0;
	sleep_us = argc > 5 ? atof(argv[5]) : 0;
	spin_us_each = argc > 6 ? atof(argv[6]) : 0;
	if (workers < 1 || workers > 512 || collections < 6 || mutator_us < 0 || return_us < 0 || sleep_us < 0 || spin_us_each < 0) {
		fprintf(stderr, "herd: want 1-512 workers, at least 6 collections, no negative times\n");
		return 2;
	}
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
