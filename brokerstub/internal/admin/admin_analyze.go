package admin

import (
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

// analyzeBacklog serves POST …/subscription/{sub}/analyzeBacklog: it
// reads the subscription's unacknowledged entries, from its mark-delete
// position or from the position of the optional body (a ResetCursorData,
// as pulsaradmin's AnalyzeSubscriptionBacklog sends), and counts them, up
// to Options.BacklogScan's limits. On a partitioned topic the partitions'
// counts are summed.
func analyzeBacklog(rq *adminReq) (any, error) {
	var start *engine.ResetCursorData
	if rq.hasBody() {
		d, err := rq.messageIDBody()
		if err != nil {
			return nil, err
		}
		start = &d
	}
	lim := rq.b.Cfg.BacklogScan
	clk := rq.b.Cfg.Clock
	deadline := clk.Now().Add(lim.MaxTime)
	var res engine.AnalyzeResult
	err := rq.onSubscription(func(s *engine.Subscription) error {
		var from *ledger.Position
		if start != nil {
			p, ok := s.PositionOfID(*start)
			if !ok {
				return nil
			}
			from = &p
		}
		s.Analyze(&res, from, lim.MaxEntries, func() bool { return !clk.Now().Before(deadline) })
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.FilterAcceptedEntries, res.FilterAcceptedMessages = res.Entries, res.Messages
	return res, nil
}
