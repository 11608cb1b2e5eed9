package pulsar

import (
	"context"
	"errors"
	"reflect"
	"time"
)

// addPartitions starts a reader on each partition of the topic that has
// none yet and waits until each new one has handed run every message its
// partition had. It reports whether the topic has partitions. A reader
// that fails leaves the others running (the next poll tries again).
func (tv *TableViewImpl) addPartitions(ctx context.Context) (bool, error) {
	st, err := tv.c.resolveTopic(ctx, tv.opts.Topic, 0)
	if err != nil {
		return false, err
	}
	var loaded []chan struct{}
	var errs []error
	for _, t := range st.targets {
		tv.readersMu.Lock()
		_, have := tv.readers[t.name]
		tv.readersMu.Unlock()
		if have {
			continue
		}
		r, err := tv.c.createReader(ReaderOptions{
			Topic: t.name, StartMessageID: EarliestMessageID(), ReadCompacted: true, Schema: tv.opts.Schema,
		})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		done := make(chan struct{})
		tv.readersMu.Lock()
		if tv.closed {
			tv.readersMu.Unlock()
			r.Close()
			return st.n > 0, ErrConsumerClosed
		}
		tv.readers[t.name] = r
		tv.wg.Add(1)
		tv.readersMu.Unlock()
		go tv.read(r, done)
		loaded = append(loaded, done)
	}
	for _, ch := range loaded {
		select {
		case <-ch:
		case <-tv.done:
			return st.n > 0, ErrConsumerClosed
		}
	}
	return st.n > 0, errors.Join(errs...)
}

// read hands run the updates of r's partition: first every message it has
// now (then it closes loaded, through run), then each that arrives, until
// Close.
func (tv *TableViewImpl) read(r Reader, loaded chan struct{}) {
	defer tv.wg.Done()
	for r.HasNext() {
		m, err := r.Next(tv.ctx)
		if err != nil {
			return // closed
		}
		if u, ok := tv.update(m); ok && !tv.push(u) {
			return
		}
	}
	if !tv.push(tvUpdate{barrier: loaded}) {
		return
	}
	for {
		m, err := r.Next(tv.ctx)
		if err != nil {
			return // closed
		}
		if u, ok := tv.update(m); ok && !tv.push(u) {
			return
		}
	}
}

// update turns m into the update of its key: false for a message without
// a key, and for a value that does not decode (logged).
func (tv *TableViewImpl) update(m Message) (tvUpdate, bool) {
	if !hasKey(m) {
		return tvUpdate{}, false
	}
	key := m.Key()
	switch {
	case len(m.Payload()) == 0:
		return tvUpdate{key: key, value: tv.zero, remove: true}, true
	case tv.opts.Schema == nil:
		return tvUpdate{key: key, value: m.Payload()}, true
	}
	p := reflect.New(tv.opts.SchemaValueType)
	if err := m.GetSchemaValue(p.Interface()); err != nil {
		tv.log.Warn("table view: skipping a value that does not decode", "partition", m.Topic(), "key", key, "id", m.ID(), "err", err)
		return tvUpdate{}, false
	}
	return tvUpdate{key: key, value: p.Elem().Interface()}, true
}

// hasKey reports whether m has a partition key (an empty one too).
func hasKey(m Message) bool {
	im, ok := m.(*message)
	if !ok {
		return m.Key() != ""
	}
	if im.m.Single != nil {
		return im.m.Single.PartitionKey != nil
	}
	return im.m.Meta.PartitionKey != nil
}

// followPartitions polls the partition count every
// AutoUpdatePartitionsInterval and reads the partitions added.
func (tv *TableViewImpl) followPartitions() {
	every := tv.opts.AutoUpdatePartitionsInterval
	tv.readersMu.Lock()
	defer tv.readersMu.Unlock()
	if tv.closed {
		return
	}
	tv.disc = startDiscovery(func(ctx context.Context) {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				octx, cancel := context.WithTimeout(ctx, tv.c.opts.OperationTimeout)
				if _, err := tv.addPartitions(octx); err != nil && ctx.Err() == nil {
					tv.log.Warn("table view: partition discovery failed", "err", err)
				}
				cancel()
			}
		}
	})
}
