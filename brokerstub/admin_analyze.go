package brokerstub

import (
	"strconv"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

// analyzeResult is Pulsar's AnalyzeSubscriptionBacklogResult. brokerstub
// runs no entry filter, so every entry scanned is accepted.
type analyzeResult struct {
	Entries                   int64  `json:"entries"`
	Messages                  int64  `json:"messages"`
	FilterRejectedEntries     int64  `json:"filterRejectedEntries"`
	FilterAcceptedEntries     int64  `json:"filterAcceptedEntries"`
	FilterRescheduledEntries  int64  `json:"filterRescheduledEntries"`
	FilterRejectedMessages    int64  `json:"filterRejectedMessages"`
	FilterAcceptedMessages    int64  `json:"filterAcceptedMessages"`
	FilterRescheduledMessages int64  `json:"filterRescheduledMessages"`
	Aborted                   bool   `json:"aborted"`
	FirstMessageID            string `json:"firstMessageId,omitempty"`
	LastMessageID             string `json:"lastMessageId,omitempty"`
}

// analyzeBacklog serves POST …/subscription/{sub}/analyzeBacklog: it
// reads the subscription's unacknowledged entries, from its mark-delete
// position or from the position of the optional body (a ResetCursorData,
// as pulsaradmin's AnalyzeSubscriptionBacklog sends), and counts them, up
// to Options.BacklogScan's limits. On a partitioned topic the partitions'
// counts are summed.
func analyzeBacklog(rq *adminReq) (any, error) {
	var start *resetCursorData
	if rq.hasBody() {
		d, err := rq.messageIDBody()
		if err != nil {
			return nil, err
		}
		start = &d
	}
	lim := rq.b.opts.BacklogScan
	clk := rq.b.opts.Clock
	deadline := clk.Now().Add(lim.MaxTime)
	var res analyzeResult
	err := rq.onSubscription(func(s *subscription) error {
		var from *ledger.Position
		if start != nil {
			if start.PartitionIndex != nil && *start.PartitionIndex >= 0 && s.t.name.Partition >= 0 && *start.PartitionIndex != s.t.name.Partition {
				return nil
			}
			p := s.t.idPosition(*start)
			from = &p
		}
		s.analyze(&res, from, lim.MaxEntries, func() bool { return !clk.Now().Before(deadline) })
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.FilterAcceptedEntries, res.FilterAcceptedMessages = res.Entries, res.Messages
	return res, nil
}

// analyze adds the subscription's backlog from from (nil: its mark-delete
// position) to res, stopping with res.Aborted once res holds maxEntries
// entries and more remain, or once late reports true. Topic goroutine.
func (s *subscription) analyze(res *analyzeResult, from *ledger.Position, maxEntries int, late func() bool) {
	p := s.cur.MarkDelete()
	for {
		next, ok := s.cur.NextUnacked(p)
		if !ok || res.Aborted {
			return
		}
		p = next
		if from != nil && next.Less(*from) {
			continue
		}
		if res.Entries >= int64(maxEntries) || late() {
			res.Aborted = true
			return
		}
		e, ok := s.t.led.Get(next)
		if !ok {
			continue
		}
		id := strconv.FormatInt(next.Ledger, 10) + ":" + strconv.FormatInt(next.Entry, 10)
		if res.FirstMessageID == "" {
			res.FirstMessageID = id
		}
		res.LastMessageID = id
		res.Entries++
		res.Messages += int64(s.t.info(e).numMessages)
	}
}
