package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// officialModule is the client whose own test suite is run, at the version
// the census describes.
const officialModule = "github.com/apache/pulsar-client-go@v0.19.0"

// officialPort and officialHTTPPort are the ports the official tests
// hard-code ("pulsar://localhost:6650", "http://localhost:8080").
const (
	officialPort     = "6650"
	officialHTTPPort = "8080"
	// officialTLSPort and officialHTTPSPort are the TLS ones
	// ("pulsar+ssl://localhost:6651", "https://localhost:8443").
	officialTLSPort   = "6651"
	officialHTTPSPort = "8443"
)

// ports are the stub's four ports the official tests are pointed at.
type ports struct{ broker, http, tls, https string }

// official reports whether ps are the ports the official tests hard-code.
func (ps ports) official() bool {
	return ps == ports{officialPort, officialHTTPPort, officialTLSPort, officialHTTPSPort}
}

// standaloneConf is the broker configuration the official CI starts Pulsar
// with, in the official client's source.
const standaloneConf = "integration-tests/conf/standalone.conf"

// basicAuthUsers is the htpasswd of the basic-auth tests' user (admin,
// password 123456: openssl passwd -apr1 -salt pulsargo 123456).
const basicAuthUsers = "admin:$apr1$pulsargo$4VBDloasO6dghLVvdvKqw/\n"

// adminToken is the official CI's super-user token, which the admin set-up
// presents.
const adminToken = "integration-tests/tokens/admin-token"

// writeConf copies the official standalone.conf to work with the paths its
// Docker image mounts (/pulsar/certs, /pulsar/tokens) pointed at the copy's
// integration-tests directory, and returns its path.
func writeConf(src, work string) (string, error) {
	data, err := os.ReadFile(filepath.Join(src, standaloneConf))
	if err != nil {
		return "", err
	}
	tests := filepath.Join(src, "integration-tests")
	conf := strings.NewReplacer("/pulsar/certs/", tests+"/certs/", "/pulsar/tokens/", tests+"/tokens/").Replace(string(data))
	// The conf names AuthenticationProviderBasic but the official image
	// gives it its users elsewhere; the tests log in as admin/123456.
	htpasswd := filepath.Join(work, ".htpasswd")
	if err := os.WriteFile(htpasswd, []byte(basicAuthUsers), 0o644); err != nil {
		return "", err
	}
	conf += "\nbasicAuthConf=" + htpasswd + "\n"
	path := filepath.Join(work, "standalone.conf")
	return path, os.WriteFile(path, []byte(conf), 0o644)
}

// goEnv is the environment for the go commands run here: the caller's, with
// no workspace (the official client's checkout is its own main module) and
// no toolchain download.
func goEnv() []string { return append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local") }

// goCmd runs the go command in dir, its output to log.
func goCmd(ctx context.Context, log io.Writer, dir string, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, goEnv(), log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// fetchOfficial copies the official client's module source (from the module
// cache, downloaded through the module proxy if it is not there) to
// work/src, writable, and returns that directory.
func fetchOfficial(work string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", officialModule)
	cmd.Dir, cmd.Env = work, goEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w\n%s", officialModule, err, stderr.Bytes())
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil {
		return "", fmt.Errorf("go mod download: %w", err)
	}
	if info.Error != "" || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s", officialModule, info.Error)
	}
	src := filepath.Join(work, "src")
	return src, copyTree(info.Dir, src, nil)
}

// copyTree copies the regular files and directories under from to to,
// writable by their owner (the module cache is read-only), leaving out the
// paths (relative, slash-separated) that skip, when not nil, reports.
func copyTree(from, to string, skip func(rel string) bool) error {
	return filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		if skip != nil && rel != "." && skip(filepath.ToSlash(rel)) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}

// retargetPort rewrites the hard-coded broker ports in the official tests
// of every package in pkgDirs (localhost:6650 and 127.0.0.1:6650, the
// web service's :8080, also the admin client's default URL, and the TLS
// ports :6651 and :8443) to ps.
func retargetPort(src string, ps ports) error {
	if ps.official() {
		return nil
	}
	var files []string
	for _, dir := range pkgDirs {
		fs, err := filepath.Glob(filepath.Join(src, filepath.FromSlash(dir), "*_test.go"))
		if err != nil {
			return err
		}
		files = append(files, fs...)
	}
	// The admin client's default web service URL, which tests that build
	// it from an empty config use.
	for _, f := range []string{"pulsaradmin/pkg/admin/config/config.go", "pulsaradmin/pkg/admin/admin.go"} {
		if _, err := os.Stat(filepath.Join(src, f)); err == nil {
			files = append(files, filepath.Join(src, f))
		}
	}
	var pairs []string
	for _, pp := range [][2]string{{officialPort, ps.broker}, {officialHTTPPort, ps.http}, {officialTLSPort, ps.tls}, {officialHTTPSPort, ps.https}} {
		pairs = append(pairs, "localhost:"+pp[0], "localhost:"+pp[1], "127.0.0.1:"+pp[0], "127.0.0.1:"+pp[1])
	}
	r := strings.NewReplacer(pairs...)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		s := r.Replace(string(data))
		if s != string(data) {
			if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// freeAddr returns a loopback address with a port that is free now and is
// none of the ports in taken: the kernel may hand out a port again once its
// listener closed, and the stub's ports must differ (a port picked twice
// failed a CI run with "bind: address already in use").
func freeAddr(taken ...string) (string, error) {
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", err
		}
		addr := l.Addr().String()
		if err := l.Close(); err != nil {
			return "", err
		}
		if !slices.ContainsFunc(taken, func(t string) bool { return samePort(t, addr) }) {
			return addr, nil
		}
	}
	return "", fmt.Errorf("no free port apart from %v", taken)
}

// samePort reports whether two host:port addresses have the same port.
func samePort(a, b string) bool {
	_, pa, errA := net.SplitHostPort(a)
	_, pb, errB := net.SplitHostPort(b)
	return errA == nil && errB == nil && pa == pb
}

// prepared is what a run needs: the official tests built against the port
// of addr, and the brokerstub binary.
type prepared struct {
	Work     string          // scratch directory
	Src      string          // the module the tests are built in: the official client's writable source, or the pulsargo copy
	PkgDir   string          // the directory of the package under test in Src (the test binary runs there)
	TestBin  string          // that package's test binary (-race)
	Built    map[string]bool // the tests in TestBin
	Stub     string          // cmd/brokerstub
	Conf     string          // the official standalone.conf, paths pointed at Src's copy
	Addr     string          // where the stub listens
	HTTPAddr string          // where its web service (admin API, HTTP lookup) listens
	// TLSAddr and HTTPSAddr are its TLS ports (brokerServicePortTls,
	// webServicePortTls): the official ones beside the official pair, free
	// ports otherwise.
	TLSAddr, HTTPSAddr string
}

// prepare fetches and builds everything into work. The stub is built from
// the github.com/pulsargo/sdk this module replaces (the checkout it is in).
func prepare(ctx context.Context, work, addr, httpAddr string, race bool, client, pkg string, log io.Writer) (*prepared, error) {
	p := &prepared{Work: work, Addr: addr, HTTPAddr: httpAddr,
		TestBin: filepath.Join(work, pkg+".test"), Stub: filepath.Join(work, "brokerstub")}
	var err error
	if p.Src, err = fetchOfficial(work); err != nil {
		return nil, err
	}
	if p.Conf, err = writeConf(p.Src, work); err != nil {
		return nil, err
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	_, httpPort, err := net.SplitHostPort(httpAddr)
	if err != nil {
		return nil, err
	}
	ps := ports{broker: port, http: httpPort, tls: officialTLSPort, https: officialHTTPSPort}
	p.TLSAddr, p.HTTPSAddr = net.JoinHostPort(host, ps.tls), net.JoinHostPort(host, ps.https)
	if port != officialPort {
		if p.TLSAddr, err = freeAddr(addr, httpAddr); err != nil {
			return nil, err
		}
		if p.HTTPSAddr, err = freeAddr(addr, httpAddr, p.TLSAddr); err != nil {
			return nil, err
		}
		_, ps.tls, _ = net.SplitHostPort(p.TLSAddr)
		_, ps.https, _ = net.SplitHostPort(p.HTTPSAddr)
	}
	if client == clientOfficial {
		if err := retargetPort(p.Src, ps); err != nil {
			return nil, err
		}
	}
	// With -race the stub is race-checked too: the official suite drives it
	// harder than its own tests do. -trimpath keeps the build cache valid
	// across work directories.
	stubArgs := []string{"build", "-trimpath", "-o", p.Stub}
	args := []string{"test", "-c", "-trimpath", "-o", p.TestBin}
	if race {
		stubArgs = append(stubArgs, "-race")
		args = append(args, "-race")
	}
	if err := goCmd(ctx, log, "", append(stubArgs, "github.com/pulsargo/sdk/cmd/brokerstub")...); err != nil {
		return nil, err
	}
	if client == clientOfficial {
		err = goCmd(ctx, log, p.Src, append(args, "./"+pkgDirs[pkg])...)
	} else {
		err = preparePulsargo(ctx, p, p.Src, ps, race, log)
	}
	if err != nil {
		return nil, err
	}
	p.PkgDir = filepath.Join(p.Src, filepath.FromSlash(pkgDirs[pkg]))
	if p.Built, err = builtTests(p.TestBin, p.PkgDir); err != nil {
		return nil, err
	}
	return p, nil
}
