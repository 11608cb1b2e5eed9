package admin

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/console"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

// The web console (Options.Console): its routes are lines of the admin
// route table, each with the Pulsar operation it is, so that who may see
// what is decided as for the admin API. consoleSource is what the console
// reads: every snapshot is taken by the topic's goroutine, only when a
// page asks (a live page polls while it is open), and holds the admin gate
// for its duration only, so that a Restart never waits for an open page.

// registerConsole adds the console's routes, answered only with
// Options.Console (404 otherwise, as /debug/pprof without Profiling). The
// page and its assets hold no state and are served without credentials
// (the script sends the user's own with every data request); whoami and
// the overview need an authenticated role (the overview lists only what
// the role may list and read, and names the rest); the topic page needs
// GET_STATS; the cursor and Key_Shared pages and the message browser show
// message keys or bodies, so they need PEEK_MESSAGES (consume, and the
// subscription's roles).
func (a *routeTable) registerConsole() {
	const api = "/console/api"
	const topic = "/{domain}/{tenant}/{ns}/{topic}"
	a.Add(Get, "/console", opOpen, consoleOn(func(rq *adminReq) http.Handler { return rq.b.console.Page() }))
	a.Add(Get, "/console/{asset}", opOpen, consoleOn(func(rq *adminReq) http.Handler { return rq.b.console.Asset(rq.p["asset"]) }))
	a.Add(Get, api+"/whoami", opAuthenticated, consoleOn(func(rq *adminReq) http.Handler { return rq.b.console.Whoami(rq.b.whoami(rq.role)) }))
	a.Add(Get, api+"/overview", opAuthenticated, consoleOn(func(rq *adminReq) http.Handler { return rq.b.console.Overview(rq.role) }))
	a.Add(Get, api+"/topic"+topic, topicGetStats, consoleTopic(func(n string, rq *adminReq) http.Handler { return rq.b.console.Topic(n) }))
	a.Add(Get, api+"/cursor"+topic+"/{sub}", TopicPeekMessages, consoleTopic(func(n string, rq *adminReq) http.Handler { return rq.b.console.Cursor(n, rq.p["sub"]) }))
	a.Add(Get, api+"/keyshared"+topic+"/{sub}", TopicPeekMessages, consoleTopic(func(n string, rq *adminReq) http.Handler { return rq.b.console.KeyShared(n, rq.p["sub"]) }))
	a.Add(Get, api+"/messages"+topic, TopicPeekMessages, consoleTopic(func(n string, rq *adminReq) http.Handler { return rq.b.console.Messages(n) }))
}

// unlockedReply is an answer an http.Handler writes outside the admin
// gate (admin_server.go): a console stream can last as long as a page is
// open, and must not hold a Restart back.
type unlockedReply struct{ h http.Handler }

// consoleOn serves a console handler when Options.Console is set.
func consoleOn(h func(rq *adminReq) http.Handler) adminHandler {
	return func(rq *adminReq) (any, error) {
		if !rq.b.Cfg.Console {
			return nil, engine.RestErr(http.StatusNotFound, "the console is off: start brokerstub without -console=false (Options.Console)")
		}
		return unlockedReply{h(rq)}, nil
	}
}

// consoleTopic serves a console view of the route's topic.
func consoleTopic(h func(topic string, rq *adminReq) http.Handler) adminHandler {
	return consoleOn(func(rq *adminReq) http.Handler {
		name, err := rq.topic()
		if err != nil {
			var re *engine.RestError
			if !errors.As(err, &re) {
				re = mapError(err)
			}
			return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { writeError(w, re) })
		}
		return h(name.Full, rq)
	})
}

// whoami says who role is to the broker.
func (b *Web) whoami(role string) console.Whoami {
	w := console.Whoami{Role: role, Authentication: b.Eng.AuthEnabled(), Authorization: b.Eng.AuthzOn()}
	w.SuperUser = !b.Eng.AuthzOn() || b.Eng.IsSuperUser(role)
	for _, t := range b.Eng.Pol().Tenants() {
		if tn, err := b.Eng.Pol().Tenant(t); err == nil && role != "" && slices.Contains(tn.AdminRoles, role) {
			w.TenantAdmin = append(w.TenantAdmin, t)
		}
	}
	return w
}

// consoleSource implements console.Source.
type consoleSource struct{ b *Web }

// guard holds the admin gate for one snapshot; it fails with
// console.ErrGone once the broker is closed.
func (s consoleSource) guard() (func(), error) {
	s.b.Admin.gate.RLock()
	if s.b.Hooks.IsClosed() {
		s.b.Admin.gate.RUnlock()
		return nil, fmt.Errorf("%w: %w", console.ErrGone, engine.ErrClosed)
	}
	return s.b.Admin.gate.RUnlock, nil
}

// problem turns an admin error into the console's.
func problem(err error) error {
	var re *engine.RestError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, engine.ErrClosed):
		return fmt.Errorf("%w: %w", console.ErrGone, err)
	case errors.As(err, &re):
		return &console.Problem{Status: re.Code, Reason: re.Reason}
	}
	re = mapError(err)
	return &console.Problem{Status: re.Code, Reason: re.Reason}
}

// onTopic runs f on the goroutine of the named topic (loading it if it is
// stored, as the admin API's stats do).
func (s consoleSource) onTopic(full string, f func(t *engine.Topic)) error {
	release, err := s.guard()
	if err != nil {
		return err
	}
	defer release()
	name, err := engine.ParseTopic(full)
	if err != nil {
		return &console.Problem{Status: http.StatusPreconditionFailed, Reason: err.Error()}
	}
	return problem((&adminReq{b: s.b}).onTopic(name, func(t *engine.Topic) { f(t) }))
}

func (s consoleSource) Overview(role string) (console.Overview, error) {
	out := console.Overview{Who: s.b.whoami(role), Tenants: []console.Tenant{}}
	release, err := s.guard()
	if err != nil {
		return out, err
	}
	defer release()
	b := s.b
	allow := func(op adminOp, t adminTarget) *engine.RestError {
		if !b.Eng.AuthzOn() {
			return nil
		}
		return b.authorizeAdmin(role, op, t)
	}
	// Loaded topics by namespace; stored ones that are not loaded are
	// listed without opening them.
	loaded := map[string]*engine.Topic{}
	for _, t := range b.Eng.LoadedTopics() {
		loaded[t.TopicName().Full] = t
	}
	byNS := map[string][]string{}
	for _, full := range b.Eng.TopicNames() {
		if n, err := engine.ParseTopic(full); err == nil {
			byNS[n.Namespace] = append(byNS[n.Namespace], full)
		}
	}
	tenants := b.Eng.Pol().Tenants()
	slices.Sort(tenants)
	for _, tn := range tenants {
		ct := console.Tenant{Name: tn, Namespaces: []console.Namespace{}}
		if ten, err := b.Eng.Pol().Tenant(tn); err == nil {
			ct.AdminRoles = ten.AdminRoles
		}
		nss, _ := b.Eng.Pol().Namespaces(tn)
		slices.Sort(nss)
		for _, ns := range nss {
			tgt := adminTarget{tenant: tn, namespace: ns}
			if re := allow(nsGetTopics, tgt); re != nil {
				out.Refused = append(out.Refused, console.Refusal{What: "topics of " + ns, Operation: nsGetTopics.String(), Reason: re.Reason})
				continue
			}
			cn := console.Namespace{Name: ns, Topics: []console.TopicSummary{}}
			if re := allow(nsPolicyRead, tgt); re != nil {
				cn.PoliciesRefused = nsPolicyRead.String() + ": " + re.Reason
			} else if pol, _, err := b.Eng.Pol().Policies(ns); err == nil {
				cn.Policies = setPolicies(pol)
			}
			names := byNS[ns]
			slices.Sort(names)
			for _, full := range names {
				tgt.topic = full
				if re := allow(topicGetStats, tgt); re != nil {
					out.Refused = append(out.Refused, console.Refusal{What: full, Operation: topicGetStats.String(), Reason: re.Reason})
					continue
				}
				cn.Topics = append(cn.Topics, s.summary(full, loaded[full]))
			}
			ct.Namespaces = append(ct.Namespaces, cn)
		}
		out.Tenants = append(out.Tenants, ct)
	}
	return out, nil
}

// setPolicies keeps the namespace policies that are set (not null, empty
// or zero), for the overview to list what is in force.
func setPolicies(pol map[string]json.RawMessage) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for k, v := range pol {
		switch strings.TrimSpace(string(v)) {
		case "", "null", "{}", "[]", "0", "false", `""`:
			continue
		}
		out[k] = v
	}
	return out
}

// topicPolicies returns the topic-level policies set on full.
func (b *Web) topicPolicies(full string) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	for name := range engine.TopicPolicyNames {
		if v, ok := b.Eng.Pol().TopicPolicy(full, name); ok {
			if out == nil {
				out = map[string]json.RawMessage{}
			}
			out[name] = v
		}
	}
	return out
}

// summary is a topic's overview line; an unloaded topic is not opened.
func (s consoleSource) summary(full string, t *engine.Topic) console.TopicSummary {
	ts := console.TopicSummary{Name: full, Policies: s.b.topicPolicies(full)}
	if t == nil {
		return ts
	}
	_ = t.Call(func() {
		t.Prune()
		c := t.Counts()
		ts.Loaded = true
		ts.Producers, ts.Subscriptions, ts.Consumers = c.Producers, c.Subscriptions, c.Consumers
		ts.MsgIn, ts.MsgOut = c.MsgIn, c.MsgOut
		ts.StorageSize, ts.Entries, ts.Backlog = c.StorageSize, c.Entries, c.Backlog
	})
	return ts
}

func (s consoleSource) Topic(full string) (console.Topic, error) {
	var out console.Topic
	err := s.onTopic(full, func(t *engine.Topic) { out = t.ConsoleTopic(full) })
	if err != nil {
		return out, err
	}
	out.Policies = s.b.topicPolicies(full)
	if v, err := s.b.Eng.SchemaRegistry().Get(engine.SchemaID(mustParse(full)), -1); err == nil {
		out.Schema = v.Schema.Type.String()
	}
	return out, nil
}

func mustParse(full string) engine.TopicName {
	n, _ := engine.ParseTopic(full)
	return n
}

// subOf returns the named subscription or the console's 404.
func subOf(t *engine.Topic, sub string) (*engine.Subscription, error) {
	if s := t.Subscription(sub); s != nil {
		return s, nil
	}
	return nil, &console.Problem{Status: http.StatusNotFound, Reason: "Subscription " + sub + " not found on " + t.TopicName().Full}
}

// maxConsoleEntry is the largest payload the message browser copies out
// of a topic, maxConsolePage the most it copies for one page; an entry
// beyond either is listed without its messages.
const (
	maxConsoleEntry = 4 << 20
	maxConsolePage  = 16 << 20
)

func (s consoleSource) Messages(full, from string, n int) (console.Messages, error) {
	out := console.Messages{Topic: full, From: from, Entries: []console.Entry{}}
	start := ledger.Position{}
	if from != "" {
		p, err := parseConsolePos(from)
		if err != nil {
			return out, err
		}
		start = p
	}
	var page engine.LedgerPage
	err := s.onTopic(full, func(t *engine.Topic) {
		page = t.ReadPage(start, from == "", n, maxConsoleEntry, maxConsolePage)
	})
	if err != nil {
		return out, err
	}
	out.First, out.Last, out.Prev, out.Next = page.First, page.Last, page.Prev, page.Next
	if out.From == "" {
		out.From = out.First
	}
	if v, err := s.b.Eng.SchemaRegistry().Get(engine.SchemaID(mustParse(full)), -1); err == nil {
		out.Schema, out.SchemaData = v.Schema.Type.String(), v.Schema.Data
	}
	got := page.Entries
	for i := range got {
		e := console.DecodeEntry(engine.PosString(got[i].Pos), got[i].Meta, got[i].Body, got[i].Size)
		got[i].Body = nil
		e.Decode(out.Schema, out.SchemaData)
		out.Entries = append(out.Entries, e)
	}
	return out, nil
}

func parseConsolePos(s string) (ledger.Position, error) {
	l, e, ok := strings.Cut(s, ":")
	li, err1 := strconv.ParseInt(l, 10, 64)
	ei, err2 := strconv.ParseInt(e, 10, 64)
	if !ok || err1 != nil || err2 != nil || li < 0 || ei < 0 {
		return ledger.Position{}, &console.Problem{Status: http.StatusBadRequest, Reason: fmt.Sprintf("position %q: want ledger:entry", s)}
	}
	return ledger.Position{Ledger: li, Entry: ei}, nil
}
