package integration

import (
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
)

// The official client over the TLS port of a stub whose identity comes
// from a keytool PKCS12 key store (tlsEnabledWithKeyStore) with
// tlsProtocols=TLSv1.2: produce and consume a message.
func TestOfficialClientKeyStoreTLS(t *testing.T) {
	ks, err := filepath.Abs(filepath.Join("..", "brokerstub", "testdata", "keystore", "server.p12"))
	require.NoError(t, err)
	cfg, err := brokerstub.ParseConfig(strings.NewReader(strings.Join([]string{
		"bindAddress=127.0.0.1", "brokerServicePort=0", "webServicePort=0", "brokerServicePortTls=0",
		"tlsEnabledWithKeyStore=true", "tlsKeyStoreType=PKCS12", "tlsKeyStore=" + ks, "tlsKeyStorePassword=changeit",
		"tlsProtocols=TLSv1.2", "tlsCiphers=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
	}, "\n")))
	require.NoError(t, err)
	b := startStub(t, cfg.Options)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	leaf := cfg.Options.TLS.Certificates[0].Leaf
	require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leaf.Raw}), 0o600))
	c, err := official.NewClient(official.ClientOptions{URL: b.TLSURL(), TLSTrustCertsFilePath: ca,
		OperationTimeout: 10 * time.Second, ConnectionTimeout: 5 * time.Second, Logger: quietLogger()})
	require.NoError(t, err)
	defer c.Close()
	topic := newTopic(t)
	cons, err := c.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
	require.NoError(t, err)
	defer cons.Close()
	p, err := c.CreateProducer(producerOpts(topic))
	require.NoError(t, err)
	defer p.Close()
	sendN(t, p, "tls", 1)
	receiveN(t, cons, 1)
}
