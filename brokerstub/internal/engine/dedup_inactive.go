package engine

import "time"

// Deduplication forgets an inactive producer, as Pulsar's
// MessageDeduplication.purgeInactiveProducers: when a producer of a name
// disconnects, the time is noted; a producer of that name connecting again
// clears it. Every third of Lifecycle.DedupProducerInactivityTimeout
// (brokerDeduplicationProducerInactivityTimeoutMinutes) the names noted
// longer ago than the timeout lose their highest sequence id, so that a
// producer of that name starts afresh (PRODUCER_SUCCESS says
// last_sequence_id -1) and a sequence id stored before is stored again.
// Names learnt from the stored entries whose producer never connected since
// the topic was loaded are not forgotten, as on Pulsar. One difference:
// when a topic loads again (Restart, Unload) brokerstub rebuilds the state
// from every stored entry, where Pulsar reads a snapshot taken after the
// purge; a forgotten name can come back then.

// producerLeft notes when a producer of name left. Topic goroutine.
func (d *dedup) producerLeft(name string, now time.Time) {
	if d == nil {
		return
	}
	if d.inactive == nil {
		d.inactive = map[string]time.Time{}
	}
	d.inactive[name] = now
}

// producerJoined clears the note of a producer of name. Topic goroutine.
func (d *dedup) producerJoined(name string) {
	if d != nil {
		delete(d.inactive, name)
	}
}

// purgeInactive forgets the names inactive since before cutoff.
func (d *dedup) purgeInactive(cutoff time.Time) {
	if d == nil {
		return
	}
	for name, at := range d.inactive {
		if at.Before(cutoff) {
			delete(d.inactive, name)
			delete(d.highest, name)
		}
	}
}

// purgeInactiveProducers is one run of
// BrokerService.checkMessageDeduplicationInfo.
func (b *Engine) purgeInactiveProducers() {
	cutoff := b.cfg.Clock.Now().Add(-b.cfg.Lifecycle.DedupProducerInactivityTimeout)
	for _, t := range b.LoadedTopics() {
		_ = t.Call(func() { t.dedup.purgeInactive(cutoff) })
	}
}
