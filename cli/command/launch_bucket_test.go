package command

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluice-data/sluice/internal/datasettest"
	"github.com/sluice-data/sluice/internal/s3test"
)

// A 4-task launch whose output is a bucket prefix keeps its plan,
// markers and logs under it, and gives the rows of `run` on local files;
// status reads it from the bucket.
func TestLaunchOnABucketGivesTheRowsOfRun(t *testing.T) {
	s := s3test.Start(t)
	bin := sluiceBinary(t)
	dir := t.TempDir()
	t.Chdir(dir)
	in := dupCorpus(t, dir, 4, 300)
	pipe := dedupPipeline(t, dir, in)
	single := filepath.Join(dir, "single")
	runMain(t, "run", pipe, "-o", single, "--no-progress", "--batch-rows", "100")
	out := s.URL("launch")
	args := []string{"launch", pipe, "-o", out, "--tasks", "4", "--sluice-binary", bin, "--no-progress",
		"--batch-rows", "100", "--max-parallel", "2"}
	stdout, _ := runMain(t, args...)
	datasettest.Compare(t, "launch on a bucket", datasettest.Read(t, bucketDir(s, "launch")), datasettest.Read(t, single))
	keys := s.Keys(t, "launch/")
	has := func(pattern string) int {
		n := 0
		for _, k := range keys {
			if ok, _ := filepath.Match(pattern, k); ok {
				n++
			}
		}
		return n
	}
	for pattern, want := range map[string]int{
		"launch/_plan.json": 1, "launch/manifest.json": 1, "launch/manifest-0000?.json": 4,
		"launch/_work/markers/write-0000?.done": 4, "launch/_work/markers/merge-00000.done": 1,
		"launch/_logs/write-0000?.attempt-1.log": 4, "launch/_work/s*-*/*": 0, "launch/_work/*/*.running": 0,
	} {
		if got := has(pattern); got != want {
			t.Errorf("%d objects match %s, want %d; the bucket holds:\n%s", got, pattern, want, strings.Join(keys, "\n"))
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "s3:")); err == nil {
		t.Errorf("a local folder s3: was made")
	}
	if m := readManifest(t, filepath.Join(bucketDir(s, "launch"), "manifest.json")); !strings.HasPrefix(fmt.Sprint(m["outputs"]), "[map[bytes:") ||
		!strings.Contains(fmt.Sprint(m["outputs"]), out+"/data/part-00000-00000.parquet") {
		t.Errorf("the manifest's outputs are not the bucket's objects: %v", m["outputs"])
	}
	if code, st, e := mainCode("status", out); code != 0 || !strings.Contains(st, "complete: "+out+"/manifest.json") {
		t.Errorf("status %s: exit %d\n%s%s", out, code, st, e)
	}
	// Launched again, nothing runs; with --overwrite it starts over.
	if again, _ := runMain(t, args...); !strings.Contains(again, "write                    4 tasks already done") {
		t.Errorf("relaunch of a complete launch:\n%s\nfirst:\n%s", again, stdout)
	}
	runMain(t, append(args, "--overwrite")...)
	datasettest.Compare(t, "launch on a bucket with --overwrite", datasettest.Read(t, bucketDir(s, "launch")), datasettest.Read(t, single))
}

// A write task killed mid-way leaves its lease in the bucket; status
// shows it interrupted, and a relaunch runs it again from clean and
// gives the rows of an uninterrupted launch.
func TestLaunchOnABucketResumesAfterATaskIsKilled(t *testing.T) {
	s := s3test.Start(t)
	bin := sluiceBinary(t)
	dir := t.TempDir()
	t.Chdir(dir)
	in := dupCorpus(t, dir, 8, 2000)
	pipe := dedupPipeline(t, dir, in)
	single := filepath.Join(dir, "single")
	runMain(t, "run", pipe, "-o", single, "--no-progress", "--batch-rows", "100")
	out := s.URL("killed")
	args := []string{"launch", pipe, "-o", out, "--tasks", "4", "--no-progress", "--batch-rows", "100",
		"--max-file-rows", "500", "--workers", "1", "--max-parallel", "2"}
	killed := launchKillingAWriteTask(t, bin, args, bucketDir(s, "killed"), 5*time.Millisecond, func(int) bool { return true })
	if code, st, _ := mainCode("status", out); code == 0 || !strings.Contains(st, fmt.Sprintf("task %d interrupted", killed)) {
		t.Errorf("status does not show the killed task (exit %d):\n%s", code, st)
	}
	res, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("launch after the kill: %v\n%s", err, res)
	}
	if !strings.Contains(string(res), "1 run now") {
		t.Errorf("the relaunch did not run the killed task alone:\n%s", res)
	}
	datasettest.Compare(t, "resumed on a bucket", datasettest.Read(t, bucketDir(s, "killed")), datasettest.Read(t, single))
	if logs := s.Keys(t, fmt.Sprintf("killed/_logs/write-%05d.attempt-2.log", killed)); len(logs) != 1 {
		t.Errorf("the second attempt's log is not in the bucket: %v", s.Keys(t, "killed/_logs/"))
	}
}
