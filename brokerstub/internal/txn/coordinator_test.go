package txn

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// A transaction goes OPEN -> COMMITTING -> removed; the second phase
// reaches every partition and subscription with that subscription's acks.
func TestCoordinatorCommitReachesPartitionsAndSubscriptions(t *testing.T) {
	r := newRig()
	c := r.load(t, Config{})
	if id := mustNew(t, c, ByBroker, 0); id != (ID{0, 0}) {
		t.Fatalf("first id %v", id)
	}
	id := mustNew(t, c, ByBroker, 0)
	if id != (ID{0, 1}) {
		t.Fatalf("second id %v", id)
	}
	if err := c.AddPartitions(id, ByBroker, []string{"p1", "p2", "p1"}); err != nil {
		t.Fatal(err)
	}
	if err := c.AddSubs(id, ByBroker, []Sub{{"p1", "s"}}); err != nil {
		t.Fatal(err)
	}
	acks := []Ack{{Topic: "p1", Sub: "s", Entry: 3}, {Topic: "p2", Sub: "x", Entry: 4}}
	if err := c.recordAcks(id, acks); err != nil {
		t.Fatal(err)
	}
	rec, err := c.Snapshot(id)
	if err != nil || rec.Status != Open || !slices.Equal(rec.Partitions, []string{"p1", "p2"}) || len(rec.Subs) != 2 {
		t.Fatalf("snapshot %+v %v", rec, err)
	}
	if rec.TimeoutAt-rec.OpenedAt != DefaultTimeout.Milliseconds() {
		t.Errorf("timeout %d ms, want the default", rec.TimeoutAt-rec.OpenedAt)
	}
	if err := c.End(id, ByBroker, true); err != nil {
		t.Fatal(err)
	}
	got := r.topics.took()
	want := []end{{Topic: "p1", ID: id, Commit: true}, {Topic: "p2", ID: id, Commit: true},
		{Topic: "p1", Sub: "s", ID: id, Commit: true, Acks: acks[:1]}, {Topic: "p2", Sub: "x", ID: id, Commit: true, Acks: acks[1:]}}
	if len(got) != len(want) {
		t.Fatalf("ends %+v", got)
	}
	for i := range want {
		if got[i].Topic != want[i].Topic || got[i].Sub != want[i].Sub || got[i].ID != want[i].ID ||
			got[i].Commit != want[i].Commit || !slices.EqualFunc(got[i].Acks, want[i].Acks, ackEqual) {
			t.Errorf("end %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if _, err := c.Snapshot(id); !errors.Is(err, ErrNotFound) {
		t.Errorf("an ended transaction is removed: %v", err)
	}
	if err := c.End(id, ByBroker, true); !errors.Is(err, ErrNotFound) {
		t.Errorf("second end: %v", err)
	}
	if err := c.End(ID{Most: 7}, ByBroker, true); !errors.Is(err, ErrTCNotFound) {
		t.Errorf("coordinator 7: %v", err)
	}
}

func ackEqual(a, b Ack) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// While an end is between its phases the transaction is COMMITTING: no
// more partitions, no abort; a commit again is a retry.
func TestCoordinatorDecidedRefusesOtherEnds(t *testing.T) {
	r := newRig()
	c := r.load(t, Config{})
	id := mustNew(t, c, ByBroker, 0)
	checked := false
	c.SetBeforePhaseTwo(func(got ID) bool {
		if got != id {
			t.Errorf("hook for %v", got)
		}
		if err := c.AddPartitions(id, ByBroker, []string{"p"}); !errors.Is(err, ErrStatus) {
			t.Errorf("add while committing: %v", err)
		}
		if err := c.End(id, ByBroker, false); !errors.Is(err, ErrStatus) {
			t.Errorf("abort while committing: %v", err)
		}
		checked = true
		return false // stopped between the phases
	})
	if err := c.End(id, ByBroker, true); !errors.Is(err, ErrClosed) {
		t.Fatalf("stopped end: %v", err)
	}
	if rec, _ := c.Snapshot(id); !checked || rec.Status != Committing {
		t.Fatalf("status %v", rec.Status)
	}
	c.SetBeforePhaseTwo(nil)
	if err := c.End(id, ByBroker, true); err != nil {
		t.Errorf("retry: %v", err)
	}
	if err := c.CheckOpen(id); !errors.Is(err, ErrNotFound) {
		t.Errorf("after the retry: %v", err)
	}
}

// A transaction aborts at its timeout on the injected clock, not before.
func TestCoordinatorTimeoutAborts(t *testing.T) {
	r := newRig()
	c := r.load(t, Config{})
	id := mustNew(t, c, ByBroker, 5*time.Second)
	if err := c.AddPartitions(id, ByBroker, []string{"p"}); err != nil {
		t.Fatal(err)
	}
	r.clk.Advance(4 * time.Second)
	if err := c.CheckOpen(id); err != nil {
		t.Fatalf("open until its timeout: %v", err)
	}
	r.clk.Advance(time.Second)
	if got := r.topics.took(); len(got) != 1 || got[0].Commit || got[0].Topic != "p" {
		t.Fatalf("ends at the timeout: %+v", got)
	}
	if err := c.CheckOpen(id); !errors.Is(err, ErrNotFound) {
		t.Errorf("after its timeout: %v", err)
	}
	// An end before the timeout stops it.
	id = mustNew(t, c, ByBroker, time.Second)
	if err := c.End(id, ByBroker, true); err != nil {
		t.Fatal(err)
	}
	r.clk.Advance(time.Hour)
	if got := r.topics.took(); len(got) != 0 {
		t.Errorf("nothing to end: %+v", got)
	}
}

// Over MaxActive a new transaction is refused until one ends.
func TestCoordinatorMaxActive(t *testing.T) {
	c := newRig().load(t, Config{MaxActive: 1})
	id := mustNew(t, c, ByBroker, 0)
	if _, err := c.NewTxn(ByBroker, 0); !errors.Is(err, ErrMaxActive) {
		t.Fatalf("second: %v", err)
	}
	if err := c.End(id, ByBroker, false); err != nil {
		t.Fatal(err)
	}
	mustNew(t, c, ByBroker, 0)
}

// With owners recorded, only the owner or a super user may end or add to a
// transaction; the broker itself always may.
func TestCoordinatorOwner(t *testing.T) {
	c := newRig().load(t, Config{RecordOwners: true, SuperUser: func(role string) bool { return role == "admin" }})
	id := mustNew(t, c, ByRole("alice"), 0)
	err := c.End(id, ByRole("bob"), true)
	if !errors.Is(err, ErrNotOwned) || !strings.Contains(err.Error(), "Client (bob) is neither the owner of the transaction (0,0) nor a super user") {
		t.Fatalf("bob's end: %v", err)
	}
	if err := c.AddPartitions(id, ByRole("bob"), []string{"p"}); !errors.Is(err, ErrNotOwned) {
		t.Errorf("bob's add: %v", err)
	}
	if err := c.AddSubs(id, ByRole("bob"), []Sub{{"p", "s"}}); !errors.Is(err, ErrNotOwned) {
		t.Errorf("bob's add: %v", err)
	}
	if err := c.AddPartitions(id, ByBroker, []string{"p"}); err != nil {
		t.Errorf("the broker's add: %v", err)
	}
	if err := c.End(id, ByRole("admin"), false); err != nil {
		t.Errorf("a super user's end: %v", err)
	}
	// Without RecordOwners nobody owns a transaction.
	open := newRig().load(t, Config{})
	id = mustNew(t, open, ByRole("alice"), 0)
	if err := open.End(id, ByRole("bob"), true); err != nil {
		t.Errorf("ownerless: %v", err)
	}
}

// The state survives a reload: an end decided before finishes in Recover,
// an open transaction times out on its old deadline, the sequence goes on.
func TestCoordinatorRecoversFromStore(t *testing.T) {
	r := newRig()
	c, err := Load(Config{Clock: r.clk, Store: r.kv, Topics: r.topics})
	if err != nil {
		t.Fatal(err)
	}
	decided := mustNew(t, c, ByRole("alice"), 0)
	open := mustNew(t, c, ByBroker, 10*time.Second)
	for _, id := range []ID{decided, open} {
		if err := c.AddPartitions(id, ByBroker, []string{"p"}); err != nil {
			t.Fatal(err)
		}
	}
	c.SetBeforePhaseTwo(func(ID) bool { return false })
	if err := c.End(decided, ByBroker, true); !errors.Is(err, ErrClosed) {
		t.Fatal(err)
	}
	c.Close()
	r.topics.took()

	c = r.load(t, Config{RecordOwners: true})
	if got := r.topics.took(); len(got) != 1 || got[0].ID != decided || !got[0].Commit {
		t.Fatalf("recovery ends: %+v", got)
	}
	if err := c.End(open, ByRole("bob"), true); err != nil {
		t.Errorf("opened without an owner: %v", err) // ended: nothing left to time out
	}
	late := mustNew(t, c, ByBroker, 0)
	if late != (ID{0, 2}) {
		t.Errorf("sequence after reload: %v", late)
	}
	rec, _ := c.Snapshot(late)
	if rec.Owner != "" {
		t.Errorf("the broker owns nothing: %q", rec.Owner)
	}

	// A corrupt record is refused with a typed error.
	if err := r.kv.PutMeta(StateKey, []byte("{")); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(Config{Clock: r.clk, Store: r.kv, Topics: r.topics}); err == nil || !strings.Contains(err.Error(), "load transactions") {
		t.Errorf("corrupt state: %v", err)
	}
}

// An open transaction reloaded past its deadline aborts at once.
func TestCoordinatorReloadedTimeout(t *testing.T) {
	r := newRig()
	c, err := Load(Config{Clock: r.clk, Store: r.kv, Topics: r.topics})
	if err != nil {
		t.Fatal(err)
	}
	id := mustNew(t, c, ByBroker, 5*time.Second)
	if err := c.AddPartitions(id, ByBroker, []string{"p"}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	r.clk.Advance(10 * time.Second) // stopped: nothing fires
	if got := r.topics.took(); len(got) != 0 {
		t.Fatalf("a closed coordinator ended %+v", got)
	}
	c = r.load(t, Config{})
	r.clk.Advance(0)
	if got := r.topics.took(); len(got) != 1 || got[0].Commit {
		t.Fatalf("reloaded past its deadline: %+v", got)
	}
	if _, err := c.NewTxn(ByBroker, 0); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := c.NewTxn(ByBroker, 0); !errors.Is(err, ErrClosed) {
		t.Errorf("closed: %v", err)
	}
}

// The admin views: the coordinator's stats, a transaction's metadata with
// its buffers' and subscriptions' parts.
func TestCoordinatorViews(t *testing.T) {
	r := newRig()
	c := r.load(t, Config{})
	if st := c.Stats(); st.LeastSigBits != -1 || st.OngoingTxnSize != 0 || st.State != "Ready" {
		t.Errorf("empty stats %+v", st)
	}
	id := mustNew(t, c, ByBroker, 30*time.Second)
	buf := Rebuild(entries{{Pos: pos(5), InTxn: true, Txn: id}}.all)
	r.topics.buffer["p"] = buf
	if err := c.AddPartitions(id, ByBroker, []string{"p"}); err != nil {
		t.Fatal(err)
	}
	if err := c.recordAcks(id, []Ack{{Topic: "p", Sub: "s", Ledger: 1, Entry: 2, Cumulative: true}, {Topic: "p", Sub: "i", Ledger: 1, Entry: 3}}); err != nil {
		t.Fatal(err)
	}
	md, err := c.Metadata(id)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(md)
	want := `{"ackedPartitions":{"p":{"i":{"cumulativeAckPosition":null},"s":{"cumulativeAckPosition":"1:2"}}},` +
		`"openTimestamp":1700000000000,"producedPartitions":{"p":{"startPosition":"1:5","aborted":false}},` +
		`"status":"OPEN","timeoutAt":30000,"txnId":"(0,0)"}`
	if string(raw) != want {
		t.Errorf("metadata\n%s\nwant\n%s", raw, want)
	}
	st, err := c.InPendingAck(id, Sub{"p", "s"})
	if err != nil || st.CumulativeAckPosition == nil || *st.CumulativeAckPosition != "1:2" {
		t.Errorf("pending ack %+v %v", st, err)
	}
	if _, err := c.Metadata(ID{0, 9}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown: %v", err)
	}
	raw, _ = json.Marshal(c.Stats())
	if string(raw) != `{"leastSigBits":0,"lowWaterMark":0,"ongoingTxnSize":1,"recoverEndTime":0,"recoverStartTime":0,"state":"Ready"}` {
		t.Errorf("stats %s", raw)
	}
}
