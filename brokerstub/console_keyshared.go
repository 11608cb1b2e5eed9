package brokerstub

import (
	"net/http"

	"github.com/pulsargo/sdk/brokerstub/internal/console"
	pb "github.com/pulsargo/sdk/internal/proto"
)

func (s consoleSource) KeyShared(full, sub string) (console.KeyShared, error) {
	var out console.KeyShared
	var subErr error
	err := s.onTopic(full, func(t *topic) {
		sb, err := subOf(t, sub)
		if err != nil {
			subErr = err
			return
		}
		if sb.ks == nil || sb.typ != pb.CommandSubscribe_Key_Shared {
			subErr = &console.Problem{Status: http.StatusConflict, Reason: "Subscription " + sub + " is " + subTypeNames[sb.typ] + ", not Key_Shared"}
			return
		}
		out = sb.keySharedView()
	})
	if err == nil {
		err = subErr
	}
	return out, err
}
