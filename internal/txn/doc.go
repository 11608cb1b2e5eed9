// Package txn is the client side of Pulsar transactions (PIP-31): the
// coordinator client, which keeps a connection to every transaction
// coordinator (one per partition of the coordinator assign topic) and
// speaks TC_CLIENT_CONNECT, NEW_TXN, ADD_PARTITION_TO_TXN,
// ADD_SUBSCRIPTION_TO_TXN and END_TXN; and Txn, the state machine of one
// transaction as the official Go client runs it: the timeout that turns an
// open transaction into TxnTimeout, the registration of each partition
// before its first send and of each subscription before its first ack, and
// the count of in-flight sends and acks that Commit and Abort wait for.
//
// The producer and consumer engines only carry a transaction's id on the
// wire (SEND and ACK); the pulsar package registers the operation here
// before it hands the message or ack to an engine, and ends it when the
// engine reports the outcome.
package txn
