package brokerstub

import (
	"errors"
	"net/http"

	"github.com/pulsargo/sdk/brokerstub/internal/schema"
)

// getSchema answers with the topic's latest schema, or the version in the
// path, as Pulsar's GetSchemaResponse; 404 when there is none.
func getSchema(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	v := int64(-1)
	if s, ok := rq.p["version"]; ok {
		if v, err = parseInt64(s, "schema version"); err != nil {
			return nil, err
		}
		if v < 0 {
			return nil, restErr(http.StatusNotFound, "Schema not found")
		}
	}
	got, err := rq.b.schemas.Get(schemaID(name), v)
	if errors.Is(err, schema.ErrNotFound) {
		return nil, restErr(http.StatusNotFound, "Schema not found")
	}
	if err != nil {
		return nil, err
	}
	props := got.Schema.Props
	if props == nil {
		props = map[string]string{}
	}
	return map[string]any{
		"version":    got.Version,
		"type":       got.Schema.Type.String(),
		"timestamp":  got.Timestamp,
		"data":       string(got.Schema.Data),
		"properties": props,
	}, nil
}

// deleteSchema deletes the topic's schema (with force, every version;
// otherwise a deletion marker, as Pulsar does) and answers with the version
// the deletion took.
func deleteSchema(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	v, err := rq.b.deleteSchema(name.Full, rq.flag("force"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"version": map[string]any{"version": v}}, nil
}
