package admin

import (
	"net/http"

	"github.com/pulsargo/sdk/brokerstub/internal/console"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"

	pb "github.com/pulsargo/sdk/internal/proto"
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
		if sb.Ks == nil || sb.Typ != pb.CommandSubscribe_Key_Shared {
			subErr = &console.Problem{Status: http.StatusConflict, Reason: "Subscription " + sub + " is " + engine.SubTypeNames[sb.Typ] + ", not Key_Shared"}
			return
		}
		out = sb.KeySharedView()
	})
	if err == nil {
		err = subErr
	}
	return out, err
}
