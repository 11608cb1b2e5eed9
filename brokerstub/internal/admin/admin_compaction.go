package admin

import (
	"net/http"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

// The compaction admin API: PUT and GET …/compaction.

// triggerCompaction is PUT .../compaction: compact the topic, or each
// partition of a partitioned topic, now. The compaction runs before the
// answer (204); Pulsar answers first and compacts after, so a client polls
// GET .../compaction either way.
func triggerCompaction(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	if name.Domain == engine.NonPersistentDomain {
		return nil, engine.RestErr(http.StatusMethodNotAllowed, "%v", engine.ErrCompactNonPersistent)
	}
	names := []engine.TopicName{name}
	if n := rq.b.Eng.PartitionCountOf(name); n > 0 {
		names = names[:0]
		for i := range n {
			p, err := engine.ParseTopic(engine.PartitionName(name.Full, i))
			if err != nil {
				return nil, err
			}
			names = append(names, p)
		}
	}
	for _, n := range names {
		if err := rq.onTopic(n, func(t *engine.Topic) { _ = t.CompactNow() }); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// compactionStatusOf is GET .../compaction: the status of the topic's last
// compaction (NOT_RUN, SUCCESS or ERROR with its error).
func compactionStatusOf(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	var st engine.CompactionStatus
	err = rq.onTopic(name, func(t *engine.Topic) { st = t.CompactionStatusJSON() })
	return st, err
}
