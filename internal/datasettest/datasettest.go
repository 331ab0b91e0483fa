// Package datasettest reads a sluice dataset back for tests — kept rows
// in order, removed rows, quarantine, manifest — and compares two of them,
// as the tests of one process against array tasks need.
package datasettest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/pipeline"
)

// Dataset is what a dataset holds: kept rows in order, removed rows
// (with _stage, _reason, _dup_of, _cluster), quarantined lines, and the
// manifest's counts and stages.
type Dataset struct {
	Kept, Removed []map[string]any
	Quarantine    []string
	Manifest      *dataset.Manifest
	Stages        []map[string]any
}

// Rows reads the Parquet files of dir as JSON objects, in file order.
func Rows(t testing.TB, dir string) []map[string]any {
	t.Helper()
	parts, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if len(parts) == 0 {
		return nil
	}
	out := filepath.Join(t.TempDir(), "rows.jsonl")
	set, err := input.Scan([]string{dir}, input.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := pipeline.Config{Inputs: set.Files, Workers: 2, TextField: "text"}
	cfg.Target = dataset.ParseTarget(out)
	if _, err := pipeline.Run(context.Background(), cfg, nil, "test"); err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
	return ReadJSONL(t, out)
}

// ReadJSONL reads a JSONL file as JSON objects, in order.
func ReadJSONL(t testing.TB, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var r map[string]any
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	return rows
}

func Read(t testing.TB, out string) Dataset {
	t.Helper()
	d := Dataset{Kept: Rows(t, filepath.Join(out, "data")), Removed: Rows(t, filepath.Join(out, "removed"))}
	qs, _ := filepath.Glob(filepath.Join(out, "quarantine*.jsonl"))
	slices.Sort(qs)
	for _, q := range qs {
		b, err := os.ReadFile(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if line != "" {
				d.Quarantine = append(d.Quarantine, line)
			}
		}
	}
	m, err := dataset.ReadManifest(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	d.Manifest = m
	// The stages as JSON, less their timings.
	b, _ := json.Marshal(m.Stages)
	json.Unmarshal(b, &d.Stages)
	for _, s := range d.Stages {
		delete(s, "seconds")
	}
	return d
}

// canonical returns the rows as JSON, sorted.
func canonical(rows []map[string]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		b, _ := json.Marshal(r)
		out[i] = string(b)
	}
	slices.Sort(out)
	return out
}

// Compare fails unless got holds the rows, removals, quarantine
// and counts of want (one process).
func Compare(t testing.TB, what string, got, want Dataset) {
	t.Helper()
	if len(got.Kept) != len(want.Kept) || len(got.Removed) != len(want.Removed) {
		t.Fatalf("%s: %d kept, %d removed; one process: %d kept, %d removed", what, len(got.Kept), len(got.Removed), len(want.Kept), len(want.Removed))
	}
	for i := range want.Kept {
		if !reflect.DeepEqual(got.Kept[i], want.Kept[i]) {
			t.Fatalf("%s: kept row %d is %v, one process has %v", what, i, got.Kept[i], want.Kept[i])
		}
	}
	// removed/ holds each batch's rows stage by stage, so its order
	// depends on where batches start (a shard starts a batch); the rows,
	// reasons, _dup_of and _cluster do not.
	g, w := canonical(got.Removed), canonical(want.Removed)
	for i := range w {
		if g[i] != w[i] {
			t.Fatalf("%s: removed row %d is %s, one process has %s", what, i, g[i], w[i])
		}
	}
	if !reflect.DeepEqual(got.Quarantine, want.Quarantine) {
		t.Errorf("%s: quarantine %q, one process %q", what, got.Quarantine, want.Quarantine)
	}
	if got.Manifest.Counts != want.Manifest.Counts {
		t.Errorf("%s: counts %+v, one process %+v", what, got.Manifest.Counts, want.Manifest.Counts)
	}
	if !reflect.DeepEqual(got.Stages, want.Stages) {
		g, _ := json.Marshal(got.Stages)
		w, _ := json.Marshal(want.Stages)
		t.Errorf("%s: stages\n%s\none process\n%s", what, g, w)
	}
	if !bytes.Equal(got.Manifest.Schema, want.Manifest.Schema) {
		t.Errorf("%s: schema %s, one process %s", what, got.Manifest.Schema, want.Manifest.Schema)
	}
	gi, wi := got.Manifest.Inputs, want.Manifest.Inputs
	if len(gi) != len(wi) {
		t.Fatalf("%s: %d inputs in the manifest, one process %d", what, len(gi), len(wi))
	}
	for i := range wi {
		if gi[i].Path != wi[i].Path || gi[i].Rows != wi[i].Rows || gi[i].Quarantined != wi[i].Quarantined || gi[i].Bytes != wi[i].Bytes ||
			gi[i].Hash != wi[i].Hash || gi[i].BlankLines != wi[i].BlankLines {
			t.Errorf("%s: input %d is %+v, one process %+v", what, i, gi[i], wi[i])
		}
	}
}
