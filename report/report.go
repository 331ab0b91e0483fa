// Package report explains a sluice run on one self-contained HTML page and
// in a dataset card.
//
// Gather reads the manifests of one or more datasets (the steps of a run,
// in the order they ran: each reads the output of the one before) and only
// the columns it needs from their Parquet files: _stage and _reason of
// removed/ (then the id, text and source of the few rows shown as
// examples), and of the last dataset's data/ the signal columns an
// --annotate run wrote, n_tokens, lang and the source. Memory is bounded by
// one row group per worker and fixed-size histograms, whatever the number
// of rows. WriteHTML renders the page (html/template; charts as inline SVG,
// no script, nothing fetched), WriteCard the Hugging Face README.md.
package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/layout"
)

// Options tune what Gather reads and shows.
type Options struct {
	// TextField, IDField and SourceField name the columns shown with the
	// examples; "" takes the text and id fields of the manifest and a
	// column "source" or "meta.source" when there is one.
	TextField, IDField, SourceField string
	Examples                        int // example rows per removal reason (0: 3; below 0: none)
	Top                             int // languages and sources drawn (default 10)
	Snippet                         int // characters of an example's text (default 300)
	Workers                         int // row groups read at once (default 2)
	Mem                             memory.Allocator
}

func (o *Options) defaults() {
	switch {
	case o.Examples == 0:
		o.Examples = 3
	case o.Examples < 0:
		o.Examples = 0 // none
	}
	if o.Top <= 0 {
		o.Top = 10
	}
	if o.Snippet <= 0 {
		o.Snippet = 300
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
	if o.Mem == nil {
		o.Mem = memory.DefaultAllocator
	}
}

// Run is one dataset of the report and its manifest.
type Run struct {
	Path     string // as given
	Dir      string // the folder of its manifest
	Manifest *dataset.Manifest

	data, removed, quarantine []string // its files, by what they hold
}

// Report is everything the page shows.
type Report struct {
	Title string
	Runs  []*Run

	Counts     dataset.Counts // of the whole chain: rows read by the first, written by the last
	Funnel     []Step
	Reasons    []Reason
	Signals    []*Signal
	Tokens     *Tokens
	Languages  []Share
	Clusters   []ClusterSize
	Contam     []EvalSet
	Quarantine []QuarantineKind
	Schema     []Column
	Tasks      []Phase

	TextField, IDField, SourceField, LangField string

	opts   Options
	charts map[string]Chart
}

// ErrNotDataset marks a path that is not a sluice dataset (a usage error
// for the command line).
var ErrNotDataset = errors.New("not a sluice dataset")

// ErrNotChain marks datasets given out of order: one that does not read
// the output of the one before it.
var ErrNotChain = errors.New("the datasets are not the steps of one run")

// Open reads the manifest of the dataset at path: a dataset directory, or
// a one-file output (OUT.parquet beside OUT.manifest.json).
func Open(path string) (*Run, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w: no such file or directory", path, ErrNotDataset)
	}
	if err != nil {
		return nil, err
	}
	mpath := filepath.Join(path, layout.ManifestName)
	if !st.IsDir() {
		mpath = dataset.ParseTarget(path).SidePath(layout.ManifestName)
	}
	if !layout.IsSluiceManifest(mpath) {
		return nil, fmt.Errorf("%s: %w (no %s written by sluice)", path, ErrNotDataset, mpath)
	}
	m, err := dataset.ReadManifest(mpath)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", mpath, err)
	}
	r := &Run{Path: path, Dir: filepath.Dir(mpath), Manifest: m}
	r.classifyFiles()
	return r, nil
}

// classifyFiles sorts the files the manifest lists into kept rows, removed
// rows and quarantine, by matching them against its outputs: the paths the
// manifest recorded may be where the dataset was written, not where it is
// now.
func (r *Run) classifyFiles() {
	m := r.Manifest
	is := func(rel string, outs []dataset.OutputFile) bool {
		for _, o := range outs {
			p := filepath.ToSlash(o.Path)
			if p == rel || strings.HasSuffix(p, "/"+rel) {
				return true
			}
		}
		return false
	}
	files := m.Files
	if len(files) == 0 { // an older manifest: the layout's names
		for _, glob := range []string{"data/*.parquet", "removed/*.parquet", "quarantine*.jsonl"} {
			ms, _ := filepath.Glob(filepath.Join(r.Dir, glob))
			for _, f := range ms {
				rel, _ := filepath.Rel(r.Dir, f)
				files = append(files, filepath.ToSlash(rel))
			}
		}
	}
	q := filepath.Base(m.Side["quarantine"])
	for _, rel := range files {
		abs := filepath.Join(r.Dir, filepath.FromSlash(rel))
		switch {
		case is(rel, m.Outputs) || (len(m.Files) == 0 && strings.HasPrefix(rel, layout.DataDir+"/")):
			r.data = append(r.data, abs)
		case is(rel, m.Removed) || (len(m.Files) == 0 && strings.HasPrefix(rel, layout.RemovedDir+"/")):
			r.removed = append(r.removed, abs)
		case filepath.Base(rel) == q || (strings.HasPrefix(filepath.Base(rel), "quarantine") && strings.HasSuffix(rel, ".jsonl")):
			r.quarantine = append(r.quarantine, abs)
		}
	}
	slices.Sort(r.data)
	slices.Sort(r.removed)
	slices.Sort(r.quarantine)
	// Only Parquet is read: a JSONL output has no columns to project.
	r.data = slices.DeleteFunc(r.data, func(s string) bool { return !strings.HasSuffix(s, ".parquet") })
	r.removed = slices.DeleteFunc(r.removed, func(s string) bool { return !strings.HasSuffix(s, ".parquet") })
}

// option returns a string option of the manifest ("" when absent).
func (r *Run) option(key string) string {
	if o, ok := r.Manifest.Options.(map[string]any); ok {
		if s, ok := o[key].(string); ok {
			return s
		}
	}
	return ""
}

// Gather reads the datasets at paths, the steps of one run in the order
// they ran, and builds the report.
func Gather(ctx context.Context, paths []string, o Options) (*Report, error) {
	o.defaults()
	if len(paths) == 0 {
		return nil, errors.New("no dataset given")
	}
	rep := &Report{opts: o, charts: map[string]Chart{}}
	for _, p := range paths {
		r, err := Open(p)
		if err != nil {
			return nil, err
		}
		rep.Runs = append(rep.Runs, r)
	}
	if err := rep.checkChain(); err != nil {
		return nil, err
	}
	last := rep.Runs[len(rep.Runs)-1]
	var names []string
	for _, r := range rep.Runs {
		names = append(names, filepath.Base(filepath.Clean(r.Path)))
	}
	rep.Title = strings.Join(names, " → ")
	rep.TextField = firstOf(o.TextField, last.option("text_field"), "text")
	rep.IDField = firstOf(o.IDField, last.option("id_field"), "id")
	rep.countFunnel()
	if err := rep.readSchema(last); err != nil {
		return nil, err
	}
	rep.SourceField = o.SourceField
	if rep.SourceField == "" {
		rep.SourceField = rep.detectSource()
	}
	if rep.hasColumn("lang") {
		rep.LangField = "lang"
	}
	if err := rep.scanRemoved(ctx); err != nil {
		return nil, err
	}
	if err := rep.scanData(ctx, last); err != nil {
		return nil, err
	}
	rep.fromReports()
	if err := rep.readQuarantine(); err != nil {
		return nil, err
	}
	rep.readTasks()
	if err := rep.draw(); err != nil {
		return nil, err
	}
	return rep, nil
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// checkChain checks that each dataset after the first reads the output of
// the one before it.
func (rep *Report) checkChain() error {
	for i := 1; i < len(rep.Runs); i++ {
		prev, cur := rep.Runs[i-1], rep.Runs[i]
		if len(cur.Manifest.Inputs) == 0 || len(prev.data) == 0 {
			return fmt.Errorf("%w: %s does not read the output of %s; give the datasets in the order they ran", ErrNotChain, cur.Path, prev.Path)
		}
		for _, in := range cur.Manifest.Inputs {
			if !readsFrom(in.Path, prev) {
				return fmt.Errorf("%w: %s reads %s, which is not the output of %s; give the datasets in the order they ran, each reading the one before",
					ErrNotChain, cur.Path, in.Path, prev.Path)
			}
		}
	}
	return nil
}

// readsFrom reports whether an input path names one of prev's data files.
func readsFrom(input string, prev *Run) bool {
	in := filepath.ToSlash(input)
	for _, f := range prev.data {
		rel, err := filepath.Rel(prev.Dir, f)
		if err != nil {
			continue
		}
		rel = filepath.ToSlash(rel)
		if in == filepath.ToSlash(f) || strings.HasSuffix(in, "/"+rel) {
			return true
		}
	}
	return false
}

// Step is one row of the funnel: a stage of one dataset of the chain.
type Step struct {
	Run      int // index of the dataset in Runs
	Stage    string
	RowsIn   int64
	RowsOut  int64
	Removed  []Count // by reason, most first
	Inserted int64
	Seconds  float64
	Config   string // the stage's effective config, as indented JSON
}

// Count is a number of rows with a name.
type Count struct {
	Name string
	Rows int64
}

func (rep *Report) countFunnel() {
	first, last := rep.Runs[0].Manifest, rep.Runs[len(rep.Runs)-1].Manifest
	c := first.Counts
	c.RowsOut = last.Counts.RowsOut
	for _, r := range rep.Runs[1:] {
		m := r.Manifest.Counts
		c.Removed += m.Removed
		c.Quarantined += m.Quarantined
		c.Inserted += m.Inserted
		c.UTF8Repaired += m.UTF8Repaired
	}
	rep.Counts = c
	for i, r := range rep.Runs {
		for _, s := range r.Manifest.Stages {
			st := Step{Run: i, Stage: s.Name, RowsIn: s.RowsIn, RowsOut: s.RowsOut, Inserted: s.Inserted, Seconds: s.Seconds}
			for reason, n := range s.Removed {
				st.Removed = append(st.Removed, Count{reason, n})
			}
			sortCounts(st.Removed)
			if s.Config != nil {
				b, _ := json.MarshalIndent(s.Config, "", "  ")
				st.Config = string(b)
			}
			rep.Funnel = append(rep.Funnel, st)
		}
	}
}

// sortCounts sorts by rows, most first, then by name.
func sortCounts(cs []Count) {
	slices.SortFunc(cs, func(a, b Count) int {
		if a.Rows != b.Rows {
			if a.Rows > b.Rows {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// stageConfig returns the config of the named stage as a map (the last
// such stage of the chain).
func (rep *Report) stageConfig(name string) map[string]any {
	var out map[string]any
	for _, r := range rep.Runs {
		for _, s := range r.Manifest.Stages {
			if s.Name != name || s.Config == nil {
				continue
			}
			b, err := json.Marshal(s.Config)
			if err != nil {
				continue
			}
			var m map[string]any
			if json.Unmarshal(b, &m) == nil {
				out = m
			}
		}
	}
	return out
}

// Top is how many languages, sources and evaluation sets a chart draws.
func (rep *Report) Top() int { return rep.opts.Top }

// ContamFound is the number of evaluation sets with an example found in
// the corpus.
func (rep *Report) ContamFound() int {
	n := 0
	for _, e := range rep.Contam {
		if e.Contaminated > 0 {
			n++
		}
	}
	return n
}

// ReadsRows reports the rows the chain read (the first dataset's input).
func (rep *Report) ReadsRows() int64 { return rep.Counts.RowsIn }
