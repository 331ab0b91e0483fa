// Package columnar holds the batch plumbing shared by every command:
// ordered fan-out of batches to workers, and small helpers over Arrow record
// batches.
package columnar

import (
	"context"
	"sync"
)

// OrderedMap reads items with next until it reports done, runs work on each
// item on `workers` goroutines, and hands the results to sink one at a time
// in the order next produced them, whatever order the workers finish in.
//
// At most 2×workers items are in flight (read but not yet sunk), so memory
// stays bounded by the batch size times the worker count. work receives the
// index of the worker that runs it (0 ≤ w < workers) so callers can keep one
// scratch state per worker. next and sink run on the calling goroutine's
// side and are never called concurrently with themselves.
//
// The first error from next, work or sink stops everything and is returned.
// release, if not nil, is called for each result that was produced but not
// handed to sink because of an error, so its resources can be freed.
func OrderedMap[In, Out any](ctx context.Context, workers int,
	next func() (In, bool, error),
	work func(w int, in In) (Out, error),
	sink func(Out) error,
	release func(Out),
) error {
	if workers < 1 {
		workers = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type job struct {
		seq int64
		in  In
	}
	type result struct {
		seq int64
		out Out
		err error
	}
	jobs := make(chan job)
	results := make(chan result, workers)
	tokens := make(chan struct{}, 2*workers)

	var readErr error
	go func() { // reader
		defer close(jobs)
		for seq := int64(0); ; seq++ {
			select {
			case tokens <- struct{}{}:
			case <-ctx.Done():
				return
			}
			in, done, err := next()
			if err != nil {
				readErr = err
				cancel()
				return
			}
			if done {
				return
			}
			select {
			case jobs <- job{seq, in}:
			case <-ctx.Done():
				return
			}
		}
	}()

	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for j := range jobs {
				if ctx.Err() != nil {
					continue
				}
				out, err := work(w, j.in)
				results <- result{j.seq, out, err}
			}
		}(w)
	}
	go func() { wg.Wait(); close(results) }()

	pending := map[int64]Out{}
	var want int64
	var firstErr error
	for r := range results {
		if firstErr != nil {
			if r.err == nil && release != nil {
				release(r.out)
			}
			continue
		}
		if r.err != nil {
			firstErr = r.err
			cancel()
			continue
		}
		pending[r.seq] = r.out
		for {
			out, ok := pending[want]
			if !ok {
				break
			}
			delete(pending, want)
			want++
			if err := sink(out); err != nil {
				firstErr = err
				cancel()
				break
			}
			<-tokens
		}
	}
	if release != nil {
		for _, out := range pending {
			release(out)
		}
	}
	if firstErr != nil {
		return firstErr
	}
	if readErr != nil {
		return readErr
	}
	return ctx.Err()
}
