package api

import "fmt"

// Result is the official Go client's result code: the kind of failure an
// *Error reports. The values and their order are the official client's
// (v0.19.0), so code that compares Result values ports unchanged.
type Result int

// Results, numbered as the official Go client numbers them.
const (
	// Ok means no error.
	Ok Result = iota
	// UnknownError is an error the broker did not classify.
	UnknownError
	// InvalidConfiguration: options were missing or inconsistent.
	InvalidConfiguration
	// TimeoutError: an operation did not complete in time.
	TimeoutError
	// LookupError: the topic's broker could not be looked up.
	LookupError
	// ConnectError: the connection to the broker failed.
	ConnectError
	// ReadError: reading from the connection failed.
	ReadError
	// AuthenticationError: the broker refused the credentials.
	AuthenticationError
	// AuthorizationError: the client may not create this producer or
	// consumer.
	AuthorizationError
	// ErrorGettingAuthenticationData: the credentials could not be obtained.
	ErrorGettingAuthenticationData
	// BrokerMetadataError: the broker failed to update metadata.
	BrokerMetadataError
	// BrokerPersistenceError: the broker failed to persist an entry.
	BrokerPersistenceError
	// ChecksumError: a message failed its checksum.
	ChecksumError
	// ConsumerBusy: an Exclusive consumer is already connected.
	ConsumerBusy
	// NotConnectedError: the producer or consumer is not connected.
	NotConnectedError
	// AlreadyClosedError: the producer, consumer or client is closed.
	AlreadyClosedError
	// InvalidMessage: the message cannot be published.
	InvalidMessage
	// ConsumerNotInitialized: the consumer is not initialized.
	ConsumerNotInitialized
	// ProducerNotInitialized: the producer is not initialized.
	ProducerNotInitialized
	// TooManyLookupRequestException: too many concurrent lookups.
	TooManyLookupRequestException
	// InvalidTopicName: the topic name does not parse.
	InvalidTopicName
	// InvalidURL: the service URL is invalid.
	InvalidURL
	// ServiceUnitNotReady: the topic moved between lookup and creation.
	ServiceUnitNotReady
	// OperationNotSupported: the operation is not supported.
	OperationNotSupported
	// ProducerBlockedQuotaExceededError: the producer is blocked by a
	// backlog quota.
	ProducerBlockedQuotaExceededError
	// ProducerBlockedQuotaExceededException: the producer is refused by a
	// backlog quota.
	ProducerBlockedQuotaExceededException
	// ProducerQueueIsFull: MaxPendingMessages is reached.
	ProducerQueueIsFull
	// MessageTooBig: the message exceeds the size it may have.
	MessageTooBig
	// TopicNotFound: the topic does not exist.
	TopicNotFound
	// SubscriptionNotFound: the subscription does not exist.
	SubscriptionNotFound
	// ConsumerNotFound: the consumer does not exist.
	ConsumerNotFound
	// UnsupportedVersionError: the broker's version lacks a feature.
	UnsupportedVersionError
	// TopicTerminated: the topic was terminated.
	TopicTerminated
	// CryptoError: encryption or decryption failed.
	CryptoError
	// ConsumerClosed: the consumer is closed.
	ConsumerClosed
	// InvalidBatchBuilderType: the batch builder type is unknown.
	InvalidBatchBuilderType
	// AddToBatchFailed: a message could not be added to a batch.
	AddToBatchFailed
	// SeekFailed: a seek failed.
	SeekFailed
	// ProducerClosed: the producer is closed.
	ProducerClosed
	// SchemaFailure: the payload could not be encoded with the schema.
	SchemaFailure
	// InvalidStatus: a component is not in the state the operation needs.
	InvalidStatus
	// TransactionNoFoundError: the transaction does not exist or ended.
	TransactionNoFoundError
	// ClientMemoryBufferIsFull: the client's memory limit is reached.
	ClientMemoryBufferIsFull
	// ProducerFenced: another producer took exclusive access; this one is
	// fenced for good.
	ProducerFenced
	// MaxConcurrentOperationsReached: too many concurrent operations.
	MaxConcurrentOperationsReached
	// TransactionCoordinatorNotEnabled: the broker has no transaction
	// coordinator.
	TransactionCoordinatorNotEnabled
)

// resultNames are the names the official client puts in its error texts;
// the Results it leaves out of its table print as "Result(n)" there, and
// so they do here.
var resultNames = [...]string{
	Ok: "OK", UnknownError: "UnknownError", InvalidConfiguration: "InvalidConfiguration",
	TimeoutError: "TimeoutError", LookupError: "LookupError", ConnectError: "ConnectError",
	ReadError: "ReadError", AuthenticationError: "AuthenticationError", AuthorizationError: "AuthorizationError",
	ErrorGettingAuthenticationData: "ErrorGettingAuthenticationData", BrokerMetadataError: "BrokerMetadataError",
	BrokerPersistenceError: "BrokerPersistenceError", ChecksumError: "ChecksumError", ConsumerBusy: "ConsumerBusy",
	NotConnectedError: "NotConnectedError", AlreadyClosedError: "AlreadyClosedError", InvalidMessage: "InvalidMessage",
	ConsumerNotInitialized: "ConsumerNotInitialized", ProducerNotInitialized: "ProducerNotInitialized",
	TooManyLookupRequestException: "TooManyLookupRequestException", InvalidTopicName: "InvalidTopicName",
	InvalidURL: "InvalidURL", ServiceUnitNotReady: "ServiceUnitNotReady", OperationNotSupported: "OperationNotSupported",
	ProducerBlockedQuotaExceededError:     "ProducerBlockedQuotaExceededError",
	ProducerBlockedQuotaExceededException: "ProducerBlockedQuotaExceededException",
	ProducerQueueIsFull:                   "ProducerQueueIsFull", MessageTooBig: "MessageTooBig", TopicNotFound: "TopicNotFound",
	SubscriptionNotFound: "SubscriptionNotFound", ConsumerNotFound: "ConsumerNotFound",
	UnsupportedVersionError: "UnsupportedVersionError", TopicTerminated: "TopicTerminated", CryptoError: "CryptoError",
	ConsumerClosed: "ConsumerClosed", InvalidBatchBuilderType: "InvalidBatchBuilderType",
	AddToBatchFailed: "AddToBatchFailed", SeekFailed: "SeekFailed", ProducerClosed: "ProducerClosed",
	SchemaFailure: "SchemaFailure", TransactionNoFoundError: "TransactionNoFoundError",
	ClientMemoryBufferIsFull: "ClientMemoryBufferIsFull",
}

// ResultName is the official client's name of r in error texts.
func ResultName(r Result) string {
	if r >= 0 && int(r) < len(resultNames) && resultNames[r] != "" {
		return resultNames[r]
	}
	return fmt.Sprintf("Result(%d)", int(r))
}
