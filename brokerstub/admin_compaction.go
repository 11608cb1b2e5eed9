package brokerstub

// The compaction admin API: PUT and GET …/compaction.

import "net/http"

// triggerCompaction is PUT .../compaction: compact the topic, or each
// partition of a partitioned topic, now. The compaction runs before the
// answer (204); Pulsar answers first and compacts after, so a client polls
// GET .../compaction either way.
func triggerCompaction(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	if name.Domain == nonPersistentDomain {
		return nil, restErr(http.StatusMethodNotAllowed, "%v", errCompactNonPersistent)
	}
	names := []topicName{name}
	if n := rq.b.eng.partitionCountOf(name); n > 0 {
		names = names[:0]
		for i := range n {
			p, err := parseTopic(partitionName(name.Full, i))
			if err != nil {
				return nil, err
			}
			names = append(names, p)
		}
	}
	for _, n := range names {
		if err := rq.onTopic(n, func(t *topic) { _ = t.compactNow() }); err != nil {
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
	var st compactionStatus
	err = rq.onTopic(name, func(t *topic) { st = t.compactionStatusJSON() })
	return st, err
}
