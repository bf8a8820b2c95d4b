// cpuspeed: whether this host's CPUs keep one speed. One thread pinned to
// each CPU times the same dependent chain of multiply-adds (no memory,
// no system call: nothing but the core's speed enters it), ROUNDS rounds
// of 20 repetitions, all threads at once, and prints each round's mean
// time per repetition, one column per CPU.
//
// On a dedicated machine the columns are flat. On a virtual machine whose
// vCPUs share physical cores with other guests they are not, and not
// together: gcbench's pause measurements (docs/predict.md, "The host's
// speed") then need a speed reference taken in the same seconds, on the
// same CPUs, as the pauses.
//
//	gcc -O2 -pthread -o cpuspeed docs/cpuspeed/cpuspeed.c
//	./cpuspeed [ROUNDS]                 # default 12
//
// Linux only.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { REPS = 20, CHAIN = 1 << 22, MAXCPU = 256 };

static int rounds;
static double *ms; // ms[cpu*rounds + round]
static pthread_barrier_t start;
static volatile uint64_t sink;

static double now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *timer(void *arg) {
	int cpu = (int)(intptr_t)arg;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) {
		fprintf(stderr, "cpuspeed: cannot pin to CPU %d\n", cpu);
		exit(1);
	}
	pthread_barrier_wait(&start);
	for (int r = 0; r < rounds; r++) {
		double t0 = now_ms();
		for (int k = 0; k < REPS; k++) {
			uint64_t x = 7;
			for (int j = 0; j < CHAIN; j++)
				x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			sink += x;
		}
		ms[cpu * rounds + r] = (now_ms() - t0) / REPS;
	}
	return NULL;
}

int main(int argc, char **argv) {
	rounds = argc > 1 ? atoi(argv[1]) : 12;
	if (rounds < 1) {
		fprintf(stderr, "usage: cpuspeed [ROUNDS (1 or more)]\n");
		return 2;
	}
	cpu_set_t mine;
	if (sched_getaffinity(0, sizeof mine, &mine) != 0)
		return 1;
	int cpus[MAXCPU], n = 0;
	for (int c = 0; c < MAXCPU; c++)
		if (CPU_ISSET(c, &mine))
			cpus[n++] = c;
	ms = calloc((size_t)MAXCPU * rounds, sizeof *ms);
	pthread_t t[MAXCPU];
	if (ms == NULL || pthread_barrier_init(&start, NULL, (unsigned)n) != 0)
		return 1;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, timer, (void *)(intptr_t)cpus[i]) != 0)
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("ms per %d multiply-adds, each round the mean of %d; one column per CPU\n", CHAIN, REPS);
	printf("%5s", "round");
	for (int i = 0; i < n; i++)
		printf(" %7s%-3d", "cpu", cpus[i]);
	printf("\n");
	for (int r = 0; r < rounds; r++) {
		printf("%5d", r);
		for (int i = 0; i < n; i++)
			printf(" %10.2f", ms[cpus[i] * rounds + r]);
		printf("\n");
	}
	return 0;
}
