package pipeline

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/sluice-data/sluice/io/blob"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/jsonl"
	"github.com/sluice-data/sluice/io/pqio"
	"github.com/sluice-data/sluice/schema"
)

// parquetSource reads Parquet inputs. A file whose row groups are no
// larger than two batches is read a row group per unit by the workers
// themselves, in parallel; a file with larger row groups is streamed batch
// by batch on the reading goroutine, so memory stays bounded by the batch
// size.
type parquetSource struct {
	cfg     Config
	s       *arrow.Schema
	typ     string
	fi      int
	rg      int       // next row group of file fi, in row-group mode
	groups  [][]int64 // rows per row group of each file; nil for files streamed by batch
	slices  [][2]int  // the row groups [lo, hi) read of each file
	base    []int64   // rows of each file before its slice, so that row numbers count from the file's start
	rows    []int64   // rows in each file's slice, for progress
	cur     *pqio.Reader
	st      []jsonl.FileStat
	readers []workerReader
	// stamps are the local files as they were before they were read,
	// checked once each is read (a file that changes while it is read
	// fails the run); nil for objects of a store.
	stamps []*input.Stamp
}

// workerReader is the file a worker has open for row-group units.
type workerReader struct {
	file int
	r    *pqio.Reader
}

func openParquetSource(cfg Config) (*parquetSource, error) {
	src := &parquetSource{cfg: cfg, st: make([]jsonl.FileStat, len(cfg.Inputs)),
		groups: make([][]int64, len(cfg.Inputs)), slices: make([][2]int, len(cfg.Inputs)), base: make([]int64, len(cfg.Inputs)),
		rows: make([]int64, len(cfg.Inputs)), readers: make([]workerReader, cfg.Workers), stamps: make([]*input.Stamp, len(cfg.Inputs))}
	for i, f := range cfg.Inputs {
		if f.Format != input.Parquet {
			return nil, fmt.Errorf("%s: cannot mix JSONL and Parquet inputs in one run", f.Path)
		}
		if !blob.IsURL(f.Path) {
			st, err := input.StampOf(f.Path)
			if err != nil {
				return nil, err
			}
			src.stamps[i] = &st
		}
		r, err := openParquet(cfg, f.Path)
		if err != nil {
			return nil, err
		}
		s, err := r.Schema()
		rows := r.RowGroupRows()
		r.Close()
		src.slices[i] = [2]int{0, len(rows)}
		if f.RowGroups != ([2]int{}) {
			if f.RowGroups[0] < 0 || f.RowGroups[0] > f.RowGroups[1] || f.RowGroups[1] > len(rows) {
				return nil, fmt.Errorf("%s: row groups %d to %d asked of a file of %d", f.Path, f.RowGroups[0], f.RowGroups[1], len(rows))
			}
			src.slices[i] = f.RowGroups
		}
		for _, n := range rows[:src.slices[i][0]] {
			src.base[i] += n
		}
		for _, n := range rows[src.slices[i][0]:src.slices[i][1]] {
			src.rows[i] += n
		}
		small := true
		for _, n := range rows {
			small = small && n <= 2*int64(cfg.BatchRows)
		}
		if small {
			src.groups[i] = rows
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
		if i == 0 {
			src.s = s
		} else if !s.Equal(src.s) {
			return nil, fmt.Errorf("%s: schema differs from %s's:\n%s\nvs\n%s", f.Path, cfg.Inputs[0].Path, s, src.s)
		}
		src.st[i].File = f
	}
	if t, _, err := schema.FromArrowSchema(src.s); err == nil {
		src.typ = t.String()
	} else {
		src.typ = strconv.Quote(src.s.String())
	}
	return src, nil
}

// openParquet opens a Parquet input, projected to cfg.Columns when set.
func openParquet(cfg Config, path string) (*pqio.Reader, error) {
	r, err := pqio.Open(cfg.Mem, path, cfg.BatchRows)
	if err != nil || cfg.Columns == nil {
		return r, err
	}
	if err := r.Project(cfg.Columns); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func (s *parquetSource) schema() *arrow.Schema   { return s.s }
func (s *parquetSource) schemaText() string      { return s.typ }
func (s *parquetSource) stats() []jsonl.FileStat { return s.st }

func (s *parquetSource) next(ctx context.Context) (unit, bool, error) {
	for s.fi < len(s.cfg.Inputs) {
		f := s.cfg.Inputs[s.fi]
		first := s.base[s.fi] + s.st[s.fi].Lines // the next row's number in the file, from 0
		if rows := s.groups[s.fi]; rows != nil {
			if g := s.slices[s.fi][0] + s.rg; g < s.slices[s.fi][1] {
				u := unit{pqFile: s.fi, pqGroup: g, origins: parquetOrigins(s.cfg.Inputs, s.fi, first, rows[g])}
				s.st[s.fi].Lines += rows[g]
				s.rg++
				s.report()
				return u, false, nil
			}
			s.rg = 0
		} else if s.cur == nil {
			r, err := openParquet(s.cfg, f.Path)
			if err != nil {
				return unit{}, false, err
			}
			r.Slice(s.slices[s.fi][0], s.slices[s.fi][1])
			s.cur = r
		}
		if s.cur != nil {
			rec, err := s.cur.Next(ctx)
			if err != nil {
				return unit{}, false, err
			}
			if rec != nil {
				u := unit{batch: rec, pqFile: -1, origins: parquetOrigins(s.cfg.Inputs, s.fi, first, rec.NumRows())}
				s.st[s.fi].Lines += rec.NumRows()
				s.report()
				return u, false, nil
			}
			s.cur.Close()
			s.cur = nil
		}
		h, err := input.HashFile(f.Path)
		if err != nil {
			return unit{}, false, err
		}
		if st := s.stamps[s.fi]; st != nil {
			if err := st.Check(f); err != nil {
				return unit{}, false, err
			}
		}
		s.st[s.fi].Bytes, s.st[s.fi].Hash = f.Size, h
		if f.RowGroups != ([2]int{}) {
			// A slice's Size weighs its share; the manifest tells the file.
			st, err := os.Stat(f.Path)
			if err != nil {
				return unit{}, false, err
			}
			s.st[s.fi].Bytes = st.Size()
		}
		s.fi++
		s.report()
	}
	return unit{}, true, nil
}

// report tells Config.Progress how far the reading is, in input bytes: the
// files done, and the share of the current file's rows handed out so far,
// so that one large file moves the bar too.
func (s *parquetSource) report() {
	if s.cfg.Progress == nil {
		return
	}
	var done, total int64
	for i, in := range s.cfg.Inputs {
		total += in.Size
		switch {
		case i < s.fi:
			done += in.Size
		case i == s.fi && s.rows[i] > 0:
			done += int64(float64(in.Size) * float64(s.st[i].Lines) / float64(s.rows[i]))
		}
	}
	s.cfg.Progress(done, total)
}

// load reads a row-group unit on worker w, keeping the worker's file open
// for its next unit; a unit read while streaming already holds its batch.
func (s *parquetSource) load(ctx context.Context, w int, u unit) (loaded, error) {
	if u.batch != nil {
		return passThrough(u), nil
	}
	wr := &s.readers[w]
	if wr.r == nil || wr.file != u.pqFile {
		if wr.r != nil {
			wr.r.Close()
		}
		r, err := openParquet(s.cfg, s.cfg.Inputs[u.pqFile].Path)
		if err != nil {
			wr.r = nil
			return loaded{}, err
		}
		*wr = workerReader{file: u.pqFile, r: r}
	}
	rec, err := wr.r.ReadRowGroup(ctx, u.pqGroup)
	if err != nil {
		return loaded{}, err
	}
	u.batch = rec
	return passThrough(u), nil
}

func (s *parquetSource) close() {
	if s.cur != nil {
		s.cur.Close()
	}
	for _, wr := range s.readers {
		if wr.r != nil {
			wr.r.Close()
		}
	}
}
