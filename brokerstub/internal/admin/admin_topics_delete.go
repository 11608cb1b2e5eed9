package admin

import (
	"net/http"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

func deleteTopicHandler(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	if rq.b.Eng.PartitionCountOf(name) > 0 {
		return nil, rq.listChanged(rq.b.deletePartitioned(name, rq.flag("force")))
	}
	err = rq.b.Eng.DeleteTopic(name, rq.flag("force"))
	if isNotFound(err) {
		return nil, topicNotFound(name)
	}
	return nil, rq.listChanged(err)
}

// listChanged tells the topic-list watchers (through the engine's
// topicsChanged hook, engine.go) after a change to the namespace's topics
// that succeeded, and returns err.
func (rq *adminReq) listChanged(err error) error {
	if err == nil {
		rq.b.Eng.NotifyTopicsChanged()
	}
	return err
}

// deletePartitioned deletes every partition and then the partitioned
// topic's metadata.
func (b *Web) deletePartitioned(base engine.TopicName, force bool) error {
	n := b.Eng.PartitionCount(base.Full)
	parts := make([]engine.TopicName, 0, n)
	for i := range n {
		p, err := engine.ParseTopic(engine.PartitionName(base.Full, i))
		if err != nil {
			return err
		}
		parts = append(parts, p)
	}
	if !force {
		for _, p := range parts {
			t := b.Eng.LoadedTopic(p.Full)
			if t != nil && t.HasClients() {
				return engine.RestErr(http.StatusPreconditionFailed, "Topic has active producers/subscriptions")
			}
		}
	}
	for _, p := range parts {
		if err := b.Eng.DeleteTopic(p, force); err != nil && !isNotFound(err) {
			return err
		}
	}
	if err := b.Eng.SetPartitions(base.Full, 0); err != nil {
		return err
	}
	if err := b.Eng.ForgetTopicGrants(base); err != nil {
		return err
	}
	return b.Eng.Pol().ForgetTopic(base.Full)
}

// listTopics lists the namespace's topics of the path's domain, partitions
// by their names.
