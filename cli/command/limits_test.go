package command

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sluice-data/sluice/scaleout"
)

// refusal is a command that must be refused before any work: exit 2, an
// error saying err, and every file in the directory as it was.
type refusal struct {
	name  string
	files map[string]string
	prep  [][]string // sluice commands run first; each must succeed
	args  []string
	err   string
}

func (r refusal) run(t *testing.T) {
	t.Helper()
	t.Chdir(t.TempDir())
	writeFiles(t, r.files)
	for _, p := range r.prep {
		if code, out, errs := sluiceIn(t, "", p...); code != 0 {
			t.Fatalf("preparing with sluice %v: exit %d\n%s%s", p, code, out, errs)
		}
	}
	before := snapshot(t, ".")
	code, stdout, stderr := sluiceIn(t, "", r.args...)
	if code != 2 || !strings.Contains(stderr, r.err) {
		t.Fatalf("sluice %v: exit %d, stderr %q; want exit 2 and %q\nstdout: %s", r.args, code, stderr, r.err, stdout)
	}
	if after := snapshot(t, "."); after != before {
		t.Errorf("sluice %v changed files:\nbefore %s\nafter  %s", r.args, before, after)
	}
	leftovers(t, ".")
}

func runRefusals(t *testing.T, rs []refusal) {
	for _, r := range rs {
		t.Run(r.name, r.run)
	}
}

// A non-finite threshold, from a flag or a pipeline file, is refused
// before the run, so an --overwrite never gets to replace the dataset.
func TestNonFiniteThresholdsLeaveTheDatasetAlone(t *testing.T) {
	a := map[string]string{"a.jsonl": rowsA, "e.jsonl": rowsC}
	prep := [][]string{{"convert", "a.jsonl", "-o", "o"}}
	pipeline := func(stage string) map[string]string {
		return map[string]string{"a.jsonl": rowsA, "p.yaml": "input: [a.jsonl]\noutput: o\noverwrite: true\nstages:\n  - " + stage + "\n"}
	}
	runRefusals(t, []refusal{
		{name: "clean --lang-min-score NaN", files: a, prep: prep,
			args: []string{"clean", "a.jsonl", "-o", "o", "--overwrite", "--lang", "en", "--lang-min-score", "NaN"}, err: "--lang-min-score is NaN; want a finite number in [0, 1]"},
		{name: "lang min_score .nan", files: pipeline("lang: {min_score: .nan}"), prep: prep,
			args: []string{"run", "p.yaml"}, err: "p.yaml:5: stage lang: min_score is NaN"},
		{name: "gopher_quality max_mean_word_length .inf", files: pipeline("gopher_quality: {max_mean_word_length: .inf}"), prep: prep,
			args: []string{"run", "p.yaml"}, err: "max_mean_word_length is +Inf"},
		{name: "launch with max_mean_word_length .inf", files: pipeline("gopher_quality: {max_mean_word_length: .inf}"),
			args: []string{"launch", "p.yaml", "-o", "l", "--tasks", "2"}, err: "max_mean_word_length is +Inf"},
		{name: "decontaminate --min-fraction NaN", files: a, prep: prep,
			args: []string{"decontaminate", "a.jsonl", "--eval", "e.jsonl", "-o", "o", "--overwrite", "--min-fraction", "NaN"}, err: "--min-fraction is NaN"},
		{name: "clean --classify threshold NaN", files: a, prep: prep,
			args: []string{"clean", "a.jsonl", "-o", "o", "--overwrite", "--classify", "x=m.bin:a:NaN"}, err: "threshold is NaN"},
	})
}

// A budget whose results overflow a float is refused, not printed as
// +Inf or failed in the JSON encoder.
func TestBudgetRefusesOverflowingValues(t *testing.T) {
	code, stdout, stderr := sluiceIn(t, "", "budget", "--tokens", "1e308", "--params", "1e308", "--json")
	if code != 2 || stdout != "" || !strings.Contains(stderr, "--tokens is 1e+308; want a finite number in (0, 1e+18]") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// launchPlan writes the plan of a dedup pipeline over lines rows with
// --tasks tasks, without running it (the Kubernetes executor only writes
// manifests), and returns the plan and launch's stderr.
func launchPlan(t *testing.T, lines, tasks int) (*scaleout.Plan, string) {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	writeFiles(t, map[string]string{"a.jsonl": manyRows(lines), "p.yaml": "input: [a.jsonl]\nstages:\n  - dedup_exact: {}\n"})
	code, _, stderr := sluiceIn(t, "", "launch", "p.yaml", "-o", "out", "--tasks", fmt.Sprint(tasks),
		"--executor", "k8s", "--k8s-image", "reg/sluice:1", "--k8s-claim", "corpus", "--k8s-mount", dir)
	if code != 0 {
		t.Fatalf("launch: exit %d\n%s", code, stderr)
	}
	plan, err := scaleout.ReadPlan(filepath.Join("out", scaleout.PlanFile))
	if err != nil {
		t.Fatal(err)
	}
	return plan, stderr
}

// Tasks are capped by the work: --tasks beyond the shards of the input
// gives no phase more tasks than the input has shards, and launch says so.
func TestLaunchCapsTasksByTheWork(t *testing.T) {
	plan, stderr := launchPlan(t, 200, 2000)
	shards := len(plan.Shards)
	if shards > 200 {
		t.Fatalf("%d shards of 200 lines", shards)
	}
	for _, ph := range plan.Phases {
		if ph.Tasks > shards {
			t.Errorf("phase %s has %d tasks, more than the %d shards", ph.Name, ph.Tasks, shards)
		}
	}
	if want := fmt.Sprintf("--tasks 2000, but the plan has %d shards: ", shards); !strings.Contains(stderr, want) || !strings.Contains(stderr, fmt.Sprintf("each reduce phase runs %d tasks too", shards)) {
		t.Errorf("stderr %q does not say %q", stderr, want)
	}
}

// The task of a plan names its phase and index: one the plan has not is
// the user's mistake (exit 2), and a missing --index is said plainly.
func TestTaskRefusesAPhaseOrIndexThePlanHasNot(t *testing.T) {
	plan, _ := launchPlan(t, 20, 2)
	path := filepath.Join("out", scaleout.PlanFile)
	first := plan.Phases[0]
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"--phase", "nosuch", "--index", "0"}, `--phase: plan has no phase "nosuch"`},
		{[]string{"--phase", first.Name, "--index", "99"}, fmt.Sprintf("--index 99: phase %s has tasks 0 to %d", first.Name, first.Tasks-1)},
		{[]string{"--phase", first.Name}, "task needs --index I, the task's index in phase " + first.Name},
		{[]string{"--phase", first.Name, "--index", "-1"}, "--index is -1; want an integer in [0, "},
	} {
		before := snapshot(t, ".")
		code, _, stderr := sluiceIn(t, "", append([]string{"task", path}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.err) {
			t.Errorf("task %v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.err)
		}
		if snapshot(t, ".") != before {
			t.Errorf("task %v changed files", c.args)
		}
	}
}

// Sizes that cannot fit are refused before the training data is read.
func TestClassifyTrainRefusesSizesThatCannotFit(t *testing.T) {
	labelled := map[string]string{"lab.jsonl": `{"text":"good text here","label":"hq"}` + "\n" + `{"text":"bad text there","label":"cc"}` + "\n"}
	rs := []refusal{{name: "dim 2e9", files: labelled,
		args: []string{"classify", "train", "lab.jsonl", "--label-field", "label", "-o", "m.bin", "--dim", "2000000000"},
		err:  "--dim is 2000000000; want an integer in [1, 10000]"}}
	if physicalMemory() > 0 {
		rs = append(rs, refusal{name: "buckets beyond memory", files: labelled,
			args: []string{"classify", "train", "lab.jsonl", "--label-field", "label", "-o", "m.bin", "--dim", "10000", "--bucket", "2147483647", "--word-ngrams", "2"},
			err:  "of memory this machine has: lower --dim or --bucket"})
	}
	runRefusals(t, rs)
}

// Every side file goes through one bounded reader: a file over the limit
// of its kind, a device or a FIFO is refused at once, naming the file.
func TestSideFilesAreBounded(t *testing.T) {
	huge := "input: [a.jsonl]\noutput: o\nstages:\n  - normalize: {}\n#" + strings.Repeat("x", 17<<20) + "\n"
	manyStopWords := make([]string, 100_001)
	for i := range manyStopWords {
		manyStopWords[i] = fmt.Sprintf("w%d", i)
	}
	stopWords := "input: [a.jsonl]\noutput: o\nstages:\n  - gopher_quality: {stop_words: [" + strings.Join(manyStopWords, ", ") + "]}\n"
	a := map[string]string{"a.jsonl": rowsA}
	runRefusals(t, []refusal{
		{name: "pipeline file over its limit", files: map[string]string{"a.jsonl": rowsA, "p.yaml": huge},
			args: []string{"run", "p.yaml"}, err: "pipeline file p.yaml holds 17.0 MiB or more; the limit is 16 MiB"},
		{name: "a hundred thousand stop words and one", files: map[string]string{"a.jsonl": rowsA, "p.yaml": stopWords},
			args: []string{"run", "p.yaml"}, err: "stop_words is a list of 100001 items; want between 0 and 100000 items"},
		{name: "tokenizer file /dev/zero", files: a,
			args: []string{"tokens", "a.jsonl", "--tokenizer-file", "/dev/zero"}, err: "tokenizer file /dev/zero is a device, not a regular file"},
		{name: "evaluation set on standard input", files: a,
			args: []string{"decontaminate", "a.jsonl", "--eval", "-", "-o", "o"}, err: "evaluation set"},
	})
}

// A FIFO given as a side file is refused without blocking on it.
func TestSideFileFIFOIsRefusedWithoutWaiting(t *testing.T) {
	t.Chdir(t.TempDir())
	writeFiles(t, map[string]string{"a.jsonl": rowsA})
	if err := syscall.Mkfifo("fifo", 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, args := range [][]string{
		{"tokens", "a.jsonl", "--tokenizer-file", "fifo"},
		{"run", "fifo"},
		{"clean", "a.jsonl", "-o", "o", "--block-domains", "fifo"},
		{"classify", "test", "fifo", "a.jsonl"},
	} {
		done := make(chan string, 1)
		go func() {
			code, _, stderr := sluiceIn(t, "", args...)
			done <- fmt.Sprintf("%d %s", code, stderr)
		}()
		select {
		case got := <-done:
			if !strings.HasPrefix(got, "2 ") || !strings.Contains(got, "fifo is a FIFO, not a regular file") {
				t.Errorf("sluice %v: %s; want exit 2 and the FIFO refused", args, got)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("sluice %v blocks on the FIFO", args)
		}
	}
	if _, err := os.Stat("o"); err == nil {
		t.Error("a refused command wrote o")
	}
}
