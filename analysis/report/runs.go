package report

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gcbench/gcbench/analysis/stats"
)

// RunsSchema identifies the JSON of a RunsSummary (WriteJSON). ReadJSON
// does not read it: a summary is rebuilt from its runs' files.
const RunsSchema = "gcbench/runs/v1"

// RunsBootstrapSeed seeds the resampling of NewRunsSummary's interval, so
// that the same files always give the same interval.
const RunsBootstrapSeed = 1

// A RunsSummary sets repeated runs of one configuration on one host side
// by side (CONTRIBUTING's "at least three runs of the same command"): for
// each comparison of a run (its last mode against each earlier one), each
// run's improvement on VerdictStatistic, their median and range, and a
// bootstrap interval of that median.
type RunsSummary struct {
	Schema string `json:"schema"`
	Title  string `json:"title"`
	Config Config `json:"config"`
	Host   Host   `json:"host"`
	// Sources name the runs' files (Report.Source), in argument order:
	// "run i" is Sources[i-1].
	Sources []string `json:"sources"`
	// Statistic is VerdictStatistic's key ("trimmean10").
	Statistic string `json:"statistic"`
	// Comparisons are the runs' comparisons, in a run's order: the last
	// one (the mode before the last against the last) is the verdict's.
	Comparisons []RunsComparison `json:"comparisons"`
	// MedianRun is the index (from 0) of the run whose verdict improvement
	// is the median of the runs' (the lower of the two middle ones for an
	// even count).
	MedianRun int `json:"median_run"`
	// Median is that run as a report of its own, for its full tables.
	Median *Report `json:"-"`
}

// A RunsComparison is one comparison across the runs.
type RunsComparison struct {
	Base string `json:"base"`
	New  string `json:"new"`
	// Runs are each run's figures, in argument order.
	Runs []RunFigure `json:"runs"`
	// Median is the median of the runs' improvements (%, positive:
	// shorter pauses); Lo and Hi their smallest and largest.
	Median float64 `json:"median_pct"`
	Lo     float64 `json:"min_pct"`
	Hi     float64 `json:"max_pct"`
	// Bootstrap is a percentile-bootstrap interval of Median at
	// stats.MedianConfidence: stats.BootstrapResamples times, every run's
	// base and new pauses are resampled with replacement, within that run
	// and mode, each run's improvement is recomputed and their median
	// taken. It measures the collections' noise within the runs; the
	// spread between runs is Lo–Hi.
	Bootstrap stats.Interval `json:"bootstrap_ci"`
}

// A RunFigure is one run's side of a RunsComparison.
type RunFigure struct {
	// Improvement is (base − new) / base × 100 of VerdictStatistic.
	Improvement float64 `json:"improvement_pct"`
	// CI is the improvement's interval as the run's verdict gives it
	// (from stats.TrimMeanRatio); its Confidence is 0 when there is none.
	CI stats.Interval `json:"ci"`
	// P is the Mann–Whitney p-value of the run's comparison.
	P  float64 `json:"p_value"`
	N1 int     `json:"n_base"`
	N2 int     `json:"n_new"`
}

// Verdict returns the comparison the runs exist for: the last, the mode
// before the last against the last (batch vs perjob).
func (s *RunsSummary) Verdict() RunsComparison { return s.Comparisons[len(s.Comparisons)-1] }

// NewRunsSummary summarizes reports that are repeated runs of one
// experiment: one run each, equal Title, Config, typed settings and
// anatomy (as Merge requires), the same Host, at least two modes, none
// partial. It returns an error wrapping ErrInvalidInput for fewer than
// two reports, a report of several runs, a run of one mode or a partial
// run; ErrConfigMismatch (naming the difference) for runs of other
// configurations or hosts; ErrDuplicateRun for a run given twice; or
// ctx's cause if ctx ends during the bootstrap (about a second per
// comparison at a few thousand collections per run).
func NewRunsSummary(ctx context.Context, reports []*Report) (*RunsSummary, error) {
	if len(reports) < 2 {
		return nil, fmt.Errorf("%w: a runs summary needs at least two runs, got %d", ErrInvalidInput, len(reports))
	}
	for i, r := range reports {
		if len(r.Runs) != 1 {
			return nil, fmt.Errorf("%w: %s holds %d runs; give each run's own file", ErrInvalidInput, r.name(i), len(r.Runs))
		}
		if r.Runs[0].Partial != "" {
			return nil, fmt.Errorf("%w: %s is a partial run (%s)", ErrInvalidInput, r.name(i), r.Runs[0].Partial)
		}
		if len(r.Runs[0].Modes) < 2 {
			return nil, fmt.Errorf("%w: %s has one mode, which compares nothing", ErrInvalidInput, r.name(i))
		}
	}
	merged, err := Merge(reports...)
	if err != nil {
		return nil, err
	}
	first := reports[0]
	for i, r := range reports[1:] {
		if h, h0 := r.Runs[0].Host, first.Runs[0].Host; h != h0 {
			return nil, fmt.Errorf("%w: %s ran on %s (%d cores, GOMAXPROCS %d, %s), %s on %s (%d cores, GOMAXPROCS %d, %s): "+
				"a runs summary is of one host (without --runs, report sets hosts side by side)",
				ErrConfigMismatch, r.name(i+1), h.Label(), h.Cores, h.GOMAXPROCS, h.GoVersion,
				first.name(0), h0.Label(), h0.Cores, h0.GOMAXPROCS, h0.GoVersion)
		}
	}
	s := &RunsSummary{Schema: RunsSchema, Title: merged.Title, Config: merged.Config, Host: first.Runs[0].Host,
		Statistic: VerdictStatistic.Key()}
	for i, r := range reports {
		src := r.Source
		if src == "" {
			src = r.name(i)
		}
		s.Sources = append(s.Sources, src)
	}
	runs := merged.Runs
	for ci := range runs[0].Comparisons {
		c, err := summarizeComparison(ctx, runs, ci)
		if err != nil {
			return nil, err
		}
		s.Comparisons = append(s.Comparisons, c)
	}
	v := s.Verdict()
	order := make([]int, len(runs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(v.Runs[a].Improvement, v.Runs[b].Improvement)
	})
	s.MedianRun = order[(len(order)-1)/2]
	s.Median = NewReport(merged.Title, merged.Config, runs[s.MedianRun])
	s.Median.Settings, s.Median.Anatomy, s.Median.Source = merged.Settings, merged.Anatomy, s.Sources[s.MedianRun]
	return s, nil
}

// summarizeComparison is comparison ci (the last mode against mode ci)
// across runs.
func summarizeComparison(ctx context.Context, runs []Run, ci int) (RunsComparison, error) {
	last := len(runs[0].Modes) - 1
	c := RunsComparison{Base: runs[0].Modes[ci].Name, New: runs[0].Modes[last].Name}
	bases, news := make([][]float64, len(runs)), make([][]float64, len(runs))
	imps := make([]float64, len(runs))
	for i, run := range runs {
		d := run.Comparisons[ci]
		imp, ok := d.ImprovementOf(VerdictStatistic)
		if !ok {
			return RunsComparison{}, fmt.Errorf("%w: run %d: %s vs %s has no %s improvement (a base of zero)",
				ErrInvalidInput, i+1, c.New, c.Base, VerdictStatistic)
		}
		f := RunFigure{Improvement: imp, P: d.P, N1: d.N1, N2: d.N2}
		if ratio, err := stats.TrimMeanRatio(run.Modes[ci].Pauses, run.Modes[last].Pauses, verdictTrim); err == nil {
			f.CI = stats.Interval{Lo: (1 - ratio.CI.Hi) * 100, Hi: (1 - ratio.CI.Lo) * 100, Confidence: ratio.CI.Confidence}
		}
		c.Runs = append(c.Runs, f)
		imps[i] = imp
		bases[i] = slices.Sorted(slices.Values(run.Modes[ci].Pauses))
		news[i] = slices.Sorted(slices.Values(run.Modes[last].Pauses))
	}
	sorted := slices.Sorted(slices.Values(imps))
	c.Median, c.Lo, c.Hi = stats.Median.Of(sorted), sorted[0], sorted[len(sorted)-1]
	ci95, err := bootstrapMedianImprovement(ctx, bases, news, uint64(ci))
	if err != nil {
		return RunsComparison{}, err
	}
	c.Bootstrap = ci95
	return c, nil
}

// bootstrapMedianImprovement is the percentile-bootstrap interval of the
// median over runs of VerdictStatistic's improvement, resampling each
// run's sorted base and new pauses within the run (RunsComparison.Bootstrap).
func bootstrapMedianImprovement(ctx context.Context, bases, news [][]float64, stream uint64) (stats.Interval, error) {
	rng := rand.New(rand.NewPCG(RunsBootstrapSeed, stream))
	meds := make([]float64, 0, stats.BootstrapResamples)
	imps := make([]float64, len(bases))
	var rb, rn []float64
	for b := range stats.BootstrapResamples {
		if b%32 == 0 && ctx.Err() != nil {
			return stats.Interval{}, context.Cause(ctx)
		}
		for i := range bases {
			rb = resampleInto(rng, rb, bases[i])
			rn = resampleInto(rng, rn, news[i])
			base := VerdictStatistic.Of(rb)
			imps[i] = math.Inf(-1) // a zero base: no bound
			if base != 0 {
				imps[i] = (base - VerdictStatistic.Of(rn)) / base * 100
			}
		}
		slices.Sort(imps)
		meds = append(meds, stats.Median.Of(imps))
	}
	slices.Sort(meds)
	alpha := (1 - stats.MedianConfidence) / 2
	iv := stats.Interval{Lo: stats.Quantile(meds, alpha), Hi: stats.Quantile(meds, 1-alpha), Confidence: stats.MedianConfidence}
	if math.IsInf(iv.Lo, 0) || math.IsNaN(iv.Lo) || math.IsInf(iv.Hi, 0) || math.IsNaN(iv.Hi) {
		return stats.Interval{}, fmt.Errorf("%w: the improvement's bootstrap interval has no finite end: too many resamples have a base statistic of zero",
			ErrInvalidInput)
	}
	return iv, nil
}

// resampleInto draws len(sorted) values of sorted with replacement into
// dst (grown as needed) and sorts them, as the statistics expect.
func resampleInto(rng *rand.Rand, dst, sorted []float64) []float64 {
	dst = slices.Grow(dst[:0], len(sorted))[:len(sorted)]
	for i := range dst {
		dst[i] = sorted[rng.IntN(len(sorted))]
	}
	slices.Sort(dst)
	return dst
}

// WriteJSON writes s as indented JSON (RunsSchema): the summary's figures,
// not the runs' samples, which stay in their files.
func (s *RunsSummary) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("report: writing the runs summary's JSON: %w", err)
	}
	return nil
}
