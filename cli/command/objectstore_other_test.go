package command

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/blobtest"
	"github.com/sluice-data/sluice/io/blob"
)

// TestGCSAndAzureGiveTheRowsOfLocalFiles runs dedup exact and clean from
// and to gs:// and az:// on their emulators and reads the results back:
// the rows of the same runs on local files.
func TestGCSAndAzureGiveTheRowsOfLocalFiles(t *testing.T) {
	for _, start := range []func(testing.TB) *blobtest.Emulator{blobtest.StartGCS, blobtest.StartAzurite} {
		e := start(t)
		dir := t.TempDir()
		t.Chdir(dir)
		dupCorpus(t, dir, 3, 200)
		files, _ := filepath.Glob("in/*.jsonl")
		for _, f := range files {
			if err := blob.Upload(context.Background(), f, e.URL(filepath.ToSlash(f))); err != nil {
				t.Fatal(err)
			}
		}
		for _, cmd := range [][]string{{"dedup", "exact"}, {"clean", "--filters", "gopher_quality"}} {
			name := strings.Join(cmd[:1], "")
			run := func(args ...string) {
				t.Helper()
				if code, o, errs := sluiceIn(t, "", args...); code != 0 {
					t.Fatalf("%s: %v: exit %d\n%s%s", e.Scheme, args, code, o, errs)
				}
			}
			run(append(append([]string{}, cmd...), "in", "-o", "local-"+name)...)
			run(append(append([]string{}, cmd...), e.URL("in/"), "-o", e.URL("out-"+name), "--max-file-rows", "100")...)
			run("convert", "local-"+name, "-o", "want-"+name+".jsonl")
			run("convert", e.URL("out-"+name), "-o", "got-"+name+".jsonl")
			want, _ := os.ReadFile("want-" + name + ".jsonl")
			got, _ := os.ReadFile("got-" + name + ".jsonl")
			if len(want) == 0 || string(got) != strings.ReplaceAll(string(want), `"in/`, `"`+e.URL("in/")) && string(got) != string(want) {
				t.Errorf("%s %s: the bucket's rows differ from the local ones:\n%.400s\nlocal:\n%.400s", e.Scheme, name, got, want)
			}
			if ok, err := blob.Exists(context.Background(), e.URL("out-"+name+"/manifest.json")); !ok {
				t.Errorf("%s %s: no manifest: %v", e.Scheme, name, err)
			}
		}
	}
}
