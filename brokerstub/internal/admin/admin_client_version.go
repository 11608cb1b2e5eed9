package admin

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

// Pulsar's check of the client library on the admin API's partitioned
// metadata (Gates.ClientLibraryVersionCheckEnabled; PersistentTopicsBase's
// validateClientVersion): for a topic of more than one partition, a
// request without a User-Agent is refused, and so is one from a C++ client
// older than 1.21 (its User-Agent has "Pulsar-CPP-v<major>.<minor>"), both
// with 405, because those clients cannot use partitioned topics.

// deprecatedCPPPrefix starts the version of Pulsar's C++ client in a
// User-Agent; leastCPPMajor and leastCPPMinor are the oldest it accepts.
const (
	deprecatedCPPPrefix = "Pulsar-CPP-v"
	leastCPPMajor       = 1
	leastCPPMinor       = 21
)

// checkClientVersion refuses the request's client when the check is on.
func (rq *adminReq) checkClientVersion() error {
	if !rq.b.Cfg.ClientLibraryVersionCheckEnabled {
		return nil
	}
	ua := rq.r.Header.Get("User-Agent")
	if strings.TrimSpace(ua) == "" {
		return engine.RestErr(http.StatusMethodNotAllowed, "%s", engine.MsgClientLibNoAgent)
	}
	_, after, ok := strings.Cut(ua, deprecatedCPPPrefix)
	if !ok {
		return nil
	}
	ver, _, _ := strings.Cut(after, "-")
	parts := strings.Split(strings.TrimSpace(ver), ".")
	if len(parts) < 2 {
		return nil
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return nil // as Pulsar: a version it cannot parse is let through
	}
	// Pulsar's test, as written: either part below the least refuses.
	if leastCPPMajor > major || leastCPPMinor > minor {
		return engine.RestErr(http.StatusMethodNotAllowed, engine.MsgClientLibOldVersion, ua)
	}
	return nil
}
