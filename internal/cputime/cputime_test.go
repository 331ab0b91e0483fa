package cputime

import (
	"testing"
	"time"
)

func TestNowAdvancesWithWork(t *testing.T) {
	t0 := now()
	if t0 == 0 {
		t.Skip("no process CPU time on this system")
	}
	deadline := time.Now().Add(10 * time.Second)
	for now()-t0 < int64(5*time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("10s of busy work did not take 5ms of CPU time")
		}
	}
}
