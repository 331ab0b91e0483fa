package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/jsonl"
	"github.com/sluice-data/sluice/io/warc"
	"github.com/sluice-data/sluice/schema"
)

// warcSource reads WARC and WET inputs, one row per record of the chosen
// types. Up to Workers files are read at once, each on its own goroutine
// (decompression is most of the cost), a few batches ahead; units come out
// in file order, so the output does not depend on the worker count.
type warcSource struct {
	cfg    Config
	s      *arrow.Schema
	types  []string
	st     []jsonl.FileStat
	raw    []atomic.Int64 // raw bytes read of each file, for progress
	units  []chan warcUnit
	next_  int // the file next() reads from
	opened int // files whose reader has started
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// warcUnit is one batch of a file, or the file's end.
type warcUnit struct {
	batch   arrow.RecordBatch
	origins *origins // each row's file and record number
	bad     []jsonl.BadLine
	err     error
}

func openWARCSource(ctx context.Context, cfg Config) (*warcSource, error) {
	types := cfg.WARCTypes
	if len(types) == 0 {
		types = warc.DefaultTypes
	}
	for _, f := range cfg.Inputs {
		if f.Format != input.WARC {
			return nil, fmt.Errorf("%s: cannot mix %s and WARC inputs in one run", f.Label(), f.Format)
		}
	}
	src := &warcSource{cfg: cfg, s: warc.Schema(types), types: types,
		st: make([]jsonl.FileStat, len(cfg.Inputs)), raw: make([]atomic.Int64, len(cfg.Inputs)),
		units: make([]chan warcUnit, len(cfg.Inputs))}
	src.ctx, src.cancel = context.WithCancel(ctx)
	for src.opened < min(len(cfg.Inputs), max(cfg.Workers, 1)) {
		src.start()
	}
	return src, nil
}

// start begins reading the next unopened file.
func (s *warcSource) start() {
	i := s.opened
	s.opened++
	s.units[i] = make(chan warcUnit, 2)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(s.units[i])
		s.readFile(i)
	}()
}

// readFile reads input i into batches, sending them on its channel.
func (s *warcSource) readFile(i int) {
	f := s.cfg.Inputs[i]
	st := &s.st[i]
	st.File = f
	send := func(u warcUnit) bool {
		select {
		case s.units[i] <- u:
			return true
		case <-s.ctx.Done():
			if u.batch != nil {
				u.batch.Release()
			}
			return false
		}
	}
	raw := f
	raw.Compression = input.None // the WARC reader finds gzip members itself
	stream, err := input.Open(raw)
	if err != nil {
		send(warcUnit{err: err})
		return
	}
	defer stream.Close()
	r, err := warc.NewReader(stream, warc.Options{})
	if err != nil {
		st.Err = fmt.Errorf("%s: %w", f.Label(), err)
	} else {
		br := warc.NewBatchReader(s.cfg.Mem, r, warc.BatchOptions{Types: s.types, Rows: s.cfg.BatchRows, Bytes: s.cfg.BatchBytes})
		defer br.Release()
		for {
			rec, bad, err := br.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				send(warcUnit{err: named(f, err)})
				return
			}
			u := warcUnit{batch: rec, origins: &origins{files: s.cfg.Inputs,
				file: make([]int32, len(br.RecordNumbers())), line: slices.Clone(br.RecordNumbers()),
				at: slices.Clone(br.RecordOffsets())}}
			for j := range u.origins.file {
				u.origins.file[j] = int32(i)
			}
			for _, e := range bad {
				u.bad = append(u.bad, jsonl.BadLine{Ref: jsonl.LineRef{File: int32(i), Line: e.Number, Offset: e.Offset}, Err: e, Raw: e.Raw})
			}
			if u.batch == nil { // only bad records: an empty batch carries them
				b := array.NewRecordBuilder(s.cfg.Mem, s.s)
				u.batch = b.NewRecordBatch()
				b.Release()
			}
			st.Lines += u.batch.NumRows() + int64(len(u.bad))
			s.raw[i].Store(r.RawOffset())
			if !send(u) {
				return
			}
		}
		st.Skipped = br.Skipped()
		if serr := r.StreamErr(); serr != nil {
			st.Err = fmt.Errorf("%s: %w", f.Label(), serr)
		}
	}
	if err := stream.Drain(); err != nil {
		send(warcUnit{err: named(f, err)})
		return
	}
	st.Bytes, st.Hash = stream.RawBytes(), stream.Hash()
	s.raw[i].Store(st.Bytes)
}

// named returns err with the name of f in front, unless it names the file
// already (a file that changed while it was read).
func named(f input.File, err error) error {
	if errors.Is(err, input.ErrChanged) {
		return err
	}
	return fmt.Errorf("%s: %w", f.Label(), err)
}

func (s *warcSource) schema() *arrow.Schema { return s.s }

func (s *warcSource) schemaText() string {
	if t, _, err := schema.FromArrowSchema(s.s); err == nil {
		return t.String()
	}
	return strconv.Quote(s.s.String())
}

func (s *warcSource) stats() []jsonl.FileStat { return s.st }

func (s *warcSource) next(context.Context) (unit, bool, error) {
	for s.next_ < len(s.units) {
		u, ok := <-s.units[s.next_]
		if !ok {
			s.next_++
			if s.opened < len(s.units) {
				s.start()
			}
			continue
		}
		if u.err != nil {
			return unit{}, false, u.err
		}
		if s.cfg.Progress != nil {
			var done, total int64
			for i, f := range s.cfg.Inputs {
				total += f.Size
				done += s.raw[i].Load()
			}
			s.cfg.Progress(done, total)
		}
		return unit{batch: u.batch, bad: u.bad, origins: u.origins, pqFile: -1}, false, nil
	}
	return unit{}, true, nil
}

// load passes on the batch a file's goroutine read.
func (s *warcSource) load(_ context.Context, _ int, u unit) (loaded, error) {
	return passThrough(u), nil
}

func (s *warcSource) close() {
	s.cancel()
	for i := s.next_; i < s.opened; i++ {
		for u := range s.units[i] {
			if u.batch != nil {
				u.batch.Release()
			}
		}
	}
	s.wg.Wait()
}
