package admin

import (
	"net"
	"net/http"
	"slices"
	"strconv"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/policy"
)

// clusterData is Pulsar's ClusterData; the TLS URLs only when the broker
// has TLS ports, peerClusterNames always null.
type clusterData struct {
	ServiceURL          string   `json:"serviceUrl"`
	BrokerServiceURL    string   `json:"brokerServiceUrl"`
	ServiceURLTLS       string   `json:"serviceUrlTls,omitempty"`
	BrokerServiceURLTLS string   `json:"brokerServiceUrlTls,omitempty"`
	PeerClusterNames    []string `json:"peerClusterNames"`
}

// clusterData is Pulsar's ClusterData for the broker's own cluster, from
// its live addresses.
func (b *Web) clusterData() clusterData {
	return clusterData{ServiceURL: b.Hooks.WebServiceURL(), BrokerServiceURL: b.Hooks.BrokerServiceURL(),
		ServiceURLTLS: b.Hooks.WebServiceTLSURL(), BrokerServiceURLTLS: b.Hooks.TLSURL()}
}

// brokerID is the broker's id as Pulsar names it: advertised host and web
// service port.
func (b *Web) brokerID() string {
	if b.Admin != nil && b.Admin.Addr != "" {
		return b.Hooks.Advertise(b.Admin.Addr)
	}
	return b.Hooks.Advertise(b.Hooks.Addr())
}

func getClusters(rq *adminReq) (any, error) { return rq.b.Eng.Pol().Clusters(), nil }

func getCluster(rq *adminReq) (any, error) {
	name := rq.p["cluster"]
	raw, err := rq.b.Eng.Pol().Cluster(name)
	if err != nil {
		return nil, err
	}
	if name == rq.b.Cfg.ClusterName {
		return rq.b.clusterData(), nil
	}
	return raw, nil
}

func getTenants(rq *adminReq) (any, error) { return rq.b.Eng.Pol().Tenants(), nil }

func getTenant(rq *adminReq) (any, error) { return rq.b.Eng.Pol().Tenant(rq.p["tenant"]) }

func putTenant(rq *adminReq) (any, error) {
	name := rq.p["tenant"]
	if !engine.ValidName(name) {
		return nil, engine.RestErr(http.StatusPreconditionFailed, "Tenant name is not valid")
	}
	var t policy.Tenant
	if err := rq.decode(&t); err != nil {
		return nil, err
	}
	if err := rq.b.Eng.RefuseNewTenant(); err != nil { // tenant_limits.go: before 409, as Pulsar
		return nil, err
	}
	return nil, rq.b.Eng.Pol().CreateTenant(name, t)
}

func postTenant(rq *adminReq) (any, error) {
	var t policy.Tenant
	if err := rq.decode(&t); err != nil {
		return nil, err
	}
	return nil, rq.b.Eng.Pol().UpdateTenant(rq.p["tenant"], t)
}

func deleteTenant(rq *adminReq) (any, error) {
	tenant := rq.p["tenant"]
	if err := rq.b.Eng.RefuseForceDeleteTenant(rq.flag("force")); err != nil { // tenant_limits.go
		return nil, err
	}
	if rq.flag("force") {
		nss, err := rq.b.Eng.Pol().Namespaces(tenant)
		if err != nil {
			return nil, err
		}
		for _, ns := range nss {
			if err := rq.b.deleteNamespaceTopics(ns); err != nil {
				return nil, err
			}
		}
	}
	return nil, rq.b.Eng.Pol().DeleteTenant(tenant, rq.flag("force"))
}

// getBrokers lists the active brokers of a cluster: this one.
func getBrokers(rq *adminReq) (any, error) {
	if c, ok := rq.p["cluster"]; ok {
		if _, err := rq.b.Eng.Pol().Cluster(c); err != nil {
			return nil, err
		}
	}
	return []string{rq.b.brokerID()}, nil
}

// leaderBroker is Pulsar's LeaderBroker.
type leaderBroker struct {
	ServiceURL string `json:"serviceUrl"`
	BrokerID   string `json:"brokerId"`
}

func getLeaderBroker(rq *adminReq) (any, error) {
	return leaderBroker{ServiceURL: rq.b.Hooks.WebServiceURL(), BrokerID: rq.b.brokerID()}, nil
}

// healthCheck answers "ok" as Pulsar's brokers/health does once the broker
// serves its topics: it checks that a topic goroutine answers.
func healthCheck(rq *adminReq) (any, error) {
	name, err := engine.ParseTopic("persistent://pulsar/system/healthcheck")
	if err != nil {
		return nil, err
	}
	t, err := rq.b.Eng.GetTopic(name, true)
	if err != nil {
		return nil, err
	}
	if err := t.Call(func() {}); err != nil {
		return nil, err
	}
	return rawReply{contentType: "text/plain", body: []byte("ok")}, nil
}

// internalConfiguration is Pulsar's InternalConfigurationData: brokerstub
// has no metadata store, so its URLs are empty.
type internalConfiguration struct {
	ZookeeperServers              string `json:"zookeeperServers"`
	ConfigurationMetadataStoreURL string `json:"configurationMetadataStoreUrl"`
	ClusterName                   string `json:"clusterName"`
	AdvertisedAddress             string `json:"advertisedAddress"`
}

func getInternalConfig(rq *adminReq) (any, error) {
	host, _, _ := net.SplitHostPort(rq.b.Hooks.Advertise(rq.b.Hooks.Addr()))
	return internalConfiguration{ClusterName: rq.b.Cfg.ClusterName, AdvertisedAddress: host}, nil
}

// dynamicConfigNames are the broker settings the admin API accepts as
// dynamic configuration. Values are stored and returned; they do not
// change the running broker (see the README).
var dynamicConfigNames = []string{
	"allowAutoSubscriptionCreation", "allowAutoTopicCreation", "allowAutoTopicCreationType",
	"defaultNumPartitions", "backlogQuotaCheckIntervalInSeconds", "brokerDeleteInactiveTopicsEnabled",
	"dispatchThrottlingRatePerTopicInMsg", "maxUnackedMessagesPerConsumer", "maxUnackedMessagesPerSubscription",
	"subscriptionExpirationTimeMinutes", "ttlDurationDefaultInSeconds", "loadBalancerEnabled",
}

func getDynamicNames(*adminReq) (any, error) { return dynamicConfigNames, nil }

func getDynamicValues(rq *adminReq) (any, error) { return rq.b.Eng.Pol().DynamicConfig(), nil }

func setDynamicConfig(rq *adminReq) (any, error) {
	name := rq.p["name"]
	if !slices.Contains(dynamicConfigNames, name) {
		return nil, engine.RestErr(http.StatusPreconditionFailed, "Can't update non-dynamic configuration %s", name)
	}
	v := rq.p["value"]
	if err := rq.b.Eng.Pol().SetDynamicConfig(name, &v); err != nil {
		return nil, err
	}
	return rawReply{contentType: "application/json"}, nil // Pulsar answers 200
}

func deleteDynamicConfig(rq *adminReq) (any, error) {
	if !slices.Contains(dynamicConfigNames, rq.p["name"]) {
		return nil, engine.RestErr(http.StatusPreconditionFailed, "Can't delete non-dynamic configuration %s", rq.p["name"])
	}
	return nil, rq.b.Eng.Pol().SetDynamicConfig(rq.p["name"], nil)
}

// getRuntimeConfig returns the settings in effect, as strings.
func getRuntimeConfig(rq *adminReq) (any, error) {
	o := rq.b.Cfg
	out := map[string]string{
		"clusterName":                            o.ClusterName,
		"maxMessageSize":                         strconv.Itoa(o.MaxMessageSize),
		"allowAutoTopicCreation":                 strconv.FormatBool(!o.DisableAutoTopicCreation),
		"defaultNumPartitions":                   strconv.Itoa(max(o.AutoTopicCreationPartitions, 1)),
		"managedLedgerMaxEntriesPerLedger":       strconv.Itoa(o.LedgerRolloverEntries),
		"managedLedgerCacheSizeMB":               strconv.FormatInt(max(o.EntryCacheSize, 0)>>20, 10),
		"acknowledgmentAtBatchIndexLevelEnabled": strconv.FormatBool(!o.DisableBatchIndexAck),
		"keepAliveIntervalSeconds":               strconv.Itoa(int(o.KeepAliveInterval.Seconds())),
	}
	out["allowAutoTopicCreationType"] = "non-partitioned"
	if o.AutoTopicCreationPartitions > 0 {
		out["allowAutoTopicCreationType"] = "partitioned"
	}
	for k, v := range rq.b.Eng.Pol().DynamicConfig() {
		out[k] = v
	}
	return out, nil
}
