package pipeline

import (
	"bufio"
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
	"github.com/cespare/xxhash/v2"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/jsonl"
)

// Spill is a Recording kept in files instead of memory, for passes that
// run in other processes (the phases of a launch): the pass that writes
// it keeps every batch it decoded, before any stage, with what a run
// counts of it (the lines that could not be read, where each row came
// from, rows in and repaired per batch, the input files' line counts,
// bytes and hashes); a later pass over the same input replays it, with
// the same batches in the same order (Batch.Seq) and the same numbers, so
// its stages, its manifest and its quarantine are those of reading the
// input. Parquet inputs are not spilled (Recording says why).
//
// The files, in Dir: SpillBatches, an Arrow IPC stream of the batches
// with each row's origin in three more columns; SpillUnits, a JSON line a
// batch (its counts and its quarantined lines); and SpillIndex, written
// last, which says what was read and how, and the two others' sizes and
// hashes. Each is written under a temporary name and renamed into place
// once the pass read the whole input, so a pass that fails leaves none.
type Spill struct {
	// Dir, when set, is the local folder the pass writes its batches to.
	Dir string
	// Codec compresses the batches: "" (none), "lz4" or "zstd".
	Codec string
	// Replay, when set, is the index of a spill an earlier pass wrote:
	// the pass reads it instead of the input if it read the same input
	// the same way, and the input otherwise.
	Replay *SpillIndex
	// Open opens the replayed spill's file of that name (SpillBatches,
	// SpillUnits).
	Open func(name string) (io.ReadCloser, error)
}

// The names of a spill's files.
const (
	SpillIndexName   = "input.json"
	SpillBatchesName = "input.arrows"
	SpillUnitsName   = "input.units.jsonl"
)

// ErrSpill is wrapped by the errors of a spill that could not be read
// back as written: the pass fails, and must not be retried from it.
var ErrSpill = errors.New("the recorded input is damaged")

// SpillIndex describes a complete spill.
type SpillIndex struct {
	Key    string               `json:"key"` // the inputs and reading options (spillKey)
	Schema string               `json:"schema"`
	Units  int64                `json:"units"`
	Stats  []spillStat          `json:"stats"`
	Files  map[string]SpillFile `json:"files"` // SpillBatches and SpillUnits
	Codec  string               `json:"codec,omitempty"`
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

// spillUnit is a batch's line in SpillUnits.
type spillUnit struct {
	Rows     int64      `json:"rows"`
	RowsIn   int64      `json:"rows_in"`
	Repaired int64      `json:"repaired,omitempty"`
	Origins  bool       `json:"origins"`      // the batch has its rows' origins
	At       bool       `json:"at,omitempty"` // and their byte offsets
	Bad      []spillBad `json:"bad,omitempty"`
}

type spillBad struct {
	File   int32  `json:"file"`
	Line   int64  `json:"line"`
	Offset int64  `json:"offset"`
	RefErr string `json:"ref_error,omitempty"`
	Err    string `json:"error"`
	Raw    []byte `json:"raw"`
}

// The origin columns a spilled batch carries after its own.
var spillOriginFields = []arrow.Field{
	{Name: "\x00origin_file", Type: arrow.PrimitiveTypes.Int32},
	{Name: "\x00origin_line", Type: arrow.PrimitiveTypes.Int64},
	{Name: "\x00origin_at", Type: arrow.PrimitiveTypes.Int64},
}

// spillKey is what decides the batches a pass reads, as readKey, with
// the schema by its text: a key another process can compare.
func spillKey(cfg Config) string {
	files, _ := json.Marshal(cfg.Inputs)
	var typ string
	if cfg.Schema != nil {
		typ = cfg.Schema.String()
	}
	return fmt.Sprintf("%s %d %d %d %q %t %t %d %d %q %q", files, cfg.BatchRows, cfg.BatchBytes, cfg.InferRows,
		typ, cfg.Strict, cfg.RepairUTF8, cfg.MaxDepth, cfg.MaxLineBytes, cfg.TextField, cfg.WARCTypes)
}

// withSpill opens the replay of cfg.Spill when it recorded this input
// read this way; otherwise the source open opens, spilled to cfg.Spill.Dir
// when set and the input is not Parquet.
func withSpill(cfg Config, open func() (source, error)) (source, error) {
	sp := cfg.Spill
	if sp != nil && sp.Replay != nil && sp.Open != nil && sp.Replay.Key == spillKey(cfg) && cfg.Inputs[0].Format != input.Parquet {
		return openSpillSource(cfg)
	}
	src, err := open()
	if err != nil {
		return nil, err
	}
	if sp == nil || sp.Dir == "" || cfg.Inputs[0].Format == input.Parquet {
		return src, nil
	}
	w, err := newSpillingSource(src, cfg)
	if err != nil {
		src.close()
		return nil, err
	}
	return w, nil
}

// hashWriter counts and hashes what goes through it to w.
type hashWriter struct {
	w *bufio.Writer
	h *xxhash.Digest
	n int64
}

func (h *hashWriter) Write(p []byte) (int, error) {
	h.h.Write(p)
	h.n += int64(len(p))
	return h.w.Write(p)
}

func (h *hashWriter) file() SpillFile {
	return SpillFile{Bytes: h.n, Hash: fmt.Sprintf("%016x", h.h.Sum64())}
}

// spillingSource writes every unit its source loads to the spill, in
// input order: a unit loaded out of order waits in pending for the ones
// before it, so what is held is bounded by the units in flight.
type spillingSource struct {
	source
	cfg Config

	mu      sync.Mutex
	err     error // the first write error: the spill is dropped
	files   [2]*os.File
	out     [2]*hashWriter // batches, units
	w       *ipc.Writer
	units   *json.Encoder
	s       *arrow.Schema
	pending map[int64]loaded
	written int64
	total   int64 // the units next gave, once it said done
	read    bool  // next said done
	fstats  []jsonl.FileStat
}

func newSpillingSource(src source, cfg Config) (*spillingSource, error) {
	dir := cfg.Spill.Dir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	s := &spillingSource{source: src, cfg: cfg, pending: map[int64]loaded{}}
	for i, name := range []string{SpillBatchesName, SpillUnitsName} {
		f, err := os.CreateTemp(dir, "."+name+".tmp-*")
		if err == nil {
			err = f.Chmod(0o644)
		}
		if err != nil {
			if f != nil {
				f.Close()
				os.Remove(f.Name())
			}
			s.remove()
			return nil, err
		}
		s.files[i] = f
		s.out[i] = &hashWriter{w: bufio.NewWriterSize(f, 1<<20), h: xxhash.New()}
	}
	in := src.schema()
	md := in.Metadata()
	s.s = arrow.NewSchema(append(append([]arrow.Field(nil), in.Fields()...), spillOriginFields...), &md)
	opts := []ipc.Option{ipc.WithSchema(s.s), ipc.WithAllocator(cfg.Mem)}
	switch cfg.Spill.Codec {
	case "lz4":
		opts = append(opts, ipc.WithLZ4())
	case "zstd":
		opts = append(opts, ipc.WithZstd())
	case "":
	default:
		s.remove()
		return nil, fmt.Errorf("spill: unknown codec %q", cfg.Spill.Codec)
	}
	s.w = ipc.NewWriter(s.out[0], opts...)
	s.units = json.NewEncoder(s.out[1])
	return s, nil
}

func (s *spillingSource) next(ctx context.Context) (unit, bool, error) {
	u, done, err := s.source.next(ctx)
	if err != nil {
		return u, done, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if done {
		s.read = true
		s.fstats = append([]jsonl.FileStat(nil), s.source.stats()...)
	} else {
		s.total++
	}
	return u, done, err
}

func (s *spillingSource) load(ctx context.Context, w int, u unit) (loaded, error) {
	l, err := s.source.load(ctx, w, u)
	if err != nil {
		return l, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return l, nil
	}
	l.batch.Retain()
	s.pending[u.seq] = l
	for {
		p, ok := s.pending[s.written]
		if !ok {
			break
		}
		delete(s.pending, s.written)
		err := s.writeUnit(p)
		p.batch.Release()
		if err != nil {
			s.err = err
			break
		}
		s.written++
	}
	return l, nil
}

// writeUnit writes a loaded unit: its batch with its origins, and its line.
func (s *spillingSource) writeUnit(l loaded) error {
	n := int(l.batch.NumRows())
	su := spillUnit{Rows: int64(n), RowsIn: l.rowsIn, Repaired: l.repaired}
	fb, lb, ab := array.NewInt32Builder(s.cfg.Mem), array.NewInt64Builder(s.cfg.Mem), array.NewInt64Builder(s.cfg.Mem)
	defer fb.Release()
	defer lb.Release()
	defer ab.Release()
	fb.Reserve(n)
	lb.Reserve(n)
	ab.Reserve(n)
	o := l.origins
	su.Origins = o != nil && len(o.line) == n && len(o.file) == n
	su.At = su.Origins && len(o.at) == n
	for i := 0; i < n; i++ {
		if su.Origins {
			fb.UnsafeAppend(o.file[i])
			lb.UnsafeAppend(o.line[i])
		} else {
			fb.UnsafeAppend(0)
			lb.UnsafeAppend(0)
		}
		if su.At {
			ab.UnsafeAppend(o.at[i])
		} else {
			ab.UnsafeAppend(0)
		}
	}
	cols := append([]arrow.Array(nil), l.batch.Columns()...)
	extra := []arrow.Array{fb.NewArray(), lb.NewArray(), ab.NewArray()}
	for _, a := range extra {
		defer a.Release()
	}
	rec := array.NewRecordBatch(s.s, append(cols, extra...), int64(n))
	defer rec.Release()
	if err := s.w.Write(rec); err != nil {
		return err
	}
	for _, b := range l.bad {
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

// close keeps the spill only if the pass read and wrote every unit: its
// files are renamed into place, the index last.
func (s *spillingSource) close() {
	s.source.close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.pending {
		l.batch.Release()
	}
	s.pending = nil
	err := s.err
	if err == nil && (!s.read || s.written != s.total) {
		err = errors.New("the pass did not read the whole input")
	}
	if err == nil {
		err = s.commit()
	}
	if err != nil {
		s.remove()
	}
}

func (s *spillingSource) commit() error {
	if err := s.w.Close(); err != nil {
		return err
	}
	dir := s.cfg.Spill.Dir
	idx := SpillIndex{Key: spillKey(s.cfg), Schema: s.source.schemaText(), Units: s.total, Codec: s.cfg.Spill.Codec,
		Files: map[string]SpillFile{}}
	for i, name := range []string{SpillBatchesName, SpillUnitsName} {
		if err := s.out[i].w.Flush(); err != nil {
			return err
		}
		if err := s.files[i].Close(); err != nil {
			return err
		}
		idx.Files[name] = s.out[i].file()
	}
	for _, st := range s.fstats {
		ss := spillStat{Lines: st.Lines, BlankLines: st.BlankLines, Skipped: st.Skipped, Bytes: st.Bytes, Hash: st.Hash}
		if st.Err != nil {
			ss.Err = st.Err.Error()
		}
		idx.Stats = append(idx.Stats, ss)
	}
	b, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return err
	}
	for i, name := range []string{SpillBatchesName, SpillUnitsName} {
		if err := os.Rename(s.files[i].Name(), filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	f, err := os.CreateTemp(dir, "."+SpillIndexName+".tmp-*")
	if err != nil {
		return err
	}
	if err = f.Chmod(0o644); err == nil {
		_, err = f.Write(append(b, '\n'))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, SpillIndexName))
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// remove removes what the spill wrote.
func (s *spillingSource) remove() {
	dir := s.cfg.Spill.Dir
	os.Remove(filepath.Join(dir, SpillIndexName))
	for i, name := range []string{SpillBatchesName, SpillUnitsName} {
		if f := s.files[i]; f != nil {
			f.Close()
			os.Remove(f.Name())
		}
		os.Remove(filepath.Join(dir, name))
	}
}

// hashReader counts and hashes what is read through it.
type hashReader struct {
	r io.Reader
	h *xxhash.Digest
	n int64
}

func (h *hashReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.h.Write(p[:n])
	h.n += int64(n)
	return n, err
}

// check reads what is left and compares the whole with what was written.
func (h *hashReader) check(name string, want SpillFile) error {
	if _, err := io.Copy(io.Discard, h); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrSpill, name, err)
	}
	if got := (SpillFile{Bytes: h.n, Hash: fmt.Sprintf("%016x", h.h.Sum64())}); got != want {
		return fmt.Errorf("%w: %s has %d bytes of hash %s, written were %d of hash %s", ErrSpill, name, got.Bytes, got.Hash, want.Bytes, want.Hash)
	}
	return nil
}

// spillSource replays a spill: next reads the next batch and its line
// (the files are read in order, on the reading goroutine), load hands it
// over.
type spillSource struct {
	cfg     Config
	idx     *SpillIndex
	closers []io.Closer
	in      [2]*hashReader // batches, units
	rdr     *ipc.Reader
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
	if len(s.idx.Stats) != len(cfg.Inputs) {
		return nil, fmt.Errorf("%w: stats for %d inputs, not %d", ErrSpill, len(s.idx.Stats), len(cfg.Inputs))
	}
	for i, name := range []string{SpillBatchesName, SpillUnitsName} {
		r, err := cfg.Spill.Open(name)
		if err != nil {
			return nil, err
		}
		s.closers = append(s.closers, r)
		s.in[i] = &hashReader{r: bufio.NewReaderSize(r, 1<<20), h: xxhash.New()}
	}
	s.units = json.NewDecoder(s.in[1])
	if s.rdr, err = ipc.NewReader(s.in[0], ipc.WithAllocator(cfg.Mem)); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrSpill, SpillBatchesName, err)
	}
	full := s.rdr.Schema()
	k := full.NumFields() - len(spillOriginFields)
	if k < 0 {
		return nil, fmt.Errorf("%w: %s: no origin columns", ErrSpill, SpillBatchesName)
	}
	for i, f := range spillOriginFields {
		if !arrow.TypeEqual(full.Field(k+i).Type, f.Type) || full.Field(k+i).Name != f.Name {
			return nil, fmt.Errorf("%w: %s: no origin columns", ErrSpill, SpillBatchesName)
		}
	}
	md := full.Metadata()
	s.s = arrow.NewSchema(full.Fields()[:k], &md)
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
		if s.rdr.Next() {
			return unit{}, false, fmt.Errorf("%w: %s has more than %d batches", ErrSpill, SpillBatchesName, s.idx.Units)
		}
		if err := s.rdr.Err(); err != nil {
			return unit{}, false, fmt.Errorf("%w: %s: %w", ErrSpill, SpillBatchesName, err)
		}
		for i, name := range []string{SpillBatchesName, SpillUnitsName} {
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
	if s.cfg.Progress != nil {
		var total int64
		for _, f := range s.cfg.Inputs {
			total += f.Size
		}
		s.cfg.Progress(total*s.n/max(s.idx.Units, 1), total)
	}
	return unit{pqFile: -1}, false, nil
}

// read reads the next batch and its line.
func (s *spillSource) read() (loaded, error) {
	if !s.rdr.Next() {
		err := s.rdr.Err()
		if err == nil {
			err = fmt.Errorf("%d batches of %d", s.n, s.idx.Units)
		}
		return loaded{}, fmt.Errorf("%w: %s: %w", ErrSpill, SpillBatchesName, err)
	}
	var su spillUnit
	if err := s.units.Decode(&su); err != nil {
		return loaded{}, fmt.Errorf("%w: %s: %w", ErrSpill, SpillUnitsName, err)
	}
	rec := s.rdr.RecordBatch()
	n := rec.NumRows()
	if n != su.Rows {
		return loaded{}, fmt.Errorf("%w: batch %d has %d rows, its line says %d", ErrSpill, s.n, n, su.Rows)
	}
	k := len(s.s.Fields())
	l := loaded{batch: array.NewRecordBatch(s.s, rec.Columns()[:k], n), rowsIn: su.RowsIn, repaired: su.Repaired}
	if su.Origins {
		files := rec.Column(k).(*array.Int32).Int32Values()
		lines := rec.Column(k + 1).(*array.Int64).Int64Values()
		o := &origins{files: s.cfg.Inputs, file: append([]int32(nil), files...), line: append([]int64(nil), lines...)}
		if su.At {
			o.at = append([]int64(nil), rec.Column(k+2).(*array.Int64).Int64Values()...)
		}
		l.origins = o
	}
	for _, b := range su.Bad {
		if int(b.File) < 0 || int(b.File) >= len(s.cfg.Inputs) {
			l.batch.Release()
			return loaded{}, fmt.Errorf("%w: batch %d: a quarantined line of input %d", ErrSpill, s.n, b.File)
		}
		bl := jsonl.BadLine{Ref: jsonl.LineRef{File: b.File, Line: b.Line, Offset: b.Offset}, Err: errors.New(b.Err), Raw: b.Raw}
		if b.RefErr != "" {
			bl.Ref.Err = errors.New(b.RefErr)
		}
		l.bad = append(l.bad, bl)
	}
	return l, nil
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
		l.batch.Release()
	}
	s.pending = nil
	s.mu.Unlock()
	if s.rdr != nil {
		s.rdr.Release()
	}
	for _, c := range s.closers {
		c.Close()
	}
}
