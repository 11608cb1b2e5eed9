package main

import (
	"fmt"
	"sync"
	"time"
)

// The two sides drive different client APIs with the same steps; these
// helpers hold the steps, the sides only the API calls.

// sendAll starts n asynchronous sends — send(i, done) must call done with
// the send's result exactly once — and waits for every result, returning the
// first error.
func sendAll(n int, send func(i int, done func(error))) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	wg.Add(n)
	for i := 0; i < n; i++ {
		send(i, func(err error) {
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
			wg.Done()
		})
	}
	wg.Wait()
	return firstErr
}

// seeksPerRun is how many times W5 seeks back to the chunked message and
// reads it again in one run; the run's figure is their median, which a
// scheduler hiccup on a shared machine does not move.
const seeksPerRun = 9

// seekAndReread reads through backlog small messages and one of size bytes
// with receive (which acknowledges what it returns), then measures seek to
// the large message's id and receiving it again, seeksPerRun times, and
// returns the first and the median.
func seekAndReread[ID any](backlog, size int, receive func() (int, ID, error), seek func(ID) error) (first, med time.Duration, err error) {
	var target ID
	found := false
	for i := 0; i <= backlog; i++ {
		n, id, err := receive()
		if err != nil {
			return 0, 0, err
		}
		if n == size {
			target, found = id, true
		}
	}
	if !found {
		return 0, 0, fmt.Errorf("chunked message not received")
	}
	lat := make([]float64, 0, seeksPerRun)
	for range seeksPerRun {
		start := time.Now()
		if err := seek(target); err != nil {
			return 0, 0, err
		}
		for {
			n, _, err := receive()
			if err != nil {
				return 0, 0, err
			}
			if n == size {
				break
			}
		}
		lat = append(lat, float64(time.Since(start)))
	}
	return time.Duration(lat[0]), time.Duration(median(lat)), nil
}
