package dataset

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/io/layout"
)

// commitFiles runs one output to the end: Begin, the files written into the
// staged target, Commit.
func commitFiles(t *testing.T, target Target, overwrite bool, files map[string]string) error {
	t.Helper()
	out, err := Begin(context.Background(), target, overwrite)
	if err != nil {
		return err
	}
	root := out.Target().Path
	if target.Kind != Directory {
		root = filepath.Dir(root)
	}
	for name, body := range files {
		if err := WriteFile(filepath.Join(root, name), []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	return out.Commit(&Manifest{Tool: "sluice"})
}

func TestOverwriteRemovesOnlyListedFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	target := Target{Path: dir, Kind: Directory}
	if err := commitFiles(t, target, false, map[string]string{"data/part-00000.parquet": "1", "data/part-00001.parquet": "2"}); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(filepath.Join(dir, layout.ManifestName))
	if err != nil || m.Format != layout.Format || strings.Join(m.Files, ",") != "data/part-00000.parquet,data/part-00001.parquet" {
		t.Fatalf("manifest %+v, %v", m, err)
	}
	os.WriteFile(filepath.Join(dir, "data", "mine.txt"), []byte("mine"), 0o644)
	if err := commitFiles(t, target, false, map[string]string{"data/part-00000.parquet": "3"}); !errors.Is(err, ErrExists) {
		t.Fatalf("without overwrite: %v", err)
	}
	if err := commitFiles(t, target, true, map[string]string{"data/part-00000.parquet": "3"}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"data/part-00000.parquet": "3", "data/mine.txt": "mine", "data/part-00001.parquet": ""} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if want == "" {
			if err == nil {
				t.Errorf("%s survived the overwrite", name)
			}
			continue
		}
		if string(b) != want {
			t.Errorf("%s = %q (%v), want %q", name, b, err, want)
		}
	}
}

func TestAbortLeavesThePreviousOutput(t *testing.T) {
	dir := t.TempDir()
	target := Target{Path: filepath.Join(dir, "x.parquet"), Kind: ParquetFile}
	if err := commitFiles(t, target, false, map[string]string{"x.parquet": "old"}); err != nil {
		t.Fatal(err)
	}
	out, err := Begin(context.Background(), target, true)
	if err != nil {
		t.Fatal(err)
	}
	WriteFile(out.Target().Path, []byte("new, half written"))
	out.Abort()
	if b, _ := os.ReadFile(target.Path); string(b) != "old" {
		t.Errorf("after Abort the output holds %q", b)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if layout.IsHidden(e.Name()) {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func TestAManifestIsNotBelievedOutsideItsDirectory(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim.txt")
	os.WriteFile(victim, []byte("keep"), 0o644)
	ds := filepath.Join(dir, "ds")
	os.MkdirAll(ds, 0o755)
	WriteManifest(filepath.Join(ds, layout.ManifestName), &Manifest{Files: []string{"../victim.txt", victim, ".sluice-lock"}})
	if err := Remove(filepath.Join(ds, layout.ManifestName)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Error("a manifest naming a file outside its directory had it removed")
	}
}

func TestCommitStopsAtAFileItDidNotWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	target := Target{Path: dir, Kind: Directory}
	if err := commitFiles(t, target, false, map[string]string{"data/part-00000.parquet": "1"}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "removed"), 0o755)
	os.WriteFile(filepath.Join(dir, "removed", "part-00000.parquet"), []byte("mine"), 0o644)
	err := commitFiles(t, target, true, map[string]string{"data/part-00000.parquet": "2", "removed/part-00000.parquet": "theirs"})
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("commit over a file no manifest lists: %v", err)
	}
	for name, want := range map[string]string{"data/part-00000.parquet": "1", "removed/part-00000.parquet": "mine"} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
			t.Errorf("%s = %q, want %q", name, b, want)
		}
	}
	if _, err := ReadManifest(filepath.Join(dir, layout.ManifestName)); err != nil {
		t.Errorf("the previous manifest is gone: %v", err)
	}
}
