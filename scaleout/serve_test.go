package scaleout

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// A serving process runs the requests in order, each task's output and
// error in its own log, and answers each with a reply line that
// slotProcess reads back; lines that are not replies are not taken for
// replies.
func TestServeTasksAnswersEachRequestInItsLog(t *testing.T) {
	dir := t.TempDir()
	var in bytes.Buffer
	for i, phase := range []string{"a", "b", "a"} {
		log := filepath.Join(dir, fmt.Sprintf("%s-%d.log", phase, i))
		if err := os.WriteFile(log, []byte("attempt header\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&in, `{"phase":%q,"index":%d,"workers":2,"log":"name-%d","log_file":%q}`+"\n\n", phase, i, i, log)
	}
	var ran []string
	run := func(_ context.Context, req TaskRequest, log io.Writer) (bool, error) {
		ran = append(ran, fmt.Sprintf("%s/%d/%d/%s", req.Phase, req.Index, req.Workers, req.Log))
		fmt.Fprintf(log, "running %s %d\n", req.Phase, req.Index)
		if req.Phase == "b" {
			return false, errors.New("b fails")
		}
		return req.Index == 0, nil
	}
	var out bytes.Buffer
	out.WriteString("a line that is not a reply\n")
	if err := ServeTasks(context.Background(), &in, &out, run, func(w io.Writer, err error) { fmt.Fprintln(w, "error:", err) }); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a/0/2/name-0", "b/1/2/name-1", "a/2/2/name-2"}; strings.Join(ran, " ") != strings.Join(want, " ") {
		t.Errorf("ran %v, want %v", ran, want)
	}
	s := &slotProcess{replies: make(chan TaskReply), other: &logSwitch{}, done: make(chan struct{})}
	var other bytes.Buffer
	s.other.set(&other)
	go s.read(&out)
	var replies []TaskReply
	for r := range s.replies {
		replies = append(replies, r)
	}
	if len(replies) != 3 || !replies[0].Ran || replies[0].Error != "" || replies[1].Ran || replies[1].Error != "b fails" ||
		replies[2].Ran || replies[2].Index != 2 || replies[2].Phase != "a" {
		t.Errorf("replies: %+v", replies)
	}
	if other.String() != "a line that is not a reply\n" {
		t.Errorf("other output: %q", other.String())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "b-1.log")); string(b) != "attempt header\nrunning b 1\nerror: b fails\n" {
		t.Errorf("log of the failed task: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a-2.log")); string(b) != "attempt header\nrunning a 2\n" {
		t.Errorf("log of the last task: %q", b)
	}

	// A request that is not JSON stops the process.
	err := ServeTasks(context.Background(), strings.NewReader("phase a\n"), io.Discard, run, func(io.Writer, error) {})
	if err == nil || !strings.Contains(err.Error(), `task request "phase a"`) {
		t.Errorf("a request that is not JSON: %v", err)
	}
}

// Each task of a serving process reports its own peak memory: a small
// task after a large one does not report the large one's peak.
func TestPeakRSSIsResetBetweenTasks(t *testing.T) {
	if _, err := os.Stat("/proc/self/clear_refs"); err != nil {
		t.Skip("no /proc/self/clear_refs: the peak cannot be reset here")
	}
	big := make([]byte, 256<<20)
	for i := 0; i < len(big); i += 4096 {
		big[i] = 1
	}
	runtime.KeepAlive(big)
	before := peakRSS()
	big = nil
	debug.FreeOSMemory()
	resetPeakRSS()
	after := peakRSS()
	if before < 256<<20 || after > before-128<<20 {
		t.Errorf("peak RSS %d MiB with 256 MiB touched, %d MiB after it was freed and the peak reset", before>>20, after>>20)
	}
	if kb, ok := statusKB([]byte("Name:\tx\nVmHWM:\t   1776 kB\nVmRSS:\t12 kB\n"), "VmHWM:"); !ok || kb != 1776 {
		t.Errorf("statusKB = %d, %v", kb, ok)
	}
	if _, ok := statusKB([]byte("VmRSS:\t12 kB\n"), "VmHWM:"); ok {
		t.Error("statusKB found a field that is not there")
	}
}

// A slot runs its tasks in one process; when that process ended between
// two tasks (killed), the next task runs in a new one instead of failing.
func TestSlotReplacesAProcessThatEnded(t *testing.T) {
	p, planPath, dir := smallPlan(t)
	p.Binary = taskBinary(t, dir)
	ph := p.Phases[0]
	ctx := context.Background()
	var slot *slotProcess
	defer func() {
		if slot != nil {
			slot.stop()
		}
	}()
	if err := p.runLocalTask(ctx, planPath, &slot, ph, 0, 1); err != nil {
		t.Fatal(err)
	}
	first := slot
	if first == nil || first.cmd.Process == nil {
		t.Fatal("no task process after the first task")
	}
	if err := p.runLocalTask(ctx, planPath, &slot, ph, 1, 1); err != nil || slot != first {
		t.Fatalf("second task: %v; same process: %v", err, slot == first)
	}
	first.cmd.Process.Kill()
	for !first.ended() {
		time.Sleep(10 * time.Millisecond)
	}
	if err := p.runLocalTask(ctx, planPath, &slot, ph, 2, 1); err != nil {
		t.Fatalf("the task after the process was killed: %v", err)
	}
	if slot == nil || slot == first {
		t.Fatal("the killed process was not replaced")
	}
	if sts := Status(p); sts[0].Done != 3 {
		t.Errorf("%d of 3 tasks done", sts[0].Done)
	}
}

// Task processes free memory lazily unless the launch's GODEBUG says
// otherwise, and keep the rest of it.
func TestSlotGODEBUG(t *testing.T) {
	for launch, want := range map[string]string{
		"":                             "madvdontneed=0",
		"gctrace=1":                    "gctrace=1,madvdontneed=0",
		"madvdontneed=1":               "madvdontneed=1",
		"gctrace=1,madvdontneed=1,x=2": "gctrace=1,madvdontneed=1,x=2",
	} {
		if got := slotGODEBUG(launch); got != want {
			t.Errorf("slotGODEBUG(%q) = %q, want %q", launch, got, want)
		}
	}
}
