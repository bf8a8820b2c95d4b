package pausemodel

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/gcbench/gcbench/workerpool"
	"golang.org/x/sys/unix"
)

// The calibration pins threads to CPUs so that it measures each cost
// where the model charges it (see calibrateOnce).

// allowedCPUs lists the CPUs the calling thread may run on, lowest first.
func allowedCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("pausemodel: reading the CPU affinity: %w", err)
	}
	var cpus []int
	for cpu := 0; len(cpus) < set.Count(); cpu++ {
		if set.IsSet(cpu) {
			cpus = append(cpus, cpu)
		}
	}
	if len(cpus) == 0 {
		return nil, errors.New("pausemodel: the CPU affinity allows no CPU")
	}
	return cpus, nil
}

// pin binds thread tid (0: the calling thread, which must be locked to
// it) to cpu and returns a function that gives it back its former CPUs.
func pin(tid, cpu int) (unpin func() error, err error) {
	var was, only unix.CPUSet
	if err := unix.SchedGetaffinity(tid, &was); err != nil {
		return nil, fmt.Errorf("pausemodel: reading thread %d's CPU affinity: %w", tid, err)
	}
	only.Set(cpu)
	if err := unix.SchedSetaffinity(tid, &only); err != nil {
		return nil, fmt.Errorf("pausemodel: pinning thread %d to CPU %d: %w", tid, cpu, err)
	}
	return func() error {
		if err := unix.SchedSetaffinity(tid, &was); err != nil {
			return fmt.Errorf("pausemodel: unpinning thread %d: %w", tid, err)
		}
		return nil
	}, nil
}

// threadsCPU is the CPU time the threads tids of this process have run,
// read from their own CPU clocks (the clock ids glibc's
// pthread_getcpuclockid makes: the thread id, complemented, shifted left
// by 3, with CPUCLOCK_PERTHREAD and CPUCLOCK_SCHED set).
func threadsCPU(tids []int) time.Duration {
	var sum time.Duration
	for _, tid := range tids {
		sum += cpuClock(int32(^tid<<3 | 6))
	}
	return sum
}

// pinnedPool locks the calling goroutine to its thread, pins that thread
// to CPU self, and makes a pool of o whose worker threads are pinned to
// CPU to. done closes the pool and gives the caller back its thread and
// its CPUs; it must be called by the same goroutine.
func pinnedPool(o workerpool.Options, self, to int) (p *workerpool.Pool, done func() error, err error) {
	runtime.LockOSThread()
	unpin, err := pin(0, self)
	if err != nil {
		runtime.UnlockOSThread()
		return nil, nil, err
	}
	done = func() error {
		var err error
		if p != nil {
			err = p.Close()
		}
		err = errors.Join(err, unpin())
		runtime.UnlockOSThread()
		return err
	}
	if p, err = workerpool.New(o); err != nil {
		return nil, nil, errors.Join(err, done())
	}
	for _, tid := range p.ThreadIDs() {
		if _, err := pin(tid, to); err != nil { // each thread ends with the pool
			return nil, nil, errors.Join(err, done())
		}
	}
	return p, done, nil
}
