package main

import (
	"context"
	"io"
	"runtime"
	"strings"

	"github.com/gcbench/gcbench/analysis/render"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/flagvalue"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/host"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds/readylist"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/termprogress"
	"github.com/spf13/pflag"
)

const readylistUsage = "usage: gcbench readylist [flags]\n\n" +
	"The stress-epoll protocol: each producer adds events to its own counter; one\n" +
	"consumer pops nodes from the ready list, unlinks them and swaps their counters\n" +
	"to zero until it has seen every event. Two variants:\n" +
	"  transition  a producer pushes its node only on its counter's 0→1 transition\n" +
	"              (the list sees a small fraction of the events);\n" +
	"  callback    every event goes through the ready path, as ep_poll_callback does\n" +
	"              for every eventfd write: mutex = lock, link unless linked, unlock;\n" +
	"              mpsc = a CAS on the node's linked flag, push only if it wins.\n" +
	"Reports events/ms for the lock-free MPSC list and the mutex list, their ratio,\n" +
	"and pushes/ms: how often a node was linked, i.e. how often the list grew.\n\nflags:\n"

// cmdReadylist runs the stress-epoll protocol: the lock-free MPSC completion
// list beside the mutex-guarded one, interleaved, as the seed's table.
func cmdReadylist(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("readylist")
	var opt readylist.Options
	var procs int
	var format render.Format
	registerReadylistFlags(fs, &opt, &procs, &format)
	if done, err := parseOnlyFlags(fs, args, e.stdout, readylistUsage); done {
		return err
	}
	var clearProgress func()
	opt.Progress, clearProgress = termprogress.Line(e.stderr, "readylist")
	if procs == 0 {
		procs = readylist.Procs(opt)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs)) // restored after the output, whose host line records procs
	rep, err := readylist.Compare(ctx, opt)
	clearProgress()
	return writeProtocol(e, "readylist", "the ready-list protocol", format, err, rep != nil, func() any { return rep },
		func(w io.Writer) error { return rep.Table(host.Describe(host.Probe())).Write(w, format) })
}

func registerReadylistFlags(fs *pflag.FlagSet, opt *readylist.Options, procs *int, format *render.Format) {
	fs.Var(flagvalue.NewList(&opt.Producers, readylist.DefaultProducers, flagvalue.IntIn(1, readylist.MaxProducers)), "producers", "producer counts to sweep")
	fs.Var(flagvalue.NewInt(&opt.Events, readylist.DefaultEvents, 1, readylist.MaxEvents), "events", "events each producer generates")
	fs.Var(flagvalue.NewInt(&opt.Repetitions, readylist.DefaultRepetitions, 1, readylist.MaxRepetitions), "repetitions",
		"runs of each list kind at each producer count (interleaved)")
	fs.Var(flagvalue.NewList(&opt.Variants, []readylist.Variant{readylist.Transition, readylist.Callback},
		flagvalue.OneOf(readylist.ParseVariant, readylist.VariantNames())), "variants",
		"which events use the ready list: transition (only a counter's 0→1), callback (every event, as ep_poll_callback), or both: transition,callback")
	fs.Var(flagvalue.NewInt(procs, 0, 0, readylist.MaxProducers+2), "gomaxprocs",
		"GOMAXPROCS during the runs; 0 = auto: the most producers + consumer + 1, so that every thread the kernel runs finds a P")
	fs.Var(formatFlag(format), "format", "output format: "+strings.Join(render.FormatNames(), ", "))
}
