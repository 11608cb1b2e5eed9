package engine

// The stats answers of the admin API as typed structs with Pulsar's JSON
// names (TopicStatsImpl, PublisherStatsImpl, SubscriptionStatsImpl,
// ConsumerStatsImpl, their non-persistent and partitioned kinds, and
// PersistentTopicInternalStats). A field Pulsar always sends has no
// omitempty, zero or not; a field it sends only on some topics (a
// non-persistent topic's msgDropRate, the active consumer of a
// subscription that has one) is a pointer or omitempty. Maps and lists are
// made non-nil where Pulsar writes {} or [].

// TopicStats is Pulsar's TopicStatsImpl; on a non-persistent topic,
// NonPersistentTopicStatsImpl: msgDropRate set, deduplicationStatus left
// out (addNonPersistentStats).
type TopicStats struct {
	MsgRateIn                          float64                       `json:"msgRateIn"`
	MsgRateOut                         float64                       `json:"msgRateOut"`
	MsgThroughputIn                    float64                       `json:"msgThroughputIn"`
	MsgThroughputOut                   float64                       `json:"msgThroughputOut"`
	AverageMsgSize                     float64                       `json:"averageMsgSize"`
	MsgChunkPublished                  bool                          `json:"msgChunkPublished"`
	MsgInCounter                       int64                         `json:"msgInCounter"`
	BytesInCounter                     int64                         `json:"bytesInCounter"`
	MsgOutCounter                      int64                         `json:"msgOutCounter"`
	BytesOutCounter                    int64                         `json:"bytesOutCounter"`
	StorageSize                        int64                         `json:"storageSize"`
	BacklogSize                        int64                         `json:"backlogSize"`
	EarliestMsgPublishTimeInBacklogs   int64                         `json:"earliestMsgPublishTimeInBacklogs"`
	Publishers                         []*PublisherStats             `json:"publishers"`
	Subscriptions                      map[string]*SubscriptionStats `json:"subscriptions"`
	Replication                        map[string]struct{}           `json:"replication"`
	DeduplicationStatus                string                        `json:"deduplicationStatus,omitempty"`
	NonContiguousDeletedMessagesRanges int                           `json:"nonContiguousDeletedMessagesRanges"`
	WaitingPublishers                  int                           `json:"waitingPublishers"`
	TopicCreationTimeStamp             int64                         `json:"topicCreationTimeStamp"`
	LastPublishTimestamp               int64                         `json:"lastPublishTimestamp"`
	MsgDropRate                        *float64                      `json:"msgDropRate,omitempty"`
}

// PublisherStats is Pulsar's PublisherStatsImpl of one producer
// (NonPersistentPublisherStatsImpl with msgDropRate).
type PublisherStats struct {
	AccessMode              string            `json:"accessMode"`
	ProducerID              uint64            `json:"producerId"`
	ProducerName            string            `json:"producerName"`
	MsgRateIn               float64           `json:"msgRateIn"`
	MsgThroughputIn         float64           `json:"msgThroughputIn"`
	AverageMsgSize          float64           `json:"averageMsgSize"`
	ChunkedMessageRate      float64           `json:"chunkedMessageRate"`
	MsgInCounter            int64             `json:"msgInCounter"`
	BytesInCounter          int64             `json:"bytesInCounter"`
	Address                 string            `json:"address"`
	ConnectedSince          string            `json:"connectedSince"`
	ClientVersion           string            `json:"clientVersion"`
	Metadata                map[string]string `json:"metadata"`
	SupportsPartialProducer bool              `json:"supportsPartialProducer"`
	MsgDropRate             *float64          `json:"msgDropRate,omitempty"`
}

// MergedPublisherStats is an entry of a partitioned topic's publishers:
// Pulsar's new PublisherStatsImpl that the partitions' publishers are
// added into (admin_stats_publishers.go). It has no name (unless merged by
// name), address or id of its own; Pulsar's JSON leaves those out.
type MergedPublisherStats struct {
	MsgRateIn               float64  `json:"msgRateIn"`
	MsgThroughputIn         float64  `json:"msgThroughputIn"`
	AverageMsgSize          float64  `json:"averageMsgSize"`
	ChunkedMessageRate      float64  `json:"chunkedMessageRate"`
	ProducerID              int64    `json:"producerId"`
	SupportsPartialProducer bool     `json:"supportsPartialProducer"`
	ProducerName            string   `json:"producerName,omitempty"`
	MsgDropRate             *float64 `json:"msgDropRate,omitempty"`
	count                   int      // publishers added, for the average
}

// SubscriptionStats is Pulsar's SubscriptionStatsImpl
// (NonPersistentSubscriptionStatsImpl with msgDropRate and, on Key_Shared,
// keySharedMode).
type SubscriptionStats struct {
	MsgRateOut                         float64           `json:"msgRateOut"`
	MsgThroughputOut                   float64           `json:"msgThroughputOut"`
	MsgRateRedeliver                   float64           `json:"msgRateRedeliver"`
	MsgRateExpired                     float64           `json:"msgRateExpired"`
	MessageAckRate                     float64           `json:"messageAckRate"`
	ChunkedMessageRate                 float64           `json:"chunkedMessageRate"`
	MsgOutCounter                      int64             `json:"msgOutCounter"`
	BytesOutCounter                    int64             `json:"bytesOutCounter"`
	MsgBacklog                         int64             `json:"msgBacklog"`
	MsgBacklogNoDelayed                int64             `json:"msgBacklogNoDelayed"`
	BacklogSize                        int64             `json:"backlogSize"`
	MsgDelayed                         int64             `json:"msgDelayed"`
	UnackedMessages                    int64             `json:"unackedMessages"`
	Type                               string            `json:"type"`
	Consumers                          []*consumerStats  `json:"consumers"`
	IsDurable                          bool              `json:"isDurable"`
	IsReplicated                       bool              `json:"isReplicated"`
	BlockedSubscriptionOnUnackedMsgs   bool              `json:"blockedSubscriptionOnUnackedMsgs"`
	AllowOutOfOrderDelivery            bool              `json:"allowOutOfOrderDelivery"`
	NonContiguousDeletedMessagesRanges int               `json:"nonContiguousDeletedMessagesRanges"`
	SubscriptionProperties             map[string]string `json:"subscriptionProperties"`
	ConsumersAfterMarkDeletePosition   map[string]string `json:"consumersAfterMarkDeletePosition"`
	ActiveConsumerName                 *string           `json:"activeConsumerName,omitempty"`
	EarliestMsgPublishTimeInBacklog    *uint64           `json:"earliestMsgPublishTimeInBacklog,omitempty"`
	MsgDropRate                        *float64          `json:"msgDropRate,omitempty"`
	KeySharedMode                      string            `json:"keySharedMode,omitempty"`
}

// consumerStats is Pulsar's ConsumerStatsImpl.
type consumerStats struct {
	ConsumerName                 string            `json:"consumerName"`
	AvailablePermits             int64             `json:"availablePermits"`
	UnackedMessages              int64             `json:"unackedMessages"`
	BlockedConsumerOnUnackedMsgs bool              `json:"blockedConsumerOnUnackedMsgs"`
	MsgRateOut                   float64           `json:"msgRateOut"`
	MsgThroughputOut             float64           `json:"msgThroughputOut"`
	MsgRateRedeliver             float64           `json:"msgRateRedeliver"`
	MessageAckRate               float64           `json:"messageAckRate"`
	ChunkedMessageRate           float64           `json:"chunkedMessageRate"`
	MsgOutCounter                int64             `json:"msgOutCounter"`
	BytesOutCounter              int64             `json:"bytesOutCounter"`
	Address                      string            `json:"address"`
	ConnectedSince               string            `json:"connectedSince"`
	ClientVersion                string            `json:"clientVersion"`
	Metadata                     map[string]string `json:"metadata"`
	PriorityLevel                int32             `json:"priorityLevel"`
	LastConsumedFlowTimestamp    int64             `json:"lastConsumedFlowTimestamp"`
}

// PartitionedMetadata is Pulsar's PartitionedTopicMetadata, as GET
// …/partitions and the partitioned stats give it.
type PartitionedMetadata struct {
	Partitions int  `json:"partitions"`
	Deleted    bool `json:"deleted"`
}

// PartitionedTopicStats is Pulsar's PartitionedTopicStatsImpl (and
// NonPersistentPartitionedTopicStats): the partitions' stats added up as
// Pulsar's add() methods do (topicStats.add), with merged publishers (this
// Publishers hides the embedded one in the JSON), and each partition's own
// stats under partitions (empty with perPartition=false).
type PartitionedTopicStats struct {
	TopicStats
	Publishers []*MergedPublisherStats `json:"publishers"`
	Metadata   PartitionedMetadata     `json:"metadata"`
	Partitions map[string]*TopicStats  `json:"partitions"`
}

// InternalStats is Pulsar's PersistentTopicInternalStats (the managed
// ledger's and its cursors' state).
type InternalStats struct {
	EntriesAddedCounter        int64                   `json:"entriesAddedCounter"`
	NumberOfEntries            int64                   `json:"numberOfEntries"`
	TotalSize                  int64                   `json:"totalSize"`
	CurrentLedgerEntries       int64                   `json:"currentLedgerEntries"`
	CurrentLedgerSize          int64                   `json:"currentLedgerSize"`
	LastLedgerCreatedTimestamp string                  `json:"lastLedgerCreatedTimestamp"`
	WaitingCursorsCount        int                     `json:"waitingCursorsCount"`
	PendingAddEntriesCount     int                     `json:"pendingAddEntriesCount"`
	LastConfirmedEntry         string                  `json:"lastConfirmedEntry"`
	State                      string                  `json:"state"`
	Ledgers                    []ledgerInfo            `json:"ledgers"`
	Cursors                    map[string]*cursorStats `json:"cursors"`
	SchemaLedgers              []ledgerInfo            `json:"schemaLedgers"`
	CompactedLedger            ledgerInfo              `json:"compactedLedger"`
}

// ledgerInfo is Pulsar's LedgerInfo of the internal stats.
type ledgerInfo struct {
	LedgerID        int64 `json:"ledgerId"`
	Entries         int64 `json:"entries"`
	Size            int64 `json:"size"`
	Offloaded       bool  `json:"offloaded"`
	UnderReplicated bool  `json:"underReplicated"`
}

// cursorStats is Pulsar's CursorStats of the internal stats.
type cursorStats struct {
	MarkDeletePosition                       string           `json:"markDeletePosition"`
	ReadPosition                             string           `json:"readPosition"`
	WaitingReadOp                            bool             `json:"waitingReadOp"`
	PendingReadOps                           int              `json:"pendingReadOps"`
	MessagesConsumedCounter                  int64            `json:"messagesConsumedCounter"`
	CursorLedger                             int64            `json:"cursorLedger"`
	CursorLedgerLastEntry                    int64            `json:"cursorLedgerLastEntry"`
	IndividuallyDeletedMessages              string           `json:"individuallyDeletedMessages"`
	LastLedgerSwitchTimestamp                string           `json:"lastLedgerSwitchTimestamp"`
	State                                    string           `json:"state"`
	Active                                   bool             `json:"active"`
	NumberOfEntriesSinceFirstNotAckedMessage int64            `json:"numberOfEntriesSinceFirstNotAckedMessage"`
	TotalNonContiguousDeletedMessagesRange   int              `json:"totalNonContiguousDeletedMessagesRange"`
	SubscriptionHavePendingRead              bool             `json:"subscriptionHavePendingRead"`
	SubscriptionHavePendingReplayRead        bool             `json:"subscriptionHavePendingReplayRead"`
	Properties                               map[string]int64 `json:"properties"`
}
