package producer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/backoff"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/proto"
)

// errLost: the connection went away while the producer was being
// registered on it.
var errLost = errors.New("producer: connection lost while registering")

// reattach re-attaches the producer after its registration was lost, on a
// goroutine that lost starts and that ends once nothing asks for it (the
// producer attached, given up after MaxReconnect, or closed). An attached
// producer holds no goroutine of its own.
func (p *Producer) reattach() {
	defer p.loop.Done()
	for {
		p.mu.Lock()
		if !p.kicked || p.state == stateClosed || p.life.Err() != nil {
			p.reattaching = false
			p.mu.Unlock()
			return
		}
		p.kicked = false
		need := !p.ready
		p.mu.Unlock()
		if need {
			p.stats.reconnects.Add(1)
			_ = p.connectRetrying(p.life, false)
		}
	}
}

// connectRetrying attaches the producer, retrying with backoff until it
// succeeds or ctx ends. On creation (first) a non-retriable broker error
// is returned at once; afterwards it fails the pending messages and the
// producer keeps trying, at most MaxReconnect times when that is set.
func (p *Producer) connectRetrying(ctx context.Context, first bool) error {
	var bo backoff.Policy = backoff.New(backoff.DefaultInitial, 30*time.Second)
	if p.opts.Backoff != nil {
		bo = p.opts.Backoff()
	}
	var last error
	for tries := uint(0); ; tries++ {
		if max := p.opts.MaxReconnect; !first && max != nil && tries >= *max {
			p.log.Warn("producer gave up re-attaching", "attempts", tries, "err", last)
			p.opts.Metrics.Add(api.MetricProducersReconnectMaxRetry, 1)
			return fmt.Errorf("producer %s: gave up after %d attempts: %w", p.opts.Topic, tries, cmp.Or(last, error(conn.ErrClosed)))
		}
		err := p.connectOnce(ctx)
		if err == nil {
			return nil
		}
		last = err
		if !first {
			p.opts.Metrics.Add(api.MetricProducersReconnectFailure, 1)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("producer %s: %w (last error: %w)", p.opts.Topic, ctx.Err(), last)
		}
		if refused(err, first) {
			if first {
				return err
			}
			// The broker refuses the producer for good (topic deleted or
			// terminated, not allowed, fenced): what is pending cannot be
			// sent; keep trying for what comes next.
			p.failAll(err)
		}
		p.log.Info("producer not attached; retrying", "err", err)
		if !p.sleep(ctx, bo.Next()) {
			return fmt.Errorf("producer %s: %w (last error: %w)", p.opts.Topic, ctx.Err(), last)
		}
	}
}

// connectOnce gets a connection, registers the producer on it (same name,
// next epoch) and, on success, writes every pending entry again in order.
func (p *Producer) connectOnce(ctx context.Context) error {
	octx, cancel := context.WithTimeout(ctx, p.opts.OperationTimeout)
	defer cancel()
	c, err := p.opts.Connect(octx)
	if err != nil {
		return err
	}
	p.mu.Lock()
	if p.state == stateClosed {
		p.mu.Unlock()
		return api.ErrProducerClosed
	}
	p.gen++
	gen, name, epoch := p.gen, p.name, p.epoch
	p.epoch++
	p.mu.Unlock()

	if !c.RegisterProducer(p.opts.ProducerID, &handler{p: p, gen: gen}) {
		return fmt.Errorf("%w: %w", conn.ErrClosed, errLost)
	}
	rid := c.NewRequestID()
	cmd := &proto.CommandProducer{
		Topic: gproto.String(p.opts.Topic), ProducerId: gproto.Uint64(p.opts.ProducerID), RequestId: gproto.Uint64(rid),
		Epoch: gproto.Uint64(epoch), UserProvidedProducerName: gproto.Bool(p.userName),
		Metadata: keyValues(p.opts.Properties), Schema: p.opts.Schema, ProducerAccessMode: p.opts.AccessMode.Enum(),
	}
	if name != "" {
		cmd.ProducerName = gproto.String(name)
	}
	if p.opts.Encryptor != nil {
		// As the Java client: a broker that requires encryption
		// (encryptionRequireOnProducer, the namespace's encryptionRequired)
		// refuses a producer that does not declare it.
		cmd.Encrypted = gproto.Bool(true)
	}
	if p.opts.InitialSubscription != "" {
		cmd.InitialSubscriptionName = gproto.String(p.opts.InitialSubscription)
	}
	rctx := octx
	if p.opts.AccessMode == proto.ProducerAccessMode_WaitForExclusive {
		// Queued behind the exclusive producer, the request has no timeout
		// (conn.Request ends its own once the broker says "not ready"); it
		// ends when the producer closes or the connection does.
		wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		defer cancel()
		defer context.AfterFunc(p.life, cancel)()
		rctx = wctx
	}
	resp, err := c.Request(rctx, rid, &proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: cmd})
	if err != nil {
		c.UnregisterProducer(p.opts.ProducerID)
		return fmt.Errorf("create producer on %s: %w", p.opts.Topic, err)
	}
	ok := resp.GetProducerSuccess()

	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gen != gen {
		return errLost
	}
	if p.state == stateClosed {
		go p.requestClose(context.Background(), c)
		return api.ErrProducerClosed
	}
	p.conn, p.ready = c, true
	p.maxMsg = c.MaxMessageSize()
	if p.name == "" {
		p.name = ok.GetProducerName()
	}
	if v := ok.GetSchemaVersion(); len(v) > 0 {
		p.schemaVer = v
	}
	if !p.seqInit {
		p.seqInit = true
		if last := ok.GetLastSequenceId(); last >= 0 {
			p.nextSeq = uint64(last) + 1
			p.lastSeq.Store(last)
		}
	}
	p.log.Debug("producer attached", "name", p.name, "epoch", epoch, "pending", p.queue.len())
	p.resend()
	return nil
}

// resend writes every queued entry again, in order: whole entries, and for
// a chunked message the chunks not yet acknowledged. Called with p.mu held
// after a (re)connect.
func (p *Producer) resend() {
	for _, e := range append([]*entry(nil), p.queue.all()...) {
		if !p.ready {
			return
		}
		p.write(e)
		if e.fed < e.chunks {
			return // being fed: nothing is queued behind it
		}
	}
}

// lost marks the registration of generation gen gone and has reattach
// re-attach it.
func (p *Producer) lost(gen uint64, why string) {
	p.mu.Lock()
	if gen != p.gen || p.state == stateClosed {
		p.mu.Unlock()
		return
	}
	p.gen++
	p.ready = false
	p.kicked = true
	start := !p.reattaching
	if start {
		p.reattaching = true
		p.loop.Add(1)
	}
	p.mu.Unlock()
	p.log.Info("producer detached; reconnecting", "why", why)
	if start {
		go p.reattach()
	}
}

// refused reports a broker error that retrying will not cure. On creation
// ProducerBusy counts too (the name is in use); after a connection loss it
// is the broker not having noticed the old connection close yet. Network
// and lookup failures are always retried.
func refused(err error, first bool) bool {
	var se *conn.ServerError
	if !errors.As(err, &se) {
		return false
	}
	return !se.Retriable() || (first && se.Code == proto.ServerError_ProducerBusy)
}

// requestClose sends CLOSE_PRODUCER on c.
func (p *Producer) requestClose(ctx context.Context, c Conn) {
	rid := c.NewRequestID()
	_, err := c.Request(ctx, rid, &proto.BaseCommand{Type: proto.BaseCommand_CLOSE_PRODUCER.Enum(),
		CloseProducer: &proto.CommandCloseProducer{ProducerId: gproto.Uint64(p.opts.ProducerID), RequestId: gproto.Uint64(rid)}})
	if err != nil {
		p.log.Debug("close producer on broker", "err", err)
	}
}

// handler receives what the connection routes to one registration of the
// producer; gen tells stale registrations apart.
type handler struct {
	p   *Producer
	gen uint64
}

func (h *handler) Receipt(r *proto.CommandSendReceipt) { h.p.receipt(h.gen, r) }
func (h *handler) SendError(e *proto.CommandSendError) { h.p.sendError(h.gen, e) }
func (h *handler) Closed()                             { h.p.lost(h.gen, "closed by the broker") }
func (h *handler) ConnectionClosed()                   { h.p.lost(h.gen, "connection closed") }

var _ conn.ProducerHandler = (*handler)(nil)
