package consumer

import "github.com/pulsargo/sdk/messageid"

// recentKey is what identifies a handed-out message for Knows: its
// partition index, first and last entry (the same for a message that is not
// chunked) and whether it was chunked.
type recentKey struct {
	partition   int32
	first, last position
	chunked     bool
}

func recentKeyOf(id messageid.MessageID) recentKey {
	_, chunked := id.(messageid.ChunkMessageID)
	return recentKey{partition: id.PartitionIdx(), first: posOf(messageid.FirstChunk(id)),
		last: posOf(messageid.LastChunk(id)), chunked: chunked}
}

// recentIDs is a bounded set of the messages handed out, acknowledged or
// not; the oldest is forgotten first.
type recentIDs struct {
	max   int // 0: remembers nothing
	m     map[recentKey]struct{}
	order []recentKey
}

func (r *recentIDs) add(id messageid.MessageID) {
	if r.max <= 0 {
		return
	}
	k := recentKeyOf(id)
	if r.m == nil {
		r.m = map[recentKey]struct{}{}
	}
	if _, ok := r.m[k]; ok {
		return
	}
	r.m[k] = struct{}{}
	r.order = append(r.order, k)
	if len(r.order) > r.max {
		delete(r.m, r.order[0])
		r.order[0] = recentKey{}
		r.order = r.order[1:]
	}
}

func (r *recentIDs) has(id messageid.MessageID) bool {
	_, ok := r.m[recentKeyOf(id)]
	return ok
}

// Knows reports whether the engine delivered the message id names: it is
// queued, handed out and not acknowledged, or among the last
// Options.RecentIDs handed out. Package pulsar routes an id among the
// engines of several topics with it. The id's partition index must be the
// engine's.
func (e *Engine[T]) Knows(id messageid.MessageID) bool {
	if id.PartitionIdx() != e.o.Partition {
		return false
	}
	var ok bool
	_ = e.call(func() {
		_, ok = e.tracked[posOf(messageid.FirstChunk(id))]
		ok = ok || e.recent.has(id)
	})
	return ok
}
