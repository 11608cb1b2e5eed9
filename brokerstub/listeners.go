package brokerstub

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
)

// ErrListenerConfig is wrapped by every refusal of Options.AdvertisedListeners,
// InternalListenerName or BindAddresses (Pulsar's advertisedListeners,
// internalListenerName, bindAddresses).
var ErrListenerConfig = errors.New("brokerstub: listeners")

// Listener is a listener name and the URLs lookups that ask for it are
// answered with (one name of Pulsar's advertisedListeners). At least one
// URL is set.
type Listener struct {
	// Name is the listener name clients ask for (the official Go client's
	// ClientOptions.ListenerName): ASCII letters, digits, '_' and '-'.
	Name string
	// BrokerServiceURL ("pulsar://host:port") and BrokerServiceURLTLS
	// ("pulsar+ssl://host:port") answer binary and HTTP lookups.
	BrokerServiceURL, BrokerServiceURLTLS string
	// HTTPURL and HTTPSURL answer an HTTP lookup's httpUrl and httpUrlTls
	// (default: the broker's web service URLs).
	HTTPURL, HTTPSURL string
}

// BindAddress is a binary-protocol port of its own, whose connections'
// lookups are answered for Listener unless they ask for another (one of
// Pulsar's bindAddresses).
type BindAddress struct {
	// Listener is the listener name of the port's connections.
	Listener string
	// Addr is the TCP address to listen on, "host:port".
	Addr string
	// TLS serves the port with Options.TLS (scheme pulsar+ssl).
	TLS bool
}

// unknownListener is Pulsar's text (NamespaceService) for a lookup that
// asks for a listener the broker does not advertise.
func unknownListener(name string) string { return "the broker do not have " + name + " listener" }

var listenerNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// validateListeners checks the listener options as Pulsar's
// MultipleListenerValidator and BindAddressValidator: names of allowed
// characters, one URL per scheme and listener, no host:port advertised
// by two listeners, an internal listener among the advertised ones, and
// pulsar+ssl bind addresses only with TLS.
func (o Options) validateListeners() error {
	seen := map[string]bool{}
	owner := map[string]string{} // host:port -> listener
	for _, l := range o.AdvertisedListeners {
		if !listenerNameRE.MatchString(l.Name) {
			return fmt.Errorf("%w: listener name %q: use ASCII letters, digits, '_' and '-'", ErrListenerConfig, l.Name)
		}
		if seen[l.Name] {
			return fmt.Errorf("%w: there are redundant configure for listener `%s`", ErrListenerConfig, l.Name)
		}
		seen[l.Name] = true
		n := 0
		for scheme, u := range map[string]string{"pulsar": l.BrokerServiceURL, "pulsar+ssl": l.BrokerServiceURLTLS, "http": l.HTTPURL, "https": l.HTTPSURL} {
			if u == "" {
				continue
			}
			n++
			hostPort, err := listenerURL(u, scheme)
			if err != nil {
				return fmt.Errorf("%w: the value %s of listener `%s`: %w", ErrListenerConfig, u, l.Name, err)
			}
			if other, ok := owner[hostPort]; ok && other != l.Name {
				return fmt.Errorf("%w: must not specify `%s` to different listener", ErrListenerConfig, hostPort)
			}
			owner[hostPort] = l.Name
		}
		if n == 0 {
			return fmt.Errorf("%w: listener `%s` has no URL", ErrListenerConfig, l.Name)
		}
	}
	if o.InternalListenerName != "" && !seen[o.InternalListenerName] {
		return fmt.Errorf("%w: the advertised listeners do not contain the internal listener `%s`", ErrListenerConfig, o.InternalListenerName)
	}
	for _, a := range o.BindAddresses {
		if !listenerNameRE.MatchString(a.Listener) {
			return fmt.Errorf("%w: bind address %s: listener name %q", ErrListenerConfig, a.Addr, a.Listener)
		}
		if _, _, err := net.SplitHostPort(a.Addr); err != nil {
			return fmt.Errorf("%w: bind address %q: %w", ErrListenerConfig, a.Addr, err)
		}
		if a.TLS && o.TLS == nil {
			return fmt.Errorf("%w: bind address pulsar+ssl://%s needs TLS (tlsCertificateFilePath or a key store)", ErrListenerConfig, a.Addr)
		}
	}
	return nil
}

// listenerURL checks that u is a scheme://host:port URL and returns its
// host:port.
func listenerURL(u, scheme string) (string, error) {
	p, err := url.Parse(u)
	if err != nil {
		return "", err
	}
	if !strings.EqualFold(p.Scheme, scheme) || p.Hostname() == "" || p.Port() == "" || (p.Path != "" && p.Path != "/") {
		return "", fmt.Errorf("want %s://host:port", scheme)
	}
	return net.JoinHostPort(p.Hostname(), p.Port()), nil
}

// defaultInternalListener is the name of the listener a Pulsar broker
// without advertisedListeners or internalListenerName still has: its own
// address, named as ServiceConfigurationUtils names it.
const defaultInternalListener = "internal"

// internalListener is the listener lookups that name none are answered
// for: Options.InternalListenerName, else the first advertised listener,
// else Pulsar's "internal".
func (o Options) internalListener() string {
	switch {
	case o.InternalListenerName != "":
		return o.InternalListenerName
	case len(o.AdvertisedListeners) > 0:
		return o.AdvertisedListeners[0].Name
	}
	return defaultInternalListener
}

// listener returns the advertised listener called name.
func (b *Broker) listener(name string) (Listener, bool) {
	for _, l := range b.opts.AdvertisedListeners {
		if l.Name == name {
			return l, true
		}
	}
	return Listener{}, false
}

// lookupURLs returns the broker service URLs a lookup for listener name
// is answered with: with no name, the internal listener's (or, with no
// advertised listeners, the broker's own); an unknown name is an error
// with Pulsar's text (answered ServiceNotReady, as Pulsar's
// TopicLookupBase).
func (b *Broker) lookupURLs(name string) (plain, secure string, err error) {
	if strings.TrimSpace(name) == "" {
		// The internal listener, its missing URLs filled from the
		// broker's ports, as Pulsar merges them.
		plain, secure = b.brokerServiceURL(), b.TLSURL()
		if l, ok := b.listener(b.opts.internalListener()); ok && (l.BrokerServiceURL != "" || l.BrokerServiceURLTLS != "") {
			plain, secure = l.BrokerServiceURL, l.BrokerServiceURLTLS
		}
		return plain, secure, nil
	}
	l, ok := b.listener(name)
	if !ok {
		if name == b.opts.internalListener() {
			// Not among the advertised ones: the broker's own address.
			return b.brokerServiceURL(), b.TLSURL(), nil
		}
		return "", "", errors.New(unknownListener(name))
	}
	return l.BrokerServiceURL, l.BrokerServiceURLTLS, nil
}

// listenBindAddresses opens the Options.BindAddresses ports (on the
// addresses bound before, after a restart) and serves them.
func (b *Broker) listenBindAddresses() ([]net.Listener, error) {
	var lns []net.Listener
	for i, a := range b.opts.BindAddresses {
		addr := a.Addr
		if i < len(b.bindAddrs) {
			addr = b.bindAddrs[i]
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			for _, l := range lns {
				_ = l.Close()
			}
			return nil, fmt.Errorf("brokerstub: listen on bind address %s (listener %s): %w", a.Addr, a.Listener, err)
		}
		if a.TLS {
			ln = tls.NewListener(ln, b.opts.TLS)
		}
		lns = append(lns, ln)
	}
	return lns, nil
}

// BindAddressURL returns the URL of the i-th Options.BindAddresses port
// ("pulsar://host:port" or "pulsar+ssl://host:port", the bound address),
// or "" when there is none.
func (b *Broker) BindAddressURL(i int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if i < 0 || i >= len(b.bindAddrs) || i >= len(b.opts.BindAddresses) {
		return ""
	}
	if b.opts.BindAddresses[i].TLS {
		return "pulsar+ssl://" + b.bindAddrs[i]
	}
	return "pulsar://" + b.bindAddrs[i]
}

// listeners reads advertisedListeners, internalListenerName and
// bindAddresses.
func (p *configParser) listeners(o *Options) {
	if v, ok := p.take("advertisedListeners"); ok {
		index := map[string]int{}
		for _, e := range strings.Split(v, ",") {
			e = strings.TrimSpace(e)
			if e == "" {
				continue
			}
			i := strings.Index(e, ":")
			if i <= 0 {
				p.fail("advertisedListeners", v, "entry "+e+" does not contain a listener name (want name:scheme://host:port)")
				return
			}
			name, u := strings.TrimSpace(e[:i]), strings.TrimSpace(e[i+1:])
			j, ok := index[name]
			if !ok {
				j = len(o.AdvertisedListeners)
				index[name] = j
				o.AdvertisedListeners = append(o.AdvertisedListeners, Listener{Name: name})
			}
			l := &o.AdvertisedListeners[j]
			scheme, _, _ := strings.Cut(u, "://")
			var slot *string
			switch strings.ToLower(scheme) {
			case "pulsar":
				slot = &l.BrokerServiceURL
			case "pulsar+ssl":
				slot = &l.BrokerServiceURLTLS
			case "http":
				slot = &l.HTTPURL
			case "https":
				slot = &l.HTTPSURL
			default:
				p.fail("advertisedListeners", v, "the value "+u+": want a pulsar, pulsar+ssl, http or https URL")
				return
			}
			if *slot != "" {
				p.fail("advertisedListeners", v, "there are redundant configure for listener `"+name+"`")
				return
			}
			*slot = u
		}
	}
	o.InternalListenerName = p.str("internalListenerName", "")
	if v, ok := p.take("bindAddresses"); ok {
		for _, e := range strings.Split(v, ",") {
			e = strings.TrimSpace(e)
			if e == "" {
				continue
			}
			name, u, ok := strings.Cut(e, ":")
			if !ok || name == "" {
				p.fail("bindAddresses", v, "entry "+e+" does not contain a listener name (want name:scheme://host:port)")
				return
			}
			a := BindAddress{Listener: strings.TrimSpace(name)}
			scheme, _, _ := strings.Cut(u, "://")
			switch strings.ToLower(scheme) {
			case "pulsar":
			case "pulsar+ssl":
				a.TLS = true
			default:
				p.fail("bindAddresses", v, "the value "+u+": brokerstub binds pulsar and pulsar+ssl addresses (the web service listens on webServicePort and webServicePortTls)")
				return
			}
			hostPort, err := listenerURL(u, strings.ToLower(scheme))
			if err != nil {
				p.failErr("bindAddresses", v, err)
				return
			}
			a.Addr = hostPort
			o.BindAddresses = append(o.BindAddresses, a)
		}
	}
	if p.err == nil {
		if err := o.validateListeners(); err != nil {
			p.failErr("advertisedListeners", o.advertisedListenersString(), err)
		}
	}
}

func (o Options) advertisedListenersString() string {
	var s []string
	for _, l := range o.AdvertisedListeners {
		for _, u := range []string{l.BrokerServiceURL, l.BrokerServiceURLTLS, l.HTTPURL, l.HTTPSURL} {
			if u != "" {
				s = append(s, l.Name+":"+u)
			}
		}
	}
	return strings.Join(s, ",")
}
