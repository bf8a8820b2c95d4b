package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/gcbench/gcbench/analysis"
	"github.com/gcbench/gcbench/seedbench"
	"github.com/gcbench/gcbench/workerpool"
)

// cmdPool runs the DedicatedThreadPool protocols (throughput and latency)
// for every backend, wake policy and enqueue API beside a goroutine per item.
func cmdPool(ctx context.Context, e *env, args []string) error {
	stdout, stderr := e.stdout, e.stderr
	fs := newFlagSet("pool")
	items := fs.Int("items", seedbench.DefaultPoolItems, "items the throughput protocol queues before waiting for all")
	trips := fs.Int("round-trips", seedbench.DefaultPoolRoundTrips, "sequential submit-and-wait round trips of the latency protocol")
	reps := fs.Int("repetitions", seedbench.DefaultPoolRepetitions, "runs of each contender and protocol (interleaved)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "pool workers")
	procs := fs.Int("gomaxprocs", 0, "GOMAXPROCS for the run (0: the runtime's default); on the threads backend, workers+1 models dedicated pthreads")
	batch := fs.Int("batch-size", seedbench.DefaultPoolBatchSize, "items per EnqueueBatch call in the throughput protocol (-1: all in one call)")
	protocols := fs.StringSlice("protocols", []string{"throughput", "latency"}, "protocols to run: throughput, latency")
	backends := fs.StringSlice("backends", []string{"goroutines", "threads"}, "pool backends: goroutines, threads")
	wakes := fs.StringSlice("wakes", []string{"broadcast", "signal", "targeted", "spin"}, "wake policies: broadcast, signal, targeted, spin")
	var format analysis.Format
	fs.Var(formatValue{&format}, "format", "output format: "+strings.Join(analysis.FormatNames(), ", "))
	if done, err := parseFlags(fs, args, stdout, "usage: gcbench pool [flags]\n\n"+
		"The DedicatedThreadPool protocols: throughput (queue --items tiny items, then\n"+
		"wait for all) and latency (--round-trips sequential submit-and-wait), for each\n"+
		"backend and wake policy with per-item Enqueue and with EnqueueBatch, beside a\n"+
		"goroutine per item + WaitGroup. Medians of interleaved runs; speedup = the\n"+
		"goroutine baseline's time over the contender's.\n\n"+
		"GOMAXPROCS: a threads-backend worker is a goroutine locked to its own OS\n"+
		"thread and still needs one of the runtime's GOMAXPROCS Ps to run. With\n"+
		"GOMAXPROCS = cores, a thread woken from its futex can wait for a P that a\n"+
		"futex-blocked thread holds until sysmon retakes it (20 µs to 10 ms).\n"+
		"--gomaxprocs N sets it for the run (shown in the host line and the JSON);\n"+
		"--gomaxprocs = workers+1 models dedicated pthreads, which only the kernel\n"+
		"schedules.\n\nflags:\n"); done {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	opt := seedbench.PoolOptions{Items: *items, RoundTrips: *trips, Repetitions: *reps, Workers: *workers, BatchSize: *batch}
	switch {
	case *items < 1 || *trips < 1 || *reps < 1:
		return usagef("--items, --round-trips and --repetitions must be ≥ 1")
	case *workers < 1 || *workers > workerpool.MaxWorkers:
		return usagef("--workers: %d, want 1..%d", *workers, workerpool.MaxWorkers)
	case *batch < 1 && *batch != -1:
		return usagef("--batch-size: %d, want ≥ 1, or -1 for all items in one call", *batch)
	case *procs < 0 || *procs > maxGOMAXPROCS:
		return usagef("--gomaxprocs: %d, want 0 (the runtime's default) to %d", *procs, maxGOMAXPROCS)
	}
	var err error
	if opt.Protocols, err = parseEach(*protocols, "--protocols", seedbench.ParsePoolProtocol); err != nil {
		return err
	}
	if opt.Backends, err = parseEach(*backends, "--backends", workerpool.ParseBackend); err != nil {
		return err
	}
	if opt.Wakes, err = parseEach(*wakes, "--wakes", workerpool.ParseWakePolicy); err != nil {
		return err
	}
	if *procs > 0 {
		// Process-wide, and set before any pool exists; the host line and
		// the report read it back. Restored on return, as run does.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(*procs))
	}
	opt.Progress = newLineProgress(stderr, "pool")
	rep, err := seedbench.ComparePool(ctx, opt)
	if err != nil {
		return fmt.Errorf("running the pool protocols: %w", err)
	}
	if format == analysis.JSON {
		return writeProtocolJSON(stdout, "pool", rep)
	}
	return writePoolTable(stdout, format, rep, opt.Protocols)
}

// maxGOMAXPROCS bounds --gomaxprocs: one P per pool worker plus one for
// the submitting goroutine is the most a pool run can use.
const maxGOMAXPROCS = workerpool.MaxWorkers + 1

// parseEach parses every value of a list flag, or returns a usage error
// naming the flag; an empty list is an error too.
func parseEach[T any](vals []string, flag string, parse func(string) (T, error)) ([]T, error) {
	if len(vals) == 0 {
		return nil, usagef("%s: empty list", flag)
	}
	out := make([]T, 0, len(vals))
	for _, v := range vals {
		x, err := parse(strings.TrimSpace(v))
		if err != nil {
			return nil, usagef("%s: %v", flag, err)
		}
		out = append(out, x)
	}
	return out, nil
}

func writePoolTable(w io.Writer, f analysis.Format, rep *seedbench.PoolReport, protocols []seedbench.PoolProtocol) error {
	header := []string{"contender"}
	for _, p := range protocols {
		unit := "ns/item"
		if p == seedbench.Latency {
			unit = "ns/trip"
		}
		header = append(header, p.String()+" s", unit, "speedup")
	}
	var rows [][]string
	for _, r := range rep.Rows {
		row := []string{r.Contender}
		for _, p := range protocols {
			st := r.Throughput
			if p == seedbench.Latency {
				st = r.Latency
			}
			row = append(row, fmtFloat(st.Seconds, 3), fmtFloat(st.PerItemNs, 0), fmtFloat(st.Speedup, 2)+"x")
		}
		rows = append(rows, row)
	}
	batch := fmt.Sprintf("EnqueueBatch of %d", rep.BatchSize)
	if rep.BatchSize == 0 {
		batch = "one EnqueueBatch of all items"
	}
	title := fmt.Sprintf("gcbench pool: throughput = %d items queued, then waited for; latency = %d sequential "+
		"submit-and-wait round trips; %d workers, %s; medians of %d interleaved runs; speedup = %s time / contender time",
		rep.Items, rep.RoundTrips, rep.Workers, batch, rep.Repetitions, seedbench.BaselineName)
	if err := protocolTable(title, header, rows).Write(w, f); err != nil {
		return err
	}
	if f == analysis.CSV {
		return nil
	}
	var best []string
	for _, p := range protocols {
		for _, api := range []string{"batch", "enqueue"} {
			if r := rep.Best(p, api); r != nil {
				st := r.Throughput
				if p == seedbench.Latency {
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
