// Package proto holds the Go form of the Apache Pulsar binary protocol's
// protobuf messages, generated from pulsar.proto in this directory.
//
// The messages are wire-compatible with Apache Pulsar: field numbers, types
// and defaults are Pulsar's. Only internal packages of this module and the
// messageid and chunk packages use it.
//
// A frame's command is a BaseCommand whose Type says which field is set:
//
//	cmd := &proto.BaseCommand{
//		Type: proto.BaseCommand_PING.Enum(),
//		Ping: &proto.CommandPing{},
//	}
package proto

//go:generate protoc --go_out=. --go_opt=paths=source_relative pulsar.proto
