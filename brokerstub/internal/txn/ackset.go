package txn

// Ack sets are Pulsar's batch-index bitmaps: bit i of word i/64 set means
// the message at index i of the batch is not acknowledged yet.

// AndAckSets returns the ack set whose set bits (unacknowledged indexes)
// are set in both a and b; a word missing from one counts as all clear
// (acknowledged), as a client's ack set drops its trailing zero words.
func AndAckSets(a, b []int64) []int64 {
	out := make([]int64, max(len(a), len(b)))
	for i := range out {
		var x, y int64
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		out[i] = x & y
	}
	return out
}

// FullAckSet is the ack set of a batch of n messages none of which is
// acknowledged.
func FullAckSet(n int) []int64 {
	n = max(n, 1)
	out := make([]int64, (n+63)/64)
	for i := range n {
		out[i/64] |= 1 << (i % 64)
	}
	return out
}

// Popcount counts the set bits of set below n.
func Popcount(set []int64, n int) int {
	c := 0
	for i := range min(n, 64*len(set)) {
		if set[i/64]&(1<<(i%64)) != 0 {
			c++
		}
	}
	return c
}

// BitsAlreadyAcked reports whether a batch-index ack (req: a cleared bit
// is an index it acknowledges) names an index the cursor (cur: a set bit
// is not yet acknowledged) already has.
func BitsAlreadyAcked(cur, req []int64, batch int) bool {
	if cur == nil || req == nil {
		return false
	}
	for i := range min(batch, 64*max(len(cur), len(req))) {
		w, bit := i/64, int64(1)<<(i%64)
		acks := w >= len(req) || req[w]&bit == 0
		acked := w >= len(cur) || cur[w]&bit == 0
		if acks && acked {
			return true
		}
	}
	return false
}
