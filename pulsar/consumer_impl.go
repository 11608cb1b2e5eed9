package pulsar

import "fmt"

func (c *client) subscribe(ConsumerOptions) (Consumer, error) {
	return nil, fmt.Errorf("%w: consumers are not implemented yet", ErrInvalidOptions)
}
