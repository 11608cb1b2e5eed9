package brokerstub

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub/internal/store"
	"github.com/pulsargo/sdk/brokerstub/internal/txn"
	"github.com/pulsargo/sdk/internal/proto"
)

// dialTxnAs connects a transaction test client with role's token.
func dialTxnAs(t *testing.T, b *Broker, secret []byte, role string) *txnClient {
	t.Helper()
	c := &txnClient{rawClient: dialRaw(t, b), seen: map[uint64][]string{}}
	cmd := c.connectWith("token", []byte(hs256(t, secret, jwtClaims{"sub": role})))
	require.Equal(t, proto.BaseCommand_CONNECTED, cmd.GetType(), "%s", cmd)
	return c
}

func (c *txnClient) addPartition(id txn.ID, topic string) *proto.CommandAddPartitionToTxnResponse {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_ADD_PARTITION_TO_TXN.Enum(), AddPartitionToTxn: &proto.CommandAddPartitionToTxn{
		RequestId: c.nextRID(), TxnidMostBits: &id.Most, TxnidLeastBits: &id.Least, Partitions: []string{topic}}})
	return c.expect(proto.BaseCommand_ADD_PARTITION_TO_TXN_RESPONSE).GetAddPartitionToTxnResponse()
}

func (c *txnClient) addSubscription(id txn.ID, topic, sub string) *proto.CommandAddSubscriptionToTxnResponse {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_ADD_SUBSCRIPTION_TO_TXN.Enum(), AddSubscriptionToTxn: &proto.CommandAddSubscriptionToTxn{
		RequestId: c.nextRID(), TxnidMostBits: &id.Most, TxnidLeastBits: &id.Least,
		Subscription: []*proto.Subscription{{Topic: gproto.String(topic), Subscription: gproto.String(sub)}}}})
	return c.expect(proto.BaseCommand_ADD_SUBSCRIPTION_TO_TXN_RESPONSE).GetAddSubscriptionToTxnResponse()
}

func txnOwnerBroker(t *testing.T, authz bool, dataDir string) (*Broker, []byte) {
	secret := []byte("txn owner secret")
	tok := mustProvider(t, TokenOptions{SecretKey: secret})
	return RunT(t, Options{TransactionCoordinatorEnabled: true, DataDir: dataDir,
		AuthenticationEnabled: true, AuthorizationEnabled: authz,
		AuthenticationProviders: []AuthenticationProvider{tok}, SuperUserRoles: []string{"admin"}}), secret
}

// A transaction belongs to the role that opened it: another role may not
// end it or add to it (TransactionNotFound, as Pulsar's
// verifyTxnOwnership), also after a restart; a super user may.
func TestTxnOwnershipVerified(t *testing.T) {
	b, secret := txnOwnerBroker(t, true, t.TempDir())
	alice, bob := dialTxnAs(t, b, secret, "alice"), dialTxnAs(t, b, secret, "bob")
	topic := "persistent://public/default/txn-owner"
	t1 := alice.newTxn(60_000)

	end := bob.endTxn(t1, true)
	assert.Equal(t, proto.ServerError_TransactionNotFound, end.GetError())
	assert.Contains(t, end.GetMessage(), "Client (bob) is neither the owner of the transaction (0,0) nor a super user")
	assert.Equal(t, t1.Least, end.GetTxnidLeastBits())
	assert.Equal(t, proto.ServerError_TransactionNotFound, bob.addPartition(t1, topic).GetError())
	assert.Equal(t, proto.ServerError_TransactionNotFound, bob.addSubscription(t1, topic, "s").GetError())
	require.Nil(t, alice.addPartition(t1, topic).Error)
	require.Nil(t, alice.addSubscription(t1, topic, "s").Error)
	meta, err := b.eng.TxnCoordinator().Snapshot(t1)
	require.NoError(t, err)
	assert.Equal(t, txn.Open, meta.Status, "bob's commit changed nothing")
	assert.Equal(t, []string{topic}, meta.Partitions, "bob's add changed nothing")

	require.NoError(t, b.Restart())
	bob = dialTxnAs(t, b, secret, "bob")
	assert.Equal(t, proto.ServerError_TransactionNotFound, bob.endTxn(t1, false).GetError(), "the owner survives a restart")
	admin := dialTxnAs(t, b, secret, "admin")
	require.Nil(t, admin.endTxn(t1, false).Error, "a super user may end any transaction")

	alice = dialTxnAs(t, b, secret, "alice")
	t2 := alice.newTxn(60_000)
	require.Nil(t, alice.endTxn(t2, true).Error)
}

// With authentication on and authorization off, Pulsar checks the owner
// but has no super users.
func TestTxnOwnershipWithoutAuthorization(t *testing.T) {
	b, secret := txnOwnerBroker(t, false, "")
	alice, admin := dialTxnAs(t, b, secret, "alice"), dialTxnAs(t, b, secret, "admin")
	t1 := alice.newTxn(60_000)
	assert.Equal(t, proto.ServerError_TransactionNotFound, admin.endTxn(t1, true).GetError())
	require.Nil(t, alice.endTxn(t1, true).Error)
}

// A coordinator record written before owners were kept (no "owner") still
// loads, and its transactions are open to every role, as Pulsar's null
// owner.
func TestTxnOwnerlessRecordLoads(t *testing.T) {
	b, secret := txnOwnerBroker(t, true, t.TempDir())
	kv, ok := b.eng.Store().(store.MetaStore)
	require.True(t, ok)
	timeout := b.opts.Clock.Now().Add(time.Hour).UnixMilli()
	old := fmt.Sprintf(`{"next":1,"txns":[{"least":0,"status":0,"openedAt":1,"timeoutAt":%d}]}`, timeout)
	require.NoError(t, kv.PutMeta(txn.StateKey, []byte(old)))
	require.NoError(t, b.Restart())

	bob := dialTxnAs(t, b, secret, "bob")
	require.Nil(t, bob.endTxn(txn.ID{Most: 0, Least: 0}, true).Error)
	assert.Equal(t, txn.ID{Most: 0, Least: 1}, bob.newTxn(60_000), "the sequence goes on from the old record")
}
