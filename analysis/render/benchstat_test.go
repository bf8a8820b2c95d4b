package render

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchproc"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/analysis/report/reporttest"
)

// seedRun is the fixture's run with the configuration the CLI gives a
// run of seed, its pauses scaled by scale.
func seedRun(t *testing.T, seed string, scale float64) *report.Report {
	t.Helper()
	r := reporttest.Report(t)
	r.Config = append(slices.Clone(r.Config), report.Pair{Key: "seed", Value: seed})
	for i := range r.Runs[0].Modes {
		for j := range r.Runs[0].Modes[i].Pauses {
			r.Runs[0].Modes[i].Pauses[j] *= scale
		}
	}
	return r
}

// benchstatGroups reads files as benchstat does by default (tables by
// -table .config with the unit, columns by -col .file, rows by -row
// .fullname, benchstat's residue warning for configuration that varies
// within a cell) and returns how many tables and columns it would print
// and the residue keys that vary within a cell.
func benchstatGroups(t *testing.T, files ...string) (tables, cols int, varying []string) {
	t.Helper()
	filter, err := benchproc.NewFilter("*")
	require.NoError(t, err)
	var parser benchproc.ProjectionParser
	tableBy, _, err := parser.ParseWithUnit(".config", filter)
	require.NoError(t, err)
	rowBy, err := parser.Parse(".fullname", filter)
	require.NoError(t, err)
	colBy, err := parser.Parse(".file", filter)
	require.NoError(t, err)
	residue := parser.Residue()
	tableKeys, colKeys := map[benchproc.Key]bool{}, map[benchproc.Key]bool{}
	cellResidue := map[[3]benchproc.Key]benchproc.Key{}
	rd := benchfmt.Files{Paths: files}
	for rd.Scan() {
		res, ok := rd.Result().(*benchfmt.Result)
		require.True(t, ok, "not a result: %v", rd.Result())
		for _, tk := range tableBy.ProjectValues(res) {
			tableKeys[tk] = true
			cell := [3]benchproc.Key{tk, rowBy.Project(res), colBy.Project(res)}
			colKeys[cell[2]] = true
			rk := residue.Project(res)
			if prev, seen := cellResidue[cell]; seen && prev != rk {
				varying = append(varying, rk.StringValues())
			}
			cellResidue[cell] = rk
		}
	}
	require.NoError(t, rd.Err())
	return len(tableKeys), len(colKeys), varying
}

// TestBenchstatComparesRunsOfTwoSeedsInOneTable: two runs that differ
// only in seed, written by WriteBench, make one benchstat table with a
// column per file, so it prints its comparison column between them.
func TestBenchstatComparesRunsOfTwoSeedsInOneTable(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, r := range []*report.Report{seedRun(t, "1", 1), seedRun(t, "2", 0.9)} {
		path := filepath.Join(dir, []string{"seed1.txt", "seed2.txt"}[i])
		f, err := os.Create(path)
		require.NoError(t, err)
		require.NoError(t, WriteBench(f, r))
		require.NoError(t, f.Close())
		files = append(files, path)
	}
	b, err := os.ReadFile(files[1])
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(b), "# seed = 2 "), "the seed stays in the file, as a note")
	tables, cols, varying := benchstatGroups(t, files...)
	assert.Equal(t, 1, tables, "benchstat would split the runs into %d tables", tables)
	assert.Equal(t, 2, cols, "one column per run: benchstat compares them")
	assert.Empty(t, varying, "configuration varies within a cell")
}
