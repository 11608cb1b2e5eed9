package brokerstub

// The broker's web service as its public API shows it: the URL and the
// handler of the admin REST API (the advertised host of every URL is
// Broker.advertise, broker.go).

import "net/http"

// WebServiceURL returns the URL of the admin REST API and HTTP lookups,
// "http://host:port" (Pulsar's webServiceUrl), or "" with
// Options.NoListener (use AdminHandler then).
func (b *Broker) WebServiceURL() string {
	if b.api.Admin == nil || b.api.Admin.Addr == "" {
		return ""
	}
	return "http://" + b.advertise(b.api.Admin.Addr)
}

// AdminHandler returns the http.Handler that serves the admin REST API,
// HTTP lookups and /metrics, for tests that serve it themselves (with
// httptest, or under Options.NoListener).
func (b *Broker) AdminHandler() http.Handler { return b.api.Admin }
