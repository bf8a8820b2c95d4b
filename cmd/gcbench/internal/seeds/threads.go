package seeds

// CountThreads returns how many distinct OS threads tids (ThreadID values
// of a protocol's actors) name: the actors' own threads, if each is locked
// to one as the protocols require.
func CountThreads(tids []int) int {
	seen := map[int]bool{}
	for _, x := range tids {
		seen[x] = true
	}
	return len(seen)
}
