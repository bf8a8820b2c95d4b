package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/gcbench/gcbench/internal/protocols/poolbench"
	"github.com/gcbench/gcbench/render"
	"github.com/gcbench/gcbench/stats"
	"github.com/gcbench/gcbench/workerpool"
)

// cmdPool runs the DedicatedThreadPool protocols (throughput and latency)
// for every backend, wake policy and enqueue API beside a goroutine per item.
func cmdPool(ctx context.Context, e *env, args []string) error {
	stdout, stderr := e.stdout, e.stderr
	fs := newFlagSet("pool")
	var opt poolbench.Options
	var procs int
	fs.Var(newIntValue(&opt.Items, poolbench.DefaultItems, 1, poolbench.MaxItems), "items", "items the throughput protocol queues before waiting for all")
	fs.Var(newIntValue(&opt.RoundTrips, poolbench.DefaultRoundTrips, 1, poolbench.MaxRoundTrips), "round-trips",
		"sequential submit-and-wait round trips of the latency protocol")
	fs.Var(newIntValue(&opt.Repetitions, poolbench.DefaultRepetitions, 1, poolbench.MaxRepetitions), "repetitions",
		"runs of each contender and protocol (interleaved)")
	fs.Var(newIntValue(&opt.Workers, runtime.GOMAXPROCS(0), 1, workerpool.MaxWorkers), "workers", "pool workers")
	fs.Var(newIntValue(&procs, 0, 0, maxGOMAXPROCS), "gomaxprocs",
		"GOMAXPROCS for the run (0: workers+1 when the threads or native backend runs, else the runtime's default; why: docs/methodology.md)")
	opt.BatchSize = poolbench.DefaultBatchSize // before the flag, whose help shows it
	fs.Var(&batchSizeValue{&opt.BatchSize}, "batch-size", "items per EnqueueBatch call in the throughput protocol (-1: all in one call)")
	fs.Var(newListValue(&opt.Protocols, []poolbench.Protocol{poolbench.Throughput, poolbench.Latency}, poolbench.ParseProtocol,
		"throughput or latency"), "protocols", "protocols to run: throughput, latency")
	fs.Var(newListValue(&opt.Backends, []workerpool.Backend{workerpool.Goroutines, workerpool.Threads}, workerpool.ParseBackend,
		"goroutines, threads or native"), "backends", "pool backends: goroutines, threads, native (SGen's pool in C; needs a cgo build; no spin)")
	fs.Var(newListValue(&opt.Wakes, []workerpool.WakePolicy{workerpool.Broadcast, workerpool.Signal, workerpool.Targeted, workerpool.Spin},
		workerpool.ParseWakePolicy, "broadcast, signal, targeted or spin"), "wakes", "wake policies: broadcast, signal, targeted, spin")
	var format render.Format
	fs.Var(formatValue{&format}, "format", "output format: "+strings.Join(render.FormatNames(), ", "))
	if done, err := parseFlags(fs, args, stdout, "usage: gcbench pool [flags]\n\n"+
		"The DedicatedThreadPool protocols: throughput (queue --items tiny items, then\n"+
		"wait for all) and latency (--round-trips sequential submit-and-wait), for each\n"+
		"backend and wake policy with per-item Enqueue and with EnqueueBatch, beside a\n"+
		"goroutine per item + WaitGroup. Medians of interleaved runs; speedup = the\n"+
		"goroutine baseline's time over the contender's. When the threads or native\n"+
		"backend runs, GOMAXPROCS is workers+1 unless --gomaxprocs says otherwise\n"+
		"(the host line shows it; why: docs/methodology.md).\n\nflags:\n"); done {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if slices.Contains(opt.Backends, workerpool.Native) && !workerpool.NativeAvailable {
		return usagef("--backends native: this build has no native backend (it needs cgo, on Linux)")
	}
	if procs == 0 && (slices.Contains(opt.Backends, workerpool.Threads) || slices.Contains(opt.Backends, workerpool.Native)) {
		procs = opt.Workers + 1 // a woken worker thread never waits for a P
	}
	if procs > 0 {
		// Process-wide, and set before any pool exists; the host line and
		// the report read it back. Restored on return, as run does.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	}
	var clearProgress func()
	opt.Progress, clearProgress = newLineProgress(stderr, "pool")
	rep, err := poolbench.Compare(ctx, opt)
	clearProgress()
	if fatal := protocolFailure(err, rep != nil, "the pool protocols"); fatal != nil {
		return fatal
	}
	// A cancelled run still shows the repetitions it finished.
	if format == render.JSON {
		return joinErrors(err, writeProtocolJSON(stdout, "pool", rep))
	}
	return joinErrors(err, writePoolTable(stdout, format, rep, opt.Protocols))
}

// batchSizeValue is --batch-size: -1 (every item in one call) or a count.
type batchSizeValue struct{ p *int }

func (v *batchSizeValue) Set(s string) error {
	n, err := boundedInt(-1, poolbench.MaxItems)(s)
	if err != nil || n == 0 {
		return fmt.Errorf("want -1 (all items in one call) or a count from 1 to %d", poolbench.MaxItems)
	}
	*v.p = n
	return nil
}

func (v *batchSizeValue) String() string { return strconv.Itoa(*v.p) }
func (v *batchSizeValue) Type() string   { return "int" }

// maxGOMAXPROCS bounds --gomaxprocs: one P per pool worker plus one for
// the submitting goroutine is the most a pool run can use.
const maxGOMAXPROCS = workerpool.MaxWorkers + 1

// protocolItems is how many items (or round trips) one run of protocol p
// handles.
func protocolItems(rep *poolbench.Report, p poolbench.Protocol) int {
	if p == poolbench.Latency {
		return rep.RoundTrips
	}
	return rep.Items
}

// partialNote is the pool and ready-list tables' PARTIAL line.
const partialNote = "interrupted; the medians are of the repetitions that finished, or, if the first did not, " +
	"of the runs that did (a run that did not finish is left out)"

func writePoolTable(w io.Writer, f render.Format, rep *poolbench.Report, protos []poolbench.Protocol) error {
	header := []string{"contender"}
	for _, p := range protos {
		unit := "ns/item"
		if p == poolbench.Latency {
			unit = "ns/trip"
		}
		rng, speedup := "range", "speedup"
		if f == render.CSV { // names of their own: CSV readers look columns up by name
			rng, speedup = p.String()+" range", p.String()+" speedup"
		}
		header = append(header, p.String()+" s", unit, rng, speedup)
	}
	var rows [][]string
	for _, r := range rep.Rows {
		row := []string{r.Contender}
		for _, p := range protos {
			st := r.Throughput
			if p == poolbench.Latency {
				st = r.Latency
			}
			if st == nil { // a partial first repetition stopped before this run finished
				row = append(row, "", "", "", "")
				continue
			}
			perItem := make([]float64, len(st.Samples))
			for i, sec := range st.Samples {
				perItem[i] = sec * 1e9 / float64(protocolItems(rep, p))
			}
			row = append(row, fmtFloat(st.Seconds, 3), fmtFloat(st.PerItemNs, 0), fmtSpread(stats.SpreadOf(perItem), 0), fmtFloat(st.Speedup, 2)+"x")
		}
		rows = append(rows, row)
	}
	batch := fmt.Sprintf("EnqueueBatch of %d", rep.BatchSize)
	if rep.BatchSize == 0 {
		batch = "one EnqueueBatch of all items"
	}
	title := fmt.Sprintf("gcbench pool: throughput = %d items queued, then waited for; latency = %d sequential "+
		"submit-and-wait round trips; %d workers, %s; medians of %d interleaved runs; speedup = %s time / contender time",
		rep.Items, rep.RoundTrips, rep.Workers, batch, rep.Repetitions, poolbench.BaselineName)
	t := protocolTable(title, header, rows)
	if rep.Partial {
		t.Facts = append(t.Facts, render.Fact{Key: "PARTIAL", Value: partialNote, Warning: true})
	}
	if err := t.Write(w, f); err != nil {
		return err
	}
	if f == render.CSV {
		return nil
	}
	var best []string
	for _, p := range protos {
		for _, api := range []string{"batch", "enqueue"} {
			if r := rep.Best(p, api); r != nil {
				st := r.Throughput
				if p == poolbench.Latency {
					st = r.Latency
				}
				best = append(best, fmt.Sprintf("best %s %s: %s, %.2fx", p, api, r.Contender, st.Speedup))
			}
		}
	}
	if _, err := fmt.Fprintf(w, "\n%s\n", strings.Join(best, "; ")); err != nil {
		return fmt.Errorf("writing the table: %w", err)
	}
	return nil
}
