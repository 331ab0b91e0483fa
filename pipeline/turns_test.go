package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// orderStage records the order in which batches take their turn; batches
// sleep a random while first so that workers finish out of order.
type orderStage struct {
	mu    sync.Mutex
	turns []int64
	fail  int64 // the batch that fails before its turn, or -1
}

func (s *orderStage) Name() string                                         { return "order" }
func (s *orderStage) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) { return in, nil }
func (s *orderStage) Process(ctx context.Context, _ memory.Allocator, batch *Batch) (Result, error) {
	rec := batch.Rec
	time.Sleep(time.Duration(rand.Intn(3)) * time.Millisecond)
	if batch.Seq == s.fail {
		return Result{}, errors.New("planted failure")
	}
	err := batch.InOrder(ctx, func() {
		s.mu.Lock()
		s.turns = append(s.turns, batch.Seq)
		s.mu.Unlock()
	})
	if err != nil {
		return Result{}, err
	}
	rec.Retain()
	return Result{Kept: rec}, nil
}

func TestInOrderGivesBatchesTheirTurnsInInputOrder(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, `{"text":"row %d"}`+"\n", i)
	}
	in := writeFile(t, dir, "in.jsonl", []byte(b.String()))

	st := &orderStage{fail: -1}
	cfg := testConfig(t, filepath.Join(dir, "out.parquet"), in)
	cfg.Workers, cfg.BatchRows, cfg.Stages = 4, 5, []Stage{st}
	run(t, cfg)
	if len(st.turns) != 40 {
		t.Fatalf("%d turns, want 40", len(st.turns))
	}
	for i, seq := range st.turns {
		if seq != int64(i) {
			t.Fatalf("turn %d went to batch %d: %v", i, seq, st.turns)
		}
	}

	// A batch that fails never takes its turn: the batches after it must
	// stop waiting, not hang.
	st = &orderStage{fail: 7}
	cfg = testConfig(t, filepath.Join(dir, "fail.parquet"), in)
	cfg.Workers, cfg.BatchRows, cfg.Stages = 4, 5, []Stage{st}
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), cfg, nil, "test")
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "planted failure") {
			t.Fatalf("run: %v, want the planted failure", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the run hangs after a failed batch")
	}
}
