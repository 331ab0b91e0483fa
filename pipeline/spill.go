package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/jsonl"
)

// Spill is a Recording kept in files instead of memory, for passes that
// run in other processes (the phases of a launch). The pass that writes
// it keeps, for every batch, what its first After stages made of it: the
// rows they kept, with where each came from, the rows they removed with
// their reasons and their counts, along with what the run counted of the
// batch as read (the lines that could not be read, rows in, rows
// repaired, rows without text), and at the end the input files' line
// counts, bytes and hashes. A later pass over the same input with the
// same first stages replays it: its source gives the kept batches in the
// same order (Batch.Seq), and the run takes the first stages' results
// from the spill instead of running them, so that its stages after them,
// its manifest, its removed rows and its quarantine are those of reading
// the input. Parquet inputs are not spilled (Recording says why).
//
// The files, in Dir: SpillBatchesName, an Arrow IPC stream of the kept
// batches with each row's origin in three more columns;
// SpillRemovedName, one of the removed rows (when After > 0), a batch for
// each; SpillUnitsName, a JSON line a batch (its counts, the stages'
// counts and its quarantined lines); and SpillIndexName, written last,
// which says what was read and how, and the others' sizes and hashes.
// Each is written under a temporary name and renamed into place once the
// run is complete, so a run that fails leaves none.
type Spill struct {
	// Dir, when set, is the local folder the run writes its spill to.
	Dir string
	// Codec compresses the batches: "" (none), "lz4" or "zstd".
	Codec string
	// After is the number of the run's first stages whose results are
	// spilled; 0 spills the batches as read. Stages that report
	// (Reporter) must not be among them: a replay does not run them.
	After int
	// Replay, when set, is the index of a spill an earlier run wrote: the
	// run reads it instead of the input if it read the same input the same
	// way and its first stages are the same, and the input otherwise.
	Replay *SpillIndex
	// Open opens the replayed spill's file of that name.
	Open func(name string) (io.ReadCloser, error)
}

// The names of a spill's files.
const (
	SpillIndexName   = "input.json"
	SpillBatchesName = "input.arrows"
	SpillRemovedName = "input.removed.arrows"
	SpillUnitsName   = "input.units.jsonl"
)

// ErrSpill is wrapped by the errors of a spill that could not be read
// back as written: the run fails, and must not be retried from it.
var ErrSpill = errors.New("the recorded input is damaged")

// SpillIndex describes a complete spill.
type SpillIndex struct {
	Key    string `json:"key"`    // the inputs and reading options (spillKey)
	Schema string `json:"schema"` // the input's, as the manifest records it
	// SourceSchema is the Arrow schema of the batches as read (an IPC
	// stream without batches).
	SourceSchema []byte               `json:"source_schema"`
	After        int                  `json:"after"`
	Stages       []SpillStage         `json:"stages,omitempty"` // the first After
	Units        int64                `json:"units"`
	Stats        []spillStat          `json:"stats"`
	Files        map[string]SpillFile `json:"files"`
	Codec        string               `json:"codec,omitempty"`
}

// SpillStage names one of the stages a spill ran, with its configuration.
type SpillStage struct {
	Name   string `json:"name"`
	Config string `json:"config,omitempty"` // its JSON
}

// SpillFile is one of a spill's files as written.
type SpillFile struct {
	Bytes int64  `json:"bytes"`
	Hash  string `json:"xxhash64"`
}

type spillStat struct {
	Lines      int64  `json:"lines"`
	BlankLines int64  `json:"blank_lines"`
	Skipped    int64  `json:"skipped"`
	Bytes      int64  `json:"bytes"`
	Hash       uint64 `json:"hash"`
	Err        string `json:"error,omitempty"`
}

// spillUnit is a batch's line in SpillUnitsName.
type spillUnit struct {
	Rows        int64                 `json:"rows"` // kept by the first stages
	RowsIn      int64                 `json:"rows_in"`
	Repaired    int64                 `json:"repaired,omitempty"`
	MissingText int64                 `json:"missing_text,omitempty"`
	Origins     bool                  `json:"origins"`      // the kept rows have their origins
	At          bool                  `json:"at,omitempty"` // and their byte offsets
	Bad         []spillBad            `json:"bad,omitempty"`
	Stages      []dataset.StageCounts `json:"stages,omitempty"`
}

type spillBad struct {
	File   int32  `json:"file"`
	Line   int64  `json:"line"`
	Offset int64  `json:"offset"`
	RefErr string `json:"ref_error,omitempty"`
	Err    string `json:"error"`
	Raw    []byte `json:"raw"`
}

// applied is what the first stages of a run made of a batch, replayed
// from a spill: the run starts at the stage after them.
type applied struct {
	stages      []dataset.StageCounts
	removed     arrow.RecordBatch // in the spilling run's removed schema; nil when After is 0
	missingText int64
}

// The origin columns a spilled batch carries after its own.
var spillOriginFields = []arrow.Field{
	{Name: "\x00origin_file", Type: arrow.PrimitiveTypes.Int32},
	{Name: "\x00origin_line", Type: arrow.PrimitiveTypes.Int64},
	{Name: "\x00origin_at", Type: arrow.PrimitiveTypes.Int64},
}

// spillNames are the names of the files of a spill of the results of
// after stages, but its index, in the order its writer and its source
// keep them.
func spillNames(after int) []string {
	if after > 0 {
		return []string{SpillBatchesName, SpillUnitsName, SpillRemovedName}
	}
	return []string{SpillBatchesName, SpillUnitsName}
}

// spillKey is what decides the batches a run reads, as readKey, with
// the schema by its text: a key another process can compare.
func spillKey(cfg Config) string {
	files, _ := json.Marshal(cfg.Inputs)
	var typ string
	if cfg.Schema != nil {
		typ = cfg.Schema.String()
	}
	return fmt.Sprintf("%s %q %t %s", files, typ, cfg.Lineage, readOptions(cfg))
}

// spillStages names the first n stages with their configurations.
func spillStages(stages []Stage, n int) ([]SpillStage, error) {
	var out []SpillStage
	for _, st := range stages[:n] {
		s := SpillStage{Name: st.Name()}
		if c, ok := st.(Configurer); ok {
			b, err := json.Marshal(c.Config())
			if err != nil {
				return nil, err
			}
			s.Config = string(b)
		}
		out = append(out, s)
	}
	return out, nil
}

// replays reports whether cfg's run may replay its spill: the same input
// read the same way, the same first stages.
func (sp *Spill) replays(cfg Config) bool {
	idx := sp.Replay
	if idx == nil || sp.Open == nil || cfg.Inputs[0].Format == input.Parquet || idx.Key != spillKey(cfg) ||
		idx.After < 0 || idx.After > len(cfg.Stages) || len(idx.Stages) != idx.After {
		return false
	}
	stages, err := spillStages(cfg.Stages, idx.After)
	if err != nil {
		return false
	}
	for i, st := range stages {
		if st != idx.Stages[i] {
			return false
		}
	}
	return true
}

// withSpill opens the replay of cfg.Spill when the run may replay it;
// otherwise the source open opens.
func withSpill(cfg Config, open func() (source, error)) (source, error) {
	if sp := cfg.Spill; sp != nil && sp.replays(cfg) {
		return openSpillSource(cfg)
	}
	return open()
}

// spillFile describes a file of n bytes of xxhash64 h.
func spillFile(n int64, h uint64) SpillFile {
	return SpillFile{Bytes: n, Hash: fmt.Sprintf("%016x", h)}
}

// spillItem is what a spill keeps of one batch.
type spillItem struct {
	l           loaded // its bad lines and counts
	rec         arrow.RecordBatch
	origins     *origins
	stages      []dataset.StageCounts
	removed     arrow.RecordBatch
	missingText int64
}

func (it spillItem) release() {
	it.rec.Release()
	if it.removed != nil {
		it.removed.Release()
	}
}

// spillWriter writes a run's spill, in input order: a batch processed out
// of order waits in pending for the ones before it, so what it holds is
// bounded by the batches in flight.
type spillWriter struct {
	cfg     Config
	after   int
	removed *arrow.Schema // the run's removed schema

	mu        sync.Mutex
	err       error // the first error: the spill is dropped
	names     []string
	outs      []*dataset.AtomicFile // by names
	kept      *ipc.Writer
	keptS     *arrow.Schema // the kept batches' schema, with the origin columns
	rw        *ipc.Writer
	units     *json.Encoder
	pending   map[int64]spillItem
	written   int64
	committed bool
}

// newSpillWriter starts the spill of a run, or returns nil when cfg asks
// for none or the input is Parquet.
func newSpillWriter(cfg Config, removedSchema *arrow.Schema) (*spillWriter, error) {
	sp := cfg.Spill
	if sp == nil || sp.Dir == "" || cfg.Inputs[0].Format == input.Parquet {
		return nil, nil
	}
	if sp.After < 0 || sp.After > len(cfg.Stages) {
		return nil, fmt.Errorf("spill: after %d stages of %d", sp.After, len(cfg.Stages))
	}
	switch sp.Codec {
	case "", "lz4", "zstd":
	default:
		return nil, fmt.Errorf("spill: unknown codec %q", sp.Codec)
	}
	s := &spillWriter{cfg: cfg, after: sp.After, removed: removedSchema, pending: map[int64]spillItem{}}
	s.names = spillNames(s.after)
	for _, name := range s.names {
		f, err := dataset.CreateAtomic(filepath.Join(sp.Dir, name))
		if err != nil {
			s.remove()
			return nil, err
		}
		s.outs = append(s.outs, f)
	}
	s.units = json.NewEncoder(s.outs[1])
	if s.after > 0 {
		s.rw = ipc.NewWriter(s.outs[2], s.ipcOptions(removedSchema)...)
	}
	return s, nil
}

func (s *spillWriter) ipcOptions(sc *arrow.Schema) []ipc.Option {
	opts := []ipc.Option{ipc.WithSchema(sc), ipc.WithAllocator(s.cfg.Mem)}
	switch s.cfg.Spill.Codec {
	case "lz4":
		opts = append(opts, ipc.WithLZ4())
	case "zstd":
		opts = append(opts, ipc.WithZstd())
	}
	return opts
}

// add keeps batch seq as the first stages left it: rec and its origins,
// their counts and their removed rows (in the run's removed schema), and
// l, the batch as read, for its bad lines and counts. It takes its own
// references.
func (s *spillWriter) add(seq int64, l loaded, rec arrow.RecordBatch, o *origins, stages []dataset.StageCounts, removed []arrow.RecordBatch, missingText int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return
	}
	it := spillItem{l: l, rec: rec, origins: o, stages: append([]dataset.StageCounts(nil), stages...), missingText: missingText}
	if s.after > 0 {
		if len(removed) == 0 {
			it.removed = emptyBatch(s.cfg.Mem, s.removed)
		} else {
			var err error
			if it.removed, err = columnar.Concat(s.cfg.Mem, s.removed, removed); err != nil {
				s.fail(err)
				return
			}
		}
	}
	rec.Retain()
	s.pending[seq] = it
	for {
		p, ok := s.pending[s.written]
		if !ok {
			break
		}
		delete(s.pending, s.written)
		err := s.write(p)
		p.release()
		if err != nil {
			s.fail(err)
			return
		}
		s.written++
	}
}

// emptyBatch is a batch of schema sc without rows.
func emptyBatch(mem memory.Allocator, sc *arrow.Schema) arrow.RecordBatch {
	cols := make([]arrow.Array, sc.NumFields())
	for i, f := range sc.Fields() {
		cols[i] = array.MakeArrayOfNull(mem, f.Type, 0)
		defer cols[i].Release()
	}
	return array.NewRecordBatch(sc, cols, 0)
}

func (s *spillWriter) fail(err error) {
	s.err = err
	for _, p := range s.pending {
		p.release()
	}
	s.pending = nil
}

// begin starts the stream of the kept batches, of schema in with the
// origin columns after its own.
func (s *spillWriter) begin(in *arrow.Schema) {
	md := in.Metadata()
	s.keptS = arrow.NewSchema(append(append([]arrow.Field(nil), in.Fields()...), spillOriginFields...), &md)
	s.kept = ipc.NewWriter(s.outs[0], s.ipcOptions(s.keptS)...)
}

// write writes one batch's item.
func (s *spillWriter) write(it spillItem) error {
	n := int(it.rec.NumRows())
	su := spillUnit{Rows: int64(n), RowsIn: it.l.rowsIn, Repaired: it.l.repaired, MissingText: it.missingText, Stages: it.stages}
	if s.kept == nil {
		s.begin(it.rec.Schema())
	}
	if k := s.keptS.NumFields() - len(spillOriginFields); int(it.rec.NumCols()) != k {
		return fmt.Errorf("spill: a batch of %d columns, the first had %d", it.rec.NumCols(), k)
	}
	for i, f := range it.rec.Schema().Fields() {
		if g := s.keptS.Field(i); f.Name != g.Name || !arrow.TypeEqual(f.Type, g.Type) {
			return fmt.Errorf("spill: column %d is %s %s, in the first batch %s %s", i, f.Name, f.Type, g.Name, g.Type)
		}
	}
	fb, lb, ab := array.NewInt32Builder(s.cfg.Mem), array.NewInt64Builder(s.cfg.Mem), array.NewInt64Builder(s.cfg.Mem)
	defer fb.Release()
	defer lb.Release()
	defer ab.Release()
	o := it.origins
	su.Origins = o != nil && len(o.line) == n && len(o.file) == n
	su.At = su.Origins && len(o.at) == n
	if su.Origins {
		fb.AppendValues(o.file, nil)
		lb.AppendValues(o.line, nil)
	} else {
		fb.AppendEmptyValues(n)
		lb.AppendEmptyValues(n)
	}
	if su.At {
		ab.AppendValues(o.at, nil)
	} else {
		ab.AppendEmptyValues(n)
	}
	extra := []arrow.Array{fb.NewArray(), lb.NewArray(), ab.NewArray()}
	for _, a := range extra {
		defer a.Release()
	}
	rec := array.NewRecordBatch(s.keptS, append(append([]arrow.Array(nil), it.rec.Columns()...), extra...), int64(n))
	defer rec.Release()
	if err := s.kept.Write(rec); err != nil {
		return err
	}
	if s.rw != nil {
		if err := s.rw.Write(it.removed); err != nil {
			return err
		}
	}
	for _, b := range it.l.bad {
		sb := spillBad{File: b.Ref.File, Line: b.Ref.Line, Offset: b.Ref.Offset, Raw: b.Raw}
		if b.Err != nil {
			sb.Err = b.Err.Error()
		}
		if b.Ref.Err != nil {
			sb.RefErr = b.Ref.Err.Error()
		}
		su.Bad = append(su.Bad, sb)
	}
	return s.units.Encode(su)
}

// commit renames the spill's files into place, the index last, once the
// run processed every batch of src (every batch went through add); a
// spill that cannot be is removed, and the runs after read the input.
func (s *spillWriter) commit(src source, stages []Stage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.err
	if err == nil && len(s.pending) > 0 {
		err = fmt.Errorf("spill: %d batches not written", len(s.pending))
	}
	if err == nil {
		err = s.commitLocked(src, stages)
	}
	if err != nil {
		s.fail(err)
		s.remove()
	}
	s.committed = true
}

func (s *spillWriter) commitLocked(src source, stages []Stage) error {
	if s.kept == nil { // no batch: the schema as read
		s.begin(src.schema())
	}
	if err := s.kept.Close(); err != nil {
		return err
	}
	if s.rw != nil {
		if err := s.rw.Close(); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	sw := ipc.NewWriter(&buf, ipc.WithSchema(src.schema()))
	if err := sw.Close(); err != nil {
		return err
	}
	named, err := spillStages(stages, s.after)
	if err != nil {
		return err
	}
	dir := s.cfg.Spill.Dir
	idx := SpillIndex{Key: spillKey(s.cfg), Schema: src.schemaText(), SourceSchema: buf.Bytes(), After: s.after, Stages: named,
		Units: s.written, Codec: s.cfg.Spill.Codec, Files: map[string]SpillFile{}}
	for _, st := range src.stats() {
		ss := spillStat{Lines: st.Lines, BlankLines: st.BlankLines, Skipped: st.Skipped, Bytes: st.Bytes, Hash: st.Hash}
		if st.Err != nil {
			ss.Err = st.Err.Error()
		}
		idx.Stats = append(idx.Stats, ss)
	}
	for i, name := range s.names {
		idx.Files[name] = spillFile(s.outs[i].Size(), s.outs[i].Sum64())
	}
	b, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return err
	}
	for _, f := range s.outs {
		if err := f.Commit(); err != nil {
			return err
		}
	}
	return dataset.WriteFile(filepath.Join(dir, SpillIndexName), append(b, '\n'))
}

// abort removes a spill that was not committed (the run failed).
func (s *spillWriter) abort() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.committed {
		return
	}
	if s.err == nil {
		s.fail(errors.New("the run failed"))
	}
	s.remove()
	s.committed = true
}

// remove removes what the spill wrote.
func (s *spillWriter) remove() {
	dir := s.cfg.Spill.Dir
	os.Remove(filepath.Join(dir, SpillIndexName))
	for i, name := range s.names {
		if i < len(s.outs) {
			s.outs[i].Abort()
		}
		os.Remove(filepath.Join(dir, name))
	}
}

// hashReader counts and hashes what is read through it, to check it
// against what was written.
type hashReader struct{ *input.HashingReader }

// check reads what is left and compares the whole with what was written.
func (h *hashReader) check(name string, want SpillFile) error {
	if _, err := io.Copy(io.Discard, h); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrSpill, name, err)
	}
	if got := spillFile(h.Bytes(), h.Sum64()); got != want {
		return fmt.Errorf("%w: %s has %d bytes of hash %s, written were %d of hash %s", ErrSpill, name, got.Bytes, got.Hash, want.Bytes, want.Hash)
	}
	return nil
}

// spillSource replays a spill: next reads the next batch, its line and
// its removed rows (the files are read in order, on the reading
// goroutine), load hands them over.
type spillSource struct {
	cfg     Config
	idx     *SpillIndex
	names   []string
	closers []io.Closer
	in      []*hashReader // by names
	kept    *ipc.Reader
	rr      *ipc.Reader // removed rows, when After > 0
	units   *json.Decoder
	s       *arrow.Schema
	n       int64
	mu      sync.Mutex
	pending map[int64]loaded
}

func openSpillSource(cfg Config) (_ *spillSource, err error) {
	s := &spillSource{cfg: cfg, idx: cfg.Spill.Replay, pending: map[int64]loaded{}}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	damaged := func(what string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrSpill, fmt.Sprintf(what, a...))
	}
	if len(s.idx.Stats) != len(cfg.Inputs) {
		return nil, damaged("stats for %d inputs, not %d", len(s.idx.Stats), len(cfg.Inputs))
	}
	sr, err := ipc.NewReader(bytes.NewReader(s.idx.SourceSchema))
	if err != nil {
		return nil, damaged("the source schema: %v", err)
	}
	s.s = sr.Schema()
	sr.Release()
	s.names = spillNames(s.idx.After)
	for _, name := range s.names {
		if _, ok := s.idx.Files[name]; !ok {
			return nil, damaged("no %s in the index", name)
		}
		r, err := cfg.Spill.Open(name)
		if err != nil {
			return nil, err
		}
		s.closers = append(s.closers, r)
		s.in = append(s.in, &hashReader{input.NewHashingReader(bufio.NewReaderSize(r, 1<<20))})
	}
	s.units = json.NewDecoder(s.in[1])
	if s.kept, err = ipc.NewReader(s.in[0], ipc.WithAllocator(cfg.Mem)); err != nil {
		return nil, damaged("%s: %v", SpillBatchesName, err)
	}
	full := s.kept.Schema()
	k := full.NumFields() - len(spillOriginFields)
	if k < 0 {
		return nil, damaged("%s: no origin columns", SpillBatchesName)
	}
	for i, f := range spillOriginFields {
		if !arrow.TypeEqual(full.Field(k+i).Type, f.Type) || full.Field(k+i).Name != f.Name {
			return nil, damaged("%s: no origin columns", SpillBatchesName)
		}
	}
	if s.idx.After > 0 {
		if s.rr, err = ipc.NewReader(s.in[2], ipc.WithAllocator(cfg.Mem)); err != nil {
			return nil, damaged("%s: %v", SpillRemovedName, err)
		}
	}
	return s, nil
}

func (s *spillSource) schema() *arrow.Schema { return s.s }
func (s *spillSource) schemaText() string    { return s.idx.Schema }

func (s *spillSource) stats() []jsonl.FileStat {
	out := make([]jsonl.FileStat, len(s.idx.Stats))
	for i, st := range s.idx.Stats {
		out[i] = jsonl.FileStat{File: s.cfg.Inputs[i], Lines: st.Lines, BlankLines: st.BlankLines, Skipped: st.Skipped,
			Bytes: st.Bytes, Hash: st.Hash}
		if st.Err != "" {
			out[i].Err = errors.New(st.Err)
		}
	}
	return out
}

func (s *spillSource) next(ctx context.Context) (unit, bool, error) {
	if err := ctx.Err(); err != nil {
		return unit{}, false, err
	}
	if s.n == s.idx.Units {
		for _, r := range []*ipc.Reader{s.kept, s.rr} {
			if r == nil {
				continue
			}
			if r.Next() {
				return unit{}, false, fmt.Errorf("%w: more than %d batches", ErrSpill, s.idx.Units)
			}
			if err := r.Err(); err != nil {
				return unit{}, false, fmt.Errorf("%w: %w", ErrSpill, err)
			}
		}
		for i, name := range s.names {
			if err := s.in[i].check(name, s.idx.Files[name]); err != nil {
				return unit{}, false, err
			}
		}
		return unit{}, true, nil
	}
	l, err := s.read()
	if err != nil {
		return unit{}, false, err
	}
	s.mu.Lock()
	s.pending[s.n] = l
	s.mu.Unlock()
	s.n++
	replayProgress(s.cfg, s.n, s.idx.Units)
	return unit{pqFile: -1}, false, nil
}

// read reads the next batch, its line and its removed rows.
func (s *spillSource) read() (_ loaded, err error) {
	damaged := func(what string, a ...any) error {
		return fmt.Errorf("%w: batch %d: %s", ErrSpill, s.n, fmt.Sprintf(what, a...))
	}
	if !s.kept.Next() {
		return loaded{}, damaged("%s ends: %v", SpillBatchesName, s.kept.Err())
	}
	var su spillUnit
	if err := s.units.Decode(&su); err != nil {
		return loaded{}, damaged("%s: %v", SpillUnitsName, err)
	}
	rec := s.kept.RecordBatch()
	n := rec.NumRows()
	if n != su.Rows {
		return loaded{}, damaged("%d rows, its line says %d", n, su.Rows)
	}
	if len(su.Stages) != s.idx.After {
		return loaded{}, damaged("counts of %d stages, not %d", len(su.Stages), s.idx.After)
	}
	k := int(rec.NumCols()) - len(spillOriginFields)
	in := rec.Schema()
	md := in.Metadata()
	l := loaded{batch: array.NewRecordBatch(arrow.NewSchema(in.Fields()[:k], &md), rec.Columns()[:k], n), rowsIn: su.RowsIn, repaired: su.Repaired,
		applied: &applied{stages: su.Stages, missingText: su.MissingText}}
	defer func() {
		if err != nil {
			l.release()
		}
	}()
	if su.Origins {
		files := rec.Column(k).(*array.Int32).Int32Values()
		lines := rec.Column(k + 1).(*array.Int64).Int64Values()
		o := &origins{files: s.cfg.Inputs, file: append([]int32(nil), files...), line: append([]int64(nil), lines...)}
		if su.At {
			o.at = append([]int64(nil), rec.Column(k+2).(*array.Int64).Int64Values()...)
		}
		l.origins = o
	}
	if s.rr != nil {
		if !s.rr.Next() {
			return l, damaged("%s ends: %v", SpillRemovedName, s.rr.Err())
		}
		r := s.rr.RecordBatch()
		r.Retain()
		l.applied.removed = r
	}
	for _, b := range su.Bad {
		if int(b.File) < 0 || int(b.File) >= len(s.cfg.Inputs) {
			return l, damaged("a quarantined line of input %d", b.File)
		}
		bl := jsonl.BadLine{Ref: jsonl.LineRef{File: b.File, Line: b.Line, Offset: b.Offset}, Err: errors.New(b.Err), Raw: b.Raw}
		if b.RefErr != "" {
			bl.Ref.Err = errors.New(b.RefErr)
		}
		l.bad = append(l.bad, bl)
	}
	return l, nil
}

// release releases a replayed batch and the removed rows that came with it.
func (l loaded) release() {
	l.batch.Release()
	if l.applied != nil && l.applied.removed != nil {
		l.applied.removed.Release()
	}
}

func (s *spillSource) load(_ context.Context, _ int, u unit) (loaded, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.pending[u.seq]
	if !ok {
		return loaded{}, fmt.Errorf("batch %d of the recorded input is gone", u.seq)
	}
	delete(s.pending, u.seq)
	return l, nil
}

func (s *spillSource) close() {
	s.mu.Lock()
	for _, l := range s.pending {
		l.release()
	}
	s.pending = nil
	s.mu.Unlock()
	for _, r := range []*ipc.Reader{s.kept, s.rr} {
		if r != nil {
			r.Release()
		}
	}
	for _, c := range s.closers {
		c.Close()
	}
}

// replayApplied takes what the first stages made of a replayed batch: the
// counts of the batch as read and of each stage, and the rows they
// removed, laid out in the run's removed schema. It returns the number of
// stages the batch went through.
func (r *runner) replayApplied(a *applied, d *done) ([]arrow.RecordBatch, int, error) {
	d.missingText = a.missingText
	copy(d.stages, a.stages)
	if a.removed == nil {
		return nil, len(a.stages), nil
	}
	defer a.removed.Release()
	if a.removed.NumRows() == 0 {
		return nil, len(a.stages), nil
	}
	rm, err := columnar.Project(r.cfg.Mem, a.removed, r.removedSchema)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: removed rows: %w", ErrSpill, err)
	}
	return []arrow.RecordBatch{rm}, len(a.stages), nil
}
