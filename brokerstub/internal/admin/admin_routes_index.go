package admin

import "github.com/pulsargo/sdk/brokerstub/internal/engine"

// RouteIndex returns the index of the route that serves method on path,
// as ServeHTTP picks it, -1 for none.
func (a *Server) RouteIndex(method, path string) int {
	segs, ok := engine.SplitPath(path)
	if !ok {
		return -1
	}
	for i, rt := range a.Routes {
		if _, ok := rt.Match(segs); ok && rt.Method == method {
			return i
		}
	}
	return -1
}
