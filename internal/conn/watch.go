package conn

import (
	"context"
	"fmt"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// TopicListHandler receives what the broker pushes for one topic-list
// watcher (PIP-145). Its methods are called from the connection's reader
// goroutine and must not block.
type TopicListHandler interface {
	// Update is a WATCH_TOPIC_UPDATE: topics created and deleted, and the
	// hash of the watcher's list after them.
	Update(*proto.CommandWatchTopicUpdate)
	// ConnectionClosed reports that the connection went away, and the
	// watcher with it.
	ConnectionClosed()
}

// SupportsTopicWatchers reports whether the broker announced topic-list
// watchers (supports_topic_watchers in CONNECTED's feature flags).
func (c *Conn) SupportsTopicWatchers() bool { return c.topicWatchers }

// WatchTopicList registers watcher id for the topics of namespace ns
// ("tenant/ns") matching pattern, routes its updates to h and returns the
// broker's WATCH_TOPIC_LIST_SUCCESS: the matching topics (none when hash,
// if not empty, is the hash of the current list) and their hash. On error
// the watcher is not registered.
func (c *Conn) WatchTopicList(ctx context.Context, id uint64, ns, pattern, hash string, h TopicListHandler) (*proto.CommandWatchTopicListSuccess, error) {
	c.mu.Lock()
	if c.Err() != nil {
		c.mu.Unlock()
		return nil, fmt.Errorf("%w: %w", ErrClosed, c.closeErr)
	}
	c.watchers[id] = h
	c.mu.Unlock()
	rid := c.NewRequestID()
	m := &proto.CommandWatchTopicList{RequestId: &rid, WatcherId: &id, Namespace: &ns, TopicsPattern: &pattern}
	if hash != "" {
		m.TopicsHash = gproto.String(hash)
	}
	resp, err := c.Request(ctx, rid, &proto.BaseCommand{Type: proto.BaseCommand_WATCH_TOPIC_LIST.Enum(), WatchTopicList: m})
	if err == nil && resp.GetWatchTopicListSuccess() == nil {
		err = fmt.Errorf("watch topic list: unexpected %s", resp.GetType())
	}
	if err != nil {
		c.unregisterWatcher(id)
		return nil, err
	}
	return resp.GetWatchTopicListSuccess(), nil
}

// CloseTopicListWatcher stops routing watcher id's updates and tells the
// broker (WATCH_TOPIC_LIST_CLOSE, answered with SUCCESS).
func (c *Conn) CloseTopicListWatcher(ctx context.Context, id uint64) error {
	c.unregisterWatcher(id)
	rid := c.NewRequestID()
	_, err := c.Request(ctx, rid, &proto.BaseCommand{Type: proto.BaseCommand_WATCH_TOPIC_LIST_CLOSE.Enum(),
		WatchTopicListClose: &proto.CommandWatchTopicListClose{RequestId: &rid, WatcherId: &id}})
	return err
}

func (c *Conn) unregisterWatcher(id uint64) {
	c.mu.Lock()
	delete(c.watchers, id)
	c.mu.Unlock()
}

func (c *Conn) watcher(id uint64) TopicListHandler {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.watchers[id]
}
