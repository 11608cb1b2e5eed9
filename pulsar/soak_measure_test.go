package pulsar

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"
)

// Payloads of the soak check themselves: bytes 0-31 are the SHA-256 of the
// rest, bytes 32-39 the message's sequence number, and the rest filler
// derived from it, so that a message received anywhere is checked whole
// without the sender's copy.
const soakHeader = 40

// soakPayload returns the payload of message seq, of size bytes (at least
// soakHeader).
func soakPayload(seq uint64, size int) []byte {
	size = max(size, soakHeader)
	b := make([]byte, size)
	binary.BigEndian.PutUint64(b[32:40], seq)
	x := seq*0x9E3779B97F4A7C15 | 1
	i := soakHeader
	for ; i+8 <= size; i += 8 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		binary.LittleEndian.PutUint64(b[i:], x)
	}
	for ; i < size; i++ {
		b[i] = byte(x >> (8 * (i % 8)))
	}
	sum := sha256.Sum256(b[32:])
	copy(b, sum[:])
	return b
}

// soakCheck returns the sequence number of a payload, and false when it
// is not whole (its SHA-256 does not match).
func soakCheck(p []byte) (uint64, bool) {
	if len(p) < soakHeader {
		return 0, false
	}
	sum := sha256.Sum256(p[32:])
	if !bytes.Equal(sum[:], p[:32]) {
		return 0, false
	}
	return binary.BigEndian.Uint64(p[32:40]), true
}

// soakSample is what the soak measures of the process (client and stub
// share it) and of the stub, at one time.
type soakSample struct {
	at         time.Duration
	goroutines int
	fds        int
	rss        int64 // resident set, bytes
	rssAnon    int64 // of which anonymous (the rest is mostly the data file's mapped pages)
	heapLive   int64 // live heap after the last GC
	stored     int64 // sum of pulsar_storage_size over loaded topics
	file       int64 // size of the stub's data file
	topics     int   // loaded topics (with a pulsar_storage_size series)
}

func (s soakSample) String() string {
	return fmt.Sprintf("t=%-6s goroutines=%-5d fds=%-4d rss=%-7s anon=%-7s heapLive=%-6s stored=%-6s file=%-6s topics=%d",
		s.at.Round(time.Second), s.goroutines, s.fds, mib(s.rss), mib(s.rssAnon), mib(s.heapLive), mib(s.stored), mib(s.file), s.topics)
}

func mib(n int64) string { return fmt.Sprintf("%.0fMiB", float64(n)/(1<<20)) }

// sample measures now.
func (s *soak) sample() soakSample {
	out := soakSample{at: time.Since(s.start), goroutines: runtime.NumGoroutine(), fds: countFDs()}
	out.rss, out.rssAnon = rss()
	m := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(m)
	if m[0].Value.Kind() == metrics.KindUint64 {
		out.heapLive = int64(m[0].Value.Uint64())
	}
	if fi, err := os.Stat(s.dataFile); err == nil {
		out.file = fi.Size()
	}
	out.stored, out.topics = s.storedBytes()
	return out
}

// countFDs counts the process's open file descriptors (Linux; 0 elsewhere).
func countFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	return len(ents)
}

// rss returns the process's resident set size and its anonymous part
// (Linux; 0 elsewhere).
func rss() (total, anon int64) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "VmRSS" && k != "RssAnon") {
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		if k == "VmRSS" {
			total = kb << 10
		} else {
			anon = kb << 10
		}
	}
	return total, anon
}

// storedBytes sums pulsar_storage_size from the stub's /metrics.
func (s *soak) storedBytes() (int64, int) {
	resp, err := s.http.Get(s.admin + "/metrics")
	if err != nil {
		return 0, 0
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	var sum int64
	n := 0
	for line := range strings.Lines(string(body)) {
		if !strings.HasPrefix(line, "pulsar_storage_size{") {
			continue
		}
		f := strings.Fields(line)
		if v, err := strconv.ParseFloat(f[len(f)-1], 64); err == nil {
			sum += int64(v)
			n++
		}
	}
	return sum, n
}

// adminDo sends an admin request and returns its status.
func (s *soak) adminDo(method, path, body string) (int, error) {
	req, err := http.NewRequest(method, s.admin+path, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode >= 300 && resp.StatusCode != http.StatusNotFound {
		return resp.StatusCode, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, msg)
	}
	return resp.StatusCode, nil
}

// deleteTopic deletes name, partitioned or not, with force (Pulsar's
// `topics delete -f` and `delete-partitioned-topic -f`); a name that is
// neither is fine.
func (s *soak) deleteTopic(name string) error {
	p := "/admin/v2/persistent/public/default/" + name
	if _, err := s.adminDo(http.MethodDelete, p+"/partitions?force=true", ""); err != nil {
		return err
	}
	code, err := s.adminDo(http.MethodDelete, p+"?force=true", "")
	if err == nil && code != http.StatusNotFound {
		s.n.deletes.Add(1)
	}
	return err
}
