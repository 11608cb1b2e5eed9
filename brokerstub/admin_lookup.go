package brokerstub

import (
	"net/http"
)

// lookupTopic answers GET /lookup/v2/topic/{domain}/{tenant}/{ns}/{topic}
// with Pulsar's LookupData: this broker owns every topic.
func lookupTopic(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	if rq.b.opts.DisableAutoTopicCreation && !rq.b.topicExists(name) && rq.b.partitionCount(name.Full) == 0 {
		return nil, restErr(http.StatusNotFound, "Topic %s does not exist", name.Full)
	}
	d := map[string]string{
		"brokerUrl":  rq.b.brokerServiceURL(),
		"httpUrl":    rq.b.WebServiceURL(),
		"nativeUrl":  rq.b.brokerServiceURL(),
		"httpUrlTls": rq.b.WebServiceTLSURL(),
	}
	if u := rq.b.TLSURL(); u != "" {
		d["brokerUrlTls"] = u
	}
	return d, nil
}
