//go:build !race

package compress

// raceEnabled reports whether the race detector is on. It makes sync.Pool
// drop values at random, so allocation counts are not checked.
const raceEnabled = false
