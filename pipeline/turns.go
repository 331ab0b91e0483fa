package pipeline

import (
	"context"
	"fmt"
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

type turnsKey struct{}
type stageIndexKey struct{}

func newTurns(stages int) *turns {
	t := &turns{stages: make([]turnstile, stages)}
	for i := range t.stages {
		t.stages[i].waiting = map[int64]chan struct{}{}
	}
	return t
}

// InOrder runs step for the batch a stage is processing once step has run
// for every earlier batch at this stage, so that a stage can make a
// decision that depends on all the rows before (keeping the first
// occurrence of a text) while the rest of its work runs in parallel. A
// stage that calls InOrder must call it exactly once for every batch, empty
// ones included. It returns the context's error if the run stops while the
// batch waits.
func InOrder(ctx context.Context, step func()) error {
	t, _ := ctx.Value(turnsKey{}).(*turns)
	i, ok := ctx.Value(stageIndexKey{}).(int)
	if t == nil || !ok {
		return fmt.Errorf("pipeline: InOrder called outside a pipeline run")
	}
	ts := &t.stages[i]
	seq := BatchSeq(ctx)
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
