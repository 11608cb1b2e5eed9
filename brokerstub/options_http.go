package brokerstub

import (
	"math"
	"strconv"
	"time"
)

// HTTPLimits bound the admin web service (its plain and TLS ports alike)
// as Pulsar's WebService does with Jetty's filters and connection limit.
// The zero value has Pulsar's defaults.
type HTTPLimits struct {
	// MaxRequestSize refuses, with 400 Bad Request, a request whose
	// Content-Length is larger or whose body is chunked (its size unknown),
	// as Pulsar's MaxRequestSizeFilter (httpMaxRequestSize). Default 0: no
	// limit, as Pulsar's -1 (bodies stay bounded at 1 MiB, answered 413).
	MaxRequestSize int64
	// RequestsPerSecond refuses requests beyond this rate with 429 Too
	// Many Requests, as Pulsar's RateLimitingFilter (httpRequestsLimitEnabled
	// with httpRequestsMaxPerSecond): a token bucket that holds up to one
	// second of requests (at least one) and starts with one, as Guava's
	// RateLimiter. Default 0: no limit (Pulsar's httpRequestsLimitEnabled
	// is false).
	RequestsPerSecond float64
	// MaxConcurrentRequests is how many requests are served at once, as
	// Pulsar's QoSFilter (maxConcurrentHttpRequests); one more waits for a
	// slot up to ConcurrencyWait and is then answered 503 Service
	// Unavailable. Default 1024, as Pulsar's; negative: no limit.
	MaxConcurrentRequests int
	// ConcurrencyWait is how long a request over MaxConcurrentRequests
	// waits (Jetty's asynchronous timeout). Default 30 s.
	ConcurrencyWait time.Duration
	// MaxConnections is how many HTTP connections are open at once, as
	// Jetty's ConnectionLimit (maxHttpServerConnections): past it no
	// connection is accepted (they wait in the listen backlog) until one
	// closes. Default 2048, as Pulsar's; negative: no limit.
	MaxConnections int
	// DisableDebugMethods answers TRACE and TRACK with 405 Method Not
	// Allowed whatever the path, as Pulsar's DisableDebugHttpMethodFilter
	// (disableHttpDebugMethods). Default false.
	DisableDebugMethods bool
}

func (l HTTPLimits) withDefaults() HTTPLimits {
	if l.MaxConcurrentRequests == 0 {
		l.MaxConcurrentRequests = 1024
	}
	if l.ConcurrencyWait <= 0 {
		l.ConcurrencyWait = 30 * time.Second
	}
	if l.MaxConnections == 0 {
		l.MaxConnections = 2048
	}
	return l
}

// httpLimits reads Pulsar's HTTP limit keys into Options.HTTPLimits.
func (p *configParser) httpLimits(o *Options) {
	l := &o.HTTPLimits
	if v, ok := p.take("httpMaxRequestSize"); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < -1 {
			p.fail("httpMaxRequestSize", v, "want a number of bytes, or -1 for no limit")
		} else if n > 0 {
			l.MaxRequestSize = n
		}
	}
	rate := 100.0 // Pulsar's httpRequestsMaxPerSecond
	if v, ok := p.take("httpRequestsMaxPerSecond"); ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0) || math.IsInf(f, 0) {
			p.fail("httpRequestsMaxPerSecond", v, "want a number of requests per second > 0")
		} else {
			rate = f
		}
	}
	if p.bool("httpRequestsLimitEnabled", false) {
		l.RequestsPerSecond = rate
	}
	if n := p.int("maxConcurrentHttpRequests", 1024, -1<<31); n <= 0 {
		l.MaxConcurrentRequests = -1
	} else {
		l.MaxConcurrentRequests = int(n)
	}
	if n := p.int("maxHttpServerConnections", 2048, -1<<31); n <= 0 {
		l.MaxConnections = -1
	} else {
		l.MaxConnections = int(n)
	}
	l.DisableDebugMethods = p.bool("disableHttpDebugMethods", false)
}
