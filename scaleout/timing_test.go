package scaleout

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// checkMarkerTimes checks the times a done marker recorded: present and
// plausible (setup within overhead within the wall time), and the peak
// memory of the process. No threshold on how long anything took.
func checkMarkerTimes(t *testing.T, what string, m Marker) {
	t.Helper()
	if m.WallSeconds <= 0 || m.SetupSeconds < 0 || m.OverheadSeconds < m.SetupSeconds || m.OverheadSeconds > m.WallSeconds || m.PeakRSS <= 0 {
		t.Errorf("%s: implausible times: wall %v, overhead %v, setup %v, peak RSS %d", what, m.WallSeconds, m.OverheadSeconds, m.SetupSeconds, m.PeakRSS)
	}
}

// Every done marker records the task's wall time, its overhead and setup
// parts, and its peak memory; Status sums them by phase and PrintStatus
// shows the sums.
func TestDoneMarkersRecordTheTaskTimes(t *testing.T) {
	dir := t.TempDir()
	cfg := baseConfig(scan(t, corpus(t, dir, 4, 20)))
	out := filepath.Join(dir, "out")
	p, _ := newPlan(t, exactPipeline, cfg, out, 2)
	// A task whose process started a while ago counts that in its setup.
	started := time.Now().Add(-50 * time.Millisecond)
	for _, ph := range p.Phases {
		for i := 0; i < ph.Tasks; i++ {
			ran, err := RunTaskWith(context.Background(), p, ph.Name, i, TaskOptions{Version: testVersion, Started: started})
			if err != nil || !ran {
				t.Fatalf("task %s/%d: ran %v, %v", ph.Name, i, ran, err)
			}
		}
	}
	for _, ph := range p.Phases {
		var sum PhaseTimes
		for i := 0; i < ph.Tasks; i++ {
			b, err := os.ReadFile(markerFile(out, ph.Name, i, "done"))
			if err != nil {
				t.Fatal(err)
			}
			var raw map[string]any
			if err := json.Unmarshal(b, &raw); err != nil {
				t.Fatal(err)
			}
			for _, field := range []string{"wall_seconds", "overhead_seconds", "setup_seconds", "peak_rss_bytes"} {
				if _, ok := raw[field]; !ok {
					t.Errorf("%s/%d: the done marker has no %s: %s", ph.Name, i, field, b)
				}
			}
			var m Marker
			json.Unmarshal(b, &m)
			checkMarkerTimes(t, ph.Name, m)
			// The setup counts from the process's start, given.
			if m.SetupSeconds < 0.05 {
				t.Errorf("%s/%d: setup %vs does not count from the process's start, 50ms before the task", ph.Name, i, m.SetupSeconds)
			}
			sum.add(m)
		}
		if got := p.TimesOf(ph, []int{0}); got.TimedTasks != 1 {
			t.Errorf("%s: TimesOf task 0 counts %d tasks", ph.Name, got.TimedTasks)
		}
		st := Status(p)
		for _, s := range st {
			if s.Phase.Name != ph.Name {
				continue
			}
			if s.Times != sum || s.Times.TimedTasks != ph.Tasks {
				t.Errorf("%s: status times %+v, the markers sum to %+v", ph.Name, s.Times, sum)
			}
			if s.Times.OverheadSeconds > s.Times.TaskSeconds || s.Times.MaxTaskSeconds > s.Times.TaskSeconds {
				t.Errorf("%s: implausible sums %+v", ph.Name, s.Times)
			}
		}
	}
	var b bytes.Buffer
	PrintStatus(&b, Status(p))
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if !strings.Contains(l, "complete  (task time ") || !strings.Contains(l, "s, overhead ") || !strings.Contains(l, "peak RSS of a task") {
			t.Errorf("status line without the times: %q", l)
		}
	}
}

// A marker of an earlier version, without times, is done and counts in
// no sum.
func TestATaskMarkerWithoutTimesCountsNone(t *testing.T) {
	var pt PhaseTimes
	pt.add(Marker{Phase: "write"})
	if pt != (PhaseTimes{}) {
		t.Errorf("a marker without times counted: %+v", pt)
	}
	if s := (PhaseTimes{TimedTasks: 1, TaskSeconds: 1.5, OverheadSeconds: 0.25}).String(); s != "task time 1.50s, overhead 0.25s" {
		t.Errorf("String: %q", s)
	}
}
