package admin

import (
	"github.com/pulsargo/sdk/brokerstub/internal/console"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

func (s consoleSource) Cursor(full, sub string, limit int) (console.Cursor, error) {
	var out console.Cursor
	var subErr error
	err := s.onTopic(full, func(t *engine.Topic) {
		sb, err := subOf(t, sub)
		if err != nil {
			subErr = err
			return
		}
		out = sb.ConsoleCursor(full, limit)
	})
	if err == nil {
		err = subErr
	}
	return out, err
}
