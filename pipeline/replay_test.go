package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/dataset"
)

// logStage notes what every batch it sees holds: its number, and each
// row's origin and text. As a Recorder it asks for its pass to be
// recorded; as a Replayer (last set or not) for its pass to replay.
type logStage struct {
	rec    *Recording
	replay bool
	last   bool
	mu     sync.Mutex
	seen   map[int64]string
}

func (s *logStage) Name() string                                         { return "log" }
func (s *logStage) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) { return in, nil }
func (s *logStage) Process(_ context.Context, _ memory.Allocator, batch *Batch) (Result, error) {
	var b strings.Builder
	text := batch.Rec.Column(batch.Rec.Schema().FieldIndices("text")[0]).(*array.String)
	for i := range text.Len() {
		fmt.Fprintf(&b, "%s=%s;", batch.Origin(i), text.Value(i))
	}
	s.mu.Lock()
	if s.seen == nil {
		s.seen = map[int64]string{}
	}
	s.seen[batch.Seq] = b.String()
	s.mu.Unlock()
	batch.Rec.Retain()
	return Result{Kept: batch.Rec}, nil
}

type recordStage struct{ *logStage }

func (s recordStage) Recording() *Recording { return s.rec }

type replayStage struct{ *logStage }

func (s replayStage) Replay() (*Recording, bool) { return s.rec, s.last }

// replayInput writes two JSONL files of several batches each, with lines
// that cannot be read and a blank line.
func replayInput(t *testing.T, dir string) []string {
	var a, b strings.Builder
	for i := range 7 {
		fmt.Fprintf(&a, "{\"id\": %d, \"text\": \"a%d\"}\n", i, i)
	}
	a.WriteString("{not json\n\n{\"id\": 7, \"text\": \"a7\"}\n")
	for i := range 5 {
		fmt.Fprintf(&b, "{\"id\": %d, \"text\": \"b%d\"}\n", 100+i, i)
	}
	return []string{writeFile(t, dir, "a.jsonl", []byte(a.String())), writeFile(t, dir, "b.jsonl", []byte(b.String()))}
}

func runPass(t *testing.T, cfg Config, st Stage) *dataset.Manifest {
	t.Helper()
	cfg.Stages = []Stage{st}
	m, err := Run(context.Background(), cfg, []string{"test"}, "test")
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return m
}

// The passes after a recorded one see the batches the input gives, with
// their numbers and origins, and write the rows, the quarantined lines and
// the inputs' sizes and hashes a read would, without reading the input:
// it is gone by then. The last pass empties the recording.
func TestReplayGivesTheBatchesOfTheRecordedPass(t *testing.T) {
	dir := t.TempDir()
	inputs := replayInput(t, dir)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	cfg := testConfig(t, filepath.Join(dir, "read.jsonl"), inputs...)
	cfg.BatchRows, cfg.Mem = 3, mem

	want := &logStage{}
	wantManifest := runPass(t, cfg, want)

	rec := NewRecording(1 << 20)
	pass := cfg
	pass.Target = dataset.Target{Kind: dataset.Discard}
	runPass(t, pass, recordStage{&logStage{rec: rec}})
	if !rec.Complete() {
		t.Fatal("the recording of a whole pass is not complete")
	}
	for _, in := range inputs {
		if err := os.Remove(in); err != nil {
			t.Fatal(err)
		}
	}
	verify := &logStage{rec: rec}
	runPass(t, pass, replayStage{verify})
	write := &logStage{rec: rec, last: true}
	cfg.Target = dataset.ParseTarget(filepath.Join(dir, "replayed.jsonl"))
	m := runPass(t, cfg, replayStage{write})
	for name, got := range map[string]*logStage{"verify pass": verify, "writing pass": write} {
		if !reflect.DeepEqual(got.seen, want.seen) {
			t.Errorf("%s saw\n%v\nreading saw\n%v", name, got.seen, want.seen)
		}
	}
	if len(want.seen) != 5 {
		t.Errorf("%d batches, want 5 of 3 rows or fewer", len(want.seen))
	}
	if !reflect.DeepEqual(m.Inputs, wantManifest.Inputs) || m.Counts != wantManifest.Counts {
		t.Errorf("replayed manifest: inputs %+v counts %+v\nread: inputs %+v counts %+v", m.Inputs, m.Counts, wantManifest.Inputs, wantManifest.Counts)
	}
	if q := readQuarantine(t, filepath.Join(dir, "replayed.quarantine.jsonl")); len(q) != 1 || q[0].Line != 8 || q[0].Raw != "{not json" {
		t.Errorf("quarantine %+v, want line 8 of a.jsonl", q)
	}
	if got, want := readJSONL(t, filepath.Join(dir, "replayed.jsonl")), readJSONL(t, filepath.Join(dir, "read.jsonl")); !reflect.DeepEqual(got, want) || len(got) != 13 {
		t.Errorf("replayed rows %v, read rows %v", got, want)
	}
	if rec.Complete() {
		t.Error("the recording is still there after its last pass")
	}
	mem.AssertSize(t, 0)
}

// An input larger than the limit is not recorded, and a pass that records
// more than the limit (a compressed input that decodes to more than was
// thought) drops what it recorded; the passes after it read the input.
func TestRecordingPastItsLimitIsDropped(t *testing.T) {
	dir := t.TempDir()
	var long strings.Builder
	for i := range 20 {
		fmt.Fprintf(&long, "{\"id\": %d, \"text\": %q}\n", i, strings.Repeat("x", 2000))
	}
	packed := writeFile(t, dir, "long.jsonl.gz", gzipBytes([]byte(long.String())))
	st, err := os.Stat(packed)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		inputs []string
		limit  int64
	}{
		"larger than the limit":                {replayInput(t, dir), 100},
		"decodes to more than the limit":       {[]string{packed}, 5*st.Size() + 100},
		"decodes to more, one batch at a time": {[]string{packed}, 5*st.Size() + 8000},
	} {
		t.Run(name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			cfg := testConfig(t, filepath.Join(dir, "out"), c.inputs...)
			cfg.BatchRows, cfg.Mem, cfg.Target = 3, mem, dataset.Target{Kind: dataset.Discard}
			want := &logStage{}
			runPass(t, cfg, want)
			rec := NewRecording(c.limit)
			runPass(t, cfg, recordStage{&logStage{rec: rec}})
			if rec.Complete() {
				t.Fatal("a recording past its limit is complete")
			}
			mem.AssertSize(t, 0)
			got := &logStage{rec: rec, last: true}
			runPass(t, cfg, replayStage{got})
			if !reflect.DeepEqual(got.seen, want.seen) {
				t.Errorf("after a dropped recording the pass saw\n%v\nwant\n%v", got.seen, want.seen)
			}
		})
	}
}

// A pass over other inputs, or read otherwise, does not replay a recording.
func TestReplayNeedsTheSameReading(t *testing.T) {
	dir := t.TempDir()
	inputs := replayInput(t, dir)
	cfg := testConfig(t, filepath.Join(dir, "out"), inputs...)
	cfg.BatchRows, cfg.Target = 3, dataset.Target{Kind: dataset.Discard}
	rec := NewRecording(1 << 20)
	runPass(t, cfg, recordStage{&logStage{rec: rec}})
	other := cfg
	other.BatchRows = 4
	got := &logStage{rec: rec}
	runPass(t, other, replayStage{got})
	if len(got.seen) != 4 {
		t.Errorf("batches of 4 rows replayed from batches of 3: %v", got.seen)
	}
	other = testConfig(t, filepath.Join(dir, "out"), inputs[1])
	other.BatchRows, other.Target = 3, dataset.Target{Kind: dataset.Discard}
	got = &logStage{rec: rec}
	runPass(t, other, replayStage{got})
	if len(got.seen) != 2 || !strings.Contains(got.seen[0], "b.jsonl:1=b0;") {
		t.Errorf("one input replayed from a recording of two: %v", got.seen)
	}
}
