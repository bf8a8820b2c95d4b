package protocols

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEnumsPrintAndMarshal: each protocol enum prints and marshals as its
// name, and a value without one prints as Type(n) and refuses to marshal.
func TestEnumsPrintAndMarshal(t *testing.T) {
	for _, v := range []any{Latency, Mutex, Callback} {
		b, err := json.Marshal(v)
		assert.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("%q", v), string(b))
	}
	for v, want := range map[any]string{PoolProtocol(5): "PoolProtocol(5)", ListKind(-1): "ListKind(-1)", ReadyVariant(2): "ReadyVariant(2)"} {
		assert.Equal(t, want, fmt.Sprint(v))
		_, err := json.Marshal(v)
		assert.ErrorIs(t, err, ErrInvalidOptions, want)
	}
}
