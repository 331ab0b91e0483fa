package dataset

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/io/layout"
)

func writeArtifact(path string, overwrite bool, inputs []string, body string) error {
	a, err := BeginArtifact(context.Background(), ArtifactSpec{Path: path, What: "test", Inputs: inputs, Overwrite: overwrite})
	if err != nil {
		return err
	}
	defer a.Abort()
	return a.Commit([]byte(body))
}

func TestAnArtifactIsNeverAnInputNorAFileOfOne(t *testing.T) {
	t.Chdir(t.TempDir())
	ds := datasetWithOld(t).Path
	os.WriteFile("t.json", []byte(`{"text":"x"}`), 0o644)
	os.MkdirAll("corp", 0o755)
	os.WriteFile("corp/a.jsonl", []byte(`{"text":"x"}`), 0o644)
	part := filepath.Join(ds, "data", "part-00000.parquet")
	for _, c := range []struct {
		out    string
		inputs []string
	}{
		{"t.json", []string{"t.json"}},
		{filepath.Join(ds, "manifest.json"), []string{ds}},
		{filepath.Join(ds, "removed", "part-00000.parquet"), []string{ds}},
		{filepath.Join(ds, "data", "new.parquet"), []string{ds}},
		{filepath.Join(ds, "quarantine.jsonl"), []string{ds}},
		{filepath.Join(ds, "manifest.json"), []string{part}},
		{filepath.Join(ds, "data", "part-00001.parquet"), []string{part}},
		{"corp/counts.json", []string{"corp"}},
		{"t.json.manifest.json", []string{"t.json.manifest.json"}},
		{"t.json", []string{"t.json.manifest.json"}},
	} {
		before := tree(t, ".")
		err := writeArtifact(c.out, true, c.inputs, "new")
		if !errors.Is(err, ErrRefused) {
			t.Errorf("%s over the inputs %v: %v, want refused", c.out, c.inputs, err)
		}
		if after := tree(t, "."); after != before {
			t.Errorf("%s: files changed:\nbefore %s\nafter  %s", c.out, before, after)
		}
	}
	// A card beside a dataset's manifest is none of its files.
	card := filepath.Join(ds, "README.md")
	if err := writeArtifact(card, false, []string{ds}, "# card"); err != nil {
		t.Fatalf("the card in its dataset: %v", err)
	}
	if err := writeArtifact(card, true, []string{ds}, "# card 2"); err != nil {
		t.Fatalf("the card again: %v", err)
	}
	if b, _ := os.ReadFile(card); string(b) != "# card 2" {
		t.Errorf("card = %q", b)
	}
	if _, err := ReadManifest(filepath.Join(ds, layout.ManifestName)); err != nil {
		t.Errorf("the dataset's manifest: %v", err)
	}
}

func TestAnArtifactReplacesOnlyAFileSluiceWrote(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "notes.html")
	os.WriteFile(mine, []byte("mine"), 0o644)
	for _, overwrite := range []bool{false, true} {
		if err := writeArtifact(mine, overwrite, nil, "new"); !errors.Is(err, ErrRefused) {
			t.Errorf("over a user file (overwrite %v): %v", overwrite, err)
		}
	}
	if b, _ := os.ReadFile(mine); string(b) != "mine" {
		t.Errorf("the user file holds %q", b)
	}
	page := filepath.Join(dir, "report.html")
	if err := writeArtifact(page, false, nil, "one"); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(filepath.Join(dir, "report.html.manifest.json"))
	if err != nil || m.Artifact != "test" || !slices.Equal(m.Files, []string{"report.html"}) || len(m.Outputs) != 1 || m.Outputs[0].Path != page || m.Outputs[0].Bytes != 3 {
		t.Fatalf("the artifact's manifest: %+v, %v", m, err)
	}
	if err := writeArtifact(page, false, nil, "two"); !errors.Is(err, ErrExists) {
		t.Errorf("again without overwrite: %v", err)
	}
	if err := writeArtifact(page, true, nil, "two"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(page); string(b) != "two" {
		t.Errorf("after the overwrite: %q", b)
	}
	// A file that carries the mark of an earlier version is sluice's too.
	old := filepath.Join(dir, "old.html")
	os.WriteFile(old, []byte("<p>sluice wrote me</p>"), 0o644)
	marked := func(p string) bool { b, _ := os.ReadFile(p); return strings.Contains(string(b), "sluice wrote me") }
	for _, overwrite := range []bool{false, true} {
		a, err := BeginArtifact(context.Background(), ArtifactSpec{Path: mine, Overwrite: overwrite, Written: marked})
		if err == nil {
			a.Abort()
		}
		if !errors.Is(err, ErrRefused) {
			t.Errorf("an unmarked user file (overwrite %v): %v", overwrite, err)
		}
	}
	a, err := BeginArtifact(context.Background(), ArtifactSpec{Path: old, Written: marked})
	if !errors.Is(err, ErrExists) {
		t.Errorf("a marked file without overwrite: %v", err)
	}
	if a, err = BeginArtifact(context.Background(), ArtifactSpec{Path: old, Overwrite: true, Written: marked}); err != nil {
		t.Fatalf("a marked file with overwrite: %v", err)
	}
	if err := a.Commit([]byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(old); string(b) != "new" {
		t.Errorf("the marked file holds %q", b)
	}
	// A write that fails leaves the previous file and its manifest.
	before := tree(t, dir)
	a, err = BeginArtifact(context.Background(), ArtifactSpec{Path: page, Overwrite: true})
	if err != nil {
		t.Fatal(err)
	}
	err = a.CommitFunc(func(w io.Writer) error {
		w.Write([]byte("half"))
		return errors.New("disk full")
	})
	a.Abort()
	if err == nil {
		t.Fatal("a failed write committed")
	}
	if after := tree(t, dir); after != before {
		t.Errorf("a failed write changed:\nbefore %s\nafter  %s", before, after)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if layout.IsHidden(e.Name()) {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}
