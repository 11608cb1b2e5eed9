package engine

// flushCursors persists dirty durable cursors: all of them when force is
// set (graceful stop), else those the cursor says are due.
func (t *Topic) flushCursors(force bool) {
	for _, s := range t.Subs {
		s.persist(force)
	}
}

// persist writes the cursor's state to the store when it is dirty and, unless
// force is set, due (flush interval passed, or an immediate mark-delete
// persist allowed by the rate limit).
func (s *Subscription) persist(force bool) {
	if !s.durable {
		return
	}
	var state []byte
	var ok bool
	if force {
		state, ok = s.Cur.Flush()
	} else {
		state, ok = s.Cur.MaybeFlush()
	}
	if ok {
		s.save(state)
	}
	s.t.trimLedgers() // the mark-delete position may have moved (retention.go)
}

func (s *Subscription) save(state []byte) {
	if err := s.t.b.st.SaveCursor(s.t.name.Full, s.name, state); err != nil {
		s.t.b.log.Error("persist cursor", "topic", s.t.name.Full, "sub", s.name, "err", err)
	}
}
