package command

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sluice-data/sluice/io/dataset"
)

// TestASecondRunOnOneOutputStopsAtOnce: while one run holds an output, a
// second run on it exits 1 naming the holder, and leaves nothing.
func TestASecondRunOnOneOutputStopsAtOnce(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeFiles(t, map[string]string{"a.jsonl": rowsA})
	for _, out := range []string{"ds", "one.parquet"} {
		held, err := dataset.Begin(context.Background(), dataset.ParseTarget(out), false)
		if err != nil {
			t.Fatal(err)
		}
		code, _, stderr := sluiceIn(t, "", "convert", "a.jsonl", "-o", out)
		if code != 1 || !strings.Contains(stderr, "another sluice run") || !strings.Contains(stderr, "pid ") {
			t.Errorf("%s: second run: exit %d, %s", out, code, stderr)
		}
		held.Abort()
		if code, _, stderr := sluiceIn(t, "", "convert", "a.jsonl", "-o", out); code != 0 {
			t.Errorf("%s: after the first run ended: exit %d, %s", out, code, stderr)
		}
	}
	leftovers(t, ".")
}

// TestInterruptedRunsCleanUp sends SIGINT and SIGTERM to runs overwriting
// an earlier output: exit 130, the earlier output whole, no temporary file
// or spill directory left.
func TestInterruptedRunsCleanUp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and a corpus")
	}
	bin := sluiceBinary(t)
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	os.Mkdir(tmp, 0o755)
	in := filepath.Join(dir, "big.jsonl")
	writeFiles(t, map[string]string{in: manyRows(400_000), filepath.Join(dir, "a.jsonl"): rowsA})
	// SIGINT while the output is written; SIGTERM during the signing pass,
	// while the MinHash spill directory exists.
	for _, c := range []struct {
		sig  syscall.Signal
		when string
	}{{syscall.SIGINT, ".sluice-tmp-*"}, {syscall.SIGTERM, "spill"}} {
		sig := c.sig
		out := filepath.Join(dir, "out-"+sig.String())
		if code, o, e := sluiceIn(t, "", "convert", filepath.Join(dir, "a.jsonl"), "-o", out); code != 0 {
			t.Fatalf("first run: %d %s %s", code, o, e)
		}
		before := snapshot(t, out)
		// zstd at its slowest keeps the writing pass long enough to be
		// interrupted in the middle.
		cmd := exec.Command(bin, "dedup", "minhash", in, "-o", out, "--overwrite", "--workers", "1", "--no-progress",
			"--compression-level", "22", "--batch-rows", "4096")
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until the run is where the case wants it.
		deadline := time.Now().Add(60 * time.Second)
		for {
			pattern := filepath.Join(out, c.when)
			if c.when == "spill" {
				pattern = filepath.Join(tmp, "sluice-minhash-*")
			}
			if found, _ := filepath.Glob(pattern); len(found) > 0 {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("%s: the run never got to %s: %s", sig, c.when, stderr.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		code := cmd.ProcessState.ExitCode()
		if code != 130 {
			t.Errorf("%s: exit %d (%v), want 130: %s", sig, code, err, stderr.String())
		}
		if after := snapshot(t, out); after != before {
			t.Errorf("%s: the earlier output changed:\nbefore %s\nafter  %s", sig, before, after)
		}
		leftovers(t, out)
		if spill, _ := os.ReadDir(tmp); len(spill) > 0 {
			t.Errorf("%s: left in the temporary directory: %v", sig, spill)
		}
	}
}
