package brokerstub

// Hostile credentials: password guessing and tokens not valid yet.

import (
	"testing"
	"time"

	"github.com/pulsargo/sdk/internal/proto"
	gproto "google.golang.org/protobuf/proto"
)

// V7: 2,000 wrong passwords on one connection, then the right one, gave
// CONNECTED, and the texts told an unknown user from a wrong password. A
// failed CONNECT now closes the connection (one guess a connection), with
// one text for both.
func TestHostilePasswordGuessing(t *testing.T) {
	htpasswd := "admin:$apr1$abcdefgh$FBwExRW4dCc8aL.OvjpIE1\n" // password "password"
	p, err := NewBasicProvider([]byte(htpasswd))
	if err != nil {
		t.Fatal(err)
	}
	b := RunT(t, Options{AuthenticationEnabled: true, AuthenticationProviders: []AuthenticationProvider{p}})
	c := dialRaw(t, b)
	answered := 0
	for _, guess := range []string{"admin:wrong", "admin:password"} {
		c.Send(&proto.BaseCommand{Type: proto.BaseCommand_CONNECT.Enum(), Connect: &proto.CommandConnect{
			ClientVersion: gproto.String("raw-test"), ProtocolVersion: gproto.Int32(20),
			AuthMethodName: gproto.String("basic"), AuthData: []byte(guess)}})
		f, err := c.next()
		if err != nil {
			break
		}
		answered++
		if f.Cmd.GetType() == proto.BaseCommand_CONNECTED {
			t.Fatalf("CONNECTED after a wrong password on the same connection")
		}
		if e := f.Cmd.GetError(); e.GetError() != proto.ServerError_AuthenticationError || e.GetMessage() != "Failed to authenticate" {
			t.Fatalf("refusal %v, want AuthenticationError %q", f.Cmd, "Failed to authenticate")
		}
	}
	if answered != 1 {
		t.Fatalf("%d CONNECTs answered on one connection after a wrong password, want 1 (then closed)", answered)
	}
	texts := map[string]bool{}
	for _, cred := range []string{"nobody:password", "admin:wrong"} {
		_, err := p.Authenticate(AuthenticationData{Data: []byte(cred)})
		texts[err.Error()] = true
		c := dialRaw(t, b).connectWith("basic", []byte(cred))
		texts[c.GetError().GetMessage()] = true
	}
	if len(texts) != 2 { // the provider's one text, the wire's one text
		t.Fatalf("%d distinct texts for an unknown user and a wrong password, want one each from provider and wire: %v", len(texts), texts)
	}
}

// V8: a token with nbf in 2096 was accepted. nbf and exp are checked at the
// broker's clock.
func TestHostileTokenNotBefore(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	clk := NewFakeClock(time.Unix(1_800_000_000, 0)) // 2027
	tok := mustProvider(t, TokenOptions{SecretKey: secret})
	b := RunT(t, Options{AuthenticationEnabled: true, AuthenticationProviders: []AuthenticationProvider{tok}, Clock: clk})
	nbf2096 := time.Date(2096, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	now := clk.Now().Unix()
	cases := []struct {
		claims jwtClaims
		ok     bool
	}{
		{jwtClaims{"sub": "alice", "nbf": nbf2096}, false},
		{jwtClaims{"sub": "alice", "nbf": now + 1}, false},
		{jwtClaims{"sub": "alice", "nbf": now}, true},
		{jwtClaims{"sub": "alice", "nbf": now - 60, "exp": now + 60}, true},
		{jwtClaims{"sub": "alice", "exp": now}, false},
		{jwtClaims{"sub": "alice", "nbf": "soon"}, false},
	}
	wrong := 0
	for _, tc := range cases {
		c := dialRaw(t, b).connectWith("token", []byte(hs256(t, secret, tc.claims)))
		if got := c.GetType() == proto.BaseCommand_CONNECTED; got != tc.ok {
			wrong++
			t.Errorf("claims %v: connected %v, want %v", tc.claims, got, tc.ok)
		}
	}
	// At the broker's clock: in 2097, the 2096 token is valid.
	clk.Advance(time.Date(2097, 1, 1, 0, 0, 0, 0, time.UTC).Sub(clk.Now()))
	if c := dialRaw(t, b).connectWith("token", []byte(hs256(t, secret, jwtClaims{"sub": "alice", "nbf": nbf2096}))); c.GetType() != proto.BaseCommand_CONNECTED {
		wrong++
		t.Errorf("nbf 2096 at a clock in 2097: %v", c)
	}
	if wrong != 0 {
		t.Fatalf("%d of %d tokens judged wrongly", wrong, len(cases)+1)
	}
}
