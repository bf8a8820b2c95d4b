package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/term"

	"github.com/gcbench/gcbench/analysis"
	"github.com/gcbench/gcbench/seedbench"
)

// cmdReadylist runs the stress-epoll protocol: the lock-free MPSC completion
// list beside the mutex-guarded one, interleaved, as the seed's table.
func cmdReadylist(ctx context.Context, e *env, args []string) error {
	stdout, stderr := e.stdout, e.stderr
	fs := newFlagSet("readylist")
	producers := fs.IntSlice("producers", seedbench.DefaultReadyListProducers, "producer goroutine counts to sweep")
	events := fs.Int("events", seedbench.DefaultReadyListEvents, "events each producer generates")
	reps := fs.Int("repetitions", seedbench.DefaultReadyListRepetitions, "runs of each list kind at each producer count (interleaved)")
	variant := fs.String("variant", "both", "which events use the ready list: transition (only a counter's 0→1), callback (every event, as ep_poll_callback), or both")
	var format analysis.Format
	fs.Var(formatValue{&format}, "format", "output format: "+strings.Join(analysis.FormatNames(), ", "))
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
	opt := seedbench.ReadyListOptions{Producers: *producers, Events: *events, Repetitions: *reps}
	switch v := strings.ToLower(strings.TrimSpace(*variant)); v {
	case "both":
		opt.Variants = []seedbench.ReadyVariant{seedbench.Transition, seedbench.Callback}
	default:
		rv, err := seedbench.ParseReadyVariant(v)
		if err != nil {
			return usagef("--variant: %q, want transition, callback or both", *variant)
		}
		opt.Variants = []seedbench.ReadyVariant{rv}
	}
	for _, p := range opt.Producers {
		if p < 1 {
			return usagef("--producers: %d, want ≥ 1", p)
		}
	}
	if *events < 1 || *reps < 1 {
		return usagef("--events and --repetitions must be ≥ 1")
	}
	opt.Progress = seedProgress(stderr, "readylist")
	rep, err := seedbench.CompareReadyList(ctx, opt)
	if err != nil {
		return fmt.Errorf("running the ready-list protocol: %w", err)
	}
	if format == analysis.JSON {
		return writeSeedJSON(stdout, "readylist", rep)
	}
	header := []string{"variant", "threads", "mpsc events/ms", "mpsc run-time ms", "mutex events/ms", "mutex run-time ms", "ratio mpsc/mutex",
		"mpsc pushes/ms", "mutex pushes/ms"}
	var rows [][]string
	for _, r := range rep.Rows {
		rows = append(rows, []string{
			r.Variant,
			strconv.Itoa(r.Producers),
			fmtFloat(r.MPSC.EventsPerMs, 0), fmtFloat(r.MPSC.RunTimeMs, 2),
			fmtFloat(r.Mutex.EventsPerMs, 0), fmtFloat(r.Mutex.RunTimeMs, 2),
			fmtFloat(r.Ratio, 2),
			fmtFloat(r.MPSC.PushesPerMs, 0), fmtFloat(r.Mutex.PushesPerMs, 0),
		})
	}
	title := fmt.Sprintf("gcbench readylist: %d events per producer, medians of %d interleaved runs; %s",
		rep.Events, rep.Repetitions, describeSeedHost(seedHost()))
	return writeSeedTable(stdout, format, title, header, rows)
}

// seedResult is the JSON document of a seed-protocol command: which
// command, on what host, and the protocol's report.
type seedResult struct {
	Command string        `json:"command"`
	Host    analysis.Host `json:"host"`
	Report  any           `json:"report"`
}

func writeSeedJSON(w io.Writer, command string, report any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(seedResult{Command: command, Host: seedHost(), Report: report}); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

// writeSeedTable renders one titled table as aligned text (numbers right
// aligned), Markdown or CSV.
func writeSeedTable(w io.Writer, f analysis.Format, title string, header []string, rows [][]string) error {
	bw := bufio.NewWriter(w)
	switch f {
	case analysis.CSV:
		cw := csv.NewWriter(bw)
		_ = cw.Write(header)
		_ = cw.WriteAll(rows)
		if err := cw.Error(); err != nil {
			return fmt.Errorf("writing CSV: %w", err)
		}
	case analysis.Markdown:
		fmt.Fprintf(bw, "%s\n\n", title)
		fmt.Fprintf(bw, "| %s |\n|", strings.Join(header, " | "))
		for i := range header {
			if i == 0 {
				bw.WriteString(" --- |")
			} else {
				bw.WriteString(" ---: |")
			}
		}
		bw.WriteString("\n")
		for _, r := range rows {
			fmt.Fprintf(bw, "| %s |\n", strings.Join(r, " | "))
		}
	default:
		widths := make([]int, len(header))
		for _, r := range append([][]string{header}, rows...) {
			for i, c := range r {
				widths[i] = max(widths[i], len([]rune(c)))
			}
		}
		fmt.Fprintf(bw, "%s\n\n", title)
		for _, r := range append([][]string{header}, rows...) {
			for i, c := range r {
				pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
				switch {
				case i == 0:
					bw.WriteString(c + pad)
				default:
					bw.WriteString("  " + pad + c)
				}
			}
			bw.WriteString("\n")
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing the table: %w", err)
	}
	return nil
}

func fmtFloat(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }

// seedHost describes this machine for a seed-protocol result.
func seedHost() analysis.Host {
	h := analysis.Host{
		Cores:      runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		GoVersion:  runtime.Version(),
		OS:         runtime.GOOS,
		Arch:       runtime.GOARCH,
	}
	h.Hostname, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				h.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	return h
}

func describeSeedHost(h analysis.Host) string {
	cpu := h.CPUModel
	if cpu == "" {
		cpu = "unknown CPU"
	}
	return fmt.Sprintf("%s, %d CPUs, GOMAXPROCS %d, %s", cpu, h.Cores, h.GOMAXPROCS, h.GoVersion)
}

// seedProgress returns a progress callback that redraws one line on stderr,
// or nil when stderr is not a terminal (progress never pollutes a log).
func seedProgress(stderr io.Writer, name string) func(done, total int) {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return func(done, total int) {
		fmt.Fprintf(f, "\r%s: run %d of %d", name, done, total)
		if done == total {
			fmt.Fprint(f, "\r\033[K")
		}
	}
}
