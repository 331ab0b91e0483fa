package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/jsonl"
)

// Recording holds the batches one pass loaded from a JSONL or WARC input,
// with what a run counts of them (lines that could not be read, where each
// row came from, the input files' sizes and hashes), so that the later
// passes of a global stage over the same input replay them instead of
// reading and decoding the input again: the input is read and parsed once.
// The first pass whose stages include a Recorder records; the passes whose
// stages include a Replayer replay, each getting the batches its own read
// would have given, in the same order and with the same numbers
// (Batch.Seq), so stages see no difference.
//
// A recording holds the decoded batches in memory, up to its limit in
// bytes; an input larger than that (counting five times its size when it
// is compressed) is not recorded, and a pass that goes past it anyway drops
// what it recorded: the later passes read the input as they would without
// one. Parquet inputs are not
// recorded: reading them again costs little, and a scan pass reads only
// some of their columns.
type Recording struct {
	limit int64

	mu       sync.Mutex
	units    []loaded // by Batch.Seq
	bytes    int64
	key      string // what the recorded pass read: inputs and reading options
	schema   *arrow.Schema
	text     string
	stats    []jsonl.FileStat
	complete bool // the pass read the whole input and every unit is here
	dropped  bool // over the limit, or the pass did not finish
	started  bool
}

// NewRecording returns an empty recording that holds at most limit bytes
// of batches.
func NewRecording(limit int64) *Recording { return &Recording{limit: limit} }

// Recorder is implemented by the stage of a pass that records the pass's
// input (a global stage's first pass).
type Recorder interface {
	Recording() *Recording
}

// Replayer is implemented by the stage of a pass that replays a recording
// when there is a complete one. last reports that no pass after this one
// replays it: the pass hands each batch over instead of a copy, and the
// recording is empty once the pass ends.
type Replayer interface {
	Replay() (r *Recording, last bool)
}

// Complete reports whether r holds the whole input of the pass that
// recorded it, so that later passes replay it.
func (r *Recording) Complete() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.complete && !r.dropped
}

// Release drops the batches r holds; later passes read the input.
func (r *Recording) Release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropLocked()
}

func (r *Recording) dropLocked() {
	for _, u := range r.units {
		if u.batch != nil {
			u.batch.Release()
		}
	}
	r.units, r.bytes, r.dropped = nil, 0, true
}

// readKey is what decides the batches a run reads: the inputs and the
// options of reading and decoding them.
func readKey(cfg Config) string {
	files := make([]string, len(cfg.Inputs))
	for i, f := range cfg.Inputs {
		files[i] = fmt.Sprintf("%s:%d:%s", f.Label(), f.Size, f.Format)
	}
	return fmt.Sprintf("%q %p %s", files, cfg.Schema, readOptions(cfg))
}

// readOptions are the options of reading and decoding cfg's inputs that
// decide the batches, but its schema.
func readOptions(cfg Config) string {
	return fmt.Sprintf("%d %d %d %t %t %d %d %q %q %d", cfg.BatchRows, cfg.BatchBytes, cfg.InferRows,
		cfg.Strict, cfg.RepairUTF8, cfg.MaxDepth, cfg.MaxLineBytes, cfg.TextField, cfg.WARCTypes, cfg.Limit)
}

// replayOrRecord returns the replay of a complete recording of the same
// input when a stage of the run asks for one. Otherwise it returns the
// source open opens, wrapped to record it when a stage asks for a
// recording, the input is not Parquet and it is not larger than the
// recording's limit.
func replayOrRecord(cfg Config, open func() (source, error)) (source, error) {
	key := readKey(cfg)
	for _, st := range cfg.Stages {
		if rp, ok := st.(Replayer); ok {
			if r, last := rp.Replay(); r != nil && r.replays(key) {
				return &replaySource{r: r, last: last, cfg: cfg}, nil
			}
		}
	}
	src, err := open()
	if err != nil {
		return nil, err
	}
	if cfg.Inputs[0].Format == input.Parquet {
		return src, nil
	}
	var size int64 // what the decoded batches may take, roughly
	for _, f := range cfg.Inputs {
		if f.Compression != input.None || strings.HasSuffix(f.Path, ".gz") {
			size += 5 * f.Size
		} else {
			size += f.Size
		}
	}
	for _, st := range cfg.Stages {
		if rc, ok := st.(Recorder); ok {
			if r := rc.Recording(); r != nil && size <= r.limit && r.start(key) {
				return &recordingSource{source: src, r: r}, nil
			}
		}
	}
	return src, nil
}

// replays reports whether r is complete and was recorded by a pass that
// read what key says.
func (r *Recording) replays(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.complete && !r.dropped && r.key == key
}

// start claims r for a pass; a recording records one pass only.
func (r *Recording) start(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started {
		return false
	}
	r.started, r.key = true, key
	return true
}

// recordingSource keeps a copy of every batch its source loads.
type recordingSource struct {
	source
	r *Recording
}

func (s *recordingSource) next(ctx context.Context) (unit, bool, error) {
	u, done, err := s.source.next(ctx)
	if done && err == nil {
		r := s.r
		r.mu.Lock()
		r.schema, r.text, r.stats = s.source.schema(), s.source.schemaText(), slices.Clone(s.source.stats())
		r.complete = true
		r.mu.Unlock()
	}
	return u, done, err
}

func (s *recordingSource) load(ctx context.Context, w int, u unit) (loaded, error) {
	l, err := s.source.load(ctx, w, u)
	if err != nil {
		return l, err
	}
	r := s.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dropped {
		return l, nil
	}
	if r.bytes += batchBytes(l.batch); r.bytes > r.limit {
		r.dropLocked()
		return l, nil
	}
	if int(u.seq) >= len(r.units) {
		r.units = slices.Grow(r.units, int(u.seq)+1-len(r.units))[:u.seq+1]
	}
	l.batch.Retain()
	r.units[u.seq] = l
	return l, nil
}

// close keeps the recording only if the pass read every unit.
func (s *recordingSource) close() {
	s.source.close()
	r := s.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.complete || slices.ContainsFunc(r.units, func(l loaded) bool { return l.batch == nil }) {
		r.complete = false
		r.dropLocked()
	}
}

// batchBytes is the memory the buffers of rec take.
func batchBytes(rec arrow.RecordBatch) int64 {
	var n int64
	var add func(d arrow.ArrayData)
	add = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
		for _, c := range d.Children() {
			add(c)
		}
	}
	for _, c := range rec.Columns() {
		add(c.Data())
	}
	return n
}

// replaySource gives the batches of a recording, in order.
type replaySource struct {
	r    *Recording
	last bool
	cfg  Config
	n    int
}

func (s *replaySource) schema() *arrow.Schema   { return s.r.schema }
func (s *replaySource) schemaText() string      { return s.r.text }
func (s *replaySource) stats() []jsonl.FileStat { return slices.Clone(s.r.stats) }

func (s *replaySource) next(context.Context) (unit, bool, error) {
	if s.n == len(s.r.units) {
		return unit{}, true, nil
	}
	s.n++
	replayProgress(s.cfg, int64(s.n), int64(len(s.r.units)))
	return unit{pqFile: -1}, false, nil
}

// replayProgress tells cfg.Progress that a replay gave n of its units
// batches, as that share of the inputs' bytes.
func replayProgress(cfg Config, n, units int64) {
	if cfg.Progress == nil {
		return
	}
	var total int64
	for _, f := range cfg.Inputs {
		total += f.Size
	}
	cfg.Progress(total*n/max(units, 1), total)
}

func (s *replaySource) load(_ context.Context, _ int, u unit) (loaded, error) {
	r := s.r
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.units[u.seq]
	if l.batch == nil {
		return loaded{}, fmt.Errorf("batch %d of the recorded input is gone", u.seq)
	}
	if s.last {
		r.units[u.seq] = loaded{}
	} else {
		l.batch.Retain()
	}
	return l, nil
}

// close empties the recording after its last pass.
func (s *replaySource) close() {
	if s.last {
		s.r.Release()
	}
}
