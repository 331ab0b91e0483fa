package pipeline

import (
	"context"

	"github.com/sluice-data/sluice/io/jsonl"
)

// limitSource hands out the first rows of its source's input only (see
// Config.Limit): the lines, records or Parquet rows in input order, good
// or not, up to the limit. The unit that reaches the limit is cut there;
// no unit is read after it.
type limitSource struct {
	source
	cfg   Config
	left  int64   // rows still to hand out
	taken []int64 // rows handed out of each input file
	last  int     // the file of the last row handed out
}

// stopper is a source that can stop reading the input file it is in, so
// that its counts of that file (bytes read, their hash) hold from then on.
type stopper interface {
	stop()
}

// withLimit wraps src to read no more than cfg.Limit rows, when there is a
// limit.
func withLimit(src source, cfg Config) source {
	if cfg.Limit <= 0 {
		return src
	}
	return &limitSource{source: src, cfg: cfg, left: cfg.Limit, taken: make([]int64, len(cfg.Inputs))}
}

func (s *limitSource) next(ctx context.Context) (unit, bool, error) {
	if s.left == 0 {
		return unit{}, true, nil
	}
	u, done, err := s.source.next(ctx)
	if done || err != nil {
		return u, done, err
	}
	if n := unitRows(u); n >= s.left {
		u = cutUnit(u, s.left)
		if st, ok := s.source.(stopper); ok {
			st.stop()
		}
	}
	s.count(u)
	return u, false, nil
}

// load loads u, cutting the batch of a Parquet row group to the rows
// next took of it.
func (s *limitSource) load(ctx context.Context, w int, u unit) (loaded, error) {
	l, err := s.source.load(ctx, w, u)
	if err != nil || u.pqFile < 0 || u.origins == nil || l.batch == nil {
		return l, err
	}
	if n := int64(len(u.origins.line)); l.batch.NumRows() > n {
		cut := l.batch.NewSlice(0, n)
		l.batch.Release()
		l.batch, l.rowsIn = cut, n
	}
	return l, nil
}

// count adds the rows of u to the files they come from.
func (s *limitSource) count(u unit) {
	add := func(file int32, n int64) {
		s.taken[file] += n
		s.left -= n
		s.last = int(file)
	}
	switch {
	case u.chunk != nil:
		for _, ref := range u.chunk.Refs {
			add(ref.File, 1)
		}
	case u.pqFile >= 0 && u.origins != nil:
		add(int32(u.pqFile), int64(len(u.origins.line)))
	default:
		if u.origins != nil {
			for _, f := range u.origins.file {
				add(f, 1)
			}
		}
		for _, b := range u.bad {
			add(b.Ref.File, 1)
		}
	}
}

// stats are the source's counts of the files read before the one the
// limit fell in, and of that one and those after it the rows handed out;
// of the file the limit fell in, also the bytes read when the source
// stopped there (stopper).
func (s *limitSource) stats() []jsonl.FileStat {
	inner := s.source.stats()
	if s.left > 0 {
		return inner // the input ended before the limit
	}
	out := make([]jsonl.FileStat, len(s.cfg.Inputs))
	_, stopped := s.source.(stopper)
	for i, f := range s.cfg.Inputs {
		if i < s.last || (i == s.last && stopped) {
			out[i] = inner[i]
		} else {
			out[i] = jsonl.FileStat{File: f}
		}
		out[i].Lines = s.taken[i]
	}
	return out
}

// unitRows is how many input rows u holds: its lines, or its rows and the
// records that could not be read.
func unitRows(u unit) int64 {
	switch {
	case u.chunk != nil:
		return int64(u.chunk.Len())
	case u.batch != nil:
		return u.batch.NumRows() + int64(len(u.bad))
	case u.origins != nil:
		return int64(len(u.origins.line))
	}
	return 0
}

// cutUnit returns the first n input rows of u.
func cutUnit(u unit, n int64) unit {
	switch {
	case u.chunk != nil:
		c := u.chunk
		c.Ends, c.Refs = c.Ends[:n], c.Refs[:n]
		c.Data = c.Data[:c.Ends[n-1]]
	case u.batch != nil:
		rows, bad := firstInOrder(u, n)
		if rows < u.batch.NumRows() {
			cut := u.batch.NewSlice(0, rows)
			u.batch.Release()
			u.batch = cut
		}
		u.bad = u.bad[:bad]
		u.origins = u.origins.first(rows)
	case u.origins != nil:
		u.origins = u.origins.first(n)
	}
	return u
}

// firstInOrder splits the first n input rows of a unit that holds a batch
// into rows of the batch and records that could not be read, in the order
// of their numbers in the file (WARC record numbers; rows first when the
// rows' origins are not known).
func firstInOrder(u unit, n int64) (rows int64, bad int) {
	if u.origins == nil {
		rows = min(n, u.batch.NumRows())
		return rows, int(n - rows)
	}
	for rows+int64(bad) < n {
		switch {
		case bad == len(u.bad):
			rows++
		case rows == u.batch.NumRows():
			bad++
		case u.origins.line[rows] < u.bad[bad].Ref.Line:
			rows++
		default:
			bad++
		}
	}
	return rows, bad
}

// first returns the origins of the first n rows.
func (o *origins) first(n int64) *origins {
	if o == nil || int64(len(o.line)) <= n {
		return o
	}
	out := &origins{files: o.files, file: o.file[:n], line: o.line[:n]}
	if o.at != nil {
		out.at = o.at[:n]
	}
	return out
}
