package admin

import (
	"net/http"
	"net/http/pprof"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

// registerPprof adds Go's profiles under /debug/pprof/, answered only
// when Options.Profiling is set (404 otherwise). They are a super-user
// operation: a heap or goroutine profile shows message bytes, topic names
// and credentials in flight.
func (a *routeTable) registerPprof() {
	a.Add(Get, "/debug/pprof", OpSuperUser, pprofIndex)
	a.Add(Get, "/debug/pprof/{profile}", OpSuperUser, pprofProfile)
	a.Add(Post, "/debug/pprof/symbol", OpSuperUser, pprofSymbol)
}

// profilingOff answers /debug/pprof/ on a broker without
// Options.Profiling.
func profilingOff() error {
	return engine.RestErr(http.StatusNotFound, "profiling is off: start brokerstub with -pprof (Options.Profiling)")
}

// handlerReply is an answer that an http.Handler writes itself.
type handlerReply struct{ h http.Handler }

// pprofIndex serves the index page at /debug/pprof/; without the final
// slash it redirects there, so that the page's relative links resolve.
func pprofIndex(rq *adminReq) (any, error) {
	if !rq.b.Cfg.Profiling {
		return nil, profilingOff()
	}
	if !strings.HasSuffix(rq.r.URL.Path, "/") {
		return handlerReply{http.RedirectHandler("/debug/pprof/", http.StatusMovedPermanently)}, nil
	}
	return handlerReply{http.HandlerFunc(pprof.Index)}, nil
}

// pprofProfile serves one profile by name: the four of net/http/pprof's own
// handlers, or any runtime/pprof profile (heap, goroutine, allocs, …).
func pprofProfile(rq *adminReq) (any, error) {
	if !rq.b.Cfg.Profiling {
		return nil, profilingOff()
	}
	switch rq.p["profile"] {
	case "cmdline":
		return handlerReply{http.HandlerFunc(pprof.Cmdline)}, nil
	case "profile":
		return handlerReply{http.HandlerFunc(pprof.Profile)}, nil
	case "symbol":
		return handlerReply{http.HandlerFunc(pprof.Symbol)}, nil
	case "trace":
		return handlerReply{http.HandlerFunc(pprof.Trace)}, nil
	}
	return handlerReply{http.HandlerFunc(pprof.Index)}, nil
}

// pprofSymbol serves POST /debug/pprof/symbol (pprof's symbol look-up of
// the addresses in the body).
func pprofSymbol(rq *adminReq) (any, error) {
	if !rq.b.Cfg.Profiling {
		return nil, profilingOff()
	}
	return handlerReply{http.HandlerFunc(pprof.Symbol)}, nil
}
