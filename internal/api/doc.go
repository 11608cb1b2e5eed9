// Package api holds what the client engines share below package pulsar:
// their sentinel errors and *Error with its Result numbers, the numbers of
// the metrics events and the Recorder that reports them, and a
// transaction's id and state. Package pulsar defines the public types
// (pulsar.Error, Result, Metric, TopicMetrics, TxnID, TxnState, ...) and
// documents them; their constants take their values from here, so each
// list is written once, and pulsar's sentinels unwrap to the ones here, so
// errors.Is matches an engine's error with pulsar.ErrX.
//
// It is a leaf: it imports nothing of this module, so that the connection
// (internal/conn), the engines (internal/producer, internal/consumer,
// internal/txn) and pulsar can all import it.
package api
