package pulsar

import "fmt"

func (c *client) createReader(ReaderOptions) (Reader, error) {
	return nil, fmt.Errorf("%w: readers are not implemented yet", ErrInvalidOptions)
}
