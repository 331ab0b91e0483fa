// Package diff compares two versions of a dataset, as their manifests and
// data files tell them: the configuration (tool version, command, each
// stage's effective parameters, inputs whose bytes changed), the counts
// (per stage and reason), and the rows (only in A, only in B, text
// changed), matched by id or by a hash of the text. The row comparison
// spills to temporary files partitioned by the hash of the key, so memory
// stays bounded whatever the number of rows.
package diff

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/provenance"
)

// Options tune Compare.
type Options struct {
	// IDField names the id column ("id" when empty); when either version
	// has none, or ByContent is set, rows are matched by a hash of their
	// text instead.
	IDField   string
	TextField string // "text" when empty
	ByContent bool
	// NoRows compares the manifests only.
	NoRows bool
	// RowsOut, when set, is a directory to write the rows that differ to:
	// a.parquet (A's rows only in A, or whose text changed) and b.parquet
	// (B's rows only in B, or whose text changed), each with a _diff
	// column (only_a, only_b, changed).
	RowsOut string
	// Examples is the number of example rows shown of each kind.
	Examples int
	// TempDir holds the spill files ("" for the system's).
	TempDir string
	// PartitionRows bounds the rows of one spill partition, which is
	// loaded whole: memory is about 60 bytes (plus the id) a row of it.
	PartitionRows int
	Mem           memory.Allocator
}

// Version is one of the two versions compared.
type Version struct {
	Path      string            `json:"path"`
	Manifest  string            `json:"manifest"`
	VersionID string            `json:"version_id"`
	M         *dataset.Manifest `json:"-"`
	Root      string            `json:"-"`
}

// Change is a value that differs: A's and B's (null when absent).
type Change struct {
	Key string `json:"key"`
	A   any    `json:"a"`
	B   any    `json:"b"`
}

// StageChange is a stage whose parameters differ, or that only one
// version has (Only "a" or "b").
type StageChange struct {
	Stage   string   `json:"stage"`
	Only    string   `json:"only,omitempty"`
	Changes []Change `json:"changes"`
}

// InputChange is an input only one version read, or whose bytes changed.
type InputChange struct {
	Path  string `json:"path"`
	HashA string `json:"xxhash64_a,omitempty"`
	HashB string `json:"xxhash64_b,omitempty"`
	RowsA int64  `json:"rows_a"`
	RowsB int64  `json:"rows_b"`
}

// Config is how the two runs were configured differently.
type Config struct {
	ToolVersion *Change       `json:"tool_version,omitempty"`
	Command     *Change       `json:"command,omitempty"`
	Options     []Change      `json:"options"`
	Stages      []StageChange `json:"stages"`
	Inputs      []InputChange `json:"inputs"`
}

// Count is one count in both versions: a total (Stage ""), a stage's rows
// in and out, or its removals by reason.
type Count struct {
	Stage string `json:"stage,omitempty"`
	What  string `json:"what"` // rows_in, rows_out, removed, quarantined, or a reason
	A     int64  `json:"a"`
	B     int64  `json:"b"`
	Delta int64  `json:"delta"`
}

// Result is what Compare found.
type Result struct {
	A Version `json:"a"`
	B Version `json:"b"`
	// Identical is true when both versions' files are what their
	// manifests record (hashed again: see provenance.Verify) and those
	// give the same version id: the same bytes.
	Identical bool   `json:"identical"`
	Config    Config `json:"config"`
	// ProblemsA and ProblemsB are where the files of A and B are not what
	// their manifests record.
	ProblemsA []provenance.Problem `json:"problems_a"`
	ProblemsB []provenance.Problem `json:"problems_b"`
	Counts    []Count              `json:"counts"`
	Rows      *Rows                `json:"rows"` // nil when rows were not compared
}

// Open reads the manifest of the output at path (a dataset directory, a
// one-file output or a manifest).
func Open(path string) (Version, error) {
	m, manifest, root, err := dataset.Open(path)
	if err != nil {
		return Version{}, err
	}
	return Version{Path: path, Manifest: manifest, VersionID: dataset.IDOf(m), M: m, Root: root}, nil
}

// Compare compares versions a and b. Whether they are identical is
// decided from their files, never from the version ids their manifests
// record: every file of each is checked against its manifest first.
func Compare(ctx context.Context, a, b Version, opts Options) (*Result, error) {
	r := &Result{A: a, B: b}
	var out *dataset.Output // RowsOut, begun before any work
	if opts.RowsOut != "" && !opts.NoRows {
		var err error
		if out, err = beginRowsOut(ctx, a, b, opts.RowsOut); err != nil {
			return nil, err
		}
		defer out.Abort()
	}
	var err error
	if r.ProblemsA, err = problemsOf(ctx, a, opts); err != nil {
		return nil, err
	}
	if r.ProblemsB, err = problemsOf(ctx, b, opts); err != nil {
		return nil, err
	}
	r.Identical = len(r.ProblemsA) == 0 && len(r.ProblemsB) == 0 && dataset.VersionID(a.M) == dataset.VersionID(b.M)
	r.Config = compareConfig(a.M, b.M)
	r.Counts = compareCounts(a.M, b.M)
	if !opts.NoRows {
		rows, err := compareRows(ctx, a, b, opts, out)
		if err != nil {
			return nil, err
		}
		r.Rows = rows
	}
	return r, nil
}

// problemsOf checks the files of v against its manifest.
func problemsOf(ctx context.Context, v Version, opts Options) ([]provenance.Problem, error) {
	check, err := provenance.Verify(ctx, v.Manifest, provenance.VerifyOptions{Mem: opts.Mem})
	if err != nil {
		return nil, err
	}
	return check.Problems, nil
}

func compareConfig(a, b *dataset.Manifest) Config {
	c := Config{Options: []Change{}, Stages: []StageChange{}, Inputs: []InputChange{}}
	if a.Version != b.Version {
		c.ToolVersion = &Change{Key: "version", A: a.Version, B: b.Version}
	}
	if ca, cb := strings.Join(a.Command[min(1, len(a.Command)):], " "), strings.Join(b.Command[min(1, len(b.Command)):], " "); ca != cb {
		c.Command = &Change{Key: "command", A: ca, B: cb}
	}
	c.Options = changes(flatten(a.Options), flatten(b.Options))
	// Stages are matched by name, in order; a name used twice is matched
	// occurrence by occurrence.
	type key struct {
		name string
		n    int
	}
	index := func(m *dataset.Manifest) (map[key]dataset.StageCounts, []key) {
		seen := map[string]int{}
		out := map[key]dataset.StageCounts{}
		var order []key
		for _, st := range m.Stages {
			k := key{st.Name, seen[st.Name]}
			seen[st.Name]++
			out[k] = st
			order = append(order, k)
		}
		return out, order
	}
	sa, orderA := index(a)
	sb, orderB := index(b)
	label := func(k key) string {
		if k.n > 0 {
			return fmt.Sprintf("%s#%d", k.name, k.n+1)
		}
		return k.name
	}
	for _, k := range orderA {
		stb, ok := sb[k]
		if !ok {
			c.Stages = append(c.Stages, StageChange{Stage: label(k), Only: "a", Changes: []Change{}})
			continue
		}
		if ch := changes(flatten(sa[k].Config), flatten(stb.Config)); len(ch) > 0 {
			c.Stages = append(c.Stages, StageChange{Stage: label(k), Changes: ch})
		}
	}
	for _, k := range orderB {
		if _, ok := sa[k]; !ok {
			c.Stages = append(c.Stages, StageChange{Stage: label(k), Only: "b", Changes: []Change{}})
		}
	}
	ina := map[string]dataset.InputFile{}
	for _, in := range a.Inputs {
		ina[in.Path] = in
	}
	inb := map[string]bool{}
	for _, in := range b.Inputs {
		inb[in.Path] = true
		old, ok := ina[in.Path]
		switch {
		case !ok:
			c.Inputs = append(c.Inputs, InputChange{Path: in.Path, HashB: in.Hash, RowsB: in.Rows})
		case old.Hash != in.Hash:
			c.Inputs = append(c.Inputs, InputChange{Path: in.Path, HashA: old.Hash, HashB: in.Hash, RowsA: old.Rows, RowsB: in.Rows})
		}
	}
	for _, in := range a.Inputs {
		if !inb[in.Path] {
			c.Inputs = append(c.Inputs, InputChange{Path: in.Path, HashA: in.Hash, RowsA: in.Rows})
		}
	}
	return c
}

// flatten turns a configuration (any JSON value) into dotted keys and
// their values; a list is one value.
func flatten(v any) map[string]any {
	out := map[string]any{}
	b, err := json.Marshal(v)
	if err != nil {
		return out
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return out
	}
	var walk func(prefix string, x any)
	walk = func(prefix string, x any) {
		if m, ok := x.(map[string]any); ok && len(m) > 0 {
			for k, v := range m {
				walk(strings.TrimPrefix(prefix+"."+k, "."), v)
			}
			return
		}
		if prefix != "" {
			out[prefix] = x
		}
	}
	walk("", x)
	return out
}

// changes lists the keys whose values differ, sorted.
func changes(a, b map[string]any) []Change {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var out []Change
	for k := range keys {
		if !reflect.DeepEqual(a[k], b[k]) {
			out = append(out, Change{Key: k, A: a[k], B: b[k]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	if out == nil {
		out = []Change{}
	}
	return out
}

func compareCounts(a, b *dataset.Manifest) []Count {
	var out []Count
	add := func(stage, what string, x, y int64) {
		out = append(out, Count{Stage: stage, What: what, A: x, B: y, Delta: y - x})
	}
	add("", "rows_in", a.Counts.RowsIn, b.Counts.RowsIn)
	add("", "rows_out", a.Counts.RowsOut, b.Counts.RowsOut)
	add("", "removed", a.Counts.Removed, b.Counts.Removed)
	add("", "quarantined", a.Counts.Quarantined, b.Counts.Quarantined)
	if a.Counts.Inserted != 0 || b.Counts.Inserted != 0 {
		add("", "inserted", a.Counts.Inserted, b.Counts.Inserted)
	}
	stages := func(m *dataset.Manifest) (map[string]dataset.StageCounts, []string) {
		out := map[string]dataset.StageCounts{}
		var order []string
		for _, st := range m.Stages {
			name := st.Name
			for n := 2; ; n++ {
				if _, dup := out[name]; !dup {
					break
				}
				name = fmt.Sprintf("%s#%d", st.Name, n)
			}
			out[name] = st
			order = append(order, name)
		}
		return out, order
	}
	sa, orderA := stages(a)
	sb, orderB := stages(b)
	order := orderA
	for _, n := range orderB {
		if _, ok := sa[n]; !ok {
			order = append(order, n)
		}
	}
	for _, n := range order {
		x, y := sa[n], sb[n]
		add(n, "rows_in", x.RowsIn, y.RowsIn)
		add(n, "rows_out", x.RowsOut, y.RowsOut)
		reasons := map[string]bool{}
		for r := range x.Removed {
			reasons[r] = true
		}
		for r := range y.Removed {
			reasons[r] = true
		}
		var rs []string
		for r := range reasons {
			rs = append(rs, r)
		}
		sort.Strings(rs)
		for _, r := range rs {
			add(n, r, x.Removed[r], y.Removed[r])
		}
	}
	return out
}
