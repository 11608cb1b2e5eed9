package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// deleteTopic deletes a measured run's topic through the admin REST API at
// adminURL (force: whatever is still attached is closed), so that a
// broker does not keep every run's messages: on a long run they would
// otherwise grow its memory or disk by gigabytes, and the stub would write
// each run into memory it has never used before, which on some VMs costs
// more than the protocol itself. With no adminURL it does nothing.
func deleteTopic(ctx context.Context, adminURL, topic string) error {
	if adminURL == "" {
		return nil
	}
	path, ok := strings.CutPrefix(topic, "persistent://")
	if !ok {
		return fmt.Errorf("delete %s: not a persistent topic", topic)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	rq, err := http.NewRequestWithContext(ctx, http.MethodDelete,
		strings.TrimSuffix(adminURL, "/")+"/admin/v2/persistent/"+path+"?force=true", nil)
	if err != nil {
		return fmt.Errorf("delete %s: %w", topic, err)
	}
	rsp, err := http.DefaultClient.Do(rq)
	if err != nil {
		return fmt.Errorf("delete %s: %w", topic, err)
	}
	defer rsp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(rsp.Body, 4<<10))
	if rsp.StatusCode/100 != 2 {
		return fmt.Errorf("delete %s: %s: %s", topic, rsp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}
