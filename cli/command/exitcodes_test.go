package command

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/scaleout"
)

// mainCode runs the command line and returns its exit code and streams.
func mainCode(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(append([]string{"sluice"}, args...), nil, &out, &errb)
	return code, out.String(), errb.String()
}

// TestInspectExitCodes checks that a path naming no dataset is a usage
// error (2), as a missing input is for convert, while a real file that
// fails to read is a failed job (1).
func TestInspectExitCodes(t *testing.T) {
	dir, empty, notes, broken := inspectFixtures(t)
	missing := filepath.Join(dir, "no-such-dataset.jsonl")
	cases := []struct {
		name, path string
		want       int
	}{
		{"missing", missing, 2},
		{"URL", "https://example.com/data.parquet", 2},
		{"empty directory", empty, 2},
		{"not a data file", notes, 2},
		{"broken Parquet", broken, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := mainCode("inspect", tc.path)
			if code != tc.want {
				t.Errorf("inspect %s: exit %d, want %d\n%s%s", tc.path, code, tc.want, out, errs)
			}
		})
	}
	// A missing input is the same usage error for convert and inspect.
	if code, _, errs := mainCode("convert", missing, "-o", filepath.Join(dir, "out")); code != 2 {
		t.Errorf("convert of a missing input: exit %d, want 2\n%s", code, errs)
	}
}

// writeStatusPlan writes the plan of a launch with one phase of tasks
// tasks into a new output directory, and the markers of the tasks:
// kinds[i] is "done", "running", "failed" or "" (not started).
func writeStatusPlan(t *testing.T, kinds ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	phase := "s0-exact-map"
	p := &scaleout.Plan{Dir: filepath.Dir(out), Out: out, Shards: [][2]int{{0, 0}},
		Phases: []scaleout.Phase{{Name: phase, Kind: "map", Stage: 0, Tasks: len(kinds)}}}
	if err := os.MkdirAll(filepath.Join(out, "_work", "markers"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := p.WritePlan(filepath.Join(out, scaleout.PlanFile)); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	for i, kind := range kinds {
		if kind == "" {
			continue
		}
		m := scaleout.Marker{Phase: phase, Index: i, Host: host, PID: os.Getpid(),
			Log: filepath.Join(out, "_logs", fmt.Sprintf("%s-%d.log", phase, i)), Started: "2026-01-02T03:04:05Z"}
		if kind == "failed" {
			m.Finished, m.Error = "2026-01-02T03:04:06Z", "input.jsonl: disk on fire"
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(out, "_work", "markers", fmt.Sprintf("%s-%05d.%s", phase, i, kind))
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestStatusExitCodes checks that status exits 1 when a task of the
// launch failed, naming its phase, task and log, and 0 while the launch
// runs or once it is complete.
func TestStatusExitCodes(t *testing.T) {
	t.Run("failed", func(t *testing.T) {
		out := writeStatusPlan(t, "done", "failed", "running")
		code, stdout, errs := mainCode("status", out)
		if code != 1 {
			t.Fatalf("status of a launch with a failed task: exit %d, want 1\n%s%s", code, stdout, errs)
		}
		log := filepath.Join(out, "_logs", "s0-exact-map-1.log")
		for _, want := range []string{"phase s0-exact-map task 1 failed", "disk on fire", log} {
			if !strings.Contains(errs, want) {
				t.Errorf("status error does not say %q:\n%s", want, errs)
			}
		}
		if !strings.Contains(stdout, "task 1 failed") {
			t.Errorf("status lines do not list the failed task:\n%s", stdout)
		}
		if strings.Contains(stdout, "complete:") {
			t.Errorf("status of a failed launch reports it complete:\n%s", stdout)
		}
	})
	t.Run("running", func(t *testing.T) {
		out := writeStatusPlan(t, "done", "running", "")
		if code, stdout, errs := mainCode("status", out); code != 0 {
			t.Errorf("status of a running launch: exit %d, want 0\n%s%s", code, stdout, errs)
		}
	})
	t.Run("complete", func(t *testing.T) {
		out := writeStatusPlan(t, "done", "done")
		code, stdout, errs := mainCode("status", out)
		if code != 0 || !strings.Contains(stdout, "complete: ") {
			t.Errorf("status of a complete launch: exit %d, want 0 and the manifest's path\n%s%s", code, stdout, errs)
		}
	})
	t.Run("not a launch", func(t *testing.T) {
		if code, stdout, errs := mainCode("status", t.TempDir()); code != 2 {
			t.Errorf("status of a directory without a plan: exit %d, want 2\n%s%s", code, stdout, errs)
		}
	})
}

// readme returns the repository's README.md.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readmeSection returns the text of the README section under heading
// (a line "## heading"), up to the next heading of any level.
func readmeSection(t *testing.T, text, heading string) string {
	t.Helper()
	start := strings.Index(text, "\n## "+heading+"\n")
	if start < 0 {
		t.Fatalf("README has no section %q", heading)
	}
	rest := text[start+len(heading)+5:]
	if end := strings.Index(rest, "\n#"); end >= 0 {
		rest = rest[:end]
	}
	return rest
}

// TestReadmeExitCodes checks that the README gives the exit codes once,
// as a table in the command-line contract, with the codes Main returns.
func TestReadmeExitCodes(t *testing.T) {
	text := readme(t)
	if n := strings.Count(text, "Exit codes"); n != 1 {
		t.Errorf("README says \"Exit codes\" %d times, want once (the table)", n)
	}
	contract := readmeSection(t, text, "Command-line contract")
	if !strings.Contains(contract, "Exit codes") {
		t.Errorf("the exit codes are not in the Command-line contract section")
	}
	rows := map[string]string{}
	for _, line := range strings.Split(contract, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) >= 3 && strings.HasPrefix(line, "| ") {
			rows[strings.TrimSpace(cells[1])] = line
		}
	}
	for code, words := range map[string][]string{
		"0":   {"success", "status"},
		"1":   {"failed", "status", "failed task"},
		"2":   {"usage", "refused output", "missing input"},
		"130": {"interrupted"},
	} {
		row, ok := rows[code]
		if !ok {
			t.Errorf("the exit code table has no row for %s", code)
			continue
		}
		for _, w := range words {
			if !strings.Contains(row, w) {
				t.Errorf("exit code %s: the row does not say %q: %s", code, w, row)
			}
		}
	}
}

// TestReadmeMatchesCode checks names and claims of the README against the
// code: the quality signal columns, canary ids, the phase names of launch,
// the Slurm example, the demo's languages and how the binary links.
func TestReadmeMatchesCode(t *testing.T) {
	text := readme(t)

	// Every quality signal column the README names is one the kernels write.
	srcs, err := filepath.Glob(filepath.Join("..", "..", "kernels", "quality", "*.go"))
	if err != nil || len(srcs) == 0 {
		t.Fatalf("kernels/quality sources: %v", err)
	}
	var kernels strings.Builder
	for _, f := range srcs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		kernels.Write(b)
	}
	for _, name := range regexp.MustCompile("`((?:fineweb|gopher|c4)_[a-z0-9_]+)`").FindAllStringSubmatch(text, -1) {
		if !strings.Contains(kernels.String(), `"`+name[1]+`"`) {
			t.Errorf("README names the column %s, which kernels/quality does not write", name[1])
		}
	}

	// Canary ids are zero-padded to the width of --n (100 by default).
	if bad := regexp.MustCompile(`canary-[1-9]\b`).FindString(text); bad != "" {
		t.Errorf("README shows the canary id %q; ids are canary-001 to canary-100", bad)
	}

	// The status example names the phases of the table above it.
	table := regexp.MustCompile("(?m)^\\| `(s\\d+-[a-z]+-[a-z]+)` \\|").FindAllStringSubmatch(text, -1)
	phases := map[string]bool{}
	for _, m := range table {
		phases[m[1]] = true
	}
	i := strings.Index(text, "$ sluice status out\n")
	if i < 0 || len(phases) == 0 {
		t.Fatalf("README has no status example or no phase table")
	}
	example := text[i:]
	example = example[:strings.Index(example, "```")]
	for _, m := range regexp.MustCompile(`(?m)^(s\d+-[a-z]+-[a-z]+) `).FindAllStringSubmatch(example, -1) {
		if !phases[m[1]] {
			t.Errorf("the status example shows phase %s, which the phase table above it does not have", m[1])
		}
	}

	// A partition name is the cluster's own; the example names none.
	if strings.Contains(text, "--slurm-partition cpu") {
		t.Errorf("the Slurm example names a partition `cpu` that a cluster need not have")
	}

	// The demo writes English rows only: the Gopher rules remove the others.
	if !strings.Contains(text, "the written data is\nEnglish") && !strings.Contains(text, "the written data is English") {
		t.Errorf("README does not say that the demo's written data is English")
	}

	// go build links libc by default; CGO_ENABLED=0 gives a static binary.
	if strings.Contains(text, "static Go binary") || !strings.Contains(text, "CGO_ENABLED=0 go build") {
		t.Errorf("README calls the default build static or does not say how to build a static binary")
	}
}
