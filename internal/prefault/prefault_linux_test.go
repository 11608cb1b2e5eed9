package prefault

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// Bytes marks the 2 MiB blocks inside a buffer for huge pages, and only
// those: memory before the first block (the buffer's start and whatever
// the Go heap keeps next to it) stays unmarked.
func TestBytesMarksOnlyInsideBlocksForHugePages(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || !bytes.Contains(mode, []byte("[madvise]")) && !bytes.Contains(mode, []byte("[always]")) {
		t.Skipf("transparent huge pages are not available here (%q, %v)", mode, err)
	}
	b := make([]byte, 8<<20+12345)
	Bytes(b[1:])
	start := uintptr(unsafe.Pointer(&b[1]))
	block := (start + hugePage - 1) &^ (hugePage - 1)
	if !hasVMFlag(t, block, "hg") {
		t.Errorf("the first whole 2 MiB block at %#x is not marked for huge pages", block)
	}
	if hasVMFlag(t, block-1, "hg") {
		t.Errorf("the byte before the first whole block (%#x) is marked for huge pages", block-1)
	}
	runtime.KeepAlive(b)
}

// hasVMFlag reports whether the mapping holding addr has flag among its
// VmFlags in /proc/self/smaps.
func hasVMFlag(t *testing.T, addr uintptr, flag string) bool {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	inside := false
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) > 0 && !strings.HasSuffix(fields[0], ":") {
			// A mapping's header: "lo-hi perms offset dev inode [path]".
			var lo, hi uintptr
			if _, err := fmt.Sscanf(fields[0], "%x-%x", &lo, &hi); err != nil {
				t.Fatalf("smaps header %q: %v", line, err)
			}
			inside = lo <= addr && addr < hi
			continue
		}
		if inside && strings.HasPrefix(line, "VmFlags:") {
			for _, fl := range strings.Fields(strings.TrimPrefix(line, "VmFlags:")) {
				if fl == flag {
					return true
				}
			}
			return false
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("no mapping holds %#x", addr)
	return false
}
