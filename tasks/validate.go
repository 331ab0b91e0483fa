package tasks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"

	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/jsonl"
	"github.com/sluice-data/sluice/kernels/tokenize"
)

// Options configure Validate.
type Options struct {
	CheckOptions
	// Format is the format of every file, or Auto to detect each file's
	// from its first line of a known shape.
	Format Format `json:"format"`
	// Encoding counts tokens; nil counts none (and skips the token limit).
	Encoding *tokenize.Encoding `json:"-"`
	// Workers parse and check chunks of lines in parallel; the report is
	// the same whatever their number. 0 means one per core.
	Workers int `json:"workers"`
	// MaxLineBytes is the longest line read; longer lines are not_json
	// errors. 0 means the JSONL reader's default.
	MaxLineBytes int `json:"max_line_bytes"`
}

// FileReport is what Validate found in one file.
type FileReport struct {
	Path string `json:"path"`
	// Format is the format given, or the one detected: that of the first
	// line of a known shape (auto when there is none).
	Format     Format `json:"format"`
	Lines      int64  `json:"lines"` // non-blank lines
	BlankLines int64  `json:"blank_lines,omitempty"`
	Examples   int64  `json:"examples"`
	// Mixed counts the lines of another format than the file's, by format.
	Mixed map[string]int64 `json:"mixed,omitempty"`
}

// Report is the result of Validate.
type Report struct {
	Tokenizer string         `json:"tokenizer,omitempty"`
	Options   Options        `json:"options"`
	Files     []FileReport   `json:"files"`
	Counts    map[Kind]int64 `json:"counts"` // issues by kind
	Errors    []Issue        `json:"errors"`
	Warnings  []Issue        `json:"warnings"`
	Stats     StatsReport    `json:"statistics"`
}

// OK tells whether no error was found.
func (r *Report) OK() bool { return len(r.Errors) == 0 }

// Validate checks every line of files and measures the examples. Errors
// in the data are in the report; the returned error is for failures to
// read (a file that cannot be opened) or a cancelled context.
func Validate(ctx context.Context, files []input.File, o Options) (*Report, error) {
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Encoding == nil {
		o.MaxTokens = 0
	}
	checkers := make([]*lineChecker, o.Workers)
	for i := range checkers {
		checkers[i] = newLineChecker(o.Format, o.Encoding, &o.CheckOptions)
	}
	rd := jsonl.NewChunkReader(files, jsonl.ChunkOptions{Rows: 2048, Bytes: 4 << 20, MaxLineBytes: o.MaxLineBytes})
	v := newCrossCheck(files, o)
	err := columnar.OrderedMap(ctx, o.Workers,
		func() (*jsonl.Chunk, bool, error) {
			c, err := rd.Next()
			if errors.Is(err, io.EOF) {
				return nil, true, nil
			}
			return c, false, err
		},
		func(w int, c *jsonl.Chunk) ([]lineResult, error) {
			defer c.Release()
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			res := make([]lineResult, c.Len())
			for i := range res {
				r := &res[i]
				r.file, r.line = c.Refs[i].File, c.Refs[i].Line
				if c.Refs[i].Err != nil {
					r.problems = []problem{{NotJSON, c.Refs[i].Err.Error()}}
					continue
				}
				checkers[w].parse(c.Line(i), r)
			}
			checkers[w].countQueued()
			return res, nil
		},
		func(res []lineResult) error {
			for i := range res {
				v.add(&res[i])
			}
			return nil
		},
		nil,
	)
	if err != nil {
		return nil, err
	}
	v.findDuplicates()
	for i, st := range rd.Stats() {
		f := &v.files[i]
		f.Lines, f.BlankLines = st.Lines, st.BlankLines
		if st.Err != nil {
			v.issue(int32(i), max(v.lastLine[i], 1), ReadError, st.Err.Error()) // the line it broke in
		}
	}
	return v.report(o), nil
}

// crossCheck sees every line's result in input order: it fixes each
// file's format, finds duplicates across lines, and gathers issues and
// statistics.
type crossCheck struct {
	files    []FileReport
	lastLine []int64
	issues   []fileIssue
	counts   map[Kind]int64
	dups     duplicates
	formats  fileFormats
	stats    Stats
	maxTok   int
}

type lineRef struct {
	file int32
	line int64
}

type fileIssue struct {
	file int32
	Issue
}

func newCrossCheck(files []input.File, o Options) *crossCheck {
	v := &crossCheck{files: make([]FileReport, len(files)), lastLine: make([]int64, len(files)),
		counts: map[Kind]int64{}, maxTok: o.MaxTokens, formats: fileFormats{given: o.Format}}
	for i, f := range files {
		v.files[i] = FileReport{Path: f.Label(), Format: o.Format}
	}
	return v
}

func (v *crossCheck) issue(file int32, line int64, k Kind, msg string) {
	v.counts[k]++
	v.issues = append(v.issues, fileIssue{file, Issue{File: v.files[file].Path, Line: line, Kind: k, Msg: msg}})
}

func (v *crossCheck) ref(r lineRef) string {
	if r.file >= 0 && int(r.file) < len(v.files) {
		return fmt.Sprintf("%s:%d", v.files[r.file].Path, r.line)
	}
	return fmt.Sprintf("line %d", r.line)
}

func (v *crossCheck) add(r *lineResult) {
	f := &v.files[r.file]
	v.lastLine[r.file] = r.line
	errs := false
	for _, p := range r.problems {
		v.issue(r.file, r.line, p.kind, p.msg)
		errs = errs || p.kind.IsError()
	}
	if p, mixed := v.formats.mixed(r.file, r.format); mixed {
		if f.Mixed == nil {
			f.Mixed = map[string]int64{}
		}
		f.Mixed[r.format.String()]++
		v.issue(r.file, r.line, MixedFormat, p.msg)
		errs = true
	} else if f.Format == Auto {
		f.Format = r.format
	}
	if !r.parsed {
		return
	}
	f.Examples++
	v.dups.add(lineRef{r.file, r.line}, &r.sum)
	v.stats.add(&r.sum, !errs, v.maxTok)
}

// findDuplicates reports the examples that repeat an earlier one, and the
// examples (not duplicates) whose prompt an earlier one answered otherwise,
// once every line is in.
func (v *crossCheck) findDuplicates() {
	v.dups.find(func(at, first lineRef) {
		v.issue(at.file, at.line, DuplicateExample, "the same example as "+v.ref(first))
	}, func(at, first lineRef) {
		v.issue(at.file, at.line, ConflictingAnswer, "the same prompt as "+v.ref(first)+" with a different answer")
	})
}

func (v *crossCheck) report(o Options) *Report {
	sort.SliceStable(v.issues, func(i, j int) bool {
		a, b := v.issues[i], v.issues[j]
		if a.file != b.file {
			return a.file < b.file
		}
		return a.Line < b.Line
	})
	r := &Report{Options: o, Files: v.files, Counts: v.counts, Errors: []Issue{}, Warnings: []Issue{},
		Stats: v.stats.report()}
	if o.Encoding != nil {
		r.Tokenizer = o.Encoding.Name()
	}
	for _, is := range v.issues {
		if is.Kind.IsError() {
			r.Errors = append(r.Errors, is.Issue)
		} else {
			r.Warnings = append(r.Warnings, is.Issue)
		}
	}
	return r
}
