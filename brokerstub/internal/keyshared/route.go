package keyshared

import "github.com/pulsargo/sdk/brokerstub/internal/ledger"

// Pass is one dispatch pass: a sweep over the replay queue followed by
// reads of new entries. Within a pass, once an entry of a hash is held back
// every later entry of that hash is held back too (ordered modes), so that
// a consumer lacking permits blocks only its own hashes and nothing
// overtakes within the hash.
type Pass struct {
	k       *KeyShared
	blocked map[int32]bool
}

// NewPass starts a dispatch pass.
func (k *KeyShared) NewPass() *Pass { return &Pass{k: k} }

func (p *Pass) block(h int32) {
	if !p.k.ordered() {
		return
	}
	if p.blocked == nil {
		p.blocked = map[int32]bool{}
	}
	p.blocked[h] = true
}

// Route decides where e goes now. replayed tells whether e comes from the
// replay queue (else it is a new entry, read for the first time). It
// returns the consumer, or false when e must wait: a new entry then joins
// the replay queue, a replayed one stays there.
//
// e waits when its hash is held back in this pass, no consumer owns it, the
// owner has no permits, or (ordered AUTO_SPLIT) the hash is draining at
// another consumer.
//
// Route needs no check that a new entry's hash has an older entry waiting
// for replay (Pulsar's apache/pulsar#10762 check): Dispatch offers every
// replay entry before it reads a new one, and a replay entry that cannot go
// holds its hash back for the rest of the pass, so when a new entry reaches
// Route its hash has no entry in the replay queue unless it is held back. The chunks of a chunked
// message go to the consumer of its first chunk; in ordered AUTO_SPLIT mode
// every entry of a hash goes to a consumer that holds an unfinished chunked
// message of it, so that the message can complete while its hash moves.
func (p *Pass) Route(e Entry, replayed bool) (ConsumerID, bool) {
	k := p.k
	if p.blocked[e.Hash] { // held back: nothing overtakes within the hash
		return 0, false
	}
	id, pinned, ok := k.target(e)
	if m := k.byID[id]; !ok || m == nil || m.Permits() <= 0 {
		p.block(e.Hash)
		return 0, false
	}
	if k.draining != nil {
		if pinned {
			if h, ok := k.draining.Holder(e.Hash); ok && h != id {
				k.draining.Blocked(e.Hash)
				p.block(e.Hash)
				return 0, false
			}
		} else if k.draining.ShouldBlock(id, e.Hash) {
			p.block(e.Hash)
			return 0, false
		}
	}
	return id, true
}

// target returns the consumer e should go to and whether that overrides
// the selector (a chunk pinned to another consumer).
func (k *KeyShared) target(e Entry) (ConsumerID, bool, bool) {
	sel, selOK := k.sel.Select(e.Hash)
	pin := func(id ConsumerID) (ConsumerID, bool, bool) { return id, !selOK || id != sel, true }
	if k.draining != nil {
		if h, ok := k.holders[e.Hash]; ok {
			return pin(h.id)
		}
	}
	if e.ChunkUUID != "" {
		// A redelivered first chunk goes back to its consumer too, so that
		// its later chunks cannot reach it before it.
		if o, ok := k.chunks[e.ChunkUUID]; ok {
			return pin(o.id)
		}
	}
	return sel, false, selOK
}

// Delivered records that e was sent to id: chunk ownership starts with a
// first chunk and ends with the last; an entry sent against the selector
// (a pinned chunk) keeps its hash draining at id until id acknowledges it.
func (k *KeyShared) Delivered(id ConsumerID, e Entry) {
	if e.ChunkUUID != "" {
		if e.ChunkID == 0 {
			k.ownChunk(e.ChunkUUID, id, e.Hash)
		}
		if e.ChunkID >= e.NumChunks-1 {
			k.dropChunk(e.ChunkUUID)
		}
	}
	if k.draining != nil {
		if sel, ok := k.sel.Select(e.Hash); !ok || sel != id {
			k.draining.Add(id, e.Hash)
		}
	}
}

func (k *KeyShared) ownChunk(uuid string, id ConsumerID, h int32) {
	if o, ok := k.chunks[uuid]; ok {
		if o.id == id {
			return
		}
		k.dropChunk(uuid)
	}
	k.chunks[uuid] = chunkOwner{id: id, hash: h}
	if k.draining != nil {
		hd := k.holders[h]
		if hd.n > 0 && hd.id != id {
			// Cannot happen: every entry of h goes to the holder.
			return
		}
		k.holders[h] = holder{id: id, n: hd.n + 1}
	}
}

func (k *KeyShared) dropChunk(uuid string) {
	o, ok := k.chunks[uuid]
	if !ok {
		return
	}
	delete(k.chunks, uuid)
	if hd, ok := k.holders[o.hash]; ok && hd.id == o.id {
		if hd.n--; hd.n == 0 {
			delete(k.holders, o.hash)
		} else {
			k.holders[o.hash] = hd
		}
	}
}

// Source is the broker's side of a dispatch pass: it reads entries and
// sends them.
type Source interface {
	// Entry returns the entry at p, a position in the replay queue; false
	// means p needs no delivery any more (acknowledged, or gone) and leaves
	// the queue.
	Entry(p ledger.Position) (Entry, bool)
	// Next reads the next entry never read before that is not
	// acknowledged, moving the read position past it; false when there is
	// none.
	Next() (ledger.Position, Entry, bool)
	// Send delivers the entry at p to id, charging id's permits and adding
	// the entry to what id holds.
	Send(id ConsumerID, p ledger.Position, e Entry)
}

// Dispatch runs one pass: first the replay queue in position order, each
// entry sent if Route allows; then new entries while NormalReadAllowed,
// each sent or queued for replay.
//
// The sweep goes on past a replay entry it cannot send (its hash is then
// held back for the pass) instead of stopping there: stopping would leave
// later replay entries of other consumers queued while new entries of their
// keys are read and sent — the overtaking of apache/pulsar#10762, which
// TestKeyShared10762 and TestSim10762 reproduce.
func (k *KeyShared) Dispatch(src Source) {
	if !k.anyPermits() {
		return
	}
	pass := k.NewPass()
	for i := 0; i < k.replay.Len(); {
		p, h := k.replay.At(i)
		if pass.blocked[h] {
			i++ // held back in this pass: no need to read it
			continue
		}
		e, ok := src.Entry(p)
		if !ok {
			k.replay.RemoveAt(i)
			continue
		}
		id, ok := pass.Route(e, true)
		if !ok {
			i++ // go on past it: see above (apache/pulsar#10762)
			continue
		}
		k.replay.RemoveAt(i)
		src.Send(id, p, e)
		k.Delivered(id, e)
	}
	for k.NormalReadAllowed() {
		p, e, ok := src.Next()
		if !ok {
			return
		}
		if id, ok := pass.Route(e, false); ok {
			src.Send(id, p, e)
			k.Delivered(id, e)
		} else {
			k.replay.Add(p, e.Hash)
		}
	}
}

func (k *KeyShared) anyPermits() bool {
	for _, m := range k.members {
		if m.Permits() > 0 {
			return true
		}
	}
	return false
}
