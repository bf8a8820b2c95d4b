package outfile

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any leaves a goroutine running:
// a write to a FIFO runs on a goroutine that the test must see finish.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
