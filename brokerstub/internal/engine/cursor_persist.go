package engine

// flushCursors persists dirty durable cursors: all of them when force is
// set (graceful stop), else those the cursor says are due.
func (t *Topic) flushCursors(force bool) {
	for _, s := range t.Subs {
		s.Persist(force)
	}
}

// Persist writes the cursor's state to the store when it is dirty and, unless
// force is set, due (flush interval passed, or an immediate mark-delete
// persist allowed by the rate limit).
func (s *Subscription) Persist(force bool) {
	if !s.Durable {
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
	s.T.trimLedgers() // the mark-delete position may have moved (retention.go)
}

func (s *Subscription) save(state []byte) {
	if err := s.T.B.St.SaveCursor(s.T.Name.Full, s.Name, state); err != nil {
		s.T.B.Log.Error("persist cursor", "topic", s.T.Name.Full, "sub", s.Name, "err", err)
	}
}
