package poolbench

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds"
)

// TestProtocolPrintsAndMarshals: a Protocol prints and marshals as its
// name, and one without a name prints as Protocol(n) and refuses to
// marshal.
func TestProtocolPrintsAndMarshals(t *testing.T) {
	b, err := json.Marshal(Latency)
	assert.NoError(t, err)
	assert.Equal(t, `"latency"`, string(b))
	assert.Equal(t, "Protocol(5)", Protocol(5).String())
	_, err = json.Marshal(Protocol(5))
	assert.ErrorIs(t, err, seeds.ErrInvalidOptions)
}
