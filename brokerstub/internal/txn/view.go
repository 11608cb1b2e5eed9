package txn

// What the admin API shows of transactions (/admin/v3/transactions), with
// Pulsar's JSON field names. Fields are in the order of their names, as
// the stub has always written them.

// CoordinatorStats is Pulsar's TransactionCoordinatorStats.
type CoordinatorStats struct {
	LeastSigBits     int64  `json:"leastSigBits"` // the last sequence number given, -1 before the first
	LowWaterMark     int64  `json:"lowWaterMark"`
	OngoingTxnSize   int    `json:"ongoingTxnSize"` // transactions not yet removed
	RecoverEndTime   int64  `json:"recoverEndTime"`
	RecoverStartTime int64  `json:"recoverStartTime"`
	State            string `json:"state"` // "Ready"
}

// InBufferStats is Pulsar's TransactionInBufferStats: what a topic's
// Buffer knows of a transaction.
type InBufferStats struct {
	// StartPosition is the position of the transaction's first entry on
	// the topic while it is open, nil otherwise.
	StartPosition *string `json:"startPosition"`
	// Aborted is true once the transaction aborted with entries here
	// (until retention trims its marker).
	Aborted bool `json:"aborted"`
}

// InPendingAckStats is Pulsar's TransactionInPendingAckStats.
type InPendingAckStats struct {
	// CumulativeAckPosition is the position the transaction acknowledges
	// cumulatively on the subscription, nil when none.
	CumulativeAckPosition *string `json:"cumulativeAckPosition"`
}

// Metadata is Pulsar's TransactionMetadata.
type Metadata struct {
	AckedPartitions    map[string]map[string]InPendingAckStats `json:"ackedPartitions"` // by topic, then subscription
	OpenTimestamp      int64                                   `json:"openTimestamp"`   // Unix ms
	ProducedPartitions map[string]InBufferStats                `json:"producedPartitions"`
	Status             string                                  `json:"status"`
	// TimeoutAt is, as Pulsar reports it, the timeout itself in ms.
	TimeoutAt int64  `json:"timeoutAt"`
	TxnID     string `json:"txnId"`
}

// Stats is the coordinator's view for the admin API.
func (c *Coordinator) Stats() CoordinatorStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CoordinatorStats{State: "Ready", LeastSigBits: int64(c.next) - 1, OngoingTxnSize: len(c.txns)}
}

// Metadata is transaction id as the admin API shows it: its status and
// times, what each of its partitions' Buffers knows of it (Topics), and
// its cumulative ack on each of its subscriptions.
func (c *Coordinator) Metadata(id ID) (Metadata, error) {
	m, err := c.Snapshot(id)
	if err != nil {
		return Metadata{}, err
	}
	produced := map[string]InBufferStats{}
	for _, p := range m.Partitions {
		produced[p] = c.cfg.Topics.InBuffer(p, id)
	}
	acked := map[string]map[string]InPendingAckStats{}
	for _, s := range m.Subs {
		if acked[s.Topic] == nil {
			acked[s.Topic] = map[string]InPendingAckStats{}
		}
		acked[s.Topic][s.Sub] = InPendingAckStats{CumulativeAckPosition: cumulativeOf(m.Acks, s)}
	}
	return Metadata{TxnID: id.String(), Status: m.Status.String(), OpenTimestamp: m.OpenedAt,
		TimeoutAt: m.TimeoutAt - m.OpenedAt, ProducedPartitions: produced, AckedPartitions: acked}, nil
}

// InPendingAck is what transaction id holds pending on subscription s.
func (c *Coordinator) InPendingAck(id ID, s Sub) (InPendingAckStats, error) {
	m, err := c.Snapshot(id)
	if err != nil {
		return InPendingAckStats{}, err
	}
	return InPendingAckStats{CumulativeAckPosition: cumulativeOf(m.Acks, s)}, nil
}

// cumulativeOf is the position that acks acknowledge cumulatively on s,
// nil when none.
func cumulativeOf(acks []Ack, s Sub) *string {
	var out *string
	for _, r := range acks {
		if r.Cumulative && r.Topic == s.Topic && r.Sub == s.Sub {
			p := r.Pos().String()
			out = &p
		}
	}
	return out
}
