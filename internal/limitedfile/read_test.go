package limitedfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(small, []byte("abcd"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, []byte("abcde"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(small, 4); err != nil || string(b) != "abcd" {
		t.Errorf("Read(4 bytes, limit 4) = %q, %v; want abcd", b, err)
	}
	if _, err := Read(big, 4); err == nil || !strings.Contains(err.Error(), "larger than 4 bytes") {
		t.Errorf("Read(5 bytes, limit 4): %v, want larger than 4 bytes", err)
	}
	if _, err := Read(filepath.Join(dir, "none"), 4); !os.IsNotExist(err) {
		t.Errorf("Read(missing): %v, want not exist", err)
	}
}
