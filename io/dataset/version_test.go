package dataset

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sluice-data/sluice/io/layout"
)

// The version id is a hash of the files' contents and the counts: the
// same files moved elsewhere keep it; a changed hash, row count or count
// changes it.
func TestVersionIDIsTheContentNotThePlace(t *testing.T) {
	m := &Manifest{
		Outputs: []OutputFile{{Path: "a/data/part-00000.parquet", Rows: 10, Bytes: 900, Hash: "00000000000000aa"}},
		Removed: []OutputFile{{Path: "a/removed/part-00000.parquet", Rows: 2, Bytes: 300, Hash: "00000000000000bb"}},
		Counts:  Counts{RowsIn: 12, RowsOut: 10, Removed: 2},
		Command: []string{"sluice", "convert"},
	}
	id := VersionID(m)
	if len(id) != VersionIDLength {
		t.Fatalf("version id %q", id)
	}
	moved := *m
	moved.Outputs = []OutputFile{{Path: "/elsewhere/b/data/part-00000.parquet", Rows: 10, Bytes: 900, Hash: "00000000000000aa"}}
	moved.Command, moved.Started = []string{"sluice", "clean"}, "2030-01-01T00:00:00Z"
	if got := VersionID(&moved); got != id {
		t.Errorf("moved: %s, want %s", got, id)
	}
	for name, change := range map[string]func(m *Manifest){
		"hash":    func(m *Manifest) { m.Outputs[0].Hash = "00000000000000ab" },
		"rows":    func(m *Manifest) { m.Removed[0].Rows = 3 },
		"counts":  func(m *Manifest) { m.Counts.Quarantined = 1 },
		"a file":  func(m *Manifest) { m.Outputs = append(m.Outputs, m.Outputs[0]) },
		"removed": func(m *Manifest) { m.Removed = nil },
	} {
		c := *m
		c.Outputs = append([]OutputFile(nil), m.Outputs...)
		c.Removed = append([]OutputFile(nil), m.Removed...)
		change(&c)
		if VersionID(&c) == id {
			t.Errorf("%s changed, the version id did not", name)
		}
	}
}

// WriteManifest records the version id and, for inputs that are the
// files of sluice outputs (a part of a dataset directory, a one-file
// output), those outputs as parents; a plain file has none.
func TestWriteManifestRecordsVersionAndParents(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	if err := commitFiles(t, Target{Path: ds, Kind: Directory}, false, map[string]string{"data/part-00000.parquet": "x"}); err != nil {
		t.Fatal(err)
	}
	one := filepath.Join(dir, "one.jsonl")
	out, err := Begin(context.Background(), ParseTarget(one), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(out.Target().Path, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if err := out.Commit(&Manifest{Outputs: []OutputFile{{Path: out.Target().Path, Rows: 1, Bytes: 3, Hash: "1"}}, Counts: Counts{RowsIn: 1, RowsOut: 1}}); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain.jsonl")
	os.WriteFile(plain, []byte("{}\n"), 0o644)

	dsm, _ := ReadManifest(filepath.Join(ds, layout.ManifestName))
	onem, _ := ReadManifest(filepath.Join(dir, "one.manifest.json"))
	if dsm.VersionID != VersionID(dsm) || onem.VersionID != VersionID(onem) || onem.WorkDir == "" {
		t.Fatalf("recorded %q and %q, work dir %q", dsm.VersionID, onem.VersionID, onem.WorkDir)
	}
	m := &Manifest{Inputs: []InputFile{{Path: filepath.Join(ds, "data", "part-00000.parquet")}, {Path: plain}, {Path: one},
		{Path: filepath.Join(ds, "data", "part-00000.parquet")}}}
	if err := WriteManifest(filepath.Join(dir, "child.manifest.json"), m); err != nil {
		t.Fatal(err)
	}
	want := []Parent{{VersionID: dsm.VersionID, Path: ds}, {VersionID: onem.VersionID, Path: one}}
	if len(m.Parents) != len(want) || m.Parents[0] != want[0] || m.Parents[1] != want[1] {
		t.Errorf("parents %+v, want %+v", m.Parents, want)
	}
	// A part file the manifest does not list belongs to no one.
	stray := filepath.Join(ds, "data", "part-00001.parquet")
	os.WriteFile(stray, []byte("y"), 0o644)
	if root, _ := OwnerOf(stray, nil); root != "" {
		t.Errorf("an unlisted part belongs to %s", root)
	}
	for _, p := range []string{ds, filepath.Join(ds, layout.ManifestName), one} {
		if _, _, err := Locate(p); err != nil {
			t.Errorf("Locate(%s): %v", p, err)
		}
	}
	if _, _, err := Locate(plain); err == nil {
		t.Errorf("Locate(%s) found a manifest", plain)
	}
}
