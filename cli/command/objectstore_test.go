package command

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sluice-data/sluice/internal/datasettest"
	"github.com/sluice-data/sluice/internal/s3test"
	"github.com/sluice-data/sluice/io/dataset"
)

// bucketDir is where the test server keeps the objects under prefix: its
// POSIX back end stores s3://BUCKET/KEY as the file BUCKET/KEY, so the
// datasets sluice writes to the bucket are read back as directories.
func bucketDir(s *s3test.Server, prefix string) string {
	return filepath.Join(s.Dir, s.Bucket, filepath.FromSlash(prefix))
}

// sameDataset fails unless the dataset sluice wrote to the bucket holds
// the rows, removals, quarantine and counts of the one it wrote locally;
// names of files in the bucket (row ids of rows without one, quarantined
// files) are compared as the local relative paths they were copied from.
func sameDataset(t *testing.T, what string, s *s3test.Server, remote, local string) {
	t.Helper()
	norm := func(d datasettest.Dataset) string {
		d.Manifest = nil
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		return strings.ReplaceAll(string(b), "s3://"+s.Bucket+"/", "")
	}
	got, want := datasettest.Read(t, bucketDir(s, remote)), datasettest.Read(t, local)
	if got.Manifest.Counts != want.Manifest.Counts {
		t.Errorf("%s: counts %+v, local %+v", what, got.Manifest.Counts, want.Manifest.Counts)
	}
	if len(want.Kept) == 0 {
		t.Errorf("%s: the local run kept no row", what)
	}
	if g, w := norm(got), norm(want); g != w {
		t.Errorf("%s: the bucket's dataset differs from the local one:\n%.600s\nlocal:\n%.600s", what, g, w)
	}
}

// TestObjectStoreCommandsGiveTheRowsOfLocalFiles runs convert, clean,
// dedup exact, dedup minhash and inspect on a corpus in the bucket, writing
// to the bucket, and on the same corpus on disk, writing to disk: the same
// rows, removals and counts.
func TestObjectStoreCommandsGiveTheRowsOfLocalFiles(t *testing.T) {
	s := s3test.Start(t)
	dir := t.TempDir()
	t.Chdir(dir)
	dupCorpus(t, dir, 4, 300)
	s.PutDir(t, "in", "in")
	// A gzip copy of one file and a glob over the plain ones.
	if code, _, e := sluiceIn(t, "", "convert", "in/part-00.jsonl", "-o", "gz/part-00.jsonl.gz"); code != 0 {
		t.Fatal(e)
	}
	s.Put(t, "gz/part-00.jsonl.gz", "gz/part-00.jsonl.gz")
	for _, c := range []struct {
		name          string
		args          []string // the command; IN and OUT are filled in
		local, remote []string // inputs
	}{
		{"convert", []string{"convert"}, []string{"in"}, []string{s.URL("in")}},
		{"convert glob", []string{"convert"}, []string{"in/part-0[12].jsonl"}, []string{s.URL("in/part-0[12].jsonl")}},
		{"convert gzip", []string{"convert"}, []string{"gz/part-00.jsonl.gz"}, []string{s.URL("gz/part-00.jsonl.gz")}},
		{"clean", []string{"clean", "--filters", "gopher_quality"}, []string{"in"}, []string{s.URL("in/")}},
		{"dedup exact", []string{"dedup", "exact"}, []string{"in"}, []string{s.URL("in")}},
		{"dedup minhash", []string{"dedup", "minhash", "--threshold", "0.7", "--num-perm", "64", "--bands", "16", "--ngram", "3"},
			[]string{"in"}, []string{s.URL("in")}},
	} {
		out := strings.ReplaceAll(c.name, " ", "-")
		args := append(append(append([]string{}, c.args...), c.local...), "-o", "local/"+out)
		if code, o, e := sluiceIn(t, "", args...); code != 0 {
			t.Fatalf("%s on local files: exit %d\n%s%s", c.name, code, o, e)
		}
		args = append(append(append([]string{}, c.args...), c.remote...), "-o", s.URL("out/"+out+"/"), "--max-file-rows", "150")
		code, o, e := sluiceIn(t, "", args...)
		if code != 0 {
			t.Fatalf("%s on the bucket: exit %d\n%s%s", c.name, code, o, e)
		}
		if !strings.Contains(o, s.URL("out/"+out+"/manifest.json")) {
			t.Errorf("%s: the summary does not name the manifest in the bucket:\n%s", c.name, o)
		}
		sameDataset(t, c.name, s, "out/"+out, "local/"+out)
		m, err := dataset.ReadManifestAt(s.URL("out/" + out + "/manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m.Outputs {
			if !strings.HasPrefix(f.Path, s.URL("out/"+out+"/data/part-")) {
				t.Errorf("%s: the manifest names the output %s", c.name, f.Path)
			}
		}
		if keys := s.Keys(t, "out/"+out+"/"); len(keys) < 2 || strings.Contains(strings.Join(keys, " "), ".sluice-") {
			t.Errorf("%s: the bucket holds %v", c.name, keys)
		}
	}

	// Parquet in the bucket, read by range requests, as the local copy.
	s.PutDir(t, "pq", "local/convert")
	if code, o, e := sluiceIn(t, "", "clean", "--filters", "gopher_quality", "local/convert", "-o", "local/pq-clean"); code != 0 {
		t.Fatal(o, e)
	}
	if code, o, e := sluiceIn(t, "", "clean", "--filters", "gopher_quality", s.URL("pq"), "-o", s.URL("out/pq-clean")); code != 0 {
		t.Fatal(o, e)
	}
	sameDataset(t, "clean of Parquet", s, "out/pq-clean", "local/pq-clean")

	// inspect of the bucket's dataset and the local one.
	_, lo, le := sluiceIn(t, "", "inspect", "local/convert", "--json")
	code, ro, re := sluiceIn(t, "", "inspect", s.URL("out/convert"), "--json")
	if code != 0 {
		t.Fatalf("inspect: exit %d %s", code, re)
	}
	var lrep, rrep map[string]any
	if err := json.Unmarshal([]byte(lo), &lrep); err != nil {
		t.Fatal(lo, le, err)
	}
	if err := json.Unmarshal([]byte(ro), &rrep); err != nil {
		t.Fatal(ro, err)
	}
	for _, k := range []string{"rows", "columns", "format", "manifest_counts"} {
		if !reflect.DeepEqual(lrep[k], rrep[k]) {
			t.Errorf("inspect %s: bucket %v, local %v", k, rrep[k], lrep[k])
		}
	}
	if _, err := os.Stat("s3:"); err == nil {
		t.Error("a local folder s3: was written")
	}
}

// TestObjectStoreOutputRules: an existing output needs --overwrite, which
// deletes only what the old manifest lists; a prefix of other objects is
// refused; an incomplete prefix is refused as input and by inspect; a
// missing bucket and refused credentials are usage errors naming the URL
// (never the secret); and no local folder named s3: is ever written.
func TestObjectStoreOutputRules(t *testing.T) {
	s := s3test.Start(t)
	dir := t.TempDir()
	t.Chdir(dir)
	writeFiles(t, map[string]string{"a.jsonl": rowsA, "big.jsonl": manyRows(3000), "notes.txt": "mine"})
	if code, _, e := sluiceIn(t, "", "convert", "big.jsonl", "-o", s.URL("ds"), "--max-file-rows", "1000"); code != 0 {
		t.Fatal(e)
	}
	s.Put(t, "ds/notes.txt", "notes.txt")
	code, _, e := sluiceIn(t, "", "convert", "a.jsonl", "-o", s.URL("ds"))
	if code != 2 || !strings.Contains(e, "--overwrite") || !strings.Contains(e, s.URL("ds")) {
		t.Errorf("an existing output without --overwrite: exit %d %s", code, e)
	}
	if code, _, e := sluiceIn(t, "", "convert", "a.jsonl", "-o", s.URL("ds"), "--overwrite"); code != 0 {
		t.Fatalf("--overwrite: exit %d %s", code, e)
	}
	want := "ds/data/part-00000.parquet ds/manifest.json ds/notes.txt ds/quarantine.jsonl"
	if got := strings.Join(s.Keys(t, "ds/"), " "); got != want {
		t.Errorf("after --overwrite the prefix holds %s, want %s", got, want)
	}
	// A prefix with objects sluice did not write.
	s.Put(t, "other/notes.txt", "notes.txt")
	if code, _, e := sluiceIn(t, "", "convert", "a.jsonl", "-o", s.URL("other")); code != 2 || !strings.Contains(e, "not a sluice dataset") {
		t.Errorf("a prefix of other objects: exit %d %s", code, e)
	}
	if got := strings.Join(s.Keys(t, "other/"), " "); got != "other/notes.txt" {
		t.Errorf("the refused prefix holds %s", got)
	}
	// Part files without a manifest: incomplete.
	if code, _, e := sluiceIn(t, "", "convert", "big.jsonl", "-o", "local-ds"); code != 0 {
		t.Fatal(e)
	}
	s.Put(t, "half/data/part-00000.parquet", "local-ds/data/part-00000.parquet")
	for _, args := range [][]string{{"inspect", s.URL("half")}, {"verify", s.URL("half")}, {"convert", s.URL("half"), "-o", "x"}} {
		if code, _, e := sluiceIn(t, "", args...); code != 2 || !strings.Contains(e, "incomplete") || !strings.Contains(e, s.URL("half")) {
			t.Errorf("%v: exit %d %s", args, code, e)
		}
	}
	if code, _, e := sluiceIn(t, "", "convert", "a.jsonl", "-o", s.URL("half")); code != 2 || !strings.Contains(e, "incomplete") {
		t.Errorf("writing into an incomplete prefix: exit %d %s", code, e)
	}
	if code, _, e := sluiceIn(t, "", "inspect", s.URL("half"), "--allow-incomplete"); code != 0 {
		t.Errorf("inspect --allow-incomplete: exit %d %s", code, e)
	}
	// One-file outputs, with their side files beside them.
	if code, _, e := sluiceIn(t, "", "convert", "big.jsonl", "-o", s.URL("one/big.parquet")); code != 0 {
		t.Fatal(e)
	}
	if got := strings.Join(s.Keys(t, "one/"), " "); got != "one/big.manifest.json one/big.parquet" {
		t.Errorf("a one-file output: %s", got)
	}
	// A second run on an output another run holds stops at once.
	held, err := dataset.Begin(context.Background(), dataset.ParseTarget(s.URL("held")), false)
	if err != nil {
		t.Fatal(err)
	}
	if code, _, e := sluiceIn(t, "", "convert", "a.jsonl", "-o", s.URL("held")); code != 1 || !strings.Contains(e, "another sluice run") || !strings.Contains(e, "pid ") {
		t.Errorf("a second run: exit %d %s", code, e)
	}
	held.Abort()
	if code, _, e := sluiceIn(t, "", "convert", "a.jsonl", "-o", s.URL("held")); code != 0 {
		t.Errorf("after the first run ended: exit %d %s", code, e)
	}
	// Errors that name the URL, before any work.
	code, _, e = sluiceIn(t, "", "convert", "a.jsonl", "-o", "s3://no-such-bucket/out")
	if code != 2 || !strings.Contains(e, "s3://no-such-bucket/out") || !strings.Contains(e, "does not exist") {
		t.Errorf("a missing bucket: exit %d %s", code, e)
	}
	code, _, e = sluiceIn(t, "", "convert", "s3://no-such-bucket/in.jsonl", "-o", "out")
	if code != 2 || !strings.Contains(e, "s3://no-such-bucket/in.jsonl") {
		t.Errorf("an input in a missing bucket: exit %d %s", code, e)
	}
	code, _, e = sluiceIn(t, "", "convert", s.URL("no-such.jsonl"), "-o", "out")
	if code != 2 || !strings.Contains(e, s.URL("no-such.jsonl")) {
		t.Errorf("a missing object: exit %d %s", code, e)
	}
	s3test.Use(t, s.Endpoint, s3test.AccessKey, "not-the-secret-42")
	code, _, e = sluiceIn(t, "", "convert", "a.jsonl", "-o", s.URL("denied"))
	if code != 2 || !strings.Contains(e, s.URL("denied")) || !strings.Contains(e, "credentials were refused") || strings.Contains(e, "not-the-secret-42") {
		t.Errorf("bad credentials: exit %d %s", code, e)
	}
	// --s3-endpoint anywhere on the command line.
	s3test.Use(t, "http://127.0.0.1:9", s3test.AccessKey, s3test.SecretKey)
	if code, o, e := sluiceIn(t, "", "inspect", s.URL("ds"), "--s3-endpoint", s.Endpoint); code != 0 || !strings.Contains(o, "rows") {
		t.Errorf("--s3-endpoint after the command: exit %d %s%s", code, o, e)
	}
	if _, err := os.Stat("s3:"); err == nil {
		t.Error("a local folder s3: was written")
	}
	leftovers(t, ".")
}

// TestObjectStoreInterruptedRun interrupts runs writing to the bucket: on
// SIGINT the run exits 130 and deletes what it staged; killed, it leaves
// only hidden staged objects and no manifest, which the next run deletes.
// The earlier output stays whole either way.
func TestObjectStoreInterruptedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and a corpus")
	}
	s := s3test.Start(t)
	bin := sluiceBinary(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "big.jsonl")
	writeFiles(t, map[string]string{in: manyRows(400_000), filepath.Join(dir, "a.jsonl"): rowsA})
	out := s.URL("run")
	if code, o, e := sluiceIn(t, "", "convert", filepath.Join(dir, "a.jsonl"), "-o", out); code != 0 {
		t.Fatalf("first run: %d %s %s", code, o, e)
	}
	before := snapshot(t, bucketDir(s, "run"))
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		cmd := exec.Command(bin, "convert", in, "-o", out, "--overwrite", "--workers", "1", "--no-progress",
			"--compression-level", "22", "--batch-rows", "4096", "--max-file-rows", "8192")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until parts are staged in the bucket.
		deadline := time.Now().Add(90 * time.Second)
		for {
			staged, _ := filepath.Glob(filepath.Join(bucketDir(s, "run"), ".sluice-tmp-*", "data", "part-*.parquet"))
			if len(staged) >= 2 {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("%s: no part was staged: %s", sig, stderr.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		cmd.Process.Signal(sig)
		cmd.Wait()
		code := cmd.ProcessState.ExitCode()
		if sig == syscall.SIGINT && code != 130 {
			t.Errorf("%s: exit %d, want 130: %s", sig, code, stderr.String())
		}
		keys := strings.Join(s.Keys(t, "run/"), " ")
		if after := snapshot(t, bucketDir(s, "run")); sig == syscall.SIGINT && after != before {
			t.Errorf("%s: the bucket changed:\nbefore %s\nafter  %s", sig, before, after)
		}
		if !strings.Contains(keys, "run/manifest.json") || strings.Count(keys, "part-") != 1+strings.Count(keys, ".sluice-tmp-") {
			t.Errorf("%s: the earlier output is not whole: %s", sig, keys)
		}
		if sig == syscall.SIGKILL && !strings.Contains(keys, ".sluice-tmp-") {
			t.Errorf("killed: expected hidden staged objects, the bucket holds %s", keys)
		}
	}
	// The next run deletes what the killed one staged (its lock is stale
	// only after a while: the test takes it over by deleting it).
	os.Remove(filepath.Join(bucketDir(s, "run"), ".sluice-lock"))
	if code, o, e := sluiceIn(t, "", "convert", filepath.Join(dir, "a.jsonl"), "-o", out, "--overwrite"); code != 0 {
		t.Fatalf("after the killed run: %d %s %s", code, o, e)
	}
	if keys := strings.Join(s.Keys(t, "run/"), " "); keys != "run/data/part-00000.parquet run/manifest.json run/quarantine.jsonl" {
		t.Errorf("after the next run the bucket holds %s", keys)
	}
}

// TestLocalOnlyCommandsRefuseObjectStoreOutputs: the commands that write
// their output with the file system's calls refuse an object-store URL
// before any work (exit 2, no request sent), and no local folder named
// s3: (or gs:, az:) is ever made of one.
func TestLocalOnlyCommandsRefuseObjectStoreOutputs(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeFiles(t, map[string]string{"a.jsonl": rowsA, "p.yaml": "input: [\"a.jsonl\"]\nstages:\n  - dedup_exact: {}\n"})
	if code, _, e := sluiceIn(t, "", "convert", "a.jsonl", "-o", "ds"); code != 0 {
		t.Fatal(e)
	}
	for _, args := range [][]string{
		{"launch", "p.yaml", "-o", "s3://b/launch", "--tasks", "2", "--executor", "slurm"},
		{"demo", "-o", "gs://b/demo"},
		{"report", "ds", "-o", "s3://b/report.html"},
		{"rerun", "ds", "-o", "az://c/again"},
		{"classify", "train", "a.jsonl", "-o", "s3://b/m.bin", "--label-field", "id"},
		{"tasks", "split", "a.jsonl", "-o", "s3://b/split"},
		{"memorize", "canaries", "-o", "s3://b/canaries.jsonl"},
		{"memorize", "probes", "a.jsonl", "-o", "s3://b/probes.jsonl"},
		{"tokens", "a.jsonl", "-o", "s3://b/counts.parquet"},
		{"convert", "a.jsonl", "-o", "https://example.com/out"},
	} {
		code, _, e := sluiceIn(t, "", args...)
		if code != 2 || !(strings.Contains(e, "is a URL") || strings.Contains(e, "not supported")) {
			t.Errorf("%v: exit %d %s", args, code, e)
		}
	}
	for _, d := range []string{"s3:", "gs:", "az:", "https:"} {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("a local folder %s was made", d)
		}
	}
}
