package pulsar

import "fmt"

func (c *client) createProducer(ProducerOptions) (Producer, error) {
	return nil, fmt.Errorf("%w: producers are not implemented yet", ErrInvalidOptions)
}
