package pulsar

// BatcherBuilderProvider is what GetBatcherBuilderProvider returns for a
// BatcherBuilderType. The official client's is the constructor of its
// internal batch container, which applications cannot call; pulsargo's
// producer builds its batches itself from ProducerOptions.BatcherBuilderType,
// so its provider only reports the type it stands for.
type BatcherBuilderProvider func() BatcherBuilderType

// GetBatcherBuilderProvider returns the provider of DefaultBatchBuilder or
// KeyBasedBatchBuilder; another type is an error with Result
// InvalidBatchBuilderType (and a nil provider), as the official client's.
func GetBatcherBuilderProvider(typ BatcherBuilderType) (BatcherBuilderProvider, error) {
	switch typ {
	case DefaultBatchBuilder, KeyBasedBatchBuilder:
		return func() BatcherBuilderType { return typ }, nil
	}
	return nil, newError(InvalidBatchBuilderType, "unsupported batcher builder provider type")
}
