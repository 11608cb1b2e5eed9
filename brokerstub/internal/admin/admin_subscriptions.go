package admin

import (
	"net/http"
	"sort"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

// forEachPartition runs f on the topic goroutine of each partition of a
// partitioned topic (or of the topic itself), loading or, when create is
// set, creating them. It returns the first error.
func (rq *adminReq) forEachPartition(name engine.TopicName, create bool, f func(t *engine.Topic) error) error {
	parts := rq.b.partitionsOf(name)
	for _, p := range parts {
		var t *engine.Topic
		var err error
		if create {
			t, err = rq.b.Eng.TopicForUse(p)
		} else {
			t, err = rq.b.Eng.GetTopic(p, false)
		}
		if isNotFound(err) {
			if len(parts) > 1 {
				continue // a partition nobody used yet
			}
			return topicNotFound(name)
		}
		if err != nil {
			return err
		}
		var ferr error
		if err := t.Call(func() { ferr = f(t) }); err != nil {
			return err
		}
		if ferr != nil {
			return ferr
		}
	}
	return nil
}

func subNotFound() error { return engine.RestErr(http.StatusNotFound, "Subscription not found") }

// onSubscription runs f with the named subscription on each partition.
func (rq *adminReq) onSubscription(f func(s *engine.Subscription) error) error {
	name, err := rq.topic()
	if err != nil {
		return err
	}
	found := false
	err = rq.forEachPartition(name, false, func(t *engine.Topic) error {
		s := t.Subscription(rq.p["sub"])
		if s == nil {
			return nil
		}
		found = true
		return f(s)
	})
	if err == nil && !found {
		return subNotFound()
	}
	return err
}

func listSubscriptions(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	err = rq.forEachPartition(name, false, func(t *engine.Topic) error {
		for _, n := range t.SubscriptionNames() {
			seen[n] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

// createSubscription creates a durable subscription whose first message is
// the one at the given id (latest when none), on every partition.
func createSubscription(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	var d engine.ResetCursorData
	if err := rq.decode(&d); err != nil {
		return nil, err
	}
	sub := rq.p["sub"]
	exists := false
	err = rq.forEachPartition(name, rq.b.Eng.AutoTopicAllowed(name), func(t *engine.Topic) error {
		there, err := t.CreateSubscriptionAt(sub, d)
		exists = exists || there
		return err
	})
	if err != nil {
		return nil, err
	}
	if exists && len(rq.b.partitionsOf(name)) == 1 {
		return nil, engine.RestErr(http.StatusConflict, "Subscription already exists for topic")
	}
	return nil, nil
}

func deleteSubscription(rq *adminReq) (any, error) {
	force := rq.flag("force")
	return nil, rq.onSubscription(func(s *engine.Subscription) error { return s.Delete(force) })
}

func resetCursorByTime(rq *adminReq) (any, error) {
	ts, err := parseInt64(rq.p["timestamp"], "timestamp")
	if err != nil {
		return nil, err
	}
	return nil, rq.onSubscription(func(s *engine.Subscription) error {
		s.ResetCursorByTime(ts)
		return nil
	})
}

// messageIDBody decodes a request body that names a message id (ledgerId
// and entryId required), as reset-cursor and expire-by-id take.
func (rq *adminReq) messageIDBody() (engine.ResetCursorData, error) {
	var d engine.ResetCursorData
	if err := rq.decode(&d); err != nil {
		return d, err
	}
	if d.LedgerID == nil || d.EntryID == nil {
		return d, engine.RestErr(http.StatusBadRequest, "Missing ledgerId or entryId")
	}
	return d, nil
}

func resetCursorByID(rq *adminReq) (any, error) {
	d, err := rq.messageIDBody()
	if err != nil {
		return nil, err
	}
	return nil, rq.onSubscription(func(s *engine.Subscription) error {
		s.ResetCursorToID(d)
		return nil
	})
}

func skipMessages(rq *adminReq) (any, error) {
	n, err := parseInt64(rq.p["n"], "number of messages")
	if err != nil {
		return nil, err
	}
	return nil, rq.onSubscription(func(s *engine.Subscription) error {
		s.SkipMessages(n)
		return nil
	})
}

func skipAll(rq *adminReq) (any, error) {
	return nil, rq.onSubscription(func(s *engine.Subscription) error {
		s.SkipAll()
		return nil
	})
}

func expireMessages(rq *adminReq) (any, error) {
	secs, err := parseInt64(rq.p["seconds"], "expire time")
	if err != nil {
		return nil, err
	}
	return nil, rq.onSubscription(func(s *engine.Subscription) error {
		s.ExpireMessages(secs) // ttl.go
		return nil
	})
}

func expireAllSubscriptions(rq *adminReq) (any, error) {
	secs, err := parseInt64(rq.p["seconds"], "expire time")
	if err != nil {
		return nil, err
	}
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	return nil, rq.forEachPartition(name, false, func(t *engine.Topic) error {
		t.ExpireAllSubscriptions(secs) // ttl.go
		return nil
	})
}

// expireByID acknowledges everything up to and including a message id.
func expireByID(rq *adminReq) (any, error) {
	d, err := rq.messageIDBody()
	if err != nil {
		return nil, err
	}
	return nil, rq.onSubscription(func(s *engine.Subscription) error {
		s.AckThrough(ledger.Position{Ledger: *d.LedgerID, Entry: *d.EntryID})
		return nil
	})
}
