package tracestress

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/gcbench/gcbench/analysis/render"
	"github.com/gcbench/gcbench/analysis/stats"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds"
	"github.com/gcbench/gcbench/trace"
)

// Target is the Lockless/Locked ratio the seed's fix reached or exceeded
// (EventPipe measured 1.2–1.8x); a result below it is explained.
const Target = 1.2

// Write renders the result as gcbench trace-stress prints it, in a table
// format (Text, Markdown or CSV): the seed's table for each policy, each
// run's reader figures, the policies' ratio against Target and the total
// time; in CSV one table with a policy column, the ratio as rows of its
// own. host is the machine's one-line description, shown under each
// title; size spells the session's byte limit as the caller's flags do.
func (r *Result) Write(w io.Writer, f render.Format, host string, size func(int64) string) error {
	if f == render.CSV {
		return r.csvTable().Write(w, f)
	}
	for _, p := range r.Options.Policies {
		if err := r.policyTable(p, host, size).Write(w, f); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	for _, line := range r.perRunLines() {
		fmt.Fprintln(w, line)
	}
	for _, line := range r.ratioLines() {
		fmt.Fprintln(w, line)
	}
	_, err := fmt.Fprintf(w, "total time %v\n", r.Elapsed.Round(time.Millisecond))
	return err
}

// seedColumns are the seed table's statistics, after its metric column.
var seedColumns = []string{"Min", "Max", "Average", "Std Dev"}

// csvTable is every policy's rows in one table, and the text's ratio
// line as rows whose Average is the ratio.
func (r *Result) csvTable() *render.Table {
	var rows [][]string
	for _, p := range r.Options.Policies {
		for _, row := range r.rows(p) {
			rows = append(rows, append([]string{p.String()}, row...))
		}
	}
	if ratio := r.LocklessOverLocked(); ratio != nil {
		rows = append(rows,
			[]string{"lockless/locked", "event throughput, ratio of means", "", "", render.Float(ratio.MeanRatio, 2), ""},
			pairedRow("event throughput, median of per-iteration ratios", ratio.MedianRatio, ratio.PairedRatios),
			pairedRow("events read, median of per-iteration ratios", ratio.ReadMedianRatio, ratio.ReadPairedRatios))
	}
	t := &render.Table{Header: [][]string{append([]string{"policy", "metric"}, seedColumns...)}, Rows: rows}
	if r.Partial {
		t.Facts = append(t.Facts, seeds.Partial(fmt.Sprintf("stopped: %d of %d runs finished",
			len(r.Runs), len(r.Options.Policies)*r.Options.Iterations)))
	}
	return t
}

// pairedRow is a row of per-iteration ratios: their smallest and largest
// in the Min and Max columns, their median in the Average column.
func pairedRow(metric string, median float64, ratios []float64) []string {
	sp := stats.SpreadOf(ratios)
	return []string{"lockless/locked", metric, render.Float(sp.Lo, 2), render.Float(sp.Hi, 2), render.Float(median, 2), ""}
}

// pairedText is per-iteration ratios as the text line gives them: each
// iteration's, then their range ("1.05, 1.12, 1.09; range 1.05–1.12").
func pairedText(ratios []float64) string {
	each := make([]string, len(ratios))
	for i, v := range ratios {
		each[i] = render.Float(v, 2)
	}
	return strings.Join(each, ", ") + "; range " + render.Range(stats.SpreadOf(ratios), 2)
}

// rows are one policy's rows of the seed's table: each metric's Min,
// Max, Average and Std Dev over the policy's runs.
func (r *Result) rows(p trace.Policy) [][]string {
	var rows [][]string
	for _, m := range r.Metrics(p) {
		prec := 0
		if strings.HasPrefix(m.Unit, "%") || m.Unit == "s" || strings.HasPrefix(m.Unit, "s,") { // shares and seconds, whatever follows
			prec = 2
		}
		s := m.Summary
		rows = append(rows, []string{fmt.Sprintf("%s (%s)", m.Name, m.Unit),
			render.Float(s.Min, prec), render.Float(s.Max, prec), render.Float(s.Mean, prec), render.Float(s.Stdev, prec)})
	}
	return rows
}

// policyTable is one policy's table, titled with the run's configuration.
func (r *Result) policyTable(p trace.Policy, host string, size func(int64) string) *render.Table {
	o := r.Options
	alloc := ""
	if p == trace.Lockless {
		alloc = ", allocation " + allocPlace(o.LocklessAllocInLock) + " the lock"
	}
	title := fmt.Sprintf("gcbench trace-stress, policy %s%s: %d writers, %d-byte payloads, %v of work per event, %s limit, %v per run, %d iterations, %s buffers, %s locks, %s reader, flush every %v",
		p, alloc, o.Writers, o.PayloadSize, o.WriteCost, size(o.Limit), o.Duration, o.Iterations, o.Memory, lockName(o.Lock), o.Reader, o.FlushInterval)
	t := seeds.NewTable(title, host, append([]string{""}, seedColumns...), r.rows(p))
	t.Notes = []string{"Counted while the writers wrote: from the first dropped event (the initial fill left out) to the stop (the final drain left out).",
		"Std Dev: the sample standard deviation (n − 1), as in every gcbench table; the seed's table divides by n."}
	if r.Partial {
		t.Facts = append(t.Facts, seeds.Partial(fmt.Sprintf("stopped: %d of this policy's %d runs finished",
			len(r.PolicyRuns(p)), o.Iterations)))
	}
	return t
}

// allocPlace says where lockless allocates a reserved buffer, as
// Options.LocklessAllocInLock sets it.
func allocPlace(inLock bool) string {
	if inLock {
		return "inside"
	}
	return "outside"
}

// lockName labels a lock kind in a table's title.
func lockName(k trace.LockKind) string {
	switch k {
	case trace.SpinLock:
		return "spin (CoreCLR SpinLock)"
	case trace.MutexLock:
		return "mutex (sync.Mutex)"
	}
	return k.String()
}

// perRunLines are one line per policy with each run's reader CPU share
// and manager-lock acquisitions per flush, in run order: the figures that
// say whether the reader was in the writers' caravan (many acquisitions
// per flush) and whether it got the CPU it asked for.
func (r *Result) perRunLines() []string {
	var lines []string
	for _, p := range r.Options.Policies {
		var cpu, locks []string
		for _, run := range r.PolicyRuns(p) {
			cpu = append(cpu, render.Float(run.Counted.ReaderCPUShare(), 1))
			locks = append(locks, render.Float(run.Counted.ReaderLocksPerFlush(), 1))
		}
		if len(cpu) > 0 {
			lines = append(lines, fmt.Sprintf("%s, each run while the writers wrote: reader CPU share %s%% of one CPU; reader manager-lock acquisitions per flush %s",
				p, strings.Join(cpu, ", "), strings.Join(locks, ", ")))
		}
	}
	return lines
}

// ratioLines are the Lockless/Locked ratio against Target, explained when
// below it; or why there is no ratio when both policies ran alike.
func (r *Result) ratioLines() []string {
	ratio := r.LocklessOverLocked()
	if ratio == nil {
		if locked := len(r.PolicyRuns(trace.Locked)); locked > 0 && len(r.PolicyRuns(trace.Lockless)) == locked {
			return []string{"Lockless/Locked events read: no ratio, a Locked run counted no event read (a run too short for a flush to end while the writers wrote)"}
		}
		return nil
	}
	lines := []string{fmt.Sprintf("Lockless/Locked events read: %.2fx (median of per-iteration ratios %s); event throughput: %.2fx (ratio of means), %.2fx (median of per-iteration ratios %s); target ≥ %.2fx",
		ratio.ReadMedianRatio, pairedText(ratio.ReadPairedRatios), ratio.MeanRatio, ratio.MedianRatio, pairedText(ratio.PairedRatios), Target)}
	if min(ratio.ReadMedianRatio, ratio.MedianRatio) < Target {
		lines = append(lines, r.shortfall())
	}
	return lines
}

// shortfall explains a ratio below the target with what was measured,
// each policy's medians: the reader thread's CPU share and drain rate,
// flushes made and asked, and the writers' manager-lock wait. Event
// throughput is the reader's drain — writers refill the budget as soon
// as a flush frees it — so these are the figures that say where it went:
// a reader short of CPU (fewer CPUs than writer threads), a slow drain,
// or writers queued on the lock.
func (r *Result) shortfall() string {
	var parts []string
	for _, p := range r.Options.Policies {
		m := r.medians(p)
		parts = append(parts, fmt.Sprintf("%s: reader thread %.0f%% of one CPU, %.0f manager-lock acquisitions per flush, drain %.0f MB/s of flush time, %.0f of %.0f flushes asked, %.2f s waited for the manager lock",
			p, m["Reader CPU share"], m["Reader lock acquisitions per flush"], m["Reader drain rate"]/1e6, m["Reader flushes made"], m["Reader flushes asked"], m["Manager lock wait time"]))
	}
	return fmt.Sprintf("below target on %d CPUs with %d writer threads (medians) — %s. Writers refill the budget as soon as a flush frees it, so event throughput is the reader's drain.",
		runtime.NumCPU(), r.Options.Writers, strings.Join(parts, "; "))
}

// medians maps each of Metrics' names to its median over p's runs.
func (r *Result) medians(p trace.Policy) map[string]float64 {
	out := map[string]float64{}
	for _, m := range r.Metrics(p) {
		out[m.Name] = m.Summary.Median
	}
	return out
}
