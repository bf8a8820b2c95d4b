package workerpool

import (
	"runtime"

	"github.com/gcbench/gcbench/jobs"
)

// Stealing from grabs (ungated pools). A worker's grab holds up to MaxGrab
// jobs, and a slow job at its front would keep the rest waiting while other
// workers sit idle. So an idle worker that finds no queued job steals the
// newer half of the unstarted jobs of another worker's grab, as a
// work-stealing deque's thief takes the end its owner does not work on
// (Chase and Lev, "Dynamic circular work-stealing deque", SPAA 2005; the Go
// runtime's runqsteal takes half of a victim's run queue).
//
// A grab's claim word is gen<<32 | busy | next<<8 | end: the jobs before
// next are claimed by the owner, those from next to end are still free,
// and a thief lowers end to mid with a CAS and so owns buf[mid:end]. gen
// changes with every grab, so a thief's CAS cannot succeed against a later
// grab (ABA).
//
// The owner claims in runs, not job by job: a claim is one atomic add to
// next, and it costs as much as an empty job, so the first version, one
// claim per job, made BenchmarkTinyTasks 13% slower (docs/workerpool.md).
// Job 0 is claimed when the grab is published; each later claim takes a
// run twice as long as the one before (1, 2, 4, … jobs), so a grab of 64
// costs 6 claims, and while no thief comes the owner runs its jobs reading
// nothing but its own copy of the limit. A thief announces itself by
// lowering end, which the owner's next claim sees: from then on the owner
// claims one job at a time, so a second thief finds work too. The price is
// bounded: a slow job holds back at most the rest of its run, which is no
// longer than the jobs that ran before it in its grab; a slow first job
// (job 0, claimed alone) holds back none.
//
// Invariants:
//
//  1. Exactly once: an index is run by whoever moved it out of [next,
//     end) — the owner by raising next, a thief by lowering end to at
//     least next — and both are read-modify-writes of one word: the
//     owner's add sees the end any earlier steal left, and a thief's CAS
//     fails if the owner moved. The owner runs only jobs below its limit,
//     min(next, end) as its last add returned.
//  2. The buffer is read safely: a thief sets busy in the CAS that gives
//     it buf[mid:end] and clears it after copying those jobs; the owner,
//     whose claim fails at mid, waits for busy to clear before it clears
//     or refills its buffer. Thieves steal under the queue lock (the pool
//     lock when sharded), as Spin's enqueuers write a listener's buffer,
//     so no two thieves copy from one buffer and no handoff writes it
//     meanwhile.
//  3. Join stays exact: the thief publishes itself as running from the
//     sequence number of buf[mid] (with the victim's shard, when sharded)
//     before its CAS, and the victim clears its running state only after
//     its own part ran; so the stolen jobs are covered throughout. A thief
//     whose CAS fails clears its state: a Join may have waited a moment
//     longer, never returned early.
//  4. A gated pool never steals (Pool.steal is false): the SGen round's
//     grabs, wake-ups and counters stay as they were.
//
// Who looks: a worker steals when it finds the queue empty, before it
// sleeps. A worker already asleep is not woken for a stealable grab, only
// by the next enqueue; since an enqueue wakes as many workers as it
// queues jobs (up to those sleeping) and a grab takes at most
// 1/(2·workers) of the queue, the jobs of a grab are queued while every
// worker is awake or on its way, and the last of them to go idle steals.
// That holds only if a grab is stealable from the moment its jobs leave
// the queue: whoever takes or hands a grab publishes its claim word
// before the queue shows the jobs gone (under the queue lock; sharded,
// before the shard's popped moves). A grab handed to a Spin listener is
// published by the enqueuer, not by the listener once it runs: else,
// while a listener is descheduled before it publishes, the others can
// drain the queue, find nothing to steal and sleep, leaving its grab's
// jobs behind its first one. Waking sleepers
// for a grab's sake would cost a futile wake-up whenever its jobs are
// quick, which is almost always.
const (
	claimEnd  = 0xff
	claimNext = 0xff << 8
	claimBusy = 1 << 16
	claimGen  = 32
)

// startClaims makes w the owner of its new grab of k jobs, job 0 claimed
// by w, and publishes the grab as stealable.
func (w *worker) startClaims(k int) {
	w.ownGrab()
	w.publishClaims(k)
}

// ownGrab resets w's own view of its claim for a new grab whose claim word
// is published: job 0 is w's, and its next claim takes one job.
func (w *worker) ownGrab() { w.limit, w.window = 1, 1 }

// publishClaims publishes the grab of k jobs in w's buffer as stealable,
// job 0 claimed for w. w need not be running: an enqueuer handing w a grab
// calls it for w, under the queue lock. A grab of one job publishes
// nothing: the previous grab's word has next == end, which no thief takes
// from.
func (w *worker) publishClaims(k int) {
	if k < 2 {
		return
	}
	gen := w.claim.Load()>>claimGen + 1
	w.claim.Store(gen<<claimGen | 1<<8 | uint64(k))
}

// withdrawClaims makes w's published grab unstealable again (next = end),
// for an enqueuer whose handoff failed after publishClaims. The queue lock
// must be held since publishClaims, so that no thief saw the grab.
func (w *worker) withdrawClaims() {
	c := w.claim.Load()
	w.claim.Store(c&^claimNext | (c&claimEnd)<<8)
}

// claimFrom claims the next run of w's grab, from job i = w.limit on, and
// reports whether job i is w's (not stolen or discarded): one atomic add.
// A run of window jobs, doubling the window; a thief seen (end lowered
// below the grab's length) makes it one job from then on. A failed claim
// leaves next past end, which thieves and Discard read as nothing left.
func (w *worker) claimFrom(i int) bool {
	c := w.claim.Add(uint64(w.window) << 8)
	end := int(c & claimEnd)
	if end <= i {
		return false
	}
	w.limit = uint8(min(int(c&claimNext>>8), end))
	if end < len(w.held) {
		w.window = 1 // a thief came: claim one at a time, leaving it the rest
	} else {
		w.window = min(2*w.window, MaxGrab)
	}
	return true
}

// truncateGrab ends w's grab at i, the jobs from i on having been taken by
// a thief or Discard: it waits until the taker has copied them, then drops
// w's references to them.
func (w *worker) truncateGrab(i int) {
	for w.claim.Load()&claimBusy != 0 {
		runtime.Gosched()
	}
	clear(w.held[i:])
	w.held = w.held[:i]
}

// takeTail takes buf[from:end] of v's current grab for the caller, leaving
// v the jobs before from (from ≥ next), with busy set; the caller copies
// them and calls v.claim.And(^claimBusy). It returns the claim word it
// replaced and whether it succeeded; from < 0 asks for the newer half.
func (v *worker) takeTail(c uint64, from int) (uint64, int, bool) {
	n, e := int(c&claimNext>>8), int(c&claimEnd)
	if c&claimBusy != 0 || e <= n {
		return c, 0, false
	}
	if from < 0 {
		from = n + (e-n)/2
	}
	from = max(from, n)
	return c, from, v.claim.CompareAndSwap(c, c&^claimEnd|claimBusy|uint64(from))
}

// stealLocked steals the newer half of the unstarted jobs of another
// worker's grab for w, visiting the workers from w's neighbour on, and
// reports whether it took any (then w's grab is published as running and
// stealable, as after takeLocked). The queue lock (the pool lock, sharded)
// must be held, and w must hold no grab.
func (p *Pool) stealLocked(w *worker) bool {
	if !p.steal {
		return false
	}
	n := len(p.workers)
	for d := 1; d < n; d++ {
		v := &p.workers[(w.id+d)%n]
		for {
			c := v.claim.Load()
			if c&claimBusy != 0 || int(c&claimEnd) <= int(c&claimNext>>8) {
				break
			}
			st := v.state.Load()
			r := st & runningMask
			if r == 0 {
				break // between its grab's end and its state's clearing
			}
			var hi uint64
			if p.shards != nil {
				hi = st &^ runningMask // the shard of the grab
			}
			ne, e := int(c&claimNext>>8), int(c&claimEnd)
			mid := ne + (e-ne)/2
			w.state.Store(hi | (r + uint64(mid))) // running from buf[mid]'s number: invariant 3
			if _, _, ok := v.takeTail(c, mid); !ok {
				w.state.Store(0)
				continue
			}
			k := copy(w.buf[:e-mid], v.buf[mid:e])
			v.claim.And(^uint64(claimBusy))
			w.held, w.next = w.buf[:k], 0
			w.startClaims(k)
			w.c.grabs.Add(1)
			w.c.grabSteals.Add(1)
			return true
		}
	}
	return false
}

// stealableJobs returns how many jobs of the workers' grabs a thief could
// take now — taken, not started — read without any lock.
func (p *Pool) stealableJobs() int {
	n := 0
	for i := range p.workers {
		c := p.workers[i].claim.Load()
		n += max(0, int(c&claimEnd)-int(c&claimNext>>8))
	}
	return n
}

// anyStealable reports whether some worker's grab has unstarted jobs, read
// without any lock.
func (p *Pool) anyStealable() bool {
	for i := range p.workers {
		c := p.workers[i].claim.Load()
		if int(c&claimEnd) > int(c&claimNext>>8) {
			return true
		}
	}
	return false
}

// dropGrabsLocked takes the unstarted jobs of every worker's grab away
// from it, for Discard and Shutdown, passes each to drop and returns how
// many it took. The queue lock (the pool lock, sharded) must be held.
func (p *Pool) dropGrabsLocked(drop func(jobs.Job)) int {
	if !p.steal {
		return 0
	}
	total := 0
	for i := range p.workers {
		v := &p.workers[i]
		for {
			c, from, ok := v.takeTail(v.claim.Load(), 0)
			if !ok {
				if c&claimBusy == 0 && int(c&claimEnd) > int(c&claimNext>>8) {
					continue // the owner claimed a job meanwhile
				}
				break
			}
			e := int(c & claimEnd)
			if drop != nil {
				for _, j := range v.buf[from:e] {
					drop(j)
				}
			}
			total += e - from
			v.claim.And(^uint64(claimBusy))
			break
		}
	}
	return total
}

// dropper is a job that must learn that it was dropped unrun, and why (a
// group's or Map's job: its group counts it).
type dropper interface{ drop(cause error) }
