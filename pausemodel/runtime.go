package pausemodel

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/workerpool"
	"golang.org/x/sys/unix"
)

// The Go runtime's part. Each of the Native pool's jobs is a callback
// into Go, and a callback's thread keeps the P it took while it waits in
// C. A P that only callbacks use never advances its schedtick (only
// execute in the runtime's proc.go does), so sysmon's retake takes it from
// every system call it finds its thread in, and every take resets
// sysmon's sleep to its shortest, 20 µs: while workers that ran jobs wait
// in C, sysmon looks every SysmonEvery and the runtime's threads spend
// Sysmon per look (sysmon's own CPU, and the spinning Ms its takes
// start). On one CPU all of it comes out of the collection; how much the
// mutex kind decides, by how many workers run jobs (docs/predict.md, "The
// Go runtime's effect").

// runtimeJob and runtimeMutator are measureRuntime's jobs, each a
// callback that spins in Go, and the enqueuer's spin before each round.
const (
	runtimeJob     = 15 * time.Microsecond
	runtimeMutator = 2 * time.Millisecond
)

// measureRuntime measures Costs.SysmonEvery and Costs.Sysmon: rounds of
// gcsim's 65 jobs for herdWorkers workers, each spinning runtimeJob in Go,
// through a gated Broadcast pool of herdWorkers workers in one batch,
// each round after the enqueuer has spun runtimeMutator as gcsim's
// collector runs the mutator, with every thread of the process on CPU
// cpu, where the runtime's threads take their CPU from the round. sysmon
// is the process's second thread (runtime.main starts it before any
// other); its runs per round are its looks, and the CPU of every thread
// but the enqueuer's and the workers' is the runtime's. Both are 0 if
// sysmon never looked.
func (cal calibration) measureRuntime(ctx context.Context, cpu int) (every, cost time.Duration, err error) {
	unpin, err := pinProcess(cpu)
	if err != nil {
		return 0, 0, err
	}
	defer func() {
		if e := unpin(); err == nil {
			err = e
		}
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p, err := workerpool.New(cal.options(herdWorkers, workerpool.Broadcast, true))
	if err != nil {
		return 0, 0, err
	}
	defer p.Close()
	ours := map[int]bool{unix.Gettid(): true}
	for _, tid := range p.ThreadIDs() {
		ours[tid] = true
	}
	sysmon, err := sysmonThread()
	if err != nil {
		return 0, 0, err
	}
	jobSpins, mutatorSpins := spinsFor(runtimeJob), spinsFor(runtimeMutator)
	batch := make([]jobs.Job, 65)
	for i := range batch {
		batch[i] = jobs.Func(func(int) { spin(jobSpins) })
	}
	const rounds = 40
	var took, others time.Duration
	var looks int64
	for range rounds {
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		spin(mutatorSpins)
		before, err := threadStats()
		if err != nil {
			return 0, 0, err
		}
		t0 := time.Now()
		if err := p.EnqueueBatch(batch); err != nil {
			return 0, 0, err
		}
		p.Start()
		if err := p.Join(ctx); err != nil {
			return 0, 0, err
		}
		took += time.Since(t0)
		after, err := threadStats()
		if err != nil {
			return 0, 0, err
		}
		spent, sys := runtimeSpent(before, after, ours, sysmon)
		others += spent
		looks += sys.runs
	}
	if looks == 0 {
		return 0, 0, nil
	}
	return took / time.Duration(looks), others / time.Duration(looks), nil
}

// sysmonThread is the thread id of the runtime's sysmon: the process's
// second thread, as runtime.main starts sysmon's before any other.
func sysmonThread() (int, error) {
	stats, err := threadStats()
	if err != nil {
		return 0, err
	}
	tids := slices.Sorted(maps.Keys(stats))
	if len(tids) < 2 {
		return 0, fmt.Errorf("pausemodel: %d threads: no sysmon", len(tids))
	}
	return tids[1], nil
}

// runtimeSpent is what the threads not in ours ran between the reads
// before and after: their CPU, and sysmon's own CPU and runs.
func runtimeSpent(before, after map[int]threadStat, ours map[int]bool, sysmon int) (others time.Duration, sys threadStat) {
	for tid, s := range after {
		if ours[tid] {
			continue
		}
		d := s.sub(before[tid])
		others += d.cpu
		if tid == sysmon {
			sys = d
		}
	}
	return others, sys
}

// threadStat is a thread's /proc schedstat: its CPU time and how many
// times it has run on a CPU.
type threadStat struct {
	cpu  time.Duration
	runs int64
}

func (s threadStat) sub(t threadStat) threadStat { return threadStat{s.cpu - t.cpu, s.runs - t.runs} }

// threadStats reads the schedstat of every thread of this process.
func threadStats() (map[int]threadStat, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, fmt.Errorf("pausemodel: listing the process's threads: %w", err)
	}
	m := make(map[int]threadStat, len(ents))
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/self/task/" + e.Name() + "/schedstat")
		if err != nil {
			continue // the thread has exited
		}
		f := strings.Fields(string(b))
		if len(f) < 3 {
			return nil, fmt.Errorf("pausemodel: thread %d's schedstat %q", tid, b)
		}
		cpu, err1 := strconv.ParseInt(f[0], 10, 64)
		runs, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("pausemodel: thread %d's schedstat %q", tid, b)
		}
		m[tid] = threadStat{time.Duration(cpu), runs}
	}
	return m, nil
}

// pinProcess binds every thread of the process to cpu and returns a
// function that gives every thread then in the process, those started
// meanwhile included, the calling thread's former CPUs.
func pinProcess(cpu int) (unpin func() error, err error) {
	var was, only unix.CPUSet
	if err := unix.SchedGetaffinity(0, &was); err != nil {
		return nil, fmt.Errorf("pausemodel: reading the CPU affinity: %w", err)
	}
	only.Set(cpu)
	setAll := func(set *unix.CPUSet) error {
		stats, err := threadStats()
		if err != nil {
			return err
		}
		for tid := range stats {
			if err := unix.SchedSetaffinity(tid, set); err != nil && err != unix.ESRCH {
				return fmt.Errorf("pausemodel: setting thread %d's CPU affinity: %w", tid, err)
			}
		}
		return nil
	}
	unpin = func() error { return setAll(&was) }
	if err := setAll(&only); err != nil {
		return nil, errors.Join(err, unpin())
	}
	return unpin, nil
}

// sysmonLoop has sysmon look every Costs.SysmonEvery until the collection
// ends (Kernel.Sysmon).
func (m *machine) sysmonLoop() {
	m.after(m.c.SysmonEvery, func() {
		if m.finished {
			return
		}
		m.sysmonLook()
		m.sysmonLoop()
	})
}

// sysmonLook is one of sysmon's looks: the runtime's threads run
// Costs.Sysmon on an idle core if there is one, else on the collector's
// core ahead of whatever runs there: sysmon has slept, so it preempts the
// thread running there at the end of its burst, the collector as a woken
// worker does, unless the Shape's Kernel says no wake-up preempts
// (PreemptNever: it goes to the head of the queue). A look still waiting
// or running makes the next one wait for it.
func (m *machine) sysmonLook() {
	t := m.sysmon
	if t.onCore || t.waiting {
		return
	}
	p := pending{t, m.c.Sysmon, func() { m.block(t) }}
	if i := slices.IndexFunc(m.cores, (*core).idle); i >= 0 {
		m.runOn(m.cores[i], p)
		return
	}
	c := m.collector.core
	m.reschedule(c)
	if c.idle() {
		m.runOn(c, p)
		return
	}
	t.runnable(m.now)
	preempts := m.s.Kernel.Preemption != PreemptNever
	if c.running == m.collector && preempts {
		m.yield = true
		c.queue = slices.Insert(c.queue, min(m.ahead, len(c.queue)), p)
		m.ahead++
		return
	}
	c.queue = slices.Insert(c.queue, 0, p)
	c.preempt = preempts && c.running != m.collector
}
