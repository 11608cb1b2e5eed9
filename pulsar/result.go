package pulsar

import "github.com/pulsargo/sdk/internal/api"

// Result is the kind of failure an *Error reports, as the official Go
// client's Result: the same values in the same order. (Defined in
// internal/api with the sentinel errors.)
type Result = api.Result

// Results, as the official Go client numbers them.
const (
	// Ok means no error.
	Ok = api.Ok
	// UnknownError is an error the broker did not classify.
	UnknownError = api.UnknownError
	// InvalidConfiguration: options were missing or inconsistent.
	InvalidConfiguration = api.InvalidConfiguration
	// TimeoutError: an operation did not complete in time.
	TimeoutError = api.TimeoutError
	// LookupError: the topic's broker could not be looked up.
	LookupError = api.LookupError
	// ConnectError: the connection to the broker failed.
	ConnectError = api.ConnectError
	// ReadError: reading from the connection failed.
	ReadError = api.ReadError
	// AuthenticationError: the broker refused the credentials.
	AuthenticationError = api.AuthenticationError
	// AuthorizationError: the client may not create this producer or
	// consumer.
	AuthorizationError = api.AuthorizationError
	// ErrorGettingAuthenticationData: the credentials could not be obtained.
	ErrorGettingAuthenticationData = api.ErrorGettingAuthenticationData
	// BrokerMetadataError: the broker failed to update metadata.
	BrokerMetadataError = api.BrokerMetadataError
	// BrokerPersistenceError: the broker failed to persist an entry.
	BrokerPersistenceError = api.BrokerPersistenceError
	// ChecksumError: a message failed its checksum.
	ChecksumError = api.ChecksumError
	// ConsumerBusy: an Exclusive consumer is already connected.
	ConsumerBusy = api.ConsumerBusy
	// NotConnectedError: the producer or consumer is not connected.
	NotConnectedError = api.NotConnectedError
	// AlreadyClosedError: the producer, consumer or client is closed.
	AlreadyClosedError = api.AlreadyClosedError
	// InvalidMessage: the message cannot be published.
	InvalidMessage = api.InvalidMessage
	// ConsumerNotInitialized: the consumer is not initialized.
	ConsumerNotInitialized = api.ConsumerNotInitialized
	// ProducerNotInitialized: the producer is not initialized.
	ProducerNotInitialized = api.ProducerNotInitialized
	// TooManyLookupRequestException: too many concurrent lookups.
	TooManyLookupRequestException = api.TooManyLookupRequestException
	// InvalidTopicName: the topic name does not parse.
	InvalidTopicName = api.InvalidTopicName
	// InvalidURL: the service URL is invalid.
	InvalidURL = api.InvalidURL
	// ServiceUnitNotReady: the topic moved between lookup and creation.
	ServiceUnitNotReady = api.ServiceUnitNotReady
	// OperationNotSupported: the operation is not supported.
	OperationNotSupported = api.OperationNotSupported
	// ProducerBlockedQuotaExceededError: the producer is blocked by a
	// backlog quota.
	ProducerBlockedQuotaExceededError = api.ProducerBlockedQuotaExceededError
	// ProducerBlockedQuotaExceededException: the producer is refused by a
	// backlog quota.
	ProducerBlockedQuotaExceededException = api.ProducerBlockedQuotaExceededException
	// ProducerQueueIsFull: MaxPendingMessages is reached.
	ProducerQueueIsFull = api.ProducerQueueIsFull
	// MessageTooBig: the message exceeds the size it may have.
	MessageTooBig = api.MessageTooBig
	// TopicNotFound: the topic does not exist.
	TopicNotFound = api.TopicNotFound
	// SubscriptionNotFound: the subscription does not exist.
	SubscriptionNotFound = api.SubscriptionNotFound
	// ConsumerNotFound: the consumer does not exist.
	ConsumerNotFound = api.ConsumerNotFound
	// UnsupportedVersionError: the broker's version lacks a feature.
	UnsupportedVersionError = api.UnsupportedVersionError
	// TopicTerminated: the topic was terminated.
	TopicTerminated = api.TopicTerminated
	// CryptoError: encryption or decryption failed.
	CryptoError = api.CryptoError
	// ConsumerClosed: the consumer is closed.
	ConsumerClosed = api.ConsumerClosed
	// InvalidBatchBuilderType: the batch builder type is unknown.
	InvalidBatchBuilderType = api.InvalidBatchBuilderType
	// AddToBatchFailed: a message could not be added to a batch.
	AddToBatchFailed = api.AddToBatchFailed
	// SeekFailed: a seek failed.
	SeekFailed = api.SeekFailed
	// ProducerClosed: the producer is closed.
	ProducerClosed = api.ProducerClosed
	// SchemaFailure: the payload could not be encoded with the schema.
	SchemaFailure = api.SchemaFailure
	// InvalidStatus: a component is not in the state the operation needs.
	InvalidStatus = api.InvalidStatus
	// TransactionNoFoundError: the transaction does not exist or ended.
	TransactionNoFoundError = api.TransactionNoFoundError
	// ClientMemoryBufferIsFull: the client's memory limit is reached.
	ClientMemoryBufferIsFull = api.ClientMemoryBufferIsFull
	// ProducerFenced: another producer took exclusive access; this one is
	// fenced for good.
	ProducerFenced = api.ProducerFenced
	// MaxConcurrentOperationsReached: too many concurrent operations.
	MaxConcurrentOperationsReached = api.MaxConcurrentOperationsReached
	// TransactionCoordinatorNotEnabled: the broker has no transaction
	// coordinator.
	TransactionCoordinatorNotEnabled = api.TransactionCoordinatorNotEnabled
)
