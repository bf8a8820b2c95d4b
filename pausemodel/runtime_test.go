package pausemodel

import (
	"testing"
	"time"

	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/workerpool"
)

// TestSysmonTakesItsShareOfOneCore: with Kernel.Sysmon, sysmon's looks
// every SysmonEvery take Sysmon each of the one core, so a collection
// that keeps the core busy lengthens by about Sysmon per look, and the
// pool's counts do not change; without it, or with no calibrated look,
// nothing changes.
func TestSysmonTakesItsShareOfOneCore(t *testing.T) {
	c := hostLike
	c.SysmonEvery, c.Sysmon = 100*us, 20*us
	for _, k := range MutexKinds() {
		s := Shape{Cores: 1, Workers: 8, Mode: gcsim.Batch, Mutex: k, Jobs: jobsOf(65, 30*us)}
		without := mustSimulate(t, c, s)
		s.Kernel.Sysmon = true
		with := mustSimulate(t, c, s)
		looks := with.Dispatch / c.SysmonEvery
		if lo, hi := (looks-1)*c.Sysmon, (looks+1)*c.Sysmon; with.Dispatch-without.Dispatch < lo || with.Dispatch-without.Dispatch > hi {
			t.Errorf("%v: sysmon lengthened a %v collection by %v, want %v–%v (a look's %v each)",
				k, with.Dispatch, with.Dispatch-without.Dispatch, lo, hi, c.Sysmon)
		}
		if with.Locks != without.Locks || with.Broadcasts != without.Broadcasts || with.WorkerCPU != without.WorkerCPU {
			t.Errorf("%v: sysmon changed the pool's counts or the workers' CPU: %+v, against %+v", k, with, without)
		}
		none := c
		none.SysmonEvery, none.Sysmon = 0, 0
		if got := mustSimulate(t, none, s); got != mustSimulate(t, none, Shape{Cores: 1, Workers: 8, Mode: gcsim.Batch, Mutex: k, Jobs: s.Jobs}) {
			t.Errorf("%v: Kernel.Sysmon with no calibrated look changed the collection: %+v", k, got)
		}
	}
}

// TestSysmonUsesAnIdleCore: on as many cores as threads, sysmon's looks
// find an idle core and cost the collection little.
func TestSysmonUsesAnIdleCore(t *testing.T) {
	c := hostLike
	c.SysmonEvery, c.Sysmon = 100*us, 20*us
	s := Shape{Cores: 4, Workers: 2, Mode: gcsim.Batch, Mutex: workerpool.MutexNormal, Jobs: jobsOf(17, 100*us)}
	without := mustSimulate(t, c, s)
	s.Kernel.Sysmon = true
	with := mustSimulate(t, c, s)
	if d := with.Dispatch - without.Dispatch; d > 2*c.Sysmon || d < -2*c.Sysmon {
		t.Errorf("an idle core to spare: sysmon moved the collection by %v (of %v), want at most a look or two", d, without.Dispatch)
	}
	if without.Dispatch < 500*time.Microsecond {
		t.Fatalf("the collection took %v: too short to look at", without.Dispatch)
	}
}
