package workerpool

import "github.com/gcbench/gcbench/jobs"

// ring is the pool's FIFO job queue: a growable ring buffer whose storage is
// reused from round to round, so steady-state enqueues do not allocate. It
// is guarded by the pool's queue lock.
type ring struct {
	buf  []jobs.Job // len(buf) is 0 or a power of two
	head int        // index of the oldest job
	n    int        // number of queued jobs
}

func (r *ring) len() int { return r.n }

func (r *ring) push(j jobs.Job) {
	if r.n == len(r.buf) {
		r.grow(1)
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = j
	r.n++
}

// pushAll appends js in order, copying the interface values in at most two
// contiguous runs.
func (r *ring) pushAll(js []jobs.Job) {
	if r.n+len(js) > len(r.buf) {
		r.grow(len(js))
	}
	tail := (r.head + r.n) & (len(r.buf) - 1)
	k := copy(r.buf[tail:], js)
	copy(r.buf, js[k:])
	r.n += len(js)
}

// pop removes and returns the oldest job; the queue must not be empty. The
// slot is cleared so the ring does not keep finished jobs alive.
func (r *ring) pop() jobs.Job {
	j := r.buf[r.head]
	r.buf[r.head] = nil
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	return j
}

// popInto removes the len(dst) oldest jobs into dst, oldest first; the
// queue must hold at least len(dst) jobs. The slots are cleared, as by pop.
func (r *ring) popInto(dst []jobs.Job) {
	r.peekInto(dst)
	r.drop(len(dst))
}

// peekInto copies the len(dst) oldest jobs into dst, oldest first, in at
// most two contiguous runs, leaving them queued; the queue must hold at
// least len(dst) jobs.
func (r *ring) peekInto(dst []jobs.Job) {
	end := min(r.head+len(dst), len(r.buf))
	k := copy(dst, r.buf[r.head:end])
	copy(dst[k:], r.buf[:len(dst)-k])
}

// drop removes the k oldest jobs, clearing their slots; the queue must hold
// at least k jobs.
func (r *ring) drop(k int) {
	end := min(r.head+k, len(r.buf))
	clear(r.buf[r.head:end])
	clear(r.buf[:k-(end-r.head)])
	r.head = (r.head + k) & (len(r.buf) - 1)
	r.n -= k
}

// grow makes room for at least extra more jobs, unwrapping the contents to
// the front of the new buffer.
func (r *ring) grow(extra int) {
	size := max(len(r.buf), 64)
	for size < r.n+extra {
		size *= 2
	}
	buf := make([]jobs.Job, size)
	if r.n > 0 {
		k := copy(buf, r.buf[r.head:min(r.head+r.n, len(r.buf))])
		copy(buf[k:], r.buf[:r.n-k])
	}
	r.buf, r.head = buf, 0
}

// clear drops every queued job, in constant time: the storage goes to the
// Go collector (clearing millions of slots would take tens of
// milliseconds) and the next push allocates afresh.
func (r *ring) clear() { *r = ring{} }
