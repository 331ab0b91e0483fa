package pipeline

import (
	"context"
	"sync"
)

// turns holds, for one run, a turnstile per stage: the batch whose turn it
// is at that stage, and the batches waiting for theirs.
type turns struct {
	stages []turnstile
}

type turnstile struct {
	mu      sync.Mutex
	next    int64
	waiting map[int64]chan struct{}
}

func newTurns(stages int) *turns {
	t := &turns{stages: make([]turnstile, stages)}
	for i := range t.stages {
		t.stages[i].waiting = map[int64]chan struct{}{}
	}
	return t
}

// inOrder runs step for batch seq once it has run for every earlier
// batch at this turnstile (Batch.InOrder).
func (ts *turnstile) inOrder(ctx context.Context, seq int64, step func()) error {
	ts.mu.Lock()
	if seq != ts.next {
		ch := make(chan struct{})
		ts.waiting[seq] = ch
		ts.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	} else {
		ts.mu.Unlock()
	}
	step()
	ts.mu.Lock()
	ts.next = seq + 1
	if ch, ok := ts.waiting[ts.next]; ok {
		delete(ts.waiting, ts.next)
		close(ch)
	}
	ts.mu.Unlock()
	return nil
}
