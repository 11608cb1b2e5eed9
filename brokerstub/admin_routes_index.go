package brokerstub

import "github.com/pulsargo/sdk/brokerstub/internal/engine"

// routeIndex returns the index of the route that serves method on path,
// as ServeHTTP picks it, -1 for none.
func (a *adminServer) routeIndex(method, path string) int {
	segs, ok := engine.SplitPath(path)
	if !ok {
		return -1
	}
	for i, rt := range a.routes {
		if _, ok := rt.match(segs); ok && rt.method == method {
			return i
		}
	}
	return -1
}
