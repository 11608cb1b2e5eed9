package main

import (
	"strings"
	"testing"
)

// A child's sample line is found among its other output and decoded; a
// run's sample keeps the figures of the workloads the child did not run.
func TestReadSampleTakesOneWorkload(t *testing.T) {
	out := "log line\n" + samplePrefix + `{"W2MBPerSec":512.5,"W1MsgsPerSec":0,"W3AllocX":1.02}` + "\nmore\n"
	var got sample
	found, err := readSample(strings.NewReader(out), &got)
	if err != nil || !found {
		t.Fatalf("readSample: found %v, %v", found, err)
	}
	run := sample{W1MsgsPerSec: 700_000}
	run.take("w2", got)
	if run.W1MsgsPerSec != 700_000 || run.W2MBPerSec != 512.5 || run.W3AllocX != 1.02 {
		t.Errorf("after take: %+v", run)
	}
}

func TestReadSampleWithoutSample(t *testing.T) {
	found, err := readSample(strings.NewReader("no sample here\n"), &sample{})
	if found || err != nil {
		t.Errorf("found %v, err %v; want neither", found, err)
	}
	if _, err := readSample(strings.NewReader(samplePrefix+"{not json\n"), &sample{}); err == nil {
		t.Error("a malformed sample line decoded")
	}
}
