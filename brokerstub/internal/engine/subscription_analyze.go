package engine

import (
	"strconv"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

// Analyze adds the subscription's backlog from from (nil: its mark-delete
// position) to res, stopping with res.Aborted once res holds maxEntries
// entries and more remain, or once late reports true. Topic goroutine.
func (s *Subscription) Analyze(res *AnalyzeResult, from *ledger.Position, maxEntries int, late func() bool) {
	p := s.Cur.MarkDelete()
	for {
		next, ok := s.Cur.NextUnacked(p)
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
		e, ok := s.t.Led.Get(next)
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

// AnalyzeResult is Pulsar's AnalyzeSubscriptionBacklogResult. brokerstub
// runs no entry filter, so every entry scanned is accepted.
type AnalyzeResult struct {
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
