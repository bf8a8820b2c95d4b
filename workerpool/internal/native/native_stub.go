//go:build !(cgo && linux)

package native

// Available reports whether this build has the native pool.
const Available = false

// Pool is the native pool; without cgo on Linux none can be made.
type Pool struct{}

// New returns ErrUnavailable.
func New(Config) (*Pool, error) { return nil, ErrUnavailable }

func (*Pool) Push([]uint64, bool) error     { return ErrClosed }
func (*Pool) Start()                        {}
func (*Pool) Generation() uint64            { return 0 }
func (*Pool) Join(uint64) (bool, error)     { return true, nil }
func (*Pool) OnWorker() bool                { return false }
func (*Pool) HoldMutex() func()             { return func() {} }
func (*Pool) Interrupt()                    {}
func (*Pool) Discard(dst []uint64) []uint64 { return dst }
func (*Pool) Close() error                  { return nil }
func (*Pool) Stats() Stats                  { return Stats{} }
func (*Pool) ThreadIDs() []int              { return nil }
func (*Pool) Snapshot() (Snap, error)       { return Snap{}, ErrUnavailable }
