package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/internal/testwait"
)

// The module's floor plan is typed once, as CONTRIBUTING.md's table; these
// tests read it and hold every package's imports, as go list reports
// them, against it.

const modulePath = "github.com/gcbench/gcbench"

// A floorPackage is one package and what it imports of the module, its
// paths relative to the module's top.
type floorPackage struct {
	Path        string
	Imports     []string // what the package's own files import
	TestImports []string // what its tests import, in or outside the package
}

// A floorEntry places the packages that Pattern names on Floor: a path,
// or a path followed by "/..." for every package below that path.
type floorEntry struct {
	Pattern string
	Floor   int
}

var floorRow = regexp.MustCompile(`^\| (\d+) \| (.*?) \|`)

// docSection is the text of the "## title" section of file, a Markdown
// file at the module's top, up to the next "## " heading.
func docSection(t *testing.T, file, title string) string {
	t.Helper()
	b, err := os.ReadFile("../../" + file)
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(b), "\n## "+title+"\n")
	require.True(t, ok, "%s has a section %q", file, title)
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}

// readFloorPlan reads the table of CONTRIBUTING.md's "The floor plan".
func readFloorPlan(t *testing.T) []floorEntry {
	t.Helper()
	section := docSection(t, "CONTRIBUTING.md", "The floor plan")
	var plan []floorEntry
	for _, line := range strings.Split(section, "\n") {
		m := floorRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		floor, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		for _, p := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(m[2], -1) {
			plan = append(plan, floorEntry{Pattern: p[1], Floor: floor})
		}
	}
	require.NotEmpty(t, plan, "CONTRIBUTING.md's floor plan has rows")
	return plan
}

// floorOf returns the floor of the package at path: an entry naming the
// path itself, else the longest "/..." entry above it.
func floorOf(plan []floorEntry, path string) (int, bool) {
	best, floor := -1, 0
	for _, e := range plan {
		if e.Pattern == path {
			return e.Floor, true
		}
		if dir, ok := strings.CutSuffix(e.Pattern, "/..."); ok && strings.HasPrefix(path, dir+"/") && len(dir) > best {
			best, floor = len(dir), e.Floor
		}
	}
	return floor, best >= 0
}

// below reports whether path is dir or a package under it.
func below(path, dir string) bool { return path == dir || strings.HasPrefix(path, dir+"/") }

// floorViolations lists what in pkgs breaks plan: a package the plan does
// not place, an import that does not point to a lower floor, an import of
// cmd/ from outside cmd/gcbench, and an import by a package under the
// top-level internal/ of the libraries it must stand below.
func floorViolations(plan []floorEntry, pkgs []floorPackage) []string {
	var bad []string
	for _, p := range pkgs {
		floor, ok := floorOf(plan, p.Path)
		if !ok {
			bad = append(bad, fmt.Sprintf("%s has no floor: give it a row in CONTRIBUTING.md's floor plan", p.Path))
			continue
		}
		for _, imp := range p.Imports {
			if f, ok := floorOf(plan, imp); ok && f >= floor {
				bad = append(bad, fmt.Sprintf("%s (floor %d) imports %s (floor %d)", p.Path, floor, imp, f))
			}
		}
		for _, imp := range slices.Concat(p.Imports, p.TestImports) {
			if below(imp, "cmd") && !below(p.Path, "cmd/gcbench") {
				bad = append(bad, fmt.Sprintf("%s imports %s: nothing outside cmd/gcbench imports cmd/", p.Path, imp))
			}
			if below(p.Path, "internal") && slices.ContainsFunc([]string{"gcsim", "workerpool", "trace", "jobs", "analysis"},
				func(lib string) bool { return below(imp, lib) }) {
				bad = append(bad, fmt.Sprintf("%s imports %s: the top-level internal/ stands below the libraries", p.Path, imp))
			}
		}
	}
	return bad
}

// listModule is the module's packages as go list sees them, with what
// they import of the module.
func listModule(t *testing.T) []floorPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,TestImports,XTestImports", "./...")
	cmd.Dir = "../.."
	var out bytes.Buffer
	cmd.Stdout = &out
	require.NoError(t, testwait.Run(t, cmd, 2*time.Minute), "go list")
	ours := func(paths []string) []string {
		var rel []string
		for _, p := range paths {
			if r, ok := strings.CutPrefix(p, modulePath+"/"); ok {
				rel = append(rel, r)
			}
		}
		return rel
	}
	var pkgs []floorPackage
	for dec := json.NewDecoder(&out); ; {
		var p struct {
			ImportPath                         string
			Imports, TestImports, XTestImports []string
		}
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		path, ok := strings.CutPrefix(p.ImportPath, modulePath+"/")
		require.True(t, ok, "%s is not in the module", p.ImportPath)
		pkgs = append(pkgs, floorPackage{Path: path, Imports: ours(p.Imports),
			TestImports: slices.DeleteFunc(ours(slices.Concat(p.TestImports, p.XTestImports)), func(s string) bool { return s == path })})
	}
	require.NotEmpty(t, pkgs)
	return pkgs
}

// TestImportsFollowTheFloorPlan: every package of the module stands on a
// floor of CONTRIBUTING.md's plan and imports only lower floors; nothing
// outside cmd/gcbench imports cmd/, and the top-level internal/ imports
// none of the libraries.
func TestImportsFollowTheFloorPlan(t *testing.T) {
	plan := readFloorPlan(t)
	pkgs := listModule(t)
	assert.Empty(t, floorViolations(plan, pkgs))
	// Every row of the plan names a package that exists, so the table
	// stays the module's.
	for _, e := range plan {
		dir, sub := strings.CutSuffix(e.Pattern, "/...")
		assert.True(t, slices.ContainsFunc(pkgs, func(p floorPackage) bool {
			return p.Path == e.Pattern || sub && strings.HasPrefix(p.Path, dir+"/")
		}), "CONTRIBUTING.md's floor plan names %s, which has no package", e.Pattern)
	}
}

// TestFloorViolationsFindsEachKind: the check names an upward import, a
// sideways one, a package off the plan, an import of cmd/ and an
// internal/ package importing a library; a downward import passes.
func TestFloorViolationsFindsEachKind(t *testing.T) {
	plan := []floorEntry{{"cmd/gcbench", 3}, {"cmd/gcbench/internal/...", 2}, {"gcsim", 1}, {"workerpool", 1}, {"internal/...", 0}}
	bad := floorViolations(plan, []floorPackage{
		{Path: "cmd/gcbench", Imports: []string{"gcsim", "cmd/gcbench/internal/host", "internal/enum"}},
		{Path: "gcsim", Imports: []string{"cmd/gcbench/internal/host", "workerpool"}},
		{Path: "internal/enum", TestImports: []string{"workerpool"}},
		{Path: "heap"},
	})
	assert.ElementsMatch(t, []string{
		"gcsim (floor 1) imports cmd/gcbench/internal/host (floor 2)",
		"gcsim (floor 1) imports workerpool (floor 1)",
		"gcsim imports cmd/gcbench/internal/host: nothing outside cmd/gcbench imports cmd/",
		"internal/enum imports workerpool: the top-level internal/ stands below the libraries",
		"heap has no floor: give it a row in CONTRIBUTING.md's floor plan",
	}, bad)
}

func TestFloorOfPrefersTheNamedPackage(t *testing.T) {
	plan := []floorEntry{{"cmd/gcbench/internal/seeds", 5}, {"cmd/gcbench/internal/seeds/...", 6}, {"cmd/...", 9}}
	for path, want := range map[string]int{"cmd/gcbench/internal/seeds": 5, "cmd/gcbench/internal/seeds/poolbench": 6, "cmd/gcbench/internal/host": 9} {
		got, ok := floorOf(plan, path)
		assert.True(t, ok, path)
		assert.Equal(t, want, got, path)
	}
	_, ok := floorOf(plan, "cmdx")
	assert.False(t, ok, "a /... pattern covers the packages below its path only")
}

// TestREADMEPackageTableListsEveryPackage: the README's package table
// has a row for every package a reader of the tree meets (all but those
// under a library's own internal/), and no row for a package that is
// gone.
func TestREADMEPackageTableListsEveryPackage(t *testing.T) {
	table := docSection(t, "README.md", "Packages")
	var rows []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(table, -1) {
		rows = append(rows, m[1])
	}
	pkgs := listModule(t)
	for _, p := range pkgs {
		if strings.Contains(p.Path, "/internal/") && !below(p.Path, "cmd/gcbench/internal") {
			continue
		}
		assert.Contains(t, rows, p.Path, "the README's package table has no row for %s", p.Path)
	}
	for _, r := range rows {
		if r == "testdata/" {
			continue
		}
		assert.True(t, slices.ContainsFunc(pkgs, func(p floorPackage) bool { return p.Path == r }), "the README's package table names %s, which is no package", r)
	}
}
