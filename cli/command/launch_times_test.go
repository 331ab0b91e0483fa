package command

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/scaleout"
)

// phaseLineRe reads the times of launch's line for a phase.
var phaseLineRe = regexp.MustCompile(`^(\S+) +(\d+) tasks done \((\d+) run now; peak RSS of a task [0-9.]+ MiB; task time ([0-9.]+)s, overhead ([0-9.]+)s; phase ([0-9.]+)s\)$`)

// A launch's tasks record their times in their done markers (wall time
// from the process's start, overhead, setup, peak memory); launch's line
// for a phase, status and status --json show the sums. Only presence and
// plausibility are checked, never how long anything took.
func TestLaunchTasksRecordTheirTimes(t *testing.T) {
	bin := sluiceBinary(t)
	dir := t.TempDir()
	in := dupCorpus(t, dir, 4, 50)
	pipe := dedupPipeline(t, dir, in)
	out := filepath.Join(dir, "out")
	stdout, _ := runMain(t, "launch", pipe, "-o", out, "--tasks", "2", "--sluice-binary", bin, "--no-progress", "--keep-work")

	plan, err := scaleout.ReadPlan(filepath.Join(out, scaleout.PlanFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string][]string{}
	for _, l := range strings.Split(stdout, "\n") {
		if m := phaseLineRe.FindStringSubmatch(l); m != nil {
			lines[m[1]] = m
		}
	}
	sums := map[string][2]float64{} // by phase: the markers' summed wall time and overhead
	for _, ph := range plan.Phases {
		var wall, overhead float64
		for i := 0; i < ph.Tasks; i++ {
			b, err := os.ReadFile(filepath.Join(out, "_work", "markers", fmt.Sprintf("%s-%05d.done", ph.Name, i)))
			if err != nil {
				t.Fatal(err)
			}
			var m scaleout.Marker
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			// Each task is a process of its own: its setup holds its start.
			if m.WallSeconds <= 0 || m.SetupSeconds <= 0 || m.OverheadSeconds < m.SetupSeconds || m.OverheadSeconds > m.WallSeconds || m.PeakRSS <= 0 {
				t.Errorf("%s/%d: implausible times in the done marker: %s", ph.Name, i, b)
			}
			wall += m.WallSeconds
			overhead += m.OverheadSeconds
		}
		sums[ph.Name] = [2]float64{wall, overhead}

		m := lines[ph.Name]
		if m == nil {
			t.Errorf("launch printed no line with times for phase %s:\n%s", ph.Name, stdout)
			continue
		}
		taskTime, _ := strconv.ParseFloat(m[4], 64)
		over, _ := strconv.ParseFloat(m[5], 64)
		phase, _ := strconv.ParseFloat(m[6], 64)
		if m[2] != strconv.Itoa(ph.Tasks) || over > taskTime || phase < 0 || fmt.Sprintf("%.2f", wall) != m[4] || fmt.Sprintf("%.2f", overhead) != m[5] {
			t.Errorf("phase %s: launch says %q; the markers sum to %.2fs, overhead %.2fs", ph.Name, m[0], wall, overhead)
		}
	}

	text, _ := runMain(t, "status", out)
	for _, ph := range plan.Phases {
		want := fmt.Sprintf("complete  (task time %.2fs, overhead %.2fs; peak RSS of a task ", sums[ph.Name][0], sums[ph.Name][1])
		if !strings.Contains(text, want) {
			t.Errorf("status does not show %q for phase %s:\n%s", want, ph.Name, text)
		}
	}

	var status statusJSON
	sluiceJSON(t, &status, "status", out)
	if len(status.Phases) != len(plan.Phases) {
		t.Fatalf("status --json: %d phases, the plan has %d", len(status.Phases), len(plan.Phases))
	}
	for _, ph := range status.Phases {
		s := sums[ph.Name]
		if ph.TimedTasks != ph.Tasks || ph.TaskSeconds <= 0 || ph.OverheadSeconds < ph.SetupSeconds || ph.SetupSeconds <= 0 ||
			ph.OverheadSeconds > ph.TaskSeconds || ph.MaxTaskSeconds > ph.TaskSeconds || ph.MaxTaskSeconds <= 0 || ph.PeakRSS <= 0 ||
			fmt.Sprintf("%.3f %.3f", ph.TaskSeconds, ph.OverheadSeconds) != fmt.Sprintf("%.3f %.3f", s[0], s[1]) {
			t.Errorf("status --json: implausible times for phase %s: %+v (the markers sum to %v)", ph.Name, ph, s)
		}
	}
}
