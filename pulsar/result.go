package pulsar

import "github.com/pulsargo/sdk/internal/api"

// Result is the kind of failure an *Error reports, as the official Go
// client's Result: the same values in the same order, so code that
// compares Result values ports unchanged.
type Result int

// Results, as the official Go client numbers them.
const (
	// Ok means no error.
	Ok Result = Result(api.Ok)
	// UnknownError is an error the broker did not classify.
	UnknownError Result = Result(api.UnknownError)
	// InvalidConfiguration: options were missing or inconsistent.
	InvalidConfiguration Result = Result(api.InvalidConfiguration)
	// TimeoutError: an operation did not complete in time.
	TimeoutError Result = Result(api.TimeoutError)
	// LookupError: the topic's broker could not be looked up.
	LookupError Result = Result(api.LookupError)
	// ConnectError: the connection to the broker failed.
	ConnectError Result = Result(api.ConnectError)
	// ReadError: reading from the connection failed.
	ReadError Result = Result(api.ReadError)
	// AuthenticationError: the broker refused the credentials.
	AuthenticationError Result = Result(api.AuthenticationError)
	// AuthorizationError: the client may not create this producer or
	// consumer.
	AuthorizationError Result = Result(api.AuthorizationError)
	// ErrorGettingAuthenticationData: the credentials could not be obtained.
	ErrorGettingAuthenticationData Result = Result(api.ErrorGettingAuthenticationData)
	// BrokerMetadataError: the broker failed to update metadata.
	BrokerMetadataError Result = Result(api.BrokerMetadataError)
	// BrokerPersistenceError: the broker failed to persist an entry.
	BrokerPersistenceError Result = Result(api.BrokerPersistenceError)
	// ChecksumError: a message failed its checksum.
	ChecksumError Result = Result(api.ChecksumError)
	// ConsumerBusy: an Exclusive consumer is already connected.
	ConsumerBusy Result = Result(api.ConsumerBusy)
	// NotConnectedError: the producer or consumer is not connected.
	NotConnectedError Result = Result(api.NotConnectedError)
	// AlreadyClosedError: the producer, consumer or client is closed.
	AlreadyClosedError Result = Result(api.AlreadyClosedError)
	// InvalidMessage: the message cannot be published.
	InvalidMessage Result = Result(api.InvalidMessage)
	// ConsumerNotInitialized: the consumer is not initialized.
	ConsumerNotInitialized Result = Result(api.ConsumerNotInitialized)
	// ProducerNotInitialized: the producer is not initialized.
	ProducerNotInitialized Result = Result(api.ProducerNotInitialized)
	// TooManyLookupRequestException: too many concurrent lookups.
	TooManyLookupRequestException Result = Result(api.TooManyLookupRequestException)
	// InvalidTopicName: the topic name does not parse.
	InvalidTopicName Result = Result(api.InvalidTopicName)
	// InvalidURL: the service URL is invalid.
	InvalidURL Result = Result(api.InvalidURL)
	// ServiceUnitNotReady: the topic moved between lookup and creation.
	ServiceUnitNotReady Result = Result(api.ServiceUnitNotReady)
	// OperationNotSupported: the operation is not supported.
	OperationNotSupported Result = Result(api.OperationNotSupported)
	// ProducerBlockedQuotaExceededError: the producer is blocked by a
	// backlog quota.
	ProducerBlockedQuotaExceededError Result = Result(api.ProducerBlockedQuotaExceededError)
	// ProducerBlockedQuotaExceededException: the producer is refused by a
	// backlog quota.
	ProducerBlockedQuotaExceededException Result = Result(api.ProducerBlockedQuotaExceededException)
	// ProducerQueueIsFull: MaxPendingMessages is reached.
	ProducerQueueIsFull Result = Result(api.ProducerQueueIsFull)
	// MessageTooBig: the message exceeds the size it may have.
	MessageTooBig Result = Result(api.MessageTooBig)
	// TopicNotFound: the topic does not exist.
	TopicNotFound Result = Result(api.TopicNotFound)
	// SubscriptionNotFound: the subscription does not exist.
	SubscriptionNotFound Result = Result(api.SubscriptionNotFound)
	// ConsumerNotFound: the consumer does not exist.
	ConsumerNotFound Result = Result(api.ConsumerNotFound)
	// UnsupportedVersionError: the broker's version lacks a feature.
	UnsupportedVersionError Result = Result(api.UnsupportedVersionError)
	// TopicTerminated: the topic was terminated.
	TopicTerminated Result = Result(api.TopicTerminated)
	// CryptoError: encryption or decryption failed.
	CryptoError Result = Result(api.CryptoError)
	// ConsumerClosed: the consumer is closed.
	ConsumerClosed Result = Result(api.ConsumerClosed)
	// InvalidBatchBuilderType: the batch builder type is unknown.
	InvalidBatchBuilderType Result = Result(api.InvalidBatchBuilderType)
	// AddToBatchFailed: a message could not be added to a batch.
	AddToBatchFailed Result = Result(api.AddToBatchFailed)
	// SeekFailed: a seek failed.
	SeekFailed Result = Result(api.SeekFailed)
	// ProducerClosed: the producer is closed.
	ProducerClosed Result = Result(api.ProducerClosed)
	// SchemaFailure: the payload could not be encoded with the schema.
	SchemaFailure Result = Result(api.SchemaFailure)
	// InvalidStatus: a component is not in the state the operation needs.
	InvalidStatus Result = Result(api.InvalidStatus)
	// TransactionNoFoundError: the transaction does not exist or ended.
	TransactionNoFoundError Result = Result(api.TransactionNoFoundError)
	// ClientMemoryBufferIsFull: the client's memory limit is reached.
	ClientMemoryBufferIsFull Result = Result(api.ClientMemoryBufferIsFull)
	// ProducerFenced: another producer took exclusive access; this one is
	// fenced for good.
	ProducerFenced Result = Result(api.ProducerFenced)
	// MaxConcurrentOperationsReached: too many concurrent operations.
	MaxConcurrentOperationsReached Result = Result(api.MaxConcurrentOperationsReached)
	// TransactionCoordinatorNotEnabled: the broker has no transaction
	// coordinator.
	TransactionCoordinatorNotEnabled Result = Result(api.TransactionCoordinatorNotEnabled)
)
