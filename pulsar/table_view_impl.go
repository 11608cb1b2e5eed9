package pulsar

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"sync"

	"github.com/pulsargo/sdk/pulsar/log"
)

// TableViewImpl is the TableView (Client.CreateTableView returns a
// *TableViewImpl, under the official client's type name). A goroutine per
// partition reads it and
// decodes each message into an update; one goroutine, run, applies the
// updates in the order it receives them and calls the listeners, so that
// listeners see the updates one at a time and in the order of the map.
// The map has a lock rather than only that owner because the
// application reads it (Get, Size, ...) synchronously from any goroutine:
// run is its only writer, and it never holds the lock while it calls a
// listener, so listeners may read the view.
type TableViewImpl struct {
	c    *client
	opts TableViewOptions
	log  *slog.Logger
	zero any // the value a removal hands listeners

	mu   sync.RWMutex // guards data; run is the only writer
	data map[string]any

	updates   chan tvUpdate
	listeners []func(string, any) error // run's own

	ctx    context.Context // ends at Close: the readers' Next
	cancel context.CancelFunc
	done   chan struct{} // closed by Close
	ran    chan struct{} // closed when run returns

	readersMu sync.Mutex // guards readers, closed and disc (discovery adds, Close takes them)
	readers   map[string]Reader
	closed    bool
	wg        sync.WaitGroup // the partition goroutines
	disc      *discovery
	closeOnce sync.Once
}

// tvUpdate is what a partition goroutine hands run: a key's new value or
// removal, a barrier to close once what came before it is applied, or a
// listener to register.
type tvUpdate struct {
	key     string
	value   any
	remove  bool
	barrier chan struct{}
	listen  *tvListen
}

// tvListen is a ForEachAndListen call, run on run's goroutine.
type tvListen struct {
	action func(string, any) error
	result chan error // buffered
}

func (c *client) createTableView(opts TableViewOptions) (TableView, error) {
	bytesType := reflect.TypeFor[[]byte]()
	switch {
	case opts.Topic == "":
		return nil, fmt.Errorf("%w: table view needs a Topic", ErrInvalidOptions)
	case opts.Schema != nil && opts.SchemaValueType == nil:
		return nil, fmt.Errorf("%w: table view: SchemaValueType is required with a Schema", ErrInvalidOptions)
	case opts.Schema == nil && opts.SchemaValueType != nil && opts.SchemaValueType != bytesType:
		return nil, fmt.Errorf("%w: table view: SchemaValueType %v needs a Schema (without one the values are []byte)",
			ErrInvalidOptions, opts.SchemaValueType)
	}
	if err := checkSchema(effectiveSchema(opts.Schema)); err != nil {
		return nil, err
	}
	if opts.SchemaValueType == nil {
		opts.SchemaValueType = bytesType
	}
	opts.AutoUpdatePartitionsInterval = period(opts.AutoUpdatePartitionsInterval)
	logger := c.log
	if opts.Logger != nil {
		logger = log.Slog(opts.Logger)
	}
	ctx, cancel := context.WithCancel(context.Background())
	tv := &TableViewImpl{
		c: c, opts: opts, log: logger.With("topic", opts.Topic),
		zero: reflect.Zero(opts.SchemaValueType).Interface(),
		data: map[string]any{}, updates: make(chan tvUpdate, 64),
		ctx: ctx, cancel: cancel, done: make(chan struct{}), ran: make(chan struct{}),
		readers: map[string]Reader{},
	}
	if err := c.register(tv); err != nil {
		cancel()
		return nil, err
	}
	go tv.run()
	octx, ocancel := c.opContext()
	partitioned, err := tv.addPartitions(octx)
	ocancel()
	if err != nil {
		tv.Close()
		return nil, err
	}
	if partitioned {
		tv.followPartitions()
	}
	return tv, nil
}

// run applies the updates until Close.
func (tv *TableViewImpl) run() {
	defer close(tv.ran)
	for {
		select {
		case <-tv.done:
			return
		case u := <-tv.updates:
			tv.apply(u)
		}
	}
}

func (tv *TableViewImpl) apply(u tvUpdate) {
	switch {
	case u.barrier != nil:
		close(u.barrier)
		return
	case u.listen != nil:
		u.listen.result <- tv.listen(u.listen.action)
		return
	}
	tv.mu.Lock()
	if u.remove {
		delete(tv.data, u.key)
	} else {
		tv.data[u.key] = u.value
	}
	tv.mu.Unlock()
	for _, l := range tv.listeners {
		if tv.isClosed() {
			return
		}
		if err := l(u.key, u.value); err != nil {
			tv.log.Warn("table view listener failed", "key", u.key, "err", err)
		}
	}
}

// listen is ForEachAndListen on run's goroutine: nothing changes the map
// while action goes through it.
func (tv *TableViewImpl) listen(action func(string, any) error) error {
	for k, v := range tv.data { // run is the only writer: no lock to read
		if err := action(k, v); err != nil {
			return err
		}
	}
	tv.listeners = append(tv.listeners, action)
	return nil
}

// push hands u to run; false when the view is closed.
func (tv *TableViewImpl) push(u tvUpdate) bool {
	select {
	case tv.updates <- u:
		return true
	case <-tv.done:
		return false
	}
}

func (tv *TableViewImpl) isClosed() bool {
	select {
	case <-tv.done:
		return true
	default:
		return false
	}
}

// Size returns the number of keys.
func (tv *TableViewImpl) Size() int {
	tv.mu.RLock()
	defer tv.mu.RUnlock()
	return len(tv.data)
}

// IsEmpty reports whether the view has no key.
func (tv *TableViewImpl) IsEmpty() bool { return tv.Size() == 0 }

// ContainsKey reports whether the view has key.
func (tv *TableViewImpl) ContainsKey(key string) bool {
	tv.mu.RLock()
	defer tv.mu.RUnlock()
	_, ok := tv.data[key]
	return ok
}

// Get returns the value of key, or nil.
func (tv *TableViewImpl) Get(key string) any {
	tv.mu.RLock()
	defer tv.mu.RUnlock()
	return tv.data[key]
}

// Entries returns a copy of the map.
func (tv *TableViewImpl) Entries() map[string]any {
	tv.mu.RLock()
	defer tv.mu.RUnlock()
	return maps.Clone(tv.data)
}

// Keys returns the keys, sorted.
func (tv *TableViewImpl) Keys() []string {
	tv.mu.RLock()
	keys := slices.Collect(maps.Keys(tv.data))
	tv.mu.RUnlock()
	slices.Sort(keys)
	return keys
}

// ForEach calls action on a snapshot, so that action may use the view.
func (tv *TableViewImpl) ForEach(action func(string, any) error) error {
	for k, v := range tv.Entries() {
		if err := action(k, v); err != nil {
			return err
		}
	}
	return nil
}

// ForEachAndListen has run go through the map and register action.
func (tv *TableViewImpl) ForEachAndListen(action func(string, any) error) error {
	req := &tvListen{action: action, result: make(chan error, 1)}
	if !tv.push(tvUpdate{listen: req}) {
		return tv.ForEach(action)
	}
	select {
	case err := <-req.result:
		return err
	case <-tv.ran:
		select {
		case err := <-req.result:
			return err
		default: // run stopped before it took the request
			return tv.ForEach(action)
		}
	}
}

// Close stops the readers, the partition discovery and run (without
// waiting for a listener in progress).
func (tv *TableViewImpl) Close() {
	tv.closeOnce.Do(func() {
		close(tv.done)
		tv.cancel()
		tv.readersMu.Lock()
		tv.closed = true
		disc, rs := tv.disc, slices.Collect(maps.Values(tv.readers))
		tv.readersMu.Unlock()
		disc.stop()
		var wg sync.WaitGroup
		for _, r := range rs {
			wg.Go(r.Close)
		}
		wg.Wait()
		tv.wg.Wait()
		tv.c.unregister(tv)
	})
}
