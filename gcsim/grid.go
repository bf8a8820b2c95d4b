package gcsim

import (
	"fmt"

	"github.com/gcbench/gcbench/internal/bytesize"
	"github.com/gcbench/gcbench/workerpool"
)

// A Grid is a sweep's axes: every combination of one value of each is
// one configuration to compare the modes on.
type Grid struct {
	MajorHeaps, LOSes []int64
	Backends          []workerpool.Backend
	// Mutexes are the mutex kinds of the backends that have kinds
	// (workerpool.Backend.HasMutexKinds), each a configuration of its
	// own; the other backends' configurations keep MutexNormal, which
	// they do not use.
	Mutexes []workerpool.MutexKind
	Wakes   []workerpool.WakePolicy
	Workers []int
}

// Configs is base at every combination of g's values, in a fixed order
// (major heap, large-object space, backend, mutex kind for Native, wake
// policy, then workers, which varies fastest): every shard of a sweep, on
// every machine, numbers the configurations alike.
func (g Grid) Configs(base Config) []Config {
	var out []Config
	for _, major := range g.MajorHeaps {
		for _, los := range g.LOSes {
			for _, backend := range g.Backends {
				for _, mutex := range g.mutexes(backend) {
					for _, wake := range g.Wakes {
						for _, workers := range g.Workers {
							c := base
							c.MajorHeap, c.LOS, c.Backend, c.Mutex = major, los, backend, mutex
							c.Wake, c.Workers = wake, workers
							out = append(out, c)
						}
					}
				}
			}
		}
	}
	return out
}

// mutexes are the mutex kinds a backend's configurations take.
func (g Grid) mutexes(backend workerpool.Backend) []workerpool.MutexKind {
	if backend.HasMutexKinds() {
		return g.Mutexes
	}
	return []workerpool.MutexKind{workerpool.MutexNormal}
}

// PointName names c as a point of a Grid by its values on the grid's
// axes, for example "workers8-broadcast-native-pi-major2.5GiB-los1GiB"
// (the mutex kind only on the Native backend): distinct configurations of
// one Configs have distinct names, fit for file names.
func (c Config) PointName() string {
	backend := c.Backend.String()
	if c.Backend.HasMutexKinds() {
		backend += "-" + c.Mutex.String()
	}
	return fmt.Sprintf("workers%d-%s-%s-major%s-los%s", c.Workers, c.Wake, backend, bytesize.Format(c.MajorHeap), bytesize.Format(c.LOS))
}
