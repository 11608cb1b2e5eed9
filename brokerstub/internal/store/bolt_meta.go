package store

import bolt "go.etcd.io/bbolt"

// bucketAdmin holds MetaStore's keys; it is created on first use, so files
// written before it existed open unchanged.
var bucketAdmin = []byte("admin-meta")

func (s *boltStore) PutMeta(key string, val []byte) error {
	if err := checkName("meta key", key); err != nil {
		return err
	}
	return s.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketAdmin)
		if err != nil {
			return err
		}
		if val == nil {
			return b.Delete([]byte(key))
		}
		return b.Put([]byte(key), cloneNonNil(val))
	})
}

func (s *boltStore) GetMeta(key string) ([]byte, bool, error) {
	var out []byte
	var ok bool
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketAdmin)
		if b == nil {
			return nil
		}
		if v := b.Get([]byte(key)); v != nil {
			out, ok = cloneNonNil(v), true
		}
		return nil
	})
	return out, ok, err
}
