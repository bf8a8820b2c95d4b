package stats

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// squares returns the ascending sample 1², 2², …, n². Its values are
// small integers and its gaps grow, so a trimmed mean that cuts one point
// too many or too few, or a quartile read at the wrong position, shows.
// Sums of its runs have a closed form: S(m) = 1² + … + m² = m(m+1)(2m+1)/6.
func squares(n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64((i + 1) * (i + 1))
	}
	return xs
}

// The seed table's rows of squares(n), worked out by hand from the
// spreadsheet formulas. TRIMMEAN(range, p) excludes floor(n·p) points,
// rounded down to an even number, half from each tail; with k cut from each
// tail it is (S(n−k) − S(k)) / (n − 2k). QUARTILE.INC(range, q) reads the
// 0-based position h = (n−1)·q/4 and interpolates x[⌊h⌋] + frac(h)·(x[⌊h⌋+1] − x[⌊h⌋]),
// where x[i] = (i+1)².
//
// Two cases in full:
//
//	n = 21, p = 0.10: floor(2.1) = 2 excluded in total → 1 from each tail:
//	  (S(20) − S(1)) / 19 = (2870 − 1) / 19 = 151.
//	n = 21, p = 0.25: floor(5.25) = 5, odd, rounded down to 4 → 2 per tail:
//	  (S(19) − S(2)) / 17 = (2470 − 5) / 17 = 145.
//	n = 21, Q1: h = 20/4 = 5 exactly → x[5] = 36; Q2: h = 10 → 121; Q3: h = 15 → 256.
//
//	n = 10, p = 0.10: floor(1) = 1, odd, rounded down to 0 → nothing cut:
//	  S(10) / 10 = 385 / 10 = 38.5 (cutting floor(p·n) = 1 per tail would give 35.5).
//	n = 10, p = 0.25: floor(2.5) = 2 → 1 per tail: (S(9) − S(1)) / 8 = 284 / 8 = 35.5.
//	n = 10, Q1: h = 9/4 = 2.25 → 9 + 0.25·(16 − 9) = 10.75;
//	  Q2: h = 4.5 → 25 + 0.5·(36 − 25) = 30.5; Q3: h = 6.75 → 49 + 0.75·(64 − 49) = 60.25.
//
// The others, the same way:
//
//	n  | excluded 10%, 25% | per tail | TrimMean 10%, 25%                             | h(Q1), h(Q2), h(Q3)
//	1  | 0, 0              | 0, 0     | 1, 1                                          | 0, 0, 0
//	2  | 0, 0              | 0, 0     | 5/2, 5/2                                      | 0.25, 0.5, 0.75
//	3  | 0, 0              | 0, 0     | 14/3, 14/3                                    | 0.5, 1, 1.5
//	11 | 1→0, 2            | 0, 1     | 506/11 = 46, (385−1)/9 = 128/3                | 2.5, 5, 7.5
//	19 | 1→0, 4            | 0, 2     | 2470/19 = 130, (1785−5)/15 = 356/3            | 4.5, 9, 13.5
//	20 | 2, 5→4            | 1, 2     | (2470−1)/18 = 823/6, (2109−5)/16 = 131.5      | 4.75, 9.5, 14.25
//	40 | 4, 10             | 2, 5     | (19019−5)/36 = 3169/6, (14910−55)/30 = 2971/6 | 9.75, 19.5, 29.25
var seedRowCases = []struct {
	n              int
	trim10, trim25 float64
	q1, q2, q3     float64
}{
	{n: 1, trim10: 1, trim25: 1, q1: 1, q2: 1, q3: 1},
	{n: 2, trim10: 2.5, trim25: 2.5, q1: 1.75, q2: 2.5, q3: 3.25},                      // 1 + 0.25·3, 1 + 0.5·3, 1 + 0.75·3
	{n: 3, trim10: 14.0 / 3, trim25: 14.0 / 3, q1: 2.5, q2: 4, q3: 6.5},                // 1 + 0.5·3, x[1], 4 + 0.5·5
	{n: 10, trim10: 38.5, trim25: 35.5, q1: 10.75, q2: 30.5, q3: 60.25},                // see above
	{n: 11, trim10: 46, trim25: 128.0 / 3, q1: 12.5, q2: 36, q3: 72.5},                 // 9 + 0.5·7, x[5], 64 + 0.5·17
	{n: 19, trim10: 130, trim25: 356.0 / 3, q1: 30.5, q2: 100, q3: 210.5},              // 25 + 0.5·11, x[9], 196 + 0.5·29
	{n: 20, trim10: 823.0 / 6, trim25: 131.5, q1: 33.25, q2: 110.5, q3: 232.75},        // 25 + 0.75·11, 100 + 0.5·21, 225 + 0.25·31
	{n: 21, trim10: 151, trim25: 145, q1: 36, q2: 121, q3: 256},                        // see above
	{n: 40, trim10: 3169.0 / 6, trim25: 2971.0 / 6, q1: 115.75, q2: 420.5, q3: 915.25}, // 100 + 0.75·21, 400 + 0.5·41, 900 + 0.25·61
}

// The expected values are exact: the sums are of small integers and the
// interpolation fractions are quarters, so the code must match them to the
// bit, and the functions and Summarize must agree.
func TestSeedRowsHandComputed(t *testing.T) {
	for _, c := range seedRowCases {
		xs := squares(c.n)
		got := []float64{TrimMean(xs, 0.10), TrimMean(xs, 0.25), QuartileInc(xs, 1), QuartileInc(xs, 2), QuartileInc(xs, 3)}
		s := Summarize(xs)
		viaSummary := []float64{s.Trim10, s.Trim25, s.Q1, s.Median, s.Q3}
		want := []float64{c.trim10, c.trim25, c.q1, c.q2, c.q3}
		for i, name := range []string{"TrimMean 10%", "TrimMean 25%", "Q1", "Q2", "Q3"} {
			if got[i] != want[i] || viaSummary[i] != want[i] {
				t.Errorf("n=%d %s = %v (Summary %v), want %v", c.n, name, got[i], viaSummary[i], want[i])
			}
		}
	}
}

// The worked examples of the Excel QUARTILE.INC documentation, and the ends.
func TestQuartileIncDocumentedExamples(t *testing.T) {
	// {1,2,4,7,8,9,10,12}: h = 7/4 = 1.75 → 2 + 0.75·(4 − 2) = 3.5.
	if got := QuartileInc([]float64{1, 2, 4, 7, 8, 9, 10, 12}, 1); got != 3.5 {
		t.Errorf("QUARTILE.INC({1,2,4,7,8,9,10,12}, 1) = %v, want 3.5", got)
	}
	// {11,21,42,27,18,29,32,52} sorted: 11 18 21 27 …; 18 + 0.75·(21 − 18) = 20.25.
	xs := []float64{11, 18, 21, 27, 29, 32, 42, 52}
	if got := QuartileInc(xs, 1); got != 20.25 {
		t.Errorf("QUARTILE.INC(…, 1) = %v, want 20.25", got)
	}
	if QuartileInc(xs, 0) != 11 || QuartileInc(xs, 4) != 52 || QuartileInc(xs, 2) != 28 {
		t.Errorf("QUARTILE.INC 0, 2, 4 = %v, %v, %v, want min 11, median (27+29)/2 = 28, max 52",
			QuartileInc(xs, 0), QuartileInc(xs, 2), QuartileInc(xs, 4))
	}
}

func TestTrimMeanEdgeCases(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		p    float64
		want float64
	}{
		{"n = 0 is documented as 0", nil, 0.10, 0},
		{"p = 0 is the plain mean", squares(10), 0, 38.5},
		// The Excel documentation's example: 10% of 30 is 3, odd → 2 → 1 per
		// tail. squares(30) without 1 and 900: (S(29) − 1) / 28 = 8554/28.
		{"odd count rounds down to even", squares(30), 0.10, 8554.0 / 28},
		// 10·0.1 must count as 1 excluded point (odd → none cut), however
		// the product rounds.
		{"n = 10, p = 0.1", squares(10), 0.1, 38.5},
		// 100·0.58 is 57.99999999999999 in float64; the spreadsheet count is
		// 58 → 29 per tail: (S(71) − S(29)) / 42 = (121836 − 8555) / 42.
		// Flooring the float product would cut 28 per tail instead.
		{"n·p just below an integer", squares(100), 0.58, 113281.0 / 42},
		// p < 1 always leaves a point: 3·0.99 = 2.97 → 2 → 1 per tail.
		{"p near 1, n = 3", squares(3), 0.99, 4},
		// 2·(1 − 2⁻⁵³) rounds to within an ulp of 2; the count is clamped
		// to n − 1 = 1 → 0 per tail, not 1 per tail and an empty mean.
		{"p one ulp below 1, n = 2", squares(2), math.Nextafter(1, 0), 2.5},
		// 4·(1 − 2⁻⁵³) → clamped to 3 → 1 per tail: mean(4, 9).
		{"p one ulp below 1, n = 4", squares(4), math.Nextafter(1, 0), 6.5},
	}
	for _, tt := range tests {
		if got := TrimMean(tt.xs, tt.p); got != tt.want {
			t.Errorf("%s: TrimMean(n=%d, %v) = %v, want %v", tt.name, len(tt.xs), tt.p, got, tt.want)
		}
	}
}

func TestQuartileIncEmptyIsZero(t *testing.T) {
	for q := range 5 {
		if got := QuartileInc(nil, q); got != 0 {
			t.Errorf("QuartileInc(nil, %d) = %v, want 0", q, got)
		}
	}
}

func TestSpreadsheetFunctionsRejectBadArguments(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", name)
			}
		}()
		f()
	}
	for _, p := range []float64{-0.1, 1, 1.5, math.NaN(), math.Inf(1)} {
		mustPanic(fmt.Sprint("TrimMean p=", p), func() { TrimMean([]float64{1, 2, 3}, p) })
	}
	for _, q := range []int{-1, 5} {
		mustPanic(fmt.Sprint("QuartileInc quart=", q), func() { QuartileInc([]float64{1, 2, 3}, q) })
	}
}

// trimPerTail must agree with the count worked out in integers for every
// decimal p of up to three places (p = m/1000), also for n so large that
// n·p in float64 is off by many units in the last place of the fraction.
func TestTrimPerTailIsIntegerArithmetic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 1_000_000_000).Draw(t, "n")
		m := rapid.IntRange(0, 999).Draw(t, "m")
		want := min(n*m/1000, n-1) / 2
		if got := trimPerTail(n, float64(m)/1000); got != want {
			t.Fatalf("trimPerTail(%d, %d/1000) = %d, want %d", n, m, got, want)
		}
	})
}

// TrimMean(p) is the mean of the sorted sample with exactly
// floor(floor(n·p)/2) points cut from each end, both worked out here in
// integers: the count from p = m/1000 and the sum from integer samples.
func TestTrimMeanIsMeanOfCutSample(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ints := rapid.SliceOfN(rapid.IntRange(-1_000_000, 1_000_000), 1, 300).Draw(t, "xs")
		m := rapid.IntRange(0, 999).Draw(t, "m")
		slices.Sort(ints)
		n := len(ints)
		k := (n * m / 1000) / 2 // p < 1, so 2k ≤ n·p < n: at least one point stays
		sum := 0
		for _, v := range ints[k : n-k] {
			sum += v
		}
		want := float64(sum) / float64(n-2*k)
		xs := make([]float64, n)
		for i, v := range ints {
			xs[i] = float64(v)
		}
		if got := TrimMean(xs, float64(m)/1000); got != want {
			t.Fatalf("TrimMean(%v, %d/1000) = %v, want %v (k = %d per tail)", ints, m, got, want, k)
		}
	})
}
