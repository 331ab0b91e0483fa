package columnar

import (
	"context"
	"errors"
	"math/rand"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestOrderedMapKeepsInputOrder(t *testing.T) {
	for _, workers := range []int{1, 3, 8} {
		const n = 500
		i := 0
		var got []int
		var inFlight, maxInFlight atomic.Int64
		err := OrderedMap(context.Background(), workers,
			func() (int, bool, error) {
				if i == n {
					return 0, true, nil
				}
				i++
				if v := inFlight.Add(1); v > maxInFlight.Load() {
					maxInFlight.Store(v)
				}
				return i, false, nil
			},
			func(_ int, v int) (int, error) {
				time.Sleep(time.Duration(rand.Intn(200)) * time.Microsecond) // finish out of order
				return v * 10, nil
			},
			func(v int) error {
				inFlight.Add(-1)
				got = append(got, v)
				return nil
			}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Fatalf("workers %d: got %d results", workers, len(got))
		}
		for k, v := range got {
			if v != (k+1)*10 {
				t.Fatalf("workers %d: result %d is %d, want %d", workers, k, v, (k+1)*10)
			}
		}
		if m := maxInFlight.Load(); m > int64(2*workers)+1 {
			t.Fatalf("workers %d: %d items in flight, want at most %d", workers, m, 2*workers+1)
		}
	}
}

func TestOrderedMapStopsAtTheFirstError(t *testing.T) {
	boom := errors.New("boom")
	before := runtime.NumGoroutine()
	for _, where := range []string{"next", "work", "sink"} {
		i := 0
		released := 0
		err := OrderedMap(context.Background(), 4,
			func() (int, bool, error) {
				i++
				if where == "next" && i == 50 {
					return 0, false, boom
				}
				return i, false, nil // endless unless stopped
			},
			func(_ int, v int) (int, error) {
				if where == "work" && v == 50 {
					return 0, boom
				}
				return v, nil
			},
			func(v int) error {
				if where == "sink" && v == 50 {
					return boom
				}
				return nil
			},
			func(int) { released++ })
		if !errors.Is(err, boom) {
			t.Fatalf("error in %s: got %v", where, err)
		}
	}
	// Every goroutine has ended.
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines left running (had %d)", n, before)
	}
}
