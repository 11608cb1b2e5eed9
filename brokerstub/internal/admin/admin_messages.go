package admin

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"google.golang.org/protobuf/proto"

	pb "github.com/pulsargo/sdk/internal/proto"
)

// pulsarTime formats Unix milliseconds as Pulsar's DateFormatter does.
func pulsarTime(ms uint64) string {
	return time.UnixMilli(int64(ms)).UTC().Format("2006-01-02T15:04:05.000-0700")
}

// entryReply answers with an entry as Pulsar's admin API does: the body is
// the payload as stored (a batch stays in batch format) and the metadata
// travels in X-Pulsar-* headers.
func entryReply(e ledger.Entry) rawReply {
	h := http.Header{}
	h.Set("X-Pulsar-Message-ID", engine.PosString(e.Pos))
	var md pb.MessageMetadata
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(e.Meta, &md); err == nil {
		h.Set("X-Pulsar-publish-time", pulsarTime(md.GetPublishTime()))
		if md.EventTime != nil {
			h.Set("X-Pulsar-event-time", pulsarTime(md.GetEventTime()))
		}
		if md.NumMessagesInBatch != nil {
			h.Set("X-Pulsar-num-batch-message", strconv.Itoa(int(md.GetNumMessagesInBatch())))
			h.Set("X-Pulsar-batch-size", strconv.Itoa(len(e.Payload)))
		}
		if len(md.GetProperties()) > 0 {
			if b, err := json.Marshal(engine.KvMap(md.GetProperties())); err == nil {
				h.Set("X-Pulsar-Property", string(b))
			}
		}
		if md.ProducerName != nil {
			h.Set("X-Pulsar-producer-name", md.GetProducerName())
		}
		if md.SequenceId != nil {
			h.Set("X-Pulsar-sequence-id", strconv.FormatUint(md.GetSequenceId(), 10))
		}
		if md.PartitionKey != nil {
			h.Set("X-Pulsar-partition-key", md.GetPartitionKey())
		}
		if md.GetCompression() != pb.CompressionType_NONE {
			h.Set("X-Pulsar-compression", md.GetCompression().String())
			h.Set("X-Pulsar-uncompressed-size", strconv.Itoa(int(md.GetUncompressedSize())))
		}
		if md.NumChunksFromMsg != nil {
			h.Set("X-Pulsar-uuid", md.GetUuid())
			h.Set("X-Pulsar-chunk-id", strconv.Itoa(int(md.GetChunkId())))
			h.Set("X-Pulsar-num-chunks-from-msg", strconv.Itoa(int(md.GetNumChunksFromMsg())))
			h.Set("X-Pulsar-total-chunk-msg-size", strconv.Itoa(int(md.GetTotalChunkMsgSize())))
		}
		if md.GetNullValue() {
			h.Set("X-Pulsar-null-value", "true")
		}
		if len(md.GetEncryptionKeys()) > 0 {
			h.Set("X-Pulsar-Is-Encrypted", "true")
		}
		if md.SchemaVersion != nil {
			h.Set("X-Pulsar-schema-version", strconv.FormatUint(beUint(md.GetSchemaVersion()), 10))
		}
	}
	h.Set("X-Pulsar-entry-size", strconv.Itoa(len(e.Meta)+len(e.Payload)))
	return rawReply{contentType: "application/octet-stream", header: h, body: e.Payload}
}

func beUint(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

func msgNotFound() error { return engine.RestErr(http.StatusNotFound, "Message not found") }

// getEntry serves GET …/ledger/{l}/entry/{e}.
func getEntry(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	l, err := parseInt64(rq.p["ledger"], "ledger id")
	if err != nil {
		return nil, err
	}
	en, err := parseInt64(rq.p["entry"], "entry id")
	if err != nil {
		return nil, err
	}
	var e ledger.Entry
	var ok bool
	if err := rq.onTopic(name, func(t *engine.Topic) { e, ok = t.EntryAt(ledger.Position{Ledger: l, Entry: en}) }); err != nil {
		return nil, err
	}
	if !ok {
		return nil, msgNotFound()
	}
	return entryReply(e), nil
}

// peekMessage serves GET …/subscription/{sub}/position/{n}: the nth (from
// 1) entry of the subscription's backlog. A subscription that does not
// exist is created at the earliest message first, as Pulsar does (since
// 2.6.2, apache/pulsar#8182, when auto subscription creation is allowed,
// which brokerstub always allows), so peeking a topic's messages works
// before anyone subscribed.
func peekMessage(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	n, err := parseInt64(rq.p["n"], "message position")
	if err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, engine.RestErr(http.StatusPreconditionFailed, "Invalid message position %d", n)
	}
	var e ledger.Entry
	var ok bool
	err = rq.onTopic(name, func(t *engine.Topic) { e, ok = t.PeekMessage(rq.p["sub"], n) })
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, msgNotFound()
	}
	return entryReply(e), nil
}

// examineMessage serves GET …/examinemessage: the nth (from 1) entry from
// the start (initialPosition=earliest) or the end (latest) of the topic.
func examineMessage(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	n := int64(1)
	if v := rq.q.Get("messagePosition"); v != "" {
		if n, err = parseInt64(v, "messagePosition"); err != nil {
			return nil, err
		}
	}
	if n < 1 {
		return nil, engine.RestErr(http.StatusPreconditionFailed, "Invalid message position %d", n)
	}
	latest := rq.q.Get("initialPosition") == "latest"
	var e ledger.Entry
	var ok bool
	err = rq.onTopic(name, func(t *engine.Topic) { e, ok = t.ExamineMessage(n, latest) })
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, engine.RestErr(http.StatusPreconditionFailed, "Could not examine messages due to the total message count is zero or less than the position")
	}
	return entryReply(e), nil
}
