package admin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/policy"
)

// PackageMetadata is Pulsar's PackageMetadata.
type PackageMetadata struct {
	Description      string            `json:"description,omitempty"`
	Contact          string            `json:"contact,omitempty"`
	CreateTime       int64             `json:"createTime,omitempty"`
	ModificationTime int64             `json:"modificationTime,omitempty"`
	Properties       map[string]string `json:"properties,omitempty"`
}

// packageEntry is one stored version: its metadata and size.
type packageEntry struct {
	Meta PackageMetadata `json:"meta"`
	Size int64           `json:"size"`
}

// Store keys of the packages: the index (every version's metadata), and
// each version's bytes.
const (
	packagesIndexKey  = "packages-index"
	packageDataPrefix = "package-data/"
)

// packages serializes the packages API's changes to the store.
type packages struct{ mu sync.Mutex }

func (a *routeTable) registerPackages() {
	const base = "/admin/v3/packages/{type}/{tenant}/{ns}"
	a.Add(Get, base, nsPackages, listPackages)
	a.Add(Get, base+"/{pkg}", nsPackages, listPackageVersions)
	a.Add(Get, base+"/{pkg}/{version}/metadata", nsPackages, getPackageMetadata)
	a.Add(Put, base+"/{pkg}/{version}/metadata", nsPackages, updatePackageMetadata)
	a.Add(Post, base+"/{pkg}/{version}", nsPackages, uploadPackage)
	// An upload's body is bounded by Options.Packages.MaxSize, not the
	// admin API's 1 MiB (room added for the multipart framing and metadata).
	a.routes[len(a.routes)-1].packageBody = true
	a.Add(Get, base+"/{pkg}/{version}", nsPackages, downloadPackage)
	a.Add(Del, base+"/{pkg}/{version}", nsPackages, deletePackage)
}

// packageName checks the request's package name as Pulsar's PackageName
// (412 when bad) and returns "type://tenant/ns/name" and its version.
func (rq *adminReq) packageName(withVersion bool) (string, string, error) {
	typ := rq.p["type"]
	switch typ {
	case "function", "sink", "source":
	default:
		return "", "", engine.RestErr(http.StatusPreconditionFailed, "Invalid package type '%s', it should be function, sink, or source", typ)
	}
	if !rq.b.Cfg.Packages.Enabled {
		return "", "", engine.RestErr(http.StatusServiceUnavailable, "Package Management Service is not enabled in the broker.")
	}
	name := typ + "://" + rq.p["tenant"] + "/" + rq.p["ns"]
	if pkg, ok := rq.p["pkg"]; ok {
		name += "/" + pkg
	}
	v := rq.p["version"]
	if withVersion && (v == "" || strings.ContainsAny(v, "@/")) {
		return "", "", engine.RestErr(http.StatusPreconditionFailed, "Invalid package version '%s'", v)
	}
	return name, v, nil
}

// packageIndex reads the index of stored packages.
func (b *Web) packageIndex() (map[string]packageEntry, policy.KV, error) {
	kv, ok := b.Eng.MetaKV()
	if !ok {
		return nil, nil, errors.New("brokerstub: store cannot keep packages")
	}
	idx := map[string]packageEntry{}
	raw, found, err := kv.GetMeta(packagesIndexKey)
	if err != nil {
		return nil, nil, err
	}
	if found && len(raw) > 0 {
		if err := json.Unmarshal(raw, &idx); err != nil {
			return nil, nil, fmt.Errorf("brokerstub: packages index: %w", err)
		}
	}
	return idx, kv, nil
}

// openPackageIndex locks the packages and reads their index; unlock lets
// them go (call it also when err is not nil).
func (b *Web) openPackageIndex() (idx map[string]packageEntry, kv policy.KV, unlock func(), err error) {
	b.Admin.pkgs.mu.Lock()
	idx, kv, err = b.packageIndex()
	return idx, kv, b.Admin.pkgs.mu.Unlock, err
}

func putPackageIndex(kv policy.KV, idx map[string]packageEntry) error {
	raw, err := json.Marshal(idx)
	if err != nil {
		return err
	}
	return kv.PutMeta(packagesIndexKey, raw)
}

func packageNotFound(full string) error {
	return engine.RestErr(http.StatusNotFound, "Package '%s' metadata does not exist", full)
}

func listPackages(rq *adminReq) (any, error) {
	name, _, err := rq.packageName(false)
	if err != nil {
		return nil, err
	}
	idx, _, unlock, err := rq.b.openPackageIndex()
	defer unlock()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for k := range idx {
		pkg, _, _ := strings.Cut(k, "@")
		if strings.HasPrefix(pkg, name+"/") {
			seen[pkg] = true
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

func listPackageVersions(rq *adminReq) (any, error) {
	name, _, err := rq.packageName(false)
	if err != nil {
		return nil, err
	}
	idx, _, unlock, err := rq.b.openPackageIndex()
	defer unlock()
	if err != nil {
		return nil, err
	}
	out := []string{}
	for k := range idx {
		if pkg, v, _ := strings.Cut(k, "@"); pkg == name {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out, nil
}

func getPackageMetadata(rq *adminReq) (any, error) {
	name, v, err := rq.packageName(true)
	if err != nil {
		return nil, err
	}
	idx, _, unlock, err := rq.b.openPackageIndex()
	defer unlock()
	if err != nil {
		return nil, err
	}
	e, ok := idx[name+"@"+v]
	if !ok {
		return nil, packageNotFound(name + "@" + v)
	}
	return e.Meta, nil
}

func updatePackageMetadata(rq *adminReq) (any, error) {
	name, v, err := rq.packageName(true)
	if err != nil {
		return nil, err
	}
	var m PackageMetadata
	if err := rq.decode(&m); err != nil {
		return nil, err
	}
	idx, kv, unlock, err := rq.b.openPackageIndex()
	defer unlock()
	if err != nil {
		return nil, err
	}
	key := name + "@" + v
	e, ok := idx[key]
	if !ok {
		return nil, packageNotFound(key)
	}
	m.CreateTime = e.Meta.CreateTime
	m.ModificationTime = rq.b.Cfg.Clock.Now().UnixMilli()
	e.Meta = m
	idx[key] = e
	return nil, putPackageIndex(kv, idx)
}

// uploadPackage stores a multipart upload: the part "file" is the
// package, the part "metadata" its PackageMetadata JSON (pulsaradmin's
// Packages().Upload sends both).
func uploadPackage(rq *adminReq) (any, error) {
	name, v, err := rq.packageName(true)
	if err != nil {
		return nil, err
	}
	file, meta, err := readPackageUpload(rq, rq.b.Cfg.Packages.MaxSize)
	if err != nil {
		return nil, err
	}
	idx, kv, unlock, err := rq.b.openPackageIndex()
	defer unlock()
	if err != nil {
		return nil, err
	}
	key := name + "@" + v
	if _, ok := idx[key]; ok {
		return nil, engine.RestErr(http.StatusInternalServerError, "Package '%s' metadata already exists", key)
	}
	var total int64
	for _, e := range idx {
		total += e.Size
	}
	if lim := rq.b.Cfg.Packages.MaxTotalSize; total+int64(len(file)) > lim {
		return nil, engine.RestErr(http.StatusRequestEntityTooLarge, "packages would take %d bytes, more than Options.Packages.MaxTotalSize (%d); delete some first",
			total+int64(len(file)), lim)
	}
	now := rq.b.Cfg.Clock.Now().UnixMilli()
	meta.CreateTime, meta.ModificationTime = now, now
	if err := kv.PutMeta(packageDataPrefix+key, file); err != nil {
		return nil, err
	}
	idx[key] = packageEntry{Meta: meta, Size: int64(len(file))}
	return nil, putPackageIndex(kv, idx)
}

// readPackageUpload reads the multipart body (already bounded by the
// route's maxBody): the file, at most maxSize bytes (else 413), and the
// metadata.
func readPackageUpload(rq *adminReq, maxSize int64) ([]byte, PackageMetadata, error) {
	var meta PackageMetadata
	mt, params, err := mime.ParseMediaType(rq.r.Header.Get("Content-Type"))
	if err != nil || !strings.HasPrefix(mt, "multipart/") || params["boundary"] == "" {
		return nil, meta, engine.RestErr(http.StatusUnsupportedMediaType, "an upload is multipart/form-data with the parts \"file\" and \"metadata\"")
	}
	mr := multipart.NewReader(bytes.NewReader(rq.body), params["boundary"])
	var file []byte
	gotFile := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, meta, engine.RestErr(http.StatusBadRequest, "bad multipart body: %v", err)
		}
		switch part.FormName() {
		case "file":
			file, err = io.ReadAll(io.LimitReader(part, maxSize+1))
			if err != nil {
				return nil, meta, engine.RestErr(http.StatusBadRequest, "bad multipart body: %v", err)
			}
			if int64(len(file)) > maxSize {
				return nil, meta, engine.RestErr(http.StatusRequestEntityTooLarge, "package larger than Options.Packages.MaxSize (%d bytes)", maxSize)
			}
			gotFile = true
		case "metadata":
			raw, err := io.ReadAll(io.LimitReader(part, maxAdminBody))
			if err != nil {
				return nil, meta, engine.RestErr(http.StatusBadRequest, "bad multipart body: %v", err)
			}
			if err := json.Unmarshal(raw, &meta); err != nil {
				return nil, meta, engine.RestErr(http.StatusBadRequest, "Cannot parse the package metadata: %v", err)
			}
		}
	}
	if !gotFile {
		return nil, meta, engine.RestErr(http.StatusBadRequest, "the upload has no \"file\" part")
	}
	return file, meta, nil
}

func downloadPackage(rq *adminReq) (any, error) {
	name, v, err := rq.packageName(true)
	if err != nil {
		return nil, err
	}
	idx, kv, unlock, err := rq.b.openPackageIndex()
	defer unlock()
	if err != nil {
		return nil, err
	}
	key := name + "@" + v
	if _, ok := idx[key]; !ok {
		return nil, engine.RestErr(http.StatusNotFound, "Package '%s' does not exist", key)
	}
	data, _, err := kv.GetMeta(packageDataPrefix + key)
	if err != nil {
		return nil, err
	}
	return rawReply{contentType: "application/octet-stream", body: data}, nil
}

func deletePackage(rq *adminReq) (any, error) {
	name, v, err := rq.packageName(true)
	if err != nil {
		return nil, err
	}
	idx, kv, unlock, err := rq.b.openPackageIndex()
	defer unlock()
	if err != nil {
		return nil, err
	}
	key := name + "@" + v
	if _, ok := idx[key]; !ok {
		return nil, packageNotFound(key)
	}
	delete(idx, key)
	if err := putPackageIndex(kv, idx); err != nil {
		return nil, err
	}
	return nil, kv.PutMeta(packageDataPrefix+key, nil)
}
