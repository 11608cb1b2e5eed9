package pulsar

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
	"github.com/pulsargo/sdk/pulsar/crypto"
)

// encKeys writes a new key pair of kind ("rsa" or "ec", P-256) and returns
// a FileKeyReader of it.
func encKeys(t *testing.T, kind string) *crypto.FileKeyReader {
	t.Helper()
	var pub any
	var priv *pem.Block
	if kind == "rsa" {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		pub, priv = &k.PublicKey, &pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}
	} else {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		der, err := x509.MarshalECPrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		pub, priv = &k.PublicKey, &pem.Block{Type: "EC PRIVATE KEY", Bytes: der}
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pubPath, privPath := filepath.Join(dir, "pub.pem"), filepath.Join(dir, "priv.pem")
	if err := os.WriteFile(pubPath, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(privPath, pem.EncodeToMemory(priv), 0o600); err != nil {
		t.Fatal(err)
	}
	return crypto.NewFileKeyReader(pubPath, privPath)
}

// opensslKeys returns a FileKeyReader of an EC key pair made by openssl
// (pulsar/crypto/testdata/bc/keys): the public key stem.pub.pem and the
// private key in the form privForm (".priv.pem": SEC 1 after an "EC
// PARAMETERS" block; ".pkcs8.pem").
func opensslKeys(stem, privForm string) *crypto.FileKeyReader {
	dir := filepath.Join("crypto", "testdata", "bc", "keys")
	return crypto.NewFileKeyReader(filepath.Join(dir, stem+".pub.pem"), filepath.Join(dir, stem+privForm))
}

// rawEntry is one entry as the broker stored and dispatched it.
type rawEntry struct {
	Meta    *proto.MessageMetadata
	Payload []byte
}

// rawEntries subscribes to topic over internal/conn and collects the
// entries as they come, undecoded.
type rawEntries struct {
	mu      sync.Mutex
	entries []rawEntry
	wake    chan struct{}
}

func (r *rawEntries) Message(m *proto.CommandMessage, f *wire.Frame, err error) {
	if err != nil || f == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entries = append(r.entries, rawEntry{Meta: gproto.Clone(f.Meta).(*proto.MessageMetadata), Payload: append([]byte(nil), f.Payload...)})
	select {
	case r.wake <- struct{}{}:
	default:
	}
}
func (r *rawEntries) ActiveChanged(bool) {}
func (r *rawEntries) ReachedEndOfTopic() {}
func (r *rawEntries) Closed()            {}
func (r *rawEntries) ConnectionClosed()  {}

// wait returns the first n entries, failing the test after 10 s.
func (r *rawEntries) wait(t *testing.T, n int) []rawEntry {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		r.mu.Lock()
		got := append([]rawEntry(nil), r.entries...)
		r.mu.Unlock()
		if len(got) >= n {
			return got[:n]
		}
		select {
		case <-r.wake:
		case <-timeout:
			t.Fatalf("%d entries, want %d", len(got), n)
		}
	}
}

func subscribeRawEntries(t *testing.T, b *brokerstub.Broker, topic string) *rawEntries {
	t.Helper()
	ctx := ctxFor(t, 10*time.Second)
	c, err := conn.Dial(ctx, b.Addr(), conn.Options{Dial: b.Dial, OperationTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	r := &rawEntries{wake: make(chan struct{}, 1)}
	c.RegisterConsumer(1, r)
	rid := c.NewRequestID()
	if _, err := c.Request(ctx, rid, &proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: gproto.String(topic), Subscription: gproto.String("raw"), SubType: proto.CommandSubscribe_Exclusive.Enum(),
		ConsumerId: gproto.Uint64(1), RequestId: gproto.Uint64(rid), InitialPosition: proto.CommandSubscribe_Earliest.Enum(),
	}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Send(&proto.BaseCommand{Type: proto.BaseCommand_FLOW.Enum(), Flow: &proto.CommandFlow{
		ConsumerId: gproto.Uint64(1), MessagePermits: gproto.Uint32(1 << 16)}}); err != nil {
		t.Fatal(err)
	}
	return r
}
