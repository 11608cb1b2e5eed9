package integration

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/pulsargo/sdk/brokerstub"
)

var updateConsoleImage = flag.Bool("update-console-image", false,
	"write ../docs/img/console-keyshared.png from the Key_Shared page of TestConsoleBrowser")

// chromiumPath is Debian's chromium, or PULSARGO_CHROMIUM.
func chromiumPath(t *testing.T) string {
	p := os.Getenv("PULSARGO_CHROMIUM")
	if p == "" {
		p = "/usr/bin/chromium"
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			// .ci/run installs chromium: on CI a missing browser is a failure.
			t.Fatalf("no browser at %s on CI (.ci/run installs Debian's chromium): %v", p, err)
		}
		t.Skipf("no browser at %s (apt-get install -y chromium, or set PULSARGO_CHROMIUM): %v", p, err)
	}
	return p
}

// consoleArtifacts is where screenshots go: PULSARGO_CONSOLE_ARTIFACTS,
// else the test's temporary directory.
func consoleArtifacts(t *testing.T) string {
	if d := os.Getenv("PULSARGO_CONSOLE_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// browser is a headless chromium tab that records the page's console
// errors and uncaught exceptions.
type browser struct {
	t      *testing.T
	ctx    context.Context
	mu     sync.Mutex
	errs   []string
	shots  string
	width  int64
	height int64
}

// chromium starts one headless browser for a test and its subtests, with
// a fresh profile removed once the browser has exited.
func chromium(t *testing.T) context.Context {
	path := chromiumPath(t)
	profile, err := os.MkdirTemp("", "console-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("no-default-browser-check", true),
		chromedp.UserDataDir(profile), chromedp.WindowSize(1280, 800),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	t.Cleanup(func() {
		_ = chromedp.Cancel(ctx) // closes the browser and waits for it
		cancelC()
		cancelA()
		_ = os.RemoveAll(profile)
	})
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// newTab opens a tab of the browser for one subtest.
func newTab(t *testing.T, browserCtx context.Context) *browser {
	ctx, cancelC := chromedp.NewContext(browserCtx)
	ctx, cancelT := context.WithTimeout(ctx, 40*time.Second)
	t.Cleanup(func() {
		cancelT()
		cancelC()
	})
	br := &browser{t: t, ctx: ctx, shots: consoleArtifacts(t)}
	chromedp.ListenTarget(ctx, func(ev any) {
		br.mu.Lock()
		defer br.mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError || ev.Type == runtime.APITypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				br.errs = append(br.errs, "console."+string(ev.Type)+": "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			br.errs = append(br.errs, "exception: "+ev.ExceptionDetails.Error())
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.LevelError || ev.Entry.Level == cdplog.LevelWarning {
				br.errs = append(br.errs, "log: "+ev.Entry.Text+" "+ev.Entry.URL)
			}
		}
	})
	if err := chromedp.Run(ctx, cdplog.Enable(), runtime.Enable()); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	br.viewport(1280, 800)
	return br
}

func (br *browser) run(actions ...chromedp.Action) {
	br.t.Helper()
	if err := chromedp.Run(br.ctx, actions...); err != nil {
		br.t.Fatalf("browser: %v", err)
	}
}

func (br *browser) viewport(w, h int64) {
	br.width, br.height = w, h
	br.run(chromedp.EmulateViewport(w, h))
}

// open navigates to url and waits until sel is on the page.
func (br *browser) open(url, sel string) {
	br.t.Helper()
	br.run(chromedp.Navigate(url))
	br.within(10*time.Second, sel, "")
}

// within waits at most d for an element sel (whose text contains text,
// when text is not empty) and returns how long it took.
func (br *browser) within(d time.Duration, sel, text string) time.Duration {
	br.t.Helper()
	start := time.Now()
	js := fmt.Sprintf(`(() => { const e = document.querySelector(%q); return !!e && e.textContent.includes(%q); })()`, sel, text)
	for {
		var ok bool
		br.run(chromedp.Evaluate(js, &ok))
		if ok {
			return time.Since(start)
		}
		if time.Since(start) > d {
			var html string
			_ = chromedp.Run(br.ctx, chromedp.Evaluate(`document.querySelector("main").innerText.slice(0, 2000)`, &html))
			br.t.Fatalf("%q (text %q) not shown within %v; page:\n%s", sel, text, d, html)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// gone waits at most d for sel to leave the page.
func (br *browser) gone(d time.Duration, sel string) time.Duration {
	br.t.Helper()
	start := time.Now()
	for {
		var n int
		br.run(chromedp.Evaluate(fmt.Sprintf(`document.querySelectorAll(%q).length`, sel), &n))
		if n == 0 {
			return time.Since(start)
		}
		if time.Since(start) > d {
			br.t.Fatalf("%q still shown after %v", sel, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// shot writes a screenshot named name and checks that the page does not
// overflow the viewport's width.
func (br *browser) shot(name string) []byte {
	br.t.Helper()
	var overflow bool
	br.run(chromedp.Evaluate(`document.documentElement.scrollWidth > window.innerWidth + 1`, &overflow))
	if overflow {
		br.t.Errorf("%s: the page is wider than the %dx%d viewport", name, br.width, br.height)
	}
	var png []byte
	br.run(chromedp.CaptureScreenshot(&png))
	path := filepath.Join(br.shots, fmt.Sprintf("%s-%dx%d.png", name, br.width, br.height))
	if err := os.WriteFile(path, png, 0o644); err != nil {
		br.t.Fatal(err)
	}
	return png
}

// noErrors fails the test for every error or warning the page logged,
// but those that contain one of expected (a refusal the test provokes).
func (br *browser) noErrors(expected ...string) {
	br.t.Helper()
	br.mu.Lock()
	defer br.mu.Unlock()
next:
	for _, e := range br.errs {
		for _, x := range expected {
			if strings.Contains(e, x) {
				continue next
			}
		}
		br.t.Errorf("browser reported: %s", e)
	}
}

// stateChanged polls the broker until cond holds and returns when it
// did: the moment the page's 1 s budget starts.
func stateChanged(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("broker state never changed: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestConsoleBrowser drives the console's pages in headless chromium:
// each loads, follows the broker live (a consumer joins and leaves, a hash starts
// and ends draining, an ack moves the mark-delete) within 1 s, works at
// 1280x800 and 390x844, and logs no error.
func TestConsoleBrowser(t *testing.T) {
	browserCtx := chromium(t)
	t.Run("Pages", func(t *testing.T) { consoleBrowserPages(t, newTab(t, browserCtx)) })
	t.Run("Authorization", func(t *testing.T) { consoleBrowserAuthorization(t, newTab(t, browserCtx)) })
}

func consoleBrowserPages(t *testing.T, br *browser) {
	b := startStub(t, brokerstub.Options{Console: true})
	topic := newTopic(t)
	client := officialClient(t, b.URL())
	const def = `{"type":"record","name":"Order","fields":[{"name":"id","type":"int"},{"name":"item","type":"string"}]}`
	type order struct {
		ID   int    `json:"id"`
		Item string `json:"item"`
	}
	sub := func(name, subName string, typ official.SubscriptionType) official.Consumer {
		c, err := client.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: subName, Type: typ, Name: name,
			Schema: official.NewJSONSchema(def, nil), SubscriptionInitialPosition: official.SubscriptionPositionEarliest})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}
	c1 := sub("c1", "s", official.KeyShared)
	x := sub("x1", "x", official.Exclusive)
	prod, err := client.CreateProducer(official.ProducerOptions{Topic: topic, Name: "orders", DisableBatching: true,
		Schema: official.NewJSONSchema(def, nil)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(prod.Close)
	const n = 40
	for i := range n {
		_, err := prod.Send(ctxT(t), &official.ProducerMessage{Key: fmt.Sprintf("key-%d", i%20), Value: &order{ID: i, Item: "widget"},
			Properties: map[string]string{"origin": "console-test"}})
		if err != nil {
			t.Fatal(err)
		}
	}
	ksState := func() brokerstub.KeySharedState {
		st, err := b.KeyShared(topic, "s")
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	stateChanged(t, "c1 holds every message", func() bool { st := ksState(); return len(st.Consumers) == 1 && st.Consumers[0].Pending == n })

	tp := strings.TrimPrefix(topic, "persistent://")
	base := b.WebServiceURL() + "/console"
	pages := map[string][2]string{ // name: hash route, element that shows it loaded
		"overview":  {"#/", fmt.Sprintf(`tr[data-topic=%q]`, topic)},
		"topic":     {"#/topic/persistent/" + tp, `tr[data-sub="s"]`},
		"cursor":    {"#/cursor/persistent/" + tp + "/x", "#markdelete"},
		"keyshared": {"#/keyshared/persistent/" + tp + "/s", `tr[data-consumer="c1"]`},
		"messages":  {"#/messages/persistent/" + tp, "[data-msg-entry]"},
	}

	// Page 1 and 2 load and show the topic.
	br.open(base+pages["overview"][0], pages["overview"][1])
	br.within(time.Second, pages["overview"][1]+` td[data-k="backlog"]`, "80")
	br.shot("overview")
	br.open(base+pages["topic"][0], pages["topic"][1])
	br.within(time.Second, `tr[data-producer="orders"]`, "Shared")
	br.shot("topic")

	// Page 4 follows a join and a hash draining, then its end.
	br.open(base+pages["keyshared"][0], pages["keyshared"][1])
	br.within(time.Second, "#nodraining", "")
	c2 := sub("c2", "s", official.KeyShared)
	stateChanged(t, "c2 joined", func() bool { return len(ksState().Consumers) == 2 })
	took := br.within(time.Second, `tr[data-consumer="c2"]`, "")
	t.Logf("join shown after %v", took)
	stateChanged(t, "a hash drains", func() bool {
		for _, c := range ksState().Consumers {
			if len(c.DrainingHashes) > 0 {
				return true
			}
		}
		return false
	})
	took = br.within(time.Second, "[data-draining-hash]", "")
	t.Logf("draining shown after %v", took)
	br.within(time.Second, "tr[data-draining]", "c1")
	png := br.shot("keyshared")
	if *updateConsoleImage {
		if err := os.WriteFile(filepath.Join("..", "docs", "img", "console-keyshared.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range receiveN(t, c1, n) {
		if err := c1.Ack(m); err != nil {
			t.Fatal(err)
		}
	}
	stateChanged(t, "draining ends", func() bool {
		for _, c := range ksState().Consumers {
			if len(c.DrainingHashes) > 0 {
				return false
			}
		}
		return true
	})
	took = br.gone(time.Second, "[data-draining-hash]")
	t.Logf("draining end shown after %v", took)
	c2.Close()
	stateChanged(t, "c2 left", func() bool { return len(ksState().Consumers) == 1 })
	took = br.gone(time.Second, `tr[data-consumer="c2"]`)
	t.Logf("leave shown after %v", took)

	// Page 3 follows an ack that moves the mark-delete.
	br.open(base+pages["cursor"][0], pages["cursor"][1])
	br.within(time.Second, `[data-state="unread"], [data-state="pending"]`, "")
	cur, _, err := b.Cursor(topic, "x")
	if err != nil {
		t.Fatal(err)
	}
	m := receiveN(t, x, 1)[0]
	if err := x.Ack(m); err != nil {
		t.Fatal(err)
	}
	var now brokerstub.CursorState
	stateChanged(t, "x's mark-delete moves", func() bool {
		now, _, err = b.Cursor(topic, "x")
		return err == nil && now.MarkDelete != cur.MarkDelete
	})
	took = br.within(time.Second, "#markdelete", fmt.Sprintf("%d:%d", now.MarkDelete.Ledger, now.MarkDelete.Entry))
	t.Logf("mark-delete shown after %v", took)
	br.shot("cursor")

	// Page 5 decodes by the topic's JSON schema and shows properties.
	br.open(base+pages["messages"][0], pages["messages"][1])
	br.within(time.Second, "[data-msg-entry]", `"item": "widget"`)
	br.within(time.Second, "[data-msg-entry]", "origin=console-test")
	br.shot("messages")

	// Every page at a phone's size.
	br.viewport(390, 844)
	for _, name := range []string{"overview", "topic", "cursor", "keyshared", "messages"} {
		br.open(base+pages[name][0], pages[name][1])
		br.shot(name)
	}
	br.noErrors()
	if t.Failed() {
		t.Logf("screenshots in %s", br.shots)
	}
}

// consoleBrowserAuthorization: with authentication and authorization
// on, the page asks for a token, says who you are, names what the role may
// not see and shows a refused page with the operation it needed.
func consoleBrowserAuthorization(t *testing.T, br *browser) {
	secret := []byte("console authorization secret")
	tok, err := brokerstub.NewTokenProvider(brokerstub.TokenOptions{SecretKey: secret})
	if err != nil {
		t.Fatal(err)
	}
	b := secureStub(t, brokerstub.Options{Console: true, AuthenticationProviders: []brokerstub.AuthenticationProvider{tok}},
		"Bearer "+hs256Token(t, secret, "admin"))
	admin := adminAs(t, b, hs256Token(t, secret, "admin"))
	const topic = "persistent://private/auth/console"
	if err := admin.Topics().Create(topicName(t, topic), 0); err != nil {
		t.Fatal(err)
	}
	base := b.WebServiceURL() + "/console"

	br.open(base+"#/", "#login:not([hidden])")
	br.run(chromedp.SendKeys("#token", hs256Token(t, secret, "stranger")), chromedp.Click("#login button"))
	br.within(2*time.Second, "#who", "role stranger")
	br.within(2*time.Second, ".refused", "private/auth: GET_TOPICS refused")
	br.shot("refused-overview")
	br.open(base+"#/topic/persistent/private/auth/console", "[data-refused]")
	br.within(time.Second, "[data-refused]", "GET_STATS")
	br.shot("refused-topic")

	// The namespace's consumer role may read the topic.
	br.run(chromedp.Evaluate(fmt.Sprintf(`sessionStorage.setItem("brokerstub-console-auth", %q)`, "Bearer "+hs256Token(t, secret, "token-principal")), nil),
		chromedp.Reload())
	br.within(5*time.Second, "#who", "role token-principal")
	br.within(2*time.Second, "main h1", topic)
	br.noErrors("status of 401")
}
