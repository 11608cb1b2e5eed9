package pulsar

import (
	"fmt"
	"slices"
)

// maxStickyHash is the largest sticky key hash of Key_Shared (hashes are in
// [0, 65535]).
const maxStickyHash = 65535

// NewKeySharedPolicySticky returns a Key_Shared policy in sticky mode with
// hashRanges as pairs [start1, end1, start2, end2, ...], each inclusive, as
// the official client's: every pair must have 0 <= start < end <= 65535,
// and no two ranges may overlap; otherwise the error wraps
// ErrInvalidOptions. The ranges are sent in SUBSCRIBE's KeySharedMeta;
// the broker refuses a consumer whose ranges overlap another consumer's.
func NewKeySharedPolicySticky(hashRanges []int) (*KeySharedPolicy, error) {
	if err := validateHashRanges(hashRanges); err != nil {
		return nil, err
	}
	return &KeySharedPolicy{Mode: KeySharedPolicyModeSticky, HashRanges: hashRanges}, nil
}

// validateHashRanges checks sticky hash ranges as the official client does
// (a range with start == end is refused as it refuses it), in n log n.
func validateHashRanges(hashRanges []int) error {
	n := len(hashRanges)
	if n == 0 || n%2 != 0 {
		return invalidOption(InvalidConfiguration, "ranges must not be empty or not in value pairs")
	}
	type hashRange struct{ start, end int }
	rs := make([]hashRange, 0, n/2)
	for i := 0; i < n; i += 2 {
		r := hashRange{hashRanges[i], hashRanges[i+1]}
		if r.start >= r.end || r.start < 0 || r.end > maxStickyHash {
			return fmt.Errorf("%w: ranges must be in [0, %d], but provided range is, %d - %d", ErrInvalidOptions, maxStickyHash, r.start, r.end)
		}
		rs = append(rs, r)
	}
	slices.SortFunc(rs, func(a, b hashRange) int { return a.start - b.start })
	for i := 1; i < len(rs); i++ {
		if a, b := rs[i-1], rs[i]; b.start <= a.end {
			return fmt.Errorf("%w: ranges with overlap between, %d - %d, and %d - %d", ErrInvalidOptions, a.start, a.end, b.start, b.end)
		}
	}
	return nil
}
