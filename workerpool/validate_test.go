package workerpool

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestValidateIsWhatNewRefusesUpFront: Validate refuses what New would,
// before anything starts — values out of range, a mutex kind on a
// backend without kinds, and the combinations the Native backend does
// not carry — so that a caller can refuse them before costly work.
func TestValidateIsWhatNewRefusesUpFront(t *testing.T) {
	for _, tc := range []struct {
		o           Options
		invalid     bool
		unsupported bool
	}{
		{o: Options{}},
		{o: Options{Backend: Native, Mutex: MutexPI}},
		{o: Options{Workers: -1}, invalid: true},
		{o: Options{Wake: 99}, invalid: true},
		{o: Options{Backend: Threads, Mutex: MutexPI}, invalid: true},
		{o: Options{Backend: Native, Wake: Spin}, unsupported: true},
		{o: Options{Backend: Native, Queue: Sharded}, unsupported: true},
		{o: Options{Backend: Native, MaxQueued: 4}, unsupported: true},
	} {
		err := tc.o.Validate()
		assert.Equal(t, tc.invalid, err != nil && !tc.unsupported, "%+v: %v", tc.o, err)
		if tc.invalid {
			assert.ErrorIs(t, err, ErrInvalidOptions, "%+v", tc.o)
		}
		if tc.unsupported {
			assert.ErrorIs(t, err, ErrUnsupported, "%+v", tc.o)
		}
		if err == nil {
			assert.False(t, tc.invalid || tc.unsupported, "%+v", tc.o)
		}
	}
	assert.True(t, Native.HasMutexKinds())
	assert.False(t, Threads.HasMutexKinds())
	assert.False(t, Goroutines.HasMutexKinds())
}
