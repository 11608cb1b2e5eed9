package brokerstub

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// proxyV2 builds a v2 header: cmd (0 LOCAL, 1 PROXY), family byte,
// addresses and TLV bytes.
func proxyV2(cmd, fam byte, addrs, tlvs []byte) []byte {
	h := append([]byte(nil), proxyV2Sig...)
	h = append(h, 0x20|cmd, fam)
	h = binary.BigEndian.AppendUint16(h, uint16(len(addrs)+len(tlvs)))
	return append(append(h, addrs...), tlvs...)
}

func inet4(src, dst string, sport, dport uint16) []byte {
	b := append(net.ParseIP(src).To4(), net.ParseIP(dst).To4()...)
	b = binary.BigEndian.AppendUint16(b, sport)
	return binary.BigEndian.AppendUint16(b, dport)
}

func TestReadProxyHeader(t *testing.T) {
	peer := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 9), Port: 1}
	v6 := append(append(net.ParseIP("2001:db8::1").To16(), net.ParseIP("2001:db8::2").To16()...), 0xC3, 0x50, 0x19, 0xEA)
	for _, tc := range []struct {
		name, in, src, rest string
		bad                 bool
	}{
		{name: "v1 tcp4", in: "PROXY TCP4 203.0.113.7 10.0.0.1 51000 6650\r\nCONNECT", src: "203.0.113.7:51000", rest: "CONNECT"},
		{name: "v1 tcp6", in: "PROXY TCP6 2001:db8::1 2001:db8::2 50000 6650\r\n", src: "[2001:db8::1]:50000"},
		{name: "v1 unknown", in: "PROXY UNKNOWN\r\nx", rest: "x"},
		{name: "v2 inet", in: string(proxyV2(1, 0x11, inet4("198.51.100.2", "10.0.0.1", 4000, 6650), nil)) + "GET", src: "198.51.100.2:4000", rest: "GET"},
		{name: "v2 inet6 with TLVs", in: string(proxyV2(1, 0x21, v6, []byte{0x04, 0, 2, 'h', 'i'})), src: "[2001:db8::1]:50000"},
		{name: "v2 local", in: string(proxyV2(0, 0x00, nil, nil)) + "z", rest: "z"},
		{name: "no header", in: "\x00\x00\x00\x10rest", rest: "\x00\x00\x00\x10rest"},
		{name: "HTTP", in: "POST /x", rest: "POST /x"},
		{name: "short prefix then EOF", in: "PRO", rest: "PRO"},
		{name: "v1 too long", in: "PROXY TCP4 " + strings.Repeat("1", 200) + "\r\n", bad: true},
		{name: "v1 bad address", in: "PROXY TCP4 nope 10.0.0.1 1 2\r\n", bad: true},
		{name: "v1 family mismatch", in: "PROXY TCP4 2001:db8::1 2001:db8::2 1 2\r\n", bad: true},
		{name: "v1 bad port", in: "PROXY TCP4 1.2.3.4 5.6.7.8 70000 2\r\n", bad: true},
		{name: "v1 truncated", in: "PROXY TCP4 1.2.3.4", bad: true},
		{name: "v2 version 1", in: string(proxyV2(1, 0x11, inet4("1.2.3.4", "5.6.7.8", 1, 2), nil)[:12]) + "\x11\x11\x00\x0c", bad: true},
		{name: "v2 command 2", in: string(proxyV2(2, 0x11, inet4("1.2.3.4", "5.6.7.8", 1, 2), nil)), bad: true},
		{name: "v2 short addresses", in: string(proxyV2(1, 0x21, make([]byte, 12), nil)), bad: true},
		{name: "v2 family 4", in: string(proxyV2(1, 0x41, nil, nil)), bad: true},
		{name: "v2 length past the data", in: string(proxyV2(1, 0x11, inet4("1.2.3.4", "5.6.7.8", 1, 2), nil)[:16]) + "\xff\xff", bad: true},
	} {
		src, pending, err := readProxyHeader(strings.NewReader(tc.in), peer)
		if tc.bad {
			if !errors.Is(err, ErrProxyHeader) {
				t.Errorf("%s: %v, want ErrProxyHeader", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		got := ""
		if src != nil {
			got = src.String()
		}
		// What follows the header is read again: pending, then the rest.
		rest, _ := io.ReadAll(io.MultiReader(bytes.NewReader(pending), strings.NewReader(tc.in[len(tc.in)-len(tc.rest)+len(pending):])))
		if got != tc.src || string(rest) != tc.rest {
			t.Errorf("%s: source %q rest %q, want %q %q", tc.name, got, rest, tc.src, tc.rest)
		}
	}
}

// FuzzReadProxyHeader: no input panics; what is kept is bounded by the
// signature's length.
func FuzzReadProxyHeader(f *testing.F) {
	f.Add([]byte("PROXY TCP4 203.0.113.7 10.0.0.1 51000 6650\r\n"))
	f.Add(proxyV2(1, 0x11, inet4("198.51.100.2", "10.0.0.1", 4000, 6650), []byte{1, 0, 1, 'x'}))
	f.Add([]byte("\x00\x00\x00\x10"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, pending, _ := readProxyHeader(bytes.NewReader(b), nil)
		if len(pending) > len(proxyV2Sig) {
			t.Fatalf("%d bytes pending", len(pending))
		}
	})
}

// haProxyProtocolEnabled: the binary port takes the header's client
// address (admin stats show it), serves a connection without a header,
// and closes one with a malformed header.
func TestHAProxyProtocolBinary(t *testing.T) {
	cfg, err := ParseConfig(strings.NewReader("haProxyProtocolEnabled=true\n"))
	if err != nil || !cfg.Options.HAProxyProtocol {
		t.Fatalf("ParseConfig: %v", err)
	}
	b := RunT(t, cfg.Options)
	nc, err := net.Dial("tcp", b.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := io.WriteString(nc, "PROXY TCP4 203.0.113.7 10.0.0.1 51000 6650\r\n"); err != nil {
		t.Fatal(err)
	}
	c := dialRawOn(t, nc)
	c.connect()
	const topic = "persistent://public/default/proxied"
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
		Topic: gproto.String(topic), ProducerId: gproto.Uint64(1), RequestId: gproto.Uint64(2)}})
	c.expect(proto.BaseCommand_PRODUCER_SUCCESS)
	resp, err := http.Get(b.WebServiceURL() + "/admin/v2/persistent/public/default/proxied/stats")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if !strings.Contains(string(body), `"address":"203.0.113.7:51000"`) {
		t.Errorf("stats do not name the PROXY header's client: %s", body)
	}

	plain := dialRaw(t, b) // no header
	plain.connect()

	bad, err := net.Dial("tcp", b.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if _, err := io.WriteString(bad, "PROXY TCP4 not-an-ip 10.0.0.1 1 2\r\n"); err != nil {
		t.Fatal(err)
	}
	dialRawOn(t, bad).expectClosed()
}

// webServiceHaProxyProtocolEnabled: the same on the plain HTTP port.
func TestHAProxyProtocolHTTP(t *testing.T) {
	b := RunT(t, Options{WebServiceHAProxyProtocol: true})
	addr := strings.TrimPrefix(b.WebServiceURL(), "http://")
	get := func(prefix []byte) (int, error) {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := nc.Write(append(prefix, "GET /admin/v2/clusters HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"...)); err != nil {
			return 0, err
		}
		resp, err := http.ReadResponse(bufio.NewReader(nc), nil)
		if err != nil {
			return 0, err
		}
		_ = resp.Body.Close()
		return resp.StatusCode, nil
	}
	for _, tc := range []struct {
		name   string
		prefix []byte
		ok     bool
	}{
		{"v2", proxyV2(1, 0x11, inet4("198.51.100.2", "10.0.0.1", 4000, 8080), nil), true},
		{"v1", []byte("PROXY TCP4 203.0.113.7 10.0.0.1 51000 8080\r\n"), true},
		{"none", nil, true},
		{"malformed", []byte("PROXY TCP9 x\r\n"), false},
	} {
		code, err := get(tc.prefix)
		if tc.ok && (err != nil || code != 200) || !tc.ok && err == nil {
			t.Errorf("%s: %d %v", tc.name, code, err)
		}
	}
}
