package workerpool

import (
	"testing"

	"github.com/gcbench/gcbench/jobs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// seqJob is a job that is only its number.
type seqJob int

func (seqJob) Run(int) {}

// slots counts q's blocks, live and spare, and the job slots in them that
// hold a job.
func slots(q *fifo) (blocks, held int) {
	count := func(b *block) {
		blocks++
		for _, j := range b.jobs {
			if j != nil {
				held++
			}
		}
	}
	for b := q.head; b != nil; b = b.next {
		count(b)
	}
	for b := q.spare; b != nil; b = b.next {
		count(b)
	}
	return blocks, held
}

// TestFIFOMatchesASlice runs random pushes, batch pushes, pops, grabs and
// handoff-style peek-then-drop against a plain slice: same jobs in the same
// order, no slot holding a job that left, and no more blocks than the
// largest backlog needs.
func TestFIFOMatchesASlice(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var q fifo
		var model []jobs.Job
		next, most := 0, 0
		take := func(k int) []jobs.Job {
			got := make([]jobs.Job, k)
			switch rapid.IntRange(0, 2).Draw(rt, "how") {
			case 0:
				q.popInto(got)
			case 1:
				q.peekInto(got)
				q.drop(k)
			default:
				for i := range got {
					got[i] = q.pop()
				}
			}
			return got
		}
		for range rapid.IntRange(1, 40).Draw(rt, "ops") {
			k := rapid.IntRange(0, 3*blockJobs).Draw(rt, "k")
			if rapid.Bool().Draw(rt, "push") {
				js := make([]jobs.Job, k)
				for i := range js {
					js[i] = seqJob(next)
					next++
				}
				if rapid.Bool().Draw(rt, "batch") {
					q.pushAll(js)
				} else {
					for _, j := range js {
						q.push(j)
					}
				}
				model = append(model, js...)
			} else {
				k = min(k, len(model))
				if got := take(k); !assert.Equal(rt, append([]jobs.Job{}, model[:k]...), got) {
					rt.FailNow()
				}
				model = model[k:]
			}
			most = max(most, len(model))
			require.Equal(rt, len(model), q.len())
			blocks, held := slots(&q)
			require.Equal(rt, len(model), held, "slots of jobs that left are cleared")
			require.LessOrEqual(rt, blocks, (most+blockJobs-1)/blockJobs+1, "blocks are reused")
		}
	})
}

func TestFIFOClearEmptiesAndStaysUsable(t *testing.T) {
	var q fifo
	var j, k countJob
	for range 3 * blockJobs {
		q.push(&j)
	}
	q.clear()
	assert.Zero(t, q.len())
	blocks, _ := slots(&q)
	assert.Zero(t, blocks, "the storage goes to the collector")
	q.pushAll([]jobs.Job{&k, &j})
	assert.Equal(t, 2, q.len())
	assert.Same(t, &k, q.pop())
	assert.Same(t, &j, q.pop())
}

// A backlog beyond the storage allocates one block at a time, and a drained
// queue's blocks serve the next backlog of the same size without
// allocating.
func TestFIFOGrowsByBlocksAndReusesThem(t *testing.T) {
	var q fifo
	var j countJob
	fill := func(n int) {
		for range n {
			q.push(&j)
		}
		for q.len() > 0 {
			q.pop()
		}
	}
	fill(10 * blockJobs)
	assert.Zero(t, testing.AllocsPerRun(10, func() { fill(10 * blockJobs) }))
	before, _ := slots(&q)
	fill(12 * blockJobs)
	after, _ := slots(&q)
	assert.Equal(t, before+2, after, "two more blocks")
}
