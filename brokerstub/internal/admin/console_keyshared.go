package admin

import (
	"github.com/pulsargo/sdk/brokerstub/internal/console"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

func (s consoleSource) KeyShared(full, sub string) (console.KeyShared, error) {
	var out console.KeyShared
	var subErr error
	err := s.onTopic(full, func(t *engine.Topic) {
		sb, err := subOf(t, sub)
		if err != nil {
			subErr = err
			return
		}
		out, subErr = sb.ConsoleKeyShared()
	})
	if err == nil {
		err = subErr
	}
	return out, err
}
