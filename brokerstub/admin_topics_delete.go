package brokerstub

import (
	"net/http"
)

func deleteTopicHandler(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	if rq.b.eng.partitionCountOf(name) > 0 {
		return nil, rq.listChanged(rq.b.deletePartitioned(name, rq.flag("force")))
	}
	err = rq.b.eng.deleteTopic(name, rq.flag("force"))
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
		rq.b.eng.topicsChanged()
	}
	return err
}

// deletePartitioned deletes every partition and then the partitioned
// topic's metadata.
func (b *Broker) deletePartitioned(base topicName, force bool) error {
	n := b.eng.partitionCount(base.Full)
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
			t := b.eng.loadedTopic(p.Full)
			if t != nil && t.hasClients() {
				return restErr(http.StatusPreconditionFailed, "Topic has active producers/subscriptions")
			}
		}
	}
	for _, p := range parts {
		if err := b.eng.deleteTopic(p, force); err != nil && !isNotFound(err) {
			return err
		}
	}
	if err := b.eng.st.SetPartitions(base.Full, 0); err != nil {
		return err
	}
	if err := b.eng.forgetTopicGrants(base); err != nil {
		return err
	}
	return b.eng.pol().ForgetTopic(base.Full)
}

// listTopics lists the namespace's topics of the path's domain, partitions
// by their names.
