package pausemodel

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any leaves a goroutine running:
// the calibration's pools start worker threads that Close must end.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
