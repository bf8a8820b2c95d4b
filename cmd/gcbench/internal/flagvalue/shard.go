package flagvalue

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is a flag holding i/n, 0 ≤ i < n: this task's share of work
// split n ways, as a cluster scheduler's array job numbers its tasks
// ($SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT).
type Shard struct{ index, size *int }

// NewShard returns a shard flag stored in *index and *size, default 0/1:
// all of the work.
func NewShard(index, size *int) *Shard {
	*index, *size = 0, 1
	return &Shard{index, size}
}

// Set stores the shard s spells, or says what a shard is.
func (v *Shard) Set(s string) error {
	i, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(strings.TrimSpace(i))
	size, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || size < 1 || index < 0 || index >= size {
		return fmt.Errorf("want i/n with 0 ≤ i < n, like 0/4")
	}
	*v.index, *v.size = index, size
	return nil
}

// String returns the shard as i/n.
func (v *Shard) String() string { return fmt.Sprintf("%d/%d", *v.index, *v.size) }

// Type returns "i/n", the word --help shows for the argument.
func (v *Shard) Type() string { return "i/n" }
