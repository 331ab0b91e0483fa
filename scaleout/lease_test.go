package scaleout

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluice-data/sluice/internal/datasettest"
)

// fastLease renews often and expires soon, for tests.
var fastLease = LeaseTiming{Heartbeat: 20 * time.Millisecond, Expiry: 200 * time.Millisecond}

// readLeaseFile reads the lease (running marker) of task i of phase.
func readLeaseFile(t *testing.T, out, phase string, i int) (Marker, bool) {
	t.Helper()
	b, err := os.ReadFile(markerFile(out, phase, i, "running"))
	if errors.Is(err, os.ErrNotExist) {
		return Marker{}, false
	}
	if err != nil {
		t.Fatal(err)
	}
	var m Marker
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("lease %q: %v", b, err)
	}
	return m, true
}

func parseLeaseTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("lease time %q: %v", s, err)
	}
	return v
}

// One copy holds a task's lease: a second is refused while it lives,
// the holder renews it, and releasing it lets the next one in.
func TestLeaseIsExclusiveRenewedAndReleased(t *testing.T) {
	p, _, _ := smallPlan(t)
	ph := p.Phases[0]
	host, _ := os.Hostname()
	a := Marker{Phase: ph.Name, Host: host, PID: os.Getpid(), Started: now(), Token: newToken()}
	l, taken, err := p.tryLease(ph, 0, a, fastLease)
	if err != nil || taken != nil {
		t.Fatalf("first lease: %v, took over %v", err, taken)
	}
	b := a
	b.Token = newToken()
	var held errHeld
	if _, _, err := p.tryLease(ph, 0, b, fastLease); !errors.As(err, &held) || held.holder.Token != a.Token {
		t.Fatalf("second lease while the first lives: %v, want it held by the first", err)
	}
	first, _ := readLeaseFile(t, p.Out, ph.Name, 0)
	l.keep(func(Marker) { t.Error("the lease was lost") })
	time.Sleep(6 * fastLease.Heartbeat)
	renewed, _ := readLeaseFile(t, p.Out, ph.Name, 0)
	if !parseLeaseTime(t, renewed.Heartbeat).After(parseLeaseTime(t, first.Heartbeat)) ||
		!parseLeaseTime(t, renewed.Expires).After(time.Now()) || renewed.Token != a.Token {
		t.Errorf("not renewed: first %+v, later %+v", first, renewed)
	}
	// Past the first expiry, the lease is alive because it was renewed.
	time.Sleep(fastLease.Expiry)
	if _, _, err := p.tryLease(ph, 0, b, fastLease); !errors.As(err, &held) {
		t.Fatalf("a renewed lease was taken: %v", err)
	}
	l.release()
	if _, ok := readLeaseFile(t, p.Out, ph.Name, 0); ok {
		t.Fatal("the lease is still there once released")
	}
	l2, taken, err := p.tryLease(ph, 0, b, fastLease)
	if err != nil || taken != nil {
		t.Fatalf("lease after release: %v, took over %v", err, taken)
	}
	l2.release()
	if tmp, _ := filepath.Glob(filepath.Join(p.Out, "_work", "markers", ".*")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// A holder whose lease another copy took over finds out at its next
// heartbeat, and stops renewing.
func TestLeaseLostIsNoticed(t *testing.T) {
	p, _, _ := smallPlan(t)
	ph := p.Phases[0]
	a := Marker{Phase: ph.Name, Host: "node-1", PID: 1, Started: now(), Token: newToken()}
	l, _, err := p.tryLease(ph, 0, a, fastLease)
	if err != nil {
		t.Fatal(err)
	}
	lost := make(chan Marker, 1)
	l.keep(func(m Marker) { lost <- m })
	other := Marker{Phase: ph.Name, Host: "node-2", PID: 2, Started: now(), Token: newToken()}
	writeMarkerFile(t, markerFile(p.Out, ph.Name, 0, "running"), other)
	select {
	case m := <-lost:
		if m.Host != "node-2" || m.Token != other.Token {
			t.Errorf("lost to %+v, want node-2's lease", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the holder did not notice its lease was taken")
	}
	l.release() // not its own: left in place
	if m, ok := readLeaseFile(t, p.Out, ph.Name, 0); !ok || m.Token != other.Token {
		t.Errorf("releasing a lost lease removed the other one's: %+v", m)
	}
}

// A lease that expired (its holder on another host stopped renewing it)
// shows as interrupted, and the next copy of the task takes it over,
// runs the task and leaves no lease.
func TestAnExpiredLeaseIsTakenOver(t *testing.T) {
	p, _, _ := smallPlan(t)
	ph := p.Phases[0]
	past := time.Now().Add(-time.Minute).UTC()
	stale := Marker{Phase: ph.Name, Index: 1, Host: "node-9", PID: 77, Started: "2026-01-02T03:04:05Z", Log: "/logs/old.log",
		Heartbeat: past.Add(-time.Minute).Format(time.RFC3339Nano), Expires: past.Format(time.RFC3339Nano), Token: "old"}
	writeMarkerFile(t, markerFile(p.Out, ph.Name, 1, "running"), stale)
	sts := Status(p)
	if st := sts[0]; len(st.Interrupted) != 1 || st.Interrupted[0].Host != "node-9" || st.State() != "interrupted" ||
		!strings.Contains(st.Interrupted[0].Why, "expired at "+past.Format(time.RFC3339)) {
		t.Fatalf("status of an expired lease: %+v", st)
	}
	var text bytes.Buffer
	PrintStatus(&text, sts)
	want := "task 1 interrupted on node-9 (pid 77, since 2026-01-02T03:04:05Z, heartbeat " +
		past.Add(-time.Minute).Format(time.RFC3339) + "): its lease expired at " + past.Format(time.RFC3339) +
		"; launch again to rerun it; log /logs/old.log"
	if !strings.Contains(text.String(), want) {
		t.Errorf("status lacks %q:\n%s", want, text.String())
	}

	var progress bytes.Buffer
	ran, err := RunTaskWith(context.Background(), p, ph.Name, 1, TaskOptions{Version: testVersion, Lease: fastLease, Progress: &progress})
	if !ran || err != nil {
		t.Fatalf("task with an expired lease: ran %v, %v", ran, err)
	}
	if !strings.Contains(progress.String(), "took over the stale lease of node-9 (pid 77)") {
		t.Errorf("progress: %q", progress.String())
	}
	if _, ok := readLeaseFile(t, p.Out, ph.Name, 1); ok {
		t.Error("a lease is left after the task ended")
	}
	if st := Status(p)[0]; st.Done != 1 || len(st.Interrupted)+len(st.Running)+len(st.Failed) != 0 {
		t.Errorf("status after the takeover: %+v", st)
	}
}

// A copy of a task whose lease is alive waits: until the context ends,
// or until the holder ends, when it does not run a task the holder
// completed.
func TestALiveLeaseMakesACopyWait(t *testing.T) {
	p, _, _ := smallPlan(t)
	ph := p.Phases[0]
	soon := time.Now().Add(time.Hour).UTC()
	holder := Marker{Phase: ph.Name, Index: 2, Host: "node-3", PID: 31, Started: "2026-01-02T03:04:05Z",
		Heartbeat: time.Now().UTC().Format(time.RFC3339Nano), Expires: soon.Format(time.RFC3339Nano), Token: "theirs"}
	writeMarkerFile(t, markerFile(p.Out, ph.Name, 2, "running"), holder)
	if st := Status(p)[0]; len(st.Running) != 1 || st.Running[0].Host != "node-3" || st.State() != "running" {
		t.Fatalf("status of a live lease: %+v", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var progress bytes.Buffer
	ran, err := RunTaskWith(ctx, p, ph.Name, 2, TaskOptions{Version: testVersion, Lease: fastLease, Progress: &progress})
	if ran || err == nil || !strings.Contains(err.Error(), "node-3 (pid 31)") || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a copy while the lease lives: ran %v, %v", ran, err)
	}
	if !strings.Contains(progress.String(), "is held by node-3 (pid 31) since 2026-01-02T03:04:05Z") ||
		!strings.Contains(progress.String(), "waiting") {
		t.Errorf("progress: %q", progress.String())
	}
	if m, _ := readLeaseFile(t, p.Out, ph.Name, 2); m.Token != "theirs" {
		t.Errorf("the waiting copy touched the lease: %+v", m)
	}

	// The holder completes the task and releases its lease meanwhile.
	result := make(chan error, 1)
	go func() {
		ran, err := RunTaskWith(context.Background(), p, ph.Name, 2, TaskOptions{Version: testVersion, Lease: fastLease})
		if ran && err == nil {
			err = errors.New("the copy ran the task the holder completed")
		}
		result <- err
	}()
	time.Sleep(100 * time.Millisecond)
	writeMarkerFile(t, markerFile(p.Out, ph.Name, 2, "done"), holder)
	os.Remove(markerFile(p.Out, ph.Name, 2, "running"))
	select {
	case err := <-result:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting copy did not end when the holder did")
	}
}

// Two copies of every task run at once in this process: each task runs
// once, no task fails, and the dataset is the one of one process.
func TestTwoCopiesOfEveryTaskRunItOnce(t *testing.T) {
	dir := t.TempDir()
	cfg := baseConfig(scan(t, corpus(t, dir, 6, 30)))
	single := filepath.Join(dir, "single")
	runSingle(t, allPipeline, cfg, single)
	out := filepath.Join(dir, "out")
	p, _ := newPlan(t, allPipeline, cfg, out, 3)
	for _, ph := range p.Phases {
		for i := 0; i < ph.Tasks; i++ {
			var wg sync.WaitGroup
			var mu sync.Mutex
			runs := 0
			for c := 0; c < 2; c++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ran, err := RunTaskWith(context.Background(), p, ph.Name, i, TaskOptions{Version: testVersion, Lease: fastLease})
					if err != nil {
						t.Errorf("%s/%d: %v", ph.Name, i, err)
					}
					mu.Lock()
					if ran {
						runs++
					}
					mu.Unlock()
				}()
			}
			wg.Wait()
			if runs != 1 {
				t.Errorf("%s/%d ran %d times", ph.Name, i, runs)
			}
		}
	}
	if failed, _ := filepath.Glob(filepath.Join(out, "_work", "markers", "*.failed")); len(failed) > 0 {
		t.Errorf("failed markers: %v", failed)
	}
	datasettest.Compare(t, "two copies a task", datasettest.Read(t, out), datasettest.Read(t, single))
}

// The state of a phase follows from its tasks' states, in one order.
func TestPhaseStateRule(t *testing.T) {
	ts := []TaskStatus{{}}
	for _, c := range []struct {
		st   PhaseStatus
		want string
	}{
		{PhaseStatus{Phase: Phase{Tasks: 3}, Done: 3}, "complete"},
		{PhaseStatus{Phase: Phase{Tasks: 3}, Done: 1, Running: ts, Failed: ts}, "failed"},
		{PhaseStatus{Phase: Phase{Tasks: 3}, Running: ts, Failed: ts, Interrupted: ts}, "failed"},
		{PhaseStatus{Phase: Phase{Tasks: 3}, Done: 1, Running: ts, Interrupted: ts}, "interrupted"},
		{PhaseStatus{Phase: Phase{Tasks: 3}, Done: 2, Running: ts}, "running"},
		{PhaseStatus{Phase: Phase{Tasks: 3}, Done: 2}, "waiting"},
		{PhaseStatus{Phase: Phase{Tasks: 3}}, "waiting"},
	} {
		if got := c.st.State(); got != c.want {
			t.Errorf("%d done, %d running, %d failed, %d interrupted: %s, want %s", c.st.Done, len(c.st.Running),
				len(c.st.Failed), len(c.st.Interrupted), got, c.want)
		}
	}
}

// Each task has one state, from its markers: a failed marker beside a
// stale lease is failed; a done marker beside anything is done.
func TestOneStateATask(t *testing.T) {
	p, _, _ := smallPlan(t)
	ph := p.Phases[0] // 3 tasks
	host, _ := os.Hostname()
	gone := Marker{Phase: ph.Name, Host: host, PID: deadPID(t), Started: now()}
	fail := Marker{Phase: ph.Name, Host: host, PID: 1, Started: now(), Finished: now(), Error: "disk on fire"}
	// Task 0: done, with a stale lease and a failed marker of earlier attempts.
	writeMarkerFile(t, markerFile(p.Out, ph.Name, 0, "done"), Marker{Phase: ph.Name})
	writeMarkerFile(t, markerFile(p.Out, ph.Name, 0, "running"), gone)
	writeMarkerFile(t, markerFile(p.Out, ph.Name, 0, "failed"), fail)
	// Task 1: failed, and the lease of the process that failed is left.
	writeMarkerFile(t, markerFile(p.Out, ph.Name, 1, "running"), gone)
	writeMarkerFile(t, markerFile(p.Out, ph.Name, 1, "failed"), fail)
	// Task 2: a live lease beside an earlier failure: running.
	live := Marker{Phase: ph.Name, Host: host, PID: os.Getpid(), Started: now(), Expires: time.Now().Add(time.Hour).Format(time.RFC3339Nano)}
	writeMarkerFile(t, markerFile(p.Out, ph.Name, 2, "running"), live)
	writeMarkerFile(t, markerFile(p.Out, ph.Name, 2, "failed"), fail)
	st := Status(p)[0]
	if st.Done != 1 || len(st.Failed) != 1 || st.Failed[0].Index != 1 || len(st.Running) != 1 || st.Running[0].Index != 2 ||
		len(st.Interrupted) != 0 || st.Waiting() != 0 || st.State() != "failed" {
		t.Errorf("status %+v", st)
	}
}

// A task killed after it wrote its done marker, before it released its
// lease, leaves a stale lease beside the marker: the next run of the
// task, or a relaunch, removes it, leaves a live lease to its holder,
// and runs nothing again.
func TestAStaleLeaseOfADoneTaskIsRemoved(t *testing.T) {
	p, planPath, _ := smallPlan(t)
	runPhases(t, p, p.Phases)
	ph := p.Phases[0] // 3 tasks
	host, _ := os.Hostname()
	past := time.Now().Add(-time.Minute).UTC()
	gone := Marker{Phase: ph.Name, Index: 0, Host: host, PID: deadPID(t), Started: now(), Token: "gone"}
	expired := Marker{Phase: ph.Name, Index: 1, Host: "node-9", PID: 77, Started: now(), Token: "expired",
		Heartbeat: past.Add(-time.Minute).Format(time.RFC3339Nano), Expires: past.Format(time.RFC3339Nano)}
	live := Marker{Phase: ph.Name, Index: 2, Host: "node-3", PID: 5, Started: now(), Token: "live",
		Expires: time.Now().Add(time.Hour).Format(time.RFC3339Nano)}
	for i, m := range []Marker{gone, expired, live} {
		writeMarkerFile(t, markerFile(p.Out, ph.Name, i, "running"), m)
	}
	doneBefore := map[int][]byte{}
	for i := 0; i < ph.Tasks; i++ {
		b, err := os.ReadFile(markerFile(p.Out, ph.Name, i, "done"))
		if err != nil {
			t.Fatal(err)
		}
		doneBefore[i] = b
	}

	ran, err := RunTask(context.Background(), p, ph.Name, 0, testVersion, "")
	if ran || err != nil {
		t.Fatalf("a done task: ran %v, %v", ran, err)
	}
	if m, ok := readLeaseFile(t, p.Out, ph.Name, 0); ok {
		t.Errorf("the lease of a killed holder is still there beside the done marker: %+v", m)
	}
	notes, err := p.PrepareRelaunch()
	if err != nil || len(notes) != 1 || !strings.HasPrefix(notes[0], "phase "+ph.Name+" task 1 is done: removed the stale lease of node-9 (pid 77)") {
		t.Errorf("relaunch: %q, %v", notes, err)
	}
	var progress bytes.Buffer
	if err := RunLocal(context.Background(), p, planPath, 2, &progress); err != nil {
		t.Fatalf("relaunch: %v\n%s", err, progress.String())
	}
	if !strings.Contains(progress.String(), ph.Name) || !strings.Contains(progress.String(), "already done") {
		t.Errorf("the relaunch ran tasks again:\n%s", progress.String())
	}
	if m, ok := readLeaseFile(t, p.Out, ph.Name, 1); ok {
		t.Errorf("an expired lease is still there after the relaunch: %+v", m)
	}
	if m, ok := readLeaseFile(t, p.Out, ph.Name, 2); !ok || m.Token != "live" {
		t.Errorf("a live lease was removed: %+v, %v", m, ok)
	}
	for i, b := range doneBefore {
		if after, err := os.ReadFile(markerFile(p.Out, ph.Name, i, "done")); err != nil || !bytes.Equal(after, b) {
			t.Errorf("done marker %d changed: %s, was %s (%v)", i, after, b, err)
		}
	}
	if tmp, _ := filepath.Glob(filepath.Join(p.Out, "_work", "markers", "*.stale-*")); len(tmp) > 0 {
		t.Errorf("left aside: %v", tmp)
	}
}
