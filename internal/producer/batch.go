package producer

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// batch is an open batch: the batch payload being built and its messages.
type batch struct {
	key      string // key-based batching: the key every message has
	buf      []byte // batch payload: [size][SingleMessageMetadata][body]...
	msgs     []pending
	firstSeq uint64
	lastSeq  uint64
	mem      int64 // bytes reserved by the messages
	deadline time.Time
	// from the first message, for the entry's metadata
	partitionKey  string
	orderingKey   string
	schemaVersion []byte
	txn           *api.TxnID
}

// batches are the open batches: one (DefaultBatchBuilder) or one per key
// (KeyBasedBatching), in the order they were opened.
type batches struct {
	open  []*batch
	byKey map[string]*batch
	// bufs holds the batch payload buffers to reuse (maxSpare) and the
	// capacity of a new one; shared by the partitions of one producer.
	bufs *Buffers
	// window is the producer's MaxPendingMessages: how many messages
	// its batches in flight hold at most.
	window int
	// spare are message lists of finished batches, emptied, to reuse (as
	// many as maxSpare, spareLimit); the callback runner offers them once
	// it has called their callbacks. Off (nil) without batching.
	spare      *spareMsgs
	spareLimit atomic.Int32 // maxSpare, for the runner, which holds no p.mu
	msgsHint   int          // capacity for a new batch's message list
}

// spareMsgs are the message lists kept for reuse.
type spareMsgs struct {
	mu    sync.Mutex
	lists [][]pending
}

// maxSpare is how many batch payload buffers a producer keeps for reuse:
// as many as the batches a full pending window holds (MaxPendingMessages
// over the size of a full batch), at least 4. A reply to a window of
// pipelined SENDs frees that many at once; keeping them all costs no
// memory beyond what the batches in flight held anyway.
func (bs *batches) maxSpare() int {
	return max(4, bs.window/max(bs.msgsHint, 1)+1)
}

// recycle offers buf, a batch payload nothing refers to any more, for the
// next batches: an uncompressed batch's once the broker acknowledged it,
// a compressed batch's once compressed. Reusing it spares a new buffer
// per batch — memory written before rather than fresh pages to zero and
// fault in.
func (bs *batches) recycle(buf []byte) {
	bs.bufs.put(buf, bs.maxSpare())
}

// recycleMsgs offers the message list of a finished batch, whose callbacks
// have all been called, for the next batches: as many as a pending window
// holds, as for the payload buffers (a list of W1's batches is 11 KB).
// Safe from any goroutine.
func (bs *batches) recycleMsgs(msgs []pending) {
	if bs.spare == nil || cap(msgs) == 0 {
		return
	}
	clear(msgs)
	limit := max(int(bs.spareLimit.Load()), 4)
	bs.spare.mu.Lock()
	if len(bs.spare.lists) < limit {
		bs.spare.lists = append(bs.spare.lists, msgs[:0])
	}
	bs.spare.mu.Unlock()
}

// takeMsgs returns a kept message list, or nil.
func (bs *batches) takeMsgs() []pending {
	if bs.spare == nil {
		return nil
	}
	bs.spare.mu.Lock()
	defer bs.spare.mu.Unlock()
	n := len(bs.spare.lists)
	if n == 0 {
		return nil
	}
	msgs := bs.spare.lists[n-1]
	bs.spare.lists[n-1] = nil
	bs.spare.lists = bs.spare.lists[:n-1]
	return msgs
}

// get returns the open batch for key, or nil.
func (bs *batches) get(key string) *batch { return bs.byKey[key] }

// empty reports whether no batch is open.
func (bs *batches) empty() bool { return len(bs.open) == 0 }

// start opens a batch for key.
func (bs *batches) start(key string) *batch {
	b := &batch{key: key}
	b.buf = bs.bufs.get()
	if b.msgs = bs.takeMsgs(); b.msgs == nil && bs.msgsHint > 0 {
		b.msgs = make([]pending, 0, bs.msgsHint)
	}
	if bs.byKey == nil {
		bs.byKey = map[string]*batch{}
	}
	bs.byKey[key] = b
	bs.open = append(bs.open, b)
	return b
}

// detach closes b: it is no longer open.
func (bs *batches) detach(b *batch) {
	delete(bs.byKey, b.key)
	for i, x := range bs.open {
		if x == b {
			copy(bs.open[i:], bs.open[i+1:])
			bs.open[len(bs.open)-1] = nil
			bs.open = bs.open[:len(bs.open)-1]
			break
		}
	}
	bs.bufs.learn(len(b.buf))
	if len(b.msgs) > bs.msgsHint {
		bs.msgsHint = len(b.msgs)
		bs.spareLimit.Store(int32(min(bs.maxSpare(), 1<<30)))
	}
}

// batchKey returns the batch m goes to.
func (p *Producer) batchKey(m *Message) string {
	if p.opts.KeyBasedBatching {
		return batchKey(m)
	}
	return ""
}

// fits reports whether a message of n bytes can join b.
func (p *Producer) fits(b *batch, n int) bool {
	return len(b.msgs) < p.opts.BatchMaxMessages && len(b.buf)+n+batchEntryOverhead <= p.batchMaxBytes()
}

// batchEntryOverhead approximates what a message adds to a batch payload
// beyond its body: the size prefix and a small SingleMessageMetadata.
const batchEntryOverhead = 16

// batchMaxBytes is the byte limit of a batch: BatchMaxBytes, at most the
// broker's max message size less room for metadata and compression.
func (p *Producer) batchMaxBytes() int {
	return min(p.opts.BatchMaxBytes, p.maxMsg-p.maxMsg/16)
}

// batchable reports whether a message of n bytes goes to a batch.
func (p *Producer) batchable(m *Message, n int) bool {
	return !p.opts.DisableBatching && batchable(m) && n+batchEntryOverhead <= p.batchMaxBytes()
}

// addToBatch appends m to its batch, flushing batches as limits require,
// and the batch m joined when flushNow. A batch's send timeout runs from
// its first message's send (at). Called with p.mu held.
func (p *Producer) addToBatch(m *Message, schemaVersion []byte, pm pending, mem int64, at *sendTime, flushNow bool) error {
	key := p.batchKey(m)
	b := p.batches.get(key)
	if b != nil && (!p.fits(b, len(m.Payload)) || !bytes.Equal(b.schemaVersion, schemaVersion) || !sameTxn(b.txn, txnOf(m))) {
		p.flushBatch(b)
		b = nil
	}
	if b == nil {
		b = p.batches.start(key)
		b.partitionKey, b.orderingKey, b.deadline = m.Key, m.OrderingKey, p.deadline(at.now())
		b.schemaVersion, b.txn = schemaVersion, txnOf(m)
		p.armBatchTimer()
	}
	seq := p.assignSeq(m)
	sm := singleMessage(m, seq)
	var err error
	if b.buf, err = wire.AppendSingleMessage(b.buf, &sm, m.Payload); err != nil {
		if len(b.msgs) == 0 {
			p.batches.detach(b)
		}
		return fmt.Errorf("%w: %w", api.ErrMessageTooLarge, err)
	}
	if len(b.msgs) == 0 {
		b.firstSeq = seq
	}
	b.lastSeq = max(b.lastSeq, seq)
	pm.size, pm.at = len(m.Payload), p.metricsNow()
	b.msgs = append(b.msgs, pm)
	b.mem += mem
	if flushNow || len(b.msgs) >= p.opts.BatchMaxMessages || len(b.buf) >= p.batchMaxBytes() {
		p.flushBatch(b)
	}
	return nil
}

// flushBatches turns every open batch into an entry, in the order they were
// opened. Called with p.mu held.
func (p *Producer) flushBatches() {
	for !p.batches.empty() {
		p.flushBatch(p.batches.open[0])
	}
}

// flushBatch compresses b into an entry and queues it. Called with p.mu
// held.
func (p *Producer) flushBatch(b *batch) {
	p.batches.detach(b)
	payload := b.buf
	if p.opts.Compression != 0 {
		payload = p.codec.Compress(make([]byte, 0, p.codec.MaxCompressedSize(len(b.buf))), b.buf)
		p.batches.recycle(b.buf)
	}
	n := int32(len(b.msgs))
	md := &proto.MessageMetadata{
		ProducerName:       gproto.String(p.name),
		SequenceId:         gproto.Uint64(b.firstSeq),
		PublishTime:        gproto.Uint64(millis(p.opts.Clock.Now())),
		UncompressedSize:   gproto.Uint32(uint32(len(b.buf))),
		NumMessagesInBatch: gproto.Int32(n),
		SchemaVersion:      b.schemaVersion,
	}
	if p.opts.Compression != 0 {
		md.Compression = proto.CompressionType(p.opts.Compression).Enum()
	}
	if b.highest() > b.firstSeq {
		md.HighestSequenceId = gproto.Uint64(b.highest())
	}
	if b.partitionKey != "" {
		md.PartitionKey = gproto.String(b.partitionKey)
	}
	if b.orderingKey != "" {
		md.OrderingKey = []byte(b.orderingKey)
	}
	e := &entry{
		seq: b.firstSeq, highest: b.highest(), msgs: b.msgs, batched: true,
		meta: md, payload: payload, mem: b.mem, deadline: b.deadline, txn: b.txn,
	}
	setMetaTxn(md, b.txn)
	p.adjustMemory(e, int64(len(payload)))
	p.enqueue(e)
}

func (b *batch) highest() uint64 { return max(b.firstSeq, b.lastSeq) }

// armBatchTimer makes sure the open batches are flushed within
// BatchMaxDelay. Called with p.mu held.
func (p *Producer) armBatchTimer() {
	if p.batchTimer {
		return
	}
	p.batchTimer = true
	p.stopBatchTimer = p.afterFunc(p.opts.BatchMaxDelay, func(p *Producer) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.state == stateClosed {
			return // stopped by Close as it fired
		}
		p.batchTimer, p.stopBatchTimer = false, nil
		p.flushBatches()
	})
}
