// pispin: does a mutex's waiter sleep, or spin, while the owner runs on
// another CPU? An owner thread on CPU 0 takes the mutex and holds it for
// HOLD_US microseconds, spinning; the waiter on CPU 1 then locks it. For
// each of 200 rounds the waiter's wait (CLOCK_MONOTONIC), its CPU time in
// the wait (CLOCK_THREAD_CPUTIME_ID) and its voluntary context switches
// (getrusage(RUSAGE_THREAD)) are read around pthread_mutex_lock; the
// program prints their means. A waiter that sleeps spends almost no CPU
// and switches once; one that spins spends about its wait and does not
// switch. Linux's PI futex (FUTEX_LOCK_PI) waits in the rt_mutex, whose
// top waiter spins while the owner is on a CPU (rtmutex_spin_on_owner in
// kernel/locking/rtmutex.c); glibc's normal mutex sleeps in FUTEX_WAIT.
// docs/predict.md shows the output and what pausemodel takes from it.
//
//	gcc -O2 -pthread -o pispin docs/pispin/pispin.c
//	./pispin 0 200    # normal mutex, 200 us holds
//	./pispin 1 200    # PI mutex
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

enum { ROUNDS = 200 };

static pthread_mutex_t mu;
static atomic_int step; // 2r+1: round r may start; 2r+2: the owner holds the mutex in round r
static long hold_us;

static double now_us(clockid_t clock) {
	struct timespec t;
	clock_gettime(clock, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void pin(int cpu) {
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) {
		fprintf(stderr, "pispin: cannot run on CPU %d (two CPUs needed)\n", cpu);
		exit(1);
	}
}

static void *owner(void *arg) {
	(void)arg;
	pin(0);
	for (int r = 0; r < ROUNDS; r++) {
		while (atomic_load(&step) != 2 * r + 1)
			;
		pthread_mutex_lock(&mu);
		atomic_store(&step, 2 * r + 2);
		double t = now_us(CLOCK_MONOTONIC);
		while (now_us(CLOCK_MONOTONIC) - t < hold_us)
			;
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: pispin PI(0|1) HOLD_US\n");
		return 2;
	}
	int pi = atoi(argv[1]);
	hold_us = atol(argv[2]);
	pthread_mutexattr_t attr;
	pthread_mutexattr_init(&attr);
	if (pi && pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT) != 0) {
		fprintf(stderr, "pispin: no PI mutexes here\n");
		return 1;
	}
	pthread_mutex_init(&mu, &attr);
	pin(1);
	pthread_t th;
	pthread_create(&th, NULL, owner, NULL);
	double wait = 0, cpu = 0;
	long switches = 0;
	for (int r = 0; r < ROUNDS; r++) {
		atomic_store(&step, 2 * r + 1);
		while (atomic_load(&step) != 2 * r + 2)
			;
		struct rusage before, after;
		getrusage(RUSAGE_THREAD, &before);
		double c0 = now_us(CLOCK_THREAD_CPUTIME_ID), w0 = now_us(CLOCK_MONOTONIC);
		pthread_mutex_lock(&mu);
		double c1 = now_us(CLOCK_THREAD_CPUTIME_ID), w1 = now_us(CLOCK_MONOTONIC);
		getrusage(RUSAGE_THREAD, &after);
		pthread_mutex_unlock(&mu);
		wait += w1 - w0;
		cpu += c1 - c0;
		switches += after.ru_nvcsw - before.ru_nvcsw;
	}
	pthread_join(th, NULL);
	printf("%s mutex, %ld us holds: the waiter waited %.0f us, ran %.0f us of it, %.2f voluntary switches a wait\n",
	       pi ? "PI" : "normal", hold_us, wait / ROUNDS, cpu / ROUNDS, (double)switches / ROUNDS);
	return 0;
}
