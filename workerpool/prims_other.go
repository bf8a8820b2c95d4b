//go:build !linux

package workerpool

import "fmt"

func newThreadKit() (kit, error) {
	return nil, fmt.Errorf("workerpool: backend %v needs Linux futexes: %w", Threads, ErrUnsupported)
}
