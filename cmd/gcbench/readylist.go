package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/gcbench/gcbench/internal/protocols/readylist"
	"github.com/gcbench/gcbench/render"
	"github.com/gcbench/gcbench/stats"
)

// cmdReadylist runs the stress-epoll protocol: the lock-free MPSC completion
// list beside the mutex-guarded one, interleaved, as the seed's table.
func cmdReadylist(ctx context.Context, e *env, args []string) error {
	stdout, stderr := e.stdout, e.stderr
	fs := newFlagSet("readylist")
	var opt readylist.Options
	fs.Var(newListValue(&opt.Producers, readylist.DefaultProducers, boundedInt(1, readylist.MaxProducers),
		fmt.Sprintf("counts from 1 to %d", readylist.MaxProducers)), "producers", "producer counts to sweep")
	fs.Var(newIntValue(&opt.Events, readylist.DefaultEvents, 1, readylist.MaxEvents), "events", "events each producer generates")
	fs.Var(newIntValue(&opt.Repetitions, readylist.DefaultRepetitions, 1, readylist.MaxRepetitions), "repetitions",
		"runs of each list kind at each producer count (interleaved)")
	fs.Var(newListValue(&opt.Variants, []readylist.Variant{readylist.Transition, readylist.Callback}, readylist.ParseVariant,
		"transition or callback"), "variants",
		"which events use the ready list: transition (only a counter's 0→1), callback (every event, as ep_poll_callback), or both: transition,callback")
	var procs int
	fs.Var(newIntValue(&procs, 0, 0, readylist.MaxProducers+2), "gomaxprocs",
		"GOMAXPROCS during the runs; 0 = auto: the most producers + consumer + 1, so that every thread the kernel runs finds a P")
	var format render.Format
	fs.Var(formatValue{&format}, "format", "output format: "+strings.Join(render.FormatNames(), ", "))
	if done, err := parseFlags(fs, args, stdout, "usage: gcbench readylist [flags]\n\n"+
		"The stress-epoll protocol: each producer adds events to its own counter; one\n"+
		"consumer pops nodes from the ready list, unlinks them and swaps their counters\n"+
		"to zero until it has seen every event. Two variants:\n"+
		"  transition  a producer pushes its node only on its counter's 0→1 transition\n"+
		"              (the list sees a small fraction of the events);\n"+
		"  callback    every event goes through the ready path, as ep_poll_callback does\n"+
		"              for every eventfd write: mutex = lock, link unless linked, unlock;\n"+
		"              mpsc = a CAS on the node's linked flag, push only if it wins.\n"+
		"Reports events/ms for the lock-free MPSC list and the mutex list, their ratio,\n"+
		"and pushes/ms: how often a node was linked, i.e. how often the list grew.\n\nflags:\n"); done {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	var clearProgress func()
	opt.Progress, clearProgress = newLineProgress(stderr, "readylist")
	if procs == 0 {
		procs = readyListProcs(opt.Producers)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs)) // restored after the output, whose host line records procs
	rep, err := readylist.Compare(ctx, opt)
	clearProgress()
	if fatal := protocolFailure(err, rep != nil, "the ready-list protocol"); fatal != nil {
		return fatal
	}
	// A cancelled run still shows the repetitions it finished.
	return joinErrors(err, writeReadyList(stdout, format, rep))
}

// readyListProcs is readylist's automatic GOMAXPROCS: a P for every
// producer thread of the largest run and the consumer's, plus one, as run
// sets workers+1 for its Threads backend, so that the kernel, not the Go
// runtime, decides which thread runs. nil producers means the defaults.
func readyListProcs(producers []int) int {
	if len(producers) == 0 {
		producers = readylist.DefaultProducers
	}
	return slices.Max(producers) + 2
}

func writeReadyList(stdout io.Writer, format render.Format, rep *readylist.Report) error {
	if format == render.JSON {
		return writeProtocolJSON(stdout, "readylist", rep)
	}
	header := []string{"variant", "threads", "mpsc events/ms", "mpsc run-time ms", "mutex events/ms", "mutex run-time ms", "ratio mpsc/mutex",
		"ratio range", "mpsc pushes/ms", "mutex pushes/ms"}
	var rows [][]string
	for _, r := range rep.Rows {
		rows = append(rows, []string{
			r.Variant,
			strconv.Itoa(r.Producers),
			fmtFloat(r.MPSC.EventsPerMs, 0), fmtFloat(r.MPSC.RunTimeMs, 2),
			fmtFloat(r.Mutex.EventsPerMs, 0), fmtFloat(r.Mutex.RunTimeMs, 2),
			fmtFloat(r.Ratio, 2), fmtSpread(stats.SpreadOf(stats.PairedRatios(r.MPSC.Samples, r.Mutex.Samples)), 2),
			fmtFloat(r.MPSC.PushesPerMs, 0), fmtFloat(r.Mutex.PushesPerMs, 0),
		})
	}
	title := fmt.Sprintf("gcbench readylist: %d events per producer, medians of %d interleaved runs", rep.Events, rep.Repetitions)
	t := protocolTable(title, header, rows)
	if rep.Partial {
		t.Facts = append(t.Facts, render.Fact{Key: "PARTIAL", Value: partialNote, Warning: true})
	}
	return t.Write(stdout, format)
}
