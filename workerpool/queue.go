package workerpool

import "github.com/gcbench/gcbench/jobs"

// blockJobs is how many jobs a block of a fifo holds: 8 KiB of job values.
const blockJobs = 512

// block is a fixed-size run of a fifo's jobs.
type block struct {
	jobs [blockJobs]jobs.Job
	next *block
}

// fifo is the pool's FIFO job queue, guarded by its lock: a list of
// fixed-size blocks, from the one holding the oldest job (head, from index
// hi) to the one receiving pushes (tail, up to index ti). A block that
// empties goes to a list of spares and is reused, so steady-state enqueues
// do not allocate, and the storage kept is that of the largest backlog so
// far. Blocks rather than one growable buffer: a backlog that outgrows the
// storage allocates one 8 KiB block at a time instead of a buffer twice the
// size (tens of MiB of pointer-holding memory for a million jobs, a Go
// collection in the middle of the work), and nothing is ever copied.
type fifo struct {
	head, tail *block
	hi, ti     int
	n          int    // queued jobs
	spare      *block // emptied blocks, for reuse
}

func (q *fifo) len() int { return q.n }

func (q *fifo) push(j jobs.Job) {
	if q.tail == nil || q.ti == blockJobs {
		q.addBlock()
	}
	q.tail.jobs[q.ti] = j
	q.ti++
	q.n++
}

// pushAll appends js in order, copying the interface values in runs of up
// to a block.
func (q *fifo) pushAll(js []jobs.Job) {
	for len(js) > 0 {
		if q.tail == nil || q.ti == blockJobs {
			q.addBlock()
		}
		k := copy(q.tail.jobs[q.ti:], js)
		q.ti += k
		q.n += k
		js = js[k:]
	}
}

// addBlock links a spare or new block after the tail.
func (q *fifo) addBlock() {
	b := q.spare
	if b != nil {
		q.spare, b.next = b.next, nil
	} else {
		b = new(block)
	}
	if q.tail == nil {
		q.head, q.hi = b, 0
	} else {
		q.tail.next = b
	}
	q.tail, q.ti = b, 0
}

// pop removes and returns the oldest job; the queue must not be empty. The
// slot is cleared so the queue does not keep finished jobs alive.
func (q *fifo) pop() jobs.Job {
	j := q.head.jobs[q.hi]
	q.drop(1)
	return j
}

// popInto removes the len(dst) oldest jobs into dst, oldest first; the
// queue must hold at least len(dst) jobs. The slots are cleared, as by pop.
func (q *fifo) popInto(dst []jobs.Job) {
	q.peekInto(dst)
	q.drop(len(dst))
}

// peekInto copies the len(dst) oldest jobs into dst, oldest first, leaving
// them queued; the queue must hold at least len(dst) jobs.
func (q *fifo) peekInto(dst []jobs.Job) {
	b, i := q.head, q.hi
	for k := 0; k < len(dst); b, i = b.next, 0 {
		k += copy(dst[k:], b.jobs[i:q.end(b)])
	}
}

// end is the index after the last job of b.
func (q *fifo) end(b *block) int {
	if b == q.tail {
		return q.ti
	}
	return blockJobs
}

// drop removes the k oldest jobs, clearing their slots; the queue must hold
// at least k jobs. Emptied blocks become spares; an empty queue starts its
// block over.
func (q *fifo) drop(k int) {
	q.n -= k
	for k > 0 {
		c := min(k, q.end(q.head)-q.hi)
		clear(q.head.jobs[q.hi : q.hi+c])
		q.hi += c
		k -= c
		if q.hi == blockJobs && q.head != q.tail {
			b := q.head
			q.head, q.hi = b.next, 0
			b.next, q.spare = q.spare, b
		}
	}
	if q.n == 0 {
		q.hi, q.ti = 0, 0
	}
}

// each calls f for every queued job, oldest first.
func (q *fifo) each(f func(jobs.Job)) {
	for b, i := q.head, q.hi; b != nil && q.n > 0; b, i = b.next, 0 {
		for _, j := range b.jobs[i:q.end(b)] {
			f(j)
		}
		if b == q.tail {
			return
		}
	}
}

// clear drops every queued job, in constant time: the storage goes to the
// Go collector (clearing millions of slots would take tens of
// milliseconds) and the next push allocates afresh.
func (q *fifo) clear() { *q = fifo{} }
