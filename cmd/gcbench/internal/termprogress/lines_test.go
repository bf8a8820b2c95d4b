package termprogress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestLinesReportAtMostOncePerInterval: on a fake clock, collections
// within an interval write nothing; the first past it writes one line
// with the counts, the time so far and the time left at that pace.
func TestLinesReportAtMostOncePerInterval(t *testing.T) {
	var b bytes.Buffer
	clock := time.Unix(0, 0)
	l := newLines(&b, "gcbench", []string{"serial", "batch"}, 10, 10*time.Second, func() time.Time { return clock })
	for i := 1; i <= 4; i++ {
		clock = clock.Add(time.Second)
		l.Update(0, i, 10)
		l.Update(1, i, 10)
	}
	assert.Empty(t, b.String(), "no line within the first interval")
	l.Update(5, 1, 10) // out of range: ignored
	clock = clock.Add(6 * time.Second)
	l.Update(0, 5, 10)
	assert.Equal(t, "gcbench: 9 of 20 collections (serial 5/10, batch 4/10), 10s so far, about 12s left\n", b.String())
	clock = clock.Add(9 * time.Second)
	l.Update(1, 5, 10)
	assert.Equal(t, 1, strings.Count(b.String(), "\n"), "at most one line per interval")
	clock = clock.Add(time.Second)
	l.Update(1, 10, 10)
	l.Update(0, 10, 10)
	assert.Equal(t, 2, strings.Count(b.String(), "\n"))
	assert.True(t, strings.HasSuffix(b.String(), "gcbench: 15 of 20 collections (serial 5/10, batch 10/10), 20s so far, about 7s left\n"), b.String())

	var nilLines *Lines
	nilLines.Update(0, 1, 1) // does nothing
}

// TestLinesOffTerminalOnly: a writer that is not a terminal gets Lines.
func TestLinesOffTerminalOnly(t *testing.T) {
	var b bytes.Buffer
	assert.False(t, IsTerminal(&b))
	assert.NotNil(t, OffTerminal(&b, "gcbench", []string{"batch"}, 1, DefaultEvery))
}

// TestLinesPaceFromTheFirstCollection: the time spent before the first
// collection (building the heap) is not extrapolated: the first line,
// after a long build, gives no estimate, and the next one the pace of
// the collections alone.
func TestLinesPaceFromTheFirstCollection(t *testing.T) {
	var b bytes.Buffer
	clock := time.Unix(0, 0)
	l := newLines(&b, "gcbench", []string{"batch"}, 1000, 10*time.Second, func() time.Time { return clock })
	clock = clock.Add(16 * time.Second) // the heap's build
	l.Update(0, 1, 1000)
	assert.Equal(t, "gcbench: 1 of 1000 collections (batch 1/1000), 16s so far\n", b.String())
	clock = clock.Add(10 * time.Second)
	l.Update(0, 101, 1000)
	assert.True(t, strings.HasSuffix(b.String(), "gcbench: 101 of 1000 collections (batch 101/1000), 26s so far, about 1m30s left\n"), b.String())
}
