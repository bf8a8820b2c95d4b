package stats

// PairedRatios returns a[i]/b[i] for each index i of both samples whose
// b[i] is positive: the ratios of two samples measured in pairs. When two
// variants run interleaved, repetition i of each shared the machine's
// state, so each paired ratio is free of the drift between repetitions,
// which a ratio of the two samples' medians is not. Pairs without a
// positive base have no ratio and are left out; so are the values of the
// longer sample beyond the shorter's length. The result is in pair order,
// a new slice (nil when no pair has a ratio).
func PairedRatios(a, b []float64) []float64 {
	var rs []float64
	for i := range min(len(a), len(b)) {
		if b[i] > 0 {
			rs = append(rs, a[i]/b[i])
		}
	}
	return rs
}
