package engine

// Terminating a topic: producers are refused, consumers are told when they
// reach its end.

import "github.com/pulsargo/sdk/internal/proto"

// terminate marks the topic terminated: producers are closed (they come
// back and are refused with TopicTerminatedError) and consumers that have
// read everything are told they reached the end. Topic goroutine.
func (t *Topic) terminate() {
	t.adm.terminated = true
	t.closeProducers()
	t.dispatchAll()
}

// endOfTopic tells the subscription's consumers, once each, that a
// terminated topic has nothing more for them. Called by dispatch when it
// runs out of entries.
func (s *Subscription) endOfTopic() {
	if !s.t.adm.terminated {
		return
	}
	if _, more := s.nextUnread(); more || s.replay.Len() > 0 {
		return
	}
	a := &s.t.adm
	if a.endSent == nil {
		a.endSent = map[*Consumer]bool{}
	}
	for _, cs := range s.Consumers {
		if a.endSent[cs] {
			continue
		}
		a.endSent[cs] = true
		id := cs.id
		cs.peer.Send(&proto.BaseCommand{Type: proto.BaseCommand_REACHED_END_OF_TOPIC.Enum(), ReachedEndOfTopic: &proto.CommandReachedEndOfTopic{ConsumerId: &id}})
	}
}
