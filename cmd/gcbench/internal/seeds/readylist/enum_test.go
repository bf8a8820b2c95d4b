package readylist

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds"
)

// TestEnumsPrintAndMarshal: ListKind and Variant print and marshal as their
// names, and a value without one prints as Type(n) and refuses to marshal.
func TestEnumsPrintAndMarshal(t *testing.T) {
	for _, v := range []any{Mutex, Callback} {
		b, err := json.Marshal(v)
		assert.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("%q", v), string(b))
	}
	for v, want := range map[any]string{ListKind(-1): "ListKind(-1)", Variant(2): "Variant(2)"} {
		assert.Equal(t, want, fmt.Sprint(v))
		_, err := json.Marshal(v)
		assert.ErrorIs(t, err, seeds.ErrInvalidOptions, want)
	}
}
