package brokerstub

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// readKeyList reads a testdata/pulsarconf key list: "# " lines are
// comments; a key written "#key" is commented out in its file.
func readKeyList(t *testing.T, name string) (keys, commented []string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "pulsarconf", name))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case line == "" || strings.HasPrefix(line, "# "):
		case strings.HasPrefix(line, "#"):
			commented = append(commented, line[1:])
		default:
			keys = append(keys, line)
		}
	}
	return keys, commented
}

// censusSources maps a census source to its key list in testdata.
var censusSources = map[string]string{
	"standalone": "standalone.conf.keys",
	"broker":     "broker.conf.keys",
	"official":   "official-standalone.conf.keys",
}

// TestConfigCensusCoversPulsarFiles fails when a key of Pulsar's
// standalone.conf or broker.conf (or the official suite's standalone.conf)
// is in no class of the census, and when a census row claims a source that
// does not have the key.
func TestConfigCensusCoversPulsarFiles(t *testing.T) {
	c, err := census()
	if err != nil {
		t.Fatal(err)
	}
	inList := map[string]map[string]bool{}
	for src, file := range censusSources {
		keys, commented := readKeyList(t, file)
		if len(keys) < 50 {
			t.Fatalf("%s has %d keys; the list is truncated", file, len(keys))
		}
		inList[src], inList[src+"#"] = map[string]bool{}, map[string]bool{}
		for _, k := range keys {
			inList[src][k] = true
		}
		for _, k := range commented {
			inList[src+"#"][k] = true
		}
		for _, k := range slices.Concat(keys, commented) {
			row := c.byKey[k]
			if row == nil {
				t.Errorf("%s: key %s is in no class of configkeys.tsv (add it: honoured, no-effect or not-supported, with the reason)", file, k)
				continue
			}
			if !slices.Contains(row.Sources, src) && !slices.Contains(row.Sources, src+"#") {
				t.Errorf("%s: key %s is in the file but its census sources are %v", file, k, row.Sources)
			}
		}
	}
	for _, row := range c.rows {
		for _, s := range row.Sources {
			if m, ok := inList[s]; ok && !m[row.Key] {
				t.Errorf("census: %s names source %s, whose key list lacks it", row.Key, s)
			}
		}
	}
}

// censusProbe holds the companion keys and values with which a key's
// effect can be seen: a TLS file counts only with a TLS port, a token
// claim only with the token provider.
type censusProbe struct {
	ctx    map[string]string
	values []string
}

func censusProbes(t *testing.T) map[string]censusProbe {
	files := newTestPKI(t).writeFiles()
	tlsCtx := map[string]string{"brokerServicePortTls": "0", "tlsCertificateFilePath": files.CertFile,
		"tlsKeyFilePath": files.KeyFile, "tlsTrustCertsFilePath": files.TrustCertsFile}
	const tokenClass = "org.apache.pulsar.broker.authentication.AuthenticationProviderToken"
	tokenCtx := map[string]string{"authenticationProviders": tokenClass}
	claimCtx := map[string]string{"authenticationProviders": tokenClass,
		"tokenSecretKey": "data:;base64,c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA=="}
	missing := filepath.Join(t.TempDir(), "missing.pem")
	p := map[string]censusProbe{}
	for _, k := range []string{"tlsCertificateFilePath", "tlsKeyFilePath", "tlsTrustCertsFilePath"} {
		p[k] = censusProbe{tlsCtx, []string{missing}}
	}
	for _, k := range []string{"tlsRequireTrustedClientCertOnConnect", "tlsAllowInsecureConnection"} {
		p[k] = censusProbe{tlsCtx, []string{"true", "x"}}
	}
	p["tokenSecretKey"] = censusProbe{tokenCtx, []string{"data:;base64,a2V5"}}
	p["tokenPublicKey"] = censusProbe{tokenCtx, []string{"data:;base64,a2V5"}}
	for _, k := range []string{"tokenAuthClaim", "tokenAudience", "tokenAudienceClaim"} {
		p[k] = censusProbe{claimCtx, []string{"x"}}
	}
	p["basicAuthConf"] = censusProbe{map[string]string{"authenticationProviders": "org.apache.pulsar.broker.authentication.AuthenticationProviderBasic"},
		[]string{missing}}
	ks := func(extra ...string) map[string]string {
		m := map[string]string{"brokerServicePortTls": "0", "tlsEnabledWithKeyStore": "true", "tlsKeyStoreType": "PKCS12",
			"tlsKeyStore": keystorePath(t, "server.p12"), "tlsKeyStorePassword": "changeit"}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i]] = extra[i+1]
		}
		return m
	}
	p["tlsKeyStore"] = censusProbe{ks(), []string{missing}}
	p["tlsKeyStorePassword"] = censusProbe{ks(), []string{"wrong"}}
	p["tlsTrustStore"] = censusProbe{ks(), []string{missing}}
	p["tlsTrustStorePassword"] = censusProbe{ks("tlsTrustStoreType", "PKCS12", "tlsTrustStore", keystorePath(t, "truststore.p12")), []string{"changeit"}}
	p["httpRequestsMaxPerSecond"] = censusProbe{map[string]string{"httpRequestsLimitEnabled": "true"}, []string{"7"}}
	p["internalListenerName"] = censusProbe{map[string]string{"advertisedListeners": "a:pulsar://h:1"}, []string{"x"}}
	p["defaultNumPartitions"] = censusProbe{map[string]string{"allowAutoTopicCreationType": "partitioned"}, []string{"7"}}
	return p
}

// parseKV runs ParseConfig on the lines of kv.
func parseKV(kv map[string]string) (Config, error) {
	var b strings.Builder
	for k, v := range kv {
		b.WriteString(k + "=" + v + "\n")
	}
	return ParseConfig(strings.NewReader(b.String()))
}

// differs reports whether two ParseConfig results differ: one fails and
// the other not, the errors differ, or (when Options compare reliably) the
// Options differ.
func differs(a Config, errA error, b Config, errB error, reliable bool) bool {
	switch {
	case (errA == nil) != (errB == nil):
		return true
	case errA != nil:
		return errA.Error() != errB.Error()
	}
	return reliable && !reflect.DeepEqual(a.Options, b.Options)
}

// TestConfigCensusHonouredKeysAreParsed checks the census against
// ParseConfig: a key classed honoured must act (a value of it changes
// Options or is refused), and a key of another class must not be read but
// listed: no-effect keys in NoEffect, not-supported ones in Ignored or
// Security. It fails when ParseConfig learns a key the census still calls
// not-supported, so the census follows the code.
func TestConfigCensusHonouredKeysAreParsed(t *testing.T) {
	c, err := census()
	if err != nil {
		t.Fatal(err)
	}
	probes := censusProbes(t)
	honoured := 0
	for _, row := range c.rows {
		key := strings.Replace(row.Key, "*", "probe", 1)
		if row.Class != keyHonoured {
			cfg, err := parseKV(map[string]string{key: "1"})
			if err != nil {
				t.Errorf("%s (%s): ParseConfig failed: %v", key, row.Class, err)
				continue
			}
			want := &cfg.NoEffect
			if row.Class == keyNotSupported {
				want = &cfg.Ignored
				if isSecurityKey(key) {
					want = &cfg.Security
				}
			}
			if !slices.Equal(*want, []string{key}) {
				t.Errorf("%s is %s in the census, but ParseConfig gives NoEffect=%v Ignored=%v Security=%v "+
					"(if ParseConfig now honours it, class it honoured in configkeys.tsv)",
					key, row.Class, cfg.NoEffect, cfg.Ignored, cfg.Security)
			}
			continue
		}
		honoured++
		pr, ok := probes[key]
		if !ok {
			pr = censusProbe{values: []string{"7", "false", "x"}}
		}
		base, baseErr := parseKV(pr.ctx)
		again, againErr := parseKV(pr.ctx)
		reliable := baseErr == nil && againErr == nil && reflect.DeepEqual(base.Options, again.Options)
		acted := false
		for _, v := range pr.values {
			kv := copyKV(pr.ctx)
			kv[key] = v
			cfg, err := parseKV(kv)
			if differs(base, baseErr, cfg, err, reliable) {
				acted = true
				break
			}
		}
		if !acted {
			t.Errorf("%s is honoured in the census, but none of %q changes what ParseConfig returns", key, pr.values)
		}
	}
	if honoured < 40 {
		t.Errorf("%d honoured keys; the census lost some", honoured)
	}
}

func copyKV(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestConfigUnknownKeyRefused checks that a key in no class of the census
// is refused with the nearest known key, and accepted (listed in Unknown)
// with IgnoreUnknownKeys.
func TestConfigUnknownKeyRefused(t *testing.T) {
	conf := "clusterName=c\nmaxProducerPerTopic=1\nzookeeperServers=zk:2181\n"
	_, err := ParseConfig(strings.NewReader(conf))
	var uerr *UnknownConfigKeyError
	if !errors.As(err, &uerr) || !errors.Is(err, ErrUnknownConfigKey) {
		t.Fatalf("ParseConfig with a typo: err = %v, want an *UnknownConfigKeyError", err)
	}
	if !slices.Equal(uerr.Keys, []string{"maxProducerPerTopic"}) || !slices.Equal(uerr.Nearest, []string{"maxProducersPerTopic"}) {
		t.Errorf("error names %v nearest %v, want maxProducerPerTopic nearest maxProducersPerTopic", uerr.Keys, uerr.Nearest)
	}
	for _, want := range []string{"maxProducerPerTopic", "did you mean maxProducersPerTopic", "-ignore-unknown-config-keys"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	cfg, err := ParseConfigWith(strings.NewReader(conf), ConfigOptions{IgnoreUnknownKeys: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Unknown, []string{"maxProducerPerTopic"}) || !slices.Equal(cfg.NoEffect, []string{"zookeeperServers"}) ||
		cfg.Options.ClusterName != "c" {
		t.Errorf("IgnoreUnknownKeys: Unknown=%v NoEffect=%v ClusterName=%q", cfg.Unknown, cfg.NoEffect, cfg.Options.ClusterName)
	}
	// A prefix of the census (Pulsar passes bookkeeper_* to its BookKeeper
	// client) is known; an empty value is skipped, known or not.
	cfg, err = ParseConfig(strings.NewReader("bookkeeper_opportunisticStriping=true\nnoSuchKey=\n"))
	if err != nil || !slices.Equal(cfg.NoEffect, []string{"bookkeeper_opportunisticStriping"}) {
		t.Errorf("prefix key: NoEffect=%v err=%v", cfg.NoEffect, err)
	}
}

// TestConfigWarnLevels checks where Warn puts each list: not-supported
// keys in a warning, no-effect keys at debug level only.
func TestConfigWarnLevels(t *testing.T) {
	cfg, err := ParseConfigWith(strings.NewReader("zookeeperServers=zk:2181\nmaxProducerPerTopic=1\n"),
		ConfigOptions{IgnoreUnknownKeys: true})
	if err != nil {
		t.Fatal(err)
	}
	// The census classes no key of Pulsar's files not-supported today;
	// one that it would class so is warned about like this.
	cfg.Ignored = []string{"someUnsupportedKey"}
	for _, tc := range []struct {
		level       slog.Level
		want, never []string
	}{
		{slog.LevelInfo, []string{"level=WARN", "not_implemented=someUnsupportedKey", "unknown config keys ignored", "keys=maxProducerPerTopic"}, []string{"zookeeperServers"}},
		{slog.LevelDebug, []string{"level=DEBUG", "without observable effect", "keys=zookeeperServers"}, nil},
	} {
		var buf bytes.Buffer
		cfg.Warn(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: tc.level})), "broker.conf")
		for _, w := range tc.want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("level %v: log lacks %q:\n%s", tc.level, w, buf.String())
			}
		}
		for _, n := range tc.never {
			if strings.Contains(buf.String(), n) {
				t.Errorf("level %v: log names %q:\n%s", tc.level, n, buf.String())
			}
		}
	}
}
