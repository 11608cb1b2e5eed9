// Package api defines once the value types and sentinel errors that the
// public pulsar package and the client engines share; pulsar aliases them.
//
// It is a leaf: it imports nothing of this module but the messageid
// package, so that the connection (internal/conn), the engines
// (internal/producer, internal/consumer) and pulsar can all import it. The doc comments here are
// the public API's: pulsar.ProducerMessage is api.ProducerMessage, and the
// engine takes the user's value without a copy.
package api
