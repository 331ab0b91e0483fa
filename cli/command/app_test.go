package command

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sluice-data/sluice/io/dataset"
)

// The manifest records the command line given to Main, as given: not the
// process's arguments, and not reordered the way Main hands them to the
// flag parser.
func TestManifestRecordsMainArgs(t *testing.T) {
	dir := t.TempDir()
	in := cleanCorpus(t, dir)
	out := filepath.Join(dir, "out")
	args := []string{"sluice", "convert", "-o", out, in, "--workers", "1", "--no-progress"}
	var o, e bytes.Buffer
	if code := Main(slices.Clone(args), nil, &o, &e); code != 0 {
		t.Fatalf("exit %d: %s%s", code, o.String(), e.String())
	}
	m, err := dataset.ReadManifest(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Command, args) {
		t.Fatalf("manifest command %q, want %q", m.Command, args)
	}
}
