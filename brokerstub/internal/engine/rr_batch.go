package engine

// Shared dispatch in runs (Gates.DispatcherMaxRoundRobinBatchSize), as
// Pulsar's PersistentDispatcherMultipleConsumers: from what one read
// brings, a consumer gets up to dispatcherMaxRoundRobinBatchSize messages
// in a row (whole entries: at least one, and no more entries than the
// batch size divided by the entries' messages), bounded by its permits,
// before the next consumer's turn. A dispatch pass is one read: each pass
// starts a new run on the consumer after the last one served, so messages
// published one at a time still go round robin. Topic goroutine.

// rrRun is the current run: its consumer, and the messages it got.
type rrRun struct {
	cs    *Consumer
	given int64
	full  bool // the next entry would take the run beyond the batch size
	limit int64
}

// continueRun returns the run's consumer when it may take the next entry:
// the run is not full and the consumer is attached and has permits.
func (s *Subscription) continueRun() *Consumer {
	r := &s.run
	if r.cs == nil || r.full || r.cs.closed || r.cs.availablePermits() <= 0 {
		return nil
	}
	return r.cs
}

// took records that cs got the entry in: a new run when cs is not the
// current one. The run is full once one more entry of the same size would
// go beyond the batch size.
func (r *rrRun) took(cs *Consumer, in *entryInfo, batch int) {
	if r.cs != cs {
		*r = rrRun{cs: cs, limit: int64(max(batch, 1))}
	}
	n := int64(max(in.numMessages, 1))
	r.given += n
	r.full = r.given+n > r.limit
}
