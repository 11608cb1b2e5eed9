package store

func (m *memory) PutMeta(key string, val []byte) error {
	if err := checkName("meta key", key); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	if val == nil {
		delete(m.meta, key)
		return nil
	}
	if m.meta == nil {
		m.meta = make(map[string][]byte)
	}
	m.meta[key] = cloneNonNil(val)
	return nil
}

func (m *memory) GetMeta(key string) ([]byte, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, false, ErrClosed
	}
	v, ok := m.meta[key]
	if !ok {
		return nil, false, nil
	}
	return cloneNonNil(v), true, nil
}
