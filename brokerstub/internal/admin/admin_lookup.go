package admin

import (
	"net/http"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

// lookupTopic answers GET /lookup/v2/topic/{domain}/{tenant}/{ns}/{topic}
// with Pulsar's LookupData: this broker owns every topic. A topic of a
// missing namespace is 404 "Namespace not found", as Pulsar's
// TopicLookupBase answers (namespace_check.go).
func lookupTopic(rq *adminReq) (any, error) {
	name, err := engine.ParseTopic(rq.p["domain"] + "://" + rq.p["tenant"] + "/" + rq.p["ns"] + "/" + rq.p["topic"])
	if err != nil {
		return nil, engine.RestErr(http.StatusPreconditionFailed, "Invalid topic name: %v", err)
	}
	if !rq.b.Eng.NamespaceReady(name) {
		return nil, engine.RestErr(http.StatusNotFound, engine.NsNotFoundReason)
	}
	if !rq.b.Eng.AutoTopicAllowed(name) && !rq.b.Eng.TopicExists(name) && rq.b.Eng.PartitionCount(name.Full) == 0 {
		return nil, engine.RestErr(http.StatusNotFound, "Topic %s does not exist", name.Full)
	}
	name2 := httpLookupListener(rq.r) // listeners.go
	plain, secure, err := rq.b.Hooks.LookupURLs(name2)
	if err != nil {
		return nil, engine.RestErr(http.StatusServiceUnavailable, "%s", err.Error())
	}
	d := lookupData{BrokerURL: plain, BrokerURLTLS: secure, HTTPURL: rq.b.Hooks.WebServiceURL(), NativeURL: plain,
		HTTPURLTLS: rq.b.Hooks.WebServiceTLSURL()}
	if httpURL, httpsURL, ok := rq.b.Hooks.ListenerHTTP(name2); ok && name2 != "" {
		if httpURL != "" {
			d.HTTPURL = httpURL
		}
		if httpsURL != "" {
			d.HTTPURLTLS = httpsURL
		}
	}
	return d, nil
}

// lookupData is Pulsar's LookupData: brokerUrlTls only when the listener
// has a TLS URL; httpUrlTls always, empty without one.
type lookupData struct {
	BrokerURL    string `json:"brokerUrl"`
	BrokerURLTLS string `json:"brokerUrlTls,omitempty"`
	HTTPURL      string `json:"httpUrl"`
	HTTPURLTLS   string `json:"httpUrlTls"`
	NativeURL    string `json:"nativeUrl"`
}

// ListenerHeader is the header an HTTP lookup may name its listener in
// (Pulsar's TopicLookup takes it, or the listenerName query parameter).
const ListenerHeader = "X-Pulsar-ListenerName"

// httpLookupListener returns the listener an HTTP lookup asks for.
func httpLookupListener(r *http.Request) string {
	if n := r.URL.Query().Get("listenerName"); n != "" {
		return n
	}
	return r.Header.Get(ListenerHeader)
}
