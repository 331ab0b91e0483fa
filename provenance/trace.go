package provenance

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/pipeline"
)

// TraceOptions name the columns Trace reads.
type TraceOptions struct {
	IDField   string // "id" when empty
	TextField string // "text" when empty
	Mem       memory.Allocator
}

// Hop is a row in one version of the history: kept or removed there, and
// by which stage for which reason.
type Hop struct {
	VersionID string   `json:"version_id"`
	Path      string   `json:"path"`
	Command   []string `json:"command,omitempty"`
	// Status is Kept, Removed or Absent (a version that does not hold the
	// row: it was removed, or never read, before).
	Status string `json:"status"`
	// File and Row are where the version holds the row (Row from 1).
	File string `json:"file"`
	Row  int64  `json:"row"`
	// Stages are the stages of the run that the row went through: all of
	// them when it was kept, those up to the one that removed it otherwise.
	Stages []string `json:"stages"`
	// Stage, Reason and DupOf tell why a removed row was removed: the
	// stage, its rule, and the kept row it duplicates (dedup).
	Stage  string `json:"stage,omitempty"`
	Reason string `json:"reason,omitempty"`
	DupOf  string `json:"dup_of,omitempty"`
	// SrcFile and SrcRow are the row's lineage columns, when it has them:
	// the first input it was read from, and its line, row or record offset.
	SrcFile string `json:"src_file,omitempty"`
	SrcRow  int64  `json:"src_row,omitempty"`
	Text    string `json:"text"` // the start of the row's text
}

// The states of a row in a version.
const (
	Kept    = "kept"
	Removed = "removed"
	Absent  = "absent"
)

// ErrNotFound is returned by Trace when the dataset has no row of the id.
var ErrNotFound = errors.New("row not found")

// Trace follows the rows whose id is id through the history of the
// output at path: the output's own version first, then each parent
// version of its history, with a hop for every row of the id that a
// version holds, kept or removed (an id given to several rows has several
// in a version), or one absent hop when it holds none. A dataset without
// an id column names its rows by lineage, "<_src_file>:<_src_row>".
func Trace(ctx context.Context, path, id string, opts TraceOptions) ([]Hop, error) {
	if opts.IDField == "" {
		opts.IDField = "id"
	}
	if opts.TextField == "" {
		opts.TextField = "text"
	}
	versions, err := History(path)
	if err != nil {
		return nil, err
	}
	var hops []Hop
	found := false
	for _, v := range versions {
		if v.M == nil {
			continue
		}
		rows, err := findRows(ctx, v, id, opts)
		if err != nil {
			return nil, err
		}
		if len(rows) == 0 {
			rows = []Hop{{VersionID: v.VersionID, Path: v.Path, Command: v.M.Command, Status: Absent, Stages: []string{}}}
		} else {
			found = true
		}
		hops = append(hops, rows...)
	}
	if !found {
		return nil, fmt.Errorf("%s: %w: no row has %s %q, in it or its history", path, ErrNotFound, opts.IDField, id)
	}
	return hops, nil
}

// findRows returns every row of the id in a version: in its data files,
// then its removed files, each in file and row order.
func findRows(ctx context.Context, v *Version, id string, opts TraceOptions) ([]Hop, error) {
	cols := []string{opts.IDField, opts.TextField, pipeline.StageColumn, pipeline.ReasonColumn, "_dup_of",
		pipeline.SrcFileColumn, pipeline.SrcRowColumn}
	var hops []Hop
	for _, removed := range []bool{false, true} {
		err := ReadRows(ctx, opts.Mem, Files(v.M, v.Root, removed), cols, func(b *pipeline.Batch) error {
			rec := b.Rec
			ids, srcFile, srcRow := columnar.Column(rec, opts.IDField), columnar.Column(rec, pipeline.SrcFileColumn), columnar.Column(rec, pipeline.SrcRowColumn)
			for i := 0; i < int(rec.NumRows()); i++ {
				rowID := columnar.ValueString(ids, i)
				if ids == nil && srcFile != nil {
					rowID = columnar.ValueString(srcFile, i) + ":" + columnar.ValueString(srcRow, i)
				}
				if rowID == id {
					hops = append(hops, hopOf(v, b, i, removed, opts.TextField))
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return hops, nil
}

// hopOf describes row i of the batch, a row of version v, kept or
// removed there, with the start of its text (the column textField).
func hopOf(v *Version, b *pipeline.Batch, i int, removed bool, textField string) Hop {
	rec := b.Rec
	str := func(name string) string { return columnar.ValueString(columnar.Column(rec, name), i) }
	hop := Hop{VersionID: v.VersionID, Path: v.Path, Command: v.M.Command, Status: Kept, Stages: []string{},
		Text: snippet(str(textField), 100), Stage: str(pipeline.StageColumn), Reason: str(pipeline.ReasonColumn),
		DupOf: str("_dup_of"), SrcFile: str(pipeline.SrcFileColumn)}
	origin := b.Origin(i)
	k := strings.LastIndexByte(origin, ':')
	hop.File = origin[:max(k, 0)]
	hop.Row, _ = strconv.ParseInt(origin[k+1:], 10, 64)
	if s := str(pipeline.SrcRowColumn); s != "" {
		hop.SrcRow, _ = strconv.ParseInt(s, 10, 64)
	}
	if removed {
		hop.Status = Removed
	}
	for _, st := range v.M.Stages {
		hop.Stages = append(hop.Stages, st.Name)
		if removed && st.Name == hop.Stage {
			break
		}
	}
	return hop
}

// snippet returns the first n characters of s on one line.
func snippet(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
