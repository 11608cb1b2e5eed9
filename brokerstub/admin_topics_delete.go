package brokerstub

import (
	"net/http"
)

func deleteTopicHandler(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	if rq.b.partitionCountOf(name) > 0 {
		return nil, rq.listChanged(rq.b.deletePartitioned(name, rq.flag("force")))
	}
	err = rq.b.deleteTopic(name, rq.flag("force"))
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
		rq.b.topicsChanged()
	}
	return err
}

// deletePartitioned deletes every partition and then the partitioned
// topic's metadata.
func (b *Broker) deletePartitioned(base topicName, force bool) error {
	n := b.partitionCount(base.Full)
	parts := make([]topicName, 0, n)
	for i := range n {
		p, err := parseTopic(partitionName(base.Full, i))
		if err != nil {
			return err
		}
		parts = append(parts, p)
	}
	if !force {
		for _, p := range parts {
			t := b.loadedTopic(p.Full)
			if t != nil && t.hasClients() {
				return restErr(http.StatusPreconditionFailed, "Topic has active producers/subscriptions")
			}
		}
	}
	for _, p := range parts {
		if err := b.deleteTopic(p, force); err != nil && !isNotFound(err) {
			return err
		}
	}
	if err := b.st.SetPartitions(base.Full, 0); err != nil {
		return err
	}
	if err := b.forgetTopicGrants(base); err != nil {
		return err
	}
	return b.pol().ForgetTopic(base.Full)
}

// listTopics lists the namespace's topics of the path's domain, partitions
// by their names.
