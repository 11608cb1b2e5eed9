// Package limitedfile reads files that must be small (credentials, keys,
// trust certificates) without reading more than a limit: a file that
// claims to be larger is refused after limit+1 bytes.
//
//	pem, err := limitedfile.Read("/etc/pulsar/ca.pem", 1<<20)
package limitedfile

import (
	"fmt"
	"io"
	"os"
)

// Read reads the file at path if it holds at most limit bytes; a larger
// one is an error naming the limit, and no more than limit+1 bytes are
// read.
func Read(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return b, nil
}
