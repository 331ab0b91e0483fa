package command

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluice-data/sluice/scaleout"
)

// A task stopped after it wrote its done marker, before it released its
// lease, leaves the lease beside the marker. A relaunch runs nothing
// again, says it removed that lease, removes it, and leaves the dataset
// byte for byte; a later status has no lease to show.
func TestARelaunchRemovesTheStaleLeaseOfADoneTask(t *testing.T) {
	bin := sluiceBinary(t)
	dir := t.TempDir()
	in := dupCorpus(t, dir, 3, 20)
	pipe := dedupPipeline(t, dir, in)
	out := filepath.Join(dir, "out")
	launch := []string{"launch", pipe, "-o", out, "--tasks", "2", "--sluice-binary", bin, "--no-progress"}
	runMain(t, launch...)

	dones, _ := filepath.Glob(filepath.Join(out, "_work", "markers", "*.done"))
	if len(dones) == 0 {
		t.Fatal("no done markers")
	}
	done := dones[0]
	var m scaleout.Marker
	if b, err := os.ReadFile(done); err != nil || json.Unmarshal(b, &m) != nil {
		t.Fatalf("done marker %s: %v", done, err)
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	host, _ := os.Hostname()
	started := time.Now().UTC().Format(time.RFC3339)
	lease := strings.TrimSuffix(done, ".done") + ".running"
	b, _ := json.Marshal(scaleout.Marker{Phase: m.Phase, Index: m.Index, Host: host, PID: gone.Process.Pid, Started: started, Token: "stopped"})
	if err := os.WriteFile(lease, b, 0o644); err != nil {
		t.Fatal(err)
	}
	data, manifest := snapshot(t, filepath.Join(out, "data")), snapshot(t, filepath.Join(out, "manifest.json"))
	markersBefore := snapshot(t, done)

	stdout, _ := runMain(t, launch...)
	want := fmt.Sprintf("phase %s task %d is done: removed the stale lease of %s (pid %d) since %s, stopped after it completed the task\n",
		m.Phase, m.Index, host, gone.Process.Pid, started)
	if !strings.Contains(stdout, want) {
		t.Errorf("the relaunch does not say %q:\n%s", want, stdout)
	}
	if strings.Contains(stdout, "run now") {
		t.Errorf("the relaunch ran tasks again:\n%s", stdout)
	}
	if _, err := os.Lstat(lease); err == nil {
		t.Errorf("%s is still there after the relaunch", lease)
	}
	if leases, _ := filepath.Glob(filepath.Join(out, "_work", "markers", "*.running*")); len(leases) > 0 {
		t.Errorf("leases left: %v", leases)
	}
	if snapshot(t, filepath.Join(out, "data")) != data || snapshot(t, filepath.Join(out, "manifest.json")) != manifest || snapshot(t, done) != markersBefore {
		t.Error("the relaunch changed the dataset or the done marker")
	}
	status, _ := runMain(t, "status", out)
	if strings.Contains(status, "interrupted on") || strings.Contains(status, "running on") {
		t.Errorf("status after the relaunch:\n%s", status)
	}
}
