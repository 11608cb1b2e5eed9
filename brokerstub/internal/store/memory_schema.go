package store

func (m *memory) PutSchemas(id string, blob []byte) error {
	if err := checkName("schema id", id); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	if blob == nil {
		delete(m.schemas, id)
		return nil
	}
	if m.schemas == nil {
		m.schemas = make(map[string][]byte)
	}
	m.schemas[id] = cloneNonNil(blob)
	return nil
}

func (m *memory) GetSchemas(id string) ([]byte, bool, error) {
	if err := checkName("schema id", id); err != nil {
		return nil, false, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, false, ErrClosed
	}
	v, ok := m.schemas[id]
	if !ok {
		return nil, false, nil
	}
	return cloneNonNil(v), true, nil
}
