package pulsar

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// soakMode is how a soak producer sends.
type soakMode int

const (
	soakPlain soakMode = iota
	soakBatching
	soakChunking
)

func (m soakMode) String() string { return [...]string{"plain", "batching", "chunking"}[m] }

// soakScenarioTimeout bounds one scenario's exchange: a message not
// finished by then is an error (lost, or never redelivered).
const soakScenarioTimeout = 90 * time.Second

// produce sends a scenario's messages and returns their first sequence
// number and ids (in order), or false after an error.
func (s *soak) produce(rng *rand.Rand, topic string, mode soakMode) (uint64, []MessageID, bool) {
	opts := ProducerOptions{Topic: topic}
	n, lo, hi := 0, 0, 0
	switch mode {
	case soakPlain:
		opts.DisableBatching = true
		n, lo, hi = 20+rng.IntN(40), 1<<10, 64<<10
	case soakBatching:
		opts.BatchingMaxMessages, opts.BatchingMaxPublishDelay = 50, 5*time.Millisecond
		n, lo, hi = 100+rng.IntN(200), 100, 4<<10
	case soakChunking:
		opts.DisableBatching, opts.EnableChunking, opts.ChunkMaxMessageSize = true, true, 512<<10
		n, lo, hi = s.cfg.chunkMsgs[0]+rng.IntN(s.cfg.chunkMsgs[1]-s.cfg.chunkMsgs[0]+1), 1<<20, 3<<20
	}
	p, err := s.c.CreateProducer(opts)
	if err != nil {
		s.fail("producer %s on %s: %v", mode, topic, err)
		return 0, nil, false
	}
	defer p.Close()
	base := s.seq.Add(uint64(n)) - uint64(n)
	ids := make([]MessageID, n)
	var wg sync.WaitGroup
	ok := true
	var mu sync.Mutex
	ctx, cancel := context.WithTimeout(context.Background(), soakScenarioTimeout)
	defer cancel()
	for i := range n {
		msg := &ProducerMessage{Payload: soakPayload(base+uint64(i), lo+rng.IntN(hi-lo+1)), Key: "k" + strconv.Itoa(i%7)}
		wg.Add(1)
		p.SendAsync(ctx, msg, func(id MessageID, m *ProducerMessage, err error) {
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if ok {
					s.fail("send %s on %s: %v", mode, topic, err)
				}
				ok = false
				return
			}
			ids[i] = id
			s.n.sent.Add(1)
		})
	}
	if err := p.Flush(); err != nil {
		s.fail("flush %s on %s: %v", mode, topic, err)
	}
	wg.Wait()
	return base, ids, ok
}

// Fates of a message in an exchange.
const (
	fateAck     = iota // acked when received
	fateNack           // nacked when first received, acked when redelivered
	fateUnacked        // never acked: left in the backlog
)

// soakTrack follows an exchange's messages to their fate.
type soakTrack struct {
	mu   sync.Mutex
	base uint64
	fate []int
	seen []int // receipts
	done []bool
	left int
	over chan struct{}
}

func newSoakTrack(rng *rand.Rand, base uint64, n int) *soakTrack {
	tr := &soakTrack{base: base, fate: make([]int, n), seen: make([]int, n), done: make([]bool, n), left: n, over: make(chan struct{})}
	for i := range tr.fate {
		switch r := rng.IntN(100); {
		case r < 5:
			tr.fate[i] = fateUnacked
		case r < 15:
			tr.fate[i] = fateNack
		}
	}
	return tr
}

// receive records a receipt of message seq and says what to do with it.
func (tr *soakTrack) receive(seq uint64) (action int, dup, known bool) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	i := int(seq - tr.base)
	if seq < tr.base || i >= len(tr.fate) {
		return fateUnacked, false, false
	}
	tr.seen[i]++
	dup = tr.done[i]
	action = tr.fate[i]
	if action == fateNack && tr.seen[i] > 1 {
		action = fateAck
	}
	if !tr.done[i] && action != fateNack {
		tr.done[i] = true
		tr.left--
		if tr.left == 0 {
			close(tr.over)
		}
	}
	return action, dup, true
}

// missing returns how many messages have not reached their fate.
func (tr *soakTrack) missing() int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.left
}

// exchange produces to topic and consumes with consumers of type st until
// every message has met its fate.
func (s *soak) exchange(rng *rand.Rand, topic string, st SubscriptionType, mode soakMode) {
	nCons := 2
	if st == Exclusive {
		nCons = 1
	}
	var cons []Consumer
	defer func() {
		for _, c := range cons {
			c.Close()
		}
	}()
	for range nCons {
		c, err := s.c.Subscribe(ConsumerOptions{
			Topic: topic, SubscriptionName: "sub", Type: st,
			SubscriptionInitialPosition: SubscriptionPositionEarliest,
			NackRedeliveryDelay:         200 * time.Millisecond,
		})
		if err != nil {
			s.fail("subscribe %v on %s: %v", st, topic, err)
			return
		}
		cons = append(cons, c)
	}
	base, ids, ok := s.produce(rng, topic, mode)
	if !ok {
		return
	}
	n := len(ids)
	tr := newSoakTrack(rng, base, n)
	ctx, cancel := context.WithTimeout(context.Background(), soakScenarioTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, c := range cons {
		wg.Go(func() { s.consume(ctx, c, tr, fmt.Sprintf("%v/%s on %s", st, mode, topic)) })
	}
	select {
	case <-tr.over:
	case <-ctx.Done():
		s.fail("%v/%s on %s: %d of %d messages did not meet their fate in %v", st, mode, topic, tr.missing(), n, soakScenarioTimeout)
	}
	cancel()
	wg.Wait()
}

// consume receives for an exchange until ctx ends.
func (s *soak) consume(ctx context.Context, c Consumer, tr *soakTrack, what string) {
	for {
		m, err := c.Receive(ctx)
		if err != nil {
			if ctx.Err() == nil {
				s.fail("receive %s: %v", what, err)
			}
			return
		}
		s.n.received.Add(1)
		s.n.bytes.Add(int64(len(m.Payload())))
		seq, ok := soakCheck(m.Payload())
		if !ok {
			s.n.integrity.Add(1)
			s.fail("integrity %s: message %v of %d bytes", what, m.ID(), len(m.Payload()))
			continue
		}
		action, dup, known := tr.receive(seq)
		if !known {
			s.fail("%s: message %d of another scenario (%v)", what, seq, m.ID())
			continue
		}
		if dup {
			s.n.dups.Add(1)
		}
		switch action {
		case fateAck:
			s.n.acks.Add(1)
			if err := c.Ack(m); err != nil {
				s.n.ackErrs.Add(1)
				s.fail("ack %s: %v", what, err)
			}
		case fateNack:
			s.n.nacks.Add(1)
			c.Nack(m)
		case fateUnacked:
			if !dup {
				s.n.unacked.Add(1)
			}
		}
	}
}

// queueScenario is one exchange on a non-partitioned topic.
func (s *soak) queueScenario(rng *rand.Rand, name string, st SubscriptionType, mode soakMode) {
	s.exchange(rng, "persistent://public/default/"+name, st, mode)
}

// partitionedScenario creates a partitioned topic through the admin API and
// runs an exchange on it with a Shared or Key_Shared subscription.
func (s *soak) partitionedScenario(rng *rand.Rand, name string) {
	parts := 2 + rng.IntN(2)
	if _, err := s.adminDo(http.MethodPut, "/admin/v2/persistent/public/default/"+name+"/partitions", strconv.Itoa(parts)); err != nil {
		s.fail("create partitioned %s: %v", name, err)
		return
	}
	s.n.partitioned.Add(1)
	st := []SubscriptionType{Shared, KeyShared}[rng.IntN(2)]
	s.exchange(rng, "persistent://public/default/"+name, st, soakMode(rng.IntN(2)))
}

// readerScenario produces, reads everything from the start in order, then
// seeks to recorded ids and checks the message each seek delivers next: a
// chunk id gives its whole message; a plain or batch-index id that message
// with StartMessageIDInclusive, the one after it without.
func (s *soak) readerScenario(rng *rand.Rand, name string, mode soakMode) {
	topic := "persistent://public/default/" + name
	base, ids, ok := s.produce(rng, topic, mode)
	if !ok {
		return
	}
	s.n.readers.Add(1)
	inclusive := rng.IntN(2) == 0
	r, err := s.c.CreateReader(ReaderOptions{Topic: topic, StartMessageID: EarliestMessageID(), StartMessageIDInclusive: inclusive})
	if err != nil {
		s.fail("reader on %s: %v", topic, err)
		return
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), soakScenarioTimeout)
	defer cancel()
	next := func(want int, what string) bool {
		m, err := r.Next(ctx)
		if err != nil {
			s.fail("reader %s on %s, %s: %v", mode, topic, what, err)
			return false
		}
		s.n.received.Add(1)
		s.n.bytes.Add(int64(len(m.Payload())))
		seq, ok := soakCheck(m.Payload())
		if !ok {
			s.n.integrity.Add(1)
			s.fail("integrity: reader %s on %s: message %v", mode, topic, m.ID())
			return false
		}
		if seq != base+uint64(want) {
			s.fail("reader %s on %s, %s: got message %d, want %d", mode, topic, what, int64(seq-base), want)
			return false
		}
		return true
	}
	for i := range ids {
		if !next(i, "reading from the start") {
			return
		}
	}
	for range 3 {
		j := rng.IntN(len(ids) - 1)
		want := j
		if !inclusive && mode != soakChunking {
			want = j + 1
		}
		if err := r.Seek(ids[j]); err != nil {
			s.fail("seek %s on %s to %v: %v", mode, topic, ids[j], err)
			return
		}
		s.n.seeks.Add(1)
		if !next(want, fmt.Sprintf("after seeking to %v (inclusive %v)", ids[j], inclusive)) {
			return
		}
	}
}
