package scaleout

import (
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/sluice-data/sluice/internal/s3test"
)

// On a bucket a task's lease is an object created only where none is:
// of copies racing for it one holds it, the others find it held; its
// holder renews it by overwriting it and finds it lost once another took
// it over; an expired lease is taken over, and a released one is gone.
func TestLeaseOnABucket(t *testing.T) {
	s := s3test.Start(t)
	p, _, _ := smallPlan(t)
	p.Out = s.URL("out")
	ph := p.Phases[0]
	marker := func() Marker {
		return Marker{Phase: ph.Name, Host: "elsewhere", PID: 1, Started: now(), Token: newToken()}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var holders []*lease
	var refused int
	for c := 0; c < 6; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, _, err := p.tryLease(ph, 0, marker(), fastLease)
			mu.Lock()
			defer mu.Unlock()
			var held errHeld
			switch {
			case err == nil:
				holders = append(holders, l)
			case errors.As(err, &held):
				refused++
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if len(holders) != 1 || refused != 5 {
		t.Fatalf("%d copies hold the lease and %d were refused, want 1 and 5", len(holders), refused)
	}
	l := holders[0]
	first := l.marker.Heartbeat
	time.Sleep(2 * time.Millisecond)
	if _, ok := l.renew(); !ok || l.marker.Heartbeat == first {
		t.Fatalf("renewing: held %v, heartbeat %s then %s", ok, first, l.marker.Heartbeat)
	}
	if _, m, _, err := readLease(p.markerPath(ph, 0, running)); err != nil || m.Heartbeat != l.marker.Heartbeat {
		t.Errorf("the lease in the bucket has heartbeat %q (%v), want %q", m.Heartbeat, err, l.marker.Heartbeat)
	}
	// Not renewed past its expiry, another copy takes it over.
	time.Sleep(fastLease.Expiry + 50*time.Millisecond)
	other, taken, err := p.tryLease(ph, 0, marker(), fastLease)
	if err != nil || taken == nil || taken.Token != l.token {
		t.Fatalf("taking over the expired lease: %v, took over %+v", err, taken)
	}
	if cur, ok := l.held(); ok || cur.Token != other.token {
		t.Errorf("the first holder still holds the lease (%v), or sees %s in its place", ok, cur.Token)
	}
	l.release() // not its own any more: stays
	if _, ok := other.held(); !ok {
		t.Fatalf("the release of a lost lease removed the new holder's")
	}
	other.release()
	if _, _, _, err := readLease(p.markerPath(ph, 0, running)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a released lease is still in the bucket: %v", err)
	}
}
