package store

import bolt "go.etcd.io/bbolt"

// bucketSchemas holds SchemaStore's values by schema id; it is created on
// first use, so files written before it existed open unchanged.
var bucketSchemas = []byte("schemas")

func (s *boltStore) PutSchemas(id string, blob []byte) error {
	if err := checkName("schema id", id); err != nil {
		return err
	}
	return s.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketSchemas)
		if err != nil {
			return err
		}
		if blob == nil {
			return b.Delete([]byte(id))
		}
		return b.Put([]byte(id), cloneNonNil(blob))
	})
}

func (s *boltStore) GetSchemas(id string) ([]byte, bool, error) {
	if err := checkName("schema id", id); err != nil {
		return nil, false, err
	}
	var out []byte
	var ok bool
	err := s.view(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucketSchemas); b != nil {
			if v := b.Get([]byte(id)); v != nil {
				out, ok = cloneNonNil(v), true
			}
		}
		return nil
	})
	return out, ok, err
}
