package engine

import "slices"

// Add adds one partition's publisher p into the total's entry e
// (PublisherStatsImpl.add).
func (e *MergedPublisherStats) Add(p *PublisherStats) {
	e.count++
	n := float64(e.count)
	e.MsgRateIn += p.MsgRateIn
	e.MsgThroughputIn += p.MsgThroughputIn
	e.AverageMsgSize = (e.AverageMsgSize*(n-1) + p.AverageMsgSize) / n
	if p.MsgDropRate != nil { // a non-persistent publisher's
		var prev float64
		if e.MsgDropRate != nil {
			prev = *e.MsgDropRate
		}
		sum := prev + *p.MsgDropRate
		e.MsgDropRate = &sum
	}
}

// Add adds a subscription's stats of another partition (see
// topicStats.add).
func (ss *SubscriptionStats) Add(o *SubscriptionStats) {
	ss.MsgRateOut += o.MsgRateOut
	ss.MsgThroughputOut += o.MsgThroughputOut
	ss.MsgRateRedeliver += o.MsgRateRedeliver
	ss.MsgRateExpired += o.MsgRateExpired
	ss.MessageAckRate += o.MessageAckRate
	ss.ChunkedMessageRate += o.ChunkedMessageRate
	ss.MsgOutCounter += o.MsgOutCounter
	ss.BytesOutCounter += o.BytesOutCounter
	ss.MsgBacklog += o.MsgBacklog
	ss.MsgBacklogNoDelayed += o.MsgBacklogNoDelayed
	ss.BacklogSize += o.BacklogSize
	ss.MsgDelayed += o.MsgDelayed
	ss.UnackedMessages += o.UnackedMessages
	ss.NonContiguousDeletedMessagesRanges += o.NonContiguousDeletedMessagesRanges
	addRate(&ss.MsgDropRate, o.MsgDropRate)
	ss.Consumers = append(ss.Consumers, o.Consumers...)
	if ss.ActiveConsumerName == nil {
		ss.ActiveConsumerName = o.ActiveConsumerName
	}
	if ss.EarliestMsgPublishTimeInBacklog == nil {
		ss.EarliestMsgPublishTimeInBacklog = o.EarliestMsgPublishTimeInBacklog
	}
	if ss.KeySharedMode == "" {
		ss.KeySharedMode = o.KeySharedMode
	}
}

func (ss *SubscriptionStats) clone() *SubscriptionStats {
	c := *ss
	c.Consumers = slices.Clone(ss.Consumers)
	return &c
}

// Add adds the stats o of another partition as Pulsar's stats add()
// methods do: counters and rates sum, publishers are listed together,
// subscriptions and their consumers merge by name, the latest publish time
// and the earliest creation time win, other values keep the first
// partition's.
func (st *TopicStats) Add(o *TopicStats) {
	st.MsgRateIn += o.MsgRateIn
	st.MsgRateOut += o.MsgRateOut
	st.MsgThroughputIn += o.MsgThroughputIn
	st.MsgThroughputOut += o.MsgThroughputOut
	st.AverageMsgSize += o.AverageMsgSize
	st.MsgInCounter += o.MsgInCounter
	st.BytesInCounter += o.BytesInCounter
	st.MsgOutCounter += o.MsgOutCounter
	st.BytesOutCounter += o.BytesOutCounter
	st.StorageSize += o.StorageSize
	st.BacklogSize += o.BacklogSize
	st.EarliestMsgPublishTimeInBacklogs += o.EarliestMsgPublishTimeInBacklogs
	st.NonContiguousDeletedMessagesRanges += o.NonContiguousDeletedMessagesRanges
	st.WaitingPublishers += o.WaitingPublishers
	st.LastPublishTimestamp = max(st.LastPublishTimestamp, o.LastPublishTimestamp)
	st.TopicCreationTimeStamp = min(st.TopicCreationTimeStamp, o.TopicCreationTimeStamp)
	addRate(&st.MsgDropRate, o.MsgDropRate)
	st.Publishers = append(st.Publishers, o.Publishers...)
	for name, ss := range o.Subscriptions {
		if prev := st.Subscriptions[name]; prev != nil {
			prev.Add(ss)
			continue
		}
		st.Subscriptions[name] = ss.clone()
	}
}

// Clone copies st deeply enough that adding to the copy never changes st:
// its subscriptions and their consumer lists.
func (st *TopicStats) Clone() TopicStats {
	c := *st
	c.Publishers = slices.Clone(st.Publishers)
	c.Subscriptions = make(map[string]*SubscriptionStats, len(st.Subscriptions))
	for name, ss := range st.Subscriptions {
		c.Subscriptions[name] = ss.clone()
	}
	return c
}

// addRate adds the rate src into *dst, which it sets when unset.
func addRate(dst **float64, src *float64) {
	switch {
	case src == nil:
	case *dst == nil:
		*dst = new(*src)
	default:
		*dst = new(**dst + *src)
	}
}
