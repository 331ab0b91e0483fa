package command

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/io/dataset"
)

func runDemoMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errw bytes.Buffer
	code = Main(append([]string{"sluice", "demo"}, args...), strings.NewReader(""), &out, &errw)
	return code, out.String(), errw.String()
}

func TestDemo(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	tmp := t.TempDir()
	// The demo's temporary input must be gone afterwards.
	t.Setenv("TMPDIR", tmp)
	// The second run replaces the output of the first.
	for run := 1; run <= 2; run++ {
		code, stdout, stderr := runDemoMain(t, "-o", dir, "--workers", "2")
		if code != 0 {
			t.Fatalf("run %d: exit code %d, stderr:\n%s", run, code, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "data", "part-00000.parquet")); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		var m struct {
			Inputs  []dataset.InputFile   `json:"inputs"`
			Stages  []dataset.StageCounts `json:"stages"`
			Removed []dataset.OutputFile  `json:"removed_outputs"`
			Counts  dataset.Counts        `json:"counts"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("run %d: manifest.json: %v", run, err)
		}
		c := m.Counts
		if c.RowsIn != c.RowsOut+c.Removed+c.Quarantined {
			t.Errorf("run %d: rows_in %d != rows_out %d + removed %d + quarantined %d", run, c.RowsIn, c.RowsOut, c.Removed, c.Quarantined)
		}
		if c.Removed == 0 || len(m.Removed) == 0 {
			t.Errorf("run %d: removed = %d (files %v), want the short and repetitive pages removed", run, c.Removed, m.Removed)
		}
		if len(m.Stages) != 9 || m.Stages[0].Name != "dedup_minhash" || m.Stages[0].Removed["near_dup"] != 30 ||
			m.Stages[1].Name != "lang" || m.Stages[1].RowsOut != m.Stages[1].RowsIn || m.Stages[7].Name != "pii" || m.Stages[8].Name != "tokens" {
			t.Errorf("run %d: stages %+v, want dedup_minhash (30 planted duplicates), lang (annotating), normalize, the four rule sets, pii and tokens", run, m.Stages)
		}
		for _, side := range []string{"web/manifest.json", "web/data/part-00000.parquet", "tasks/tasks-sample.parquet", "tasks/tasks-split/manifest.json",
			"decontaminated/contamination.json", "decontaminated/probes.jsonl"} {
			if _, err := os.Stat(filepath.Join(dir, side)); err != nil {
				t.Errorf("run %d: the crawl, contamination and task-file demos: %v", run, err)
			}
		}
		if c.Quarantined < 2 {
			t.Errorf("run %d: quarantined = %d, want at least 2 (the malformed lines)", run, c.Quarantined)
		}
		if c.UTF8Repaired < 1 || c.MissingText < 1 {
			t.Errorf("run %d: utf8_repaired = %d, missing_text = %d, want at least 1 each", run, c.UTF8Repaired, c.MissingText)
		}
		if len(m.Inputs) != 1 || m.Inputs[0].Path != demoInput {
			t.Errorf("run %d: manifest inputs = %+v, want one named %q", run, m.Inputs, demoInput)
		}
		q, err := os.ReadFile(filepath.Join(dir, "quarantine.jsonl"))
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		lines := bytes.Split(bytes.TrimSuffix(q, []byte("\n")), []byte("\n"))
		if int64(len(lines)) != c.Quarantined {
			t.Errorf("run %d: quarantine.jsonl has %d entries, manifest says %d", run, len(lines), c.Quarantined)
		}
		for _, l := range lines {
			var e struct {
				File string `json:"file"`
				Line int64  `json:"line"`
			}
			if err := json.Unmarshal(l, &e); err != nil || e.File != demoInput || e.Line < 1 {
				t.Errorf("run %d: quarantine entry %s: file %q line %d (%v)", run, l, e.File, e.Line, err)
			}
		}
		if !strings.Contains(stdout, "quarantine") || !strings.Contains(stdout, filepath.Join(dir, "quarantine.jsonl")) {
			t.Errorf("run %d: stdout does not point to the quarantine:\n%s", run, stdout)
		}
		if !strings.Contains(stdout, "read_parquet(") || !strings.Contains(stdout, "go run . inspect "+dir) ||
			!strings.Contains(stdout, "need DuckDB's command line") {
			t.Errorf("run %d: stdout does not say where to look next, with commands that exist after go run . demo:\n%s", run, stdout)
		}
		// The README's examples read these; TestReadme runs them.
		for _, f := range []string{"web.yaml", "crawl.warc.gz", "blocked.txt", "corpus.jsonl", "corpus/part-00001.jsonl.zst",
			"pages.jsonl", "mmlu_mini.jsonl", "evals/arc.parquet", "hive/lang=en/part-0.parquet", "train.jsonl", "alpaca.jsonl",
			"gen.jsonl", "cgen.jsonl", exampleWETFile} {
			if fi, err := os.Stat(filepath.Join(dir, "examples", f)); err != nil || fi.Size() == 0 {
				t.Errorf("run %d: example file %s: %v", run, f, err)
			}
		}
		if !strings.Contains(stdout, "cd "+filepath.Join(dir, "examples")) {
			t.Errorf("run %d: stdout does not say where the README's examples are:\n%s", run, stdout)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestDemoKeepsOtherDirectories(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runDemoMain(t, "-o", dir)
	if code != 2 || !strings.Contains(stderr, "not a sluice dataset") {
		t.Errorf("exit code %d, stderr %q; want 2 and a refusal", code, stderr)
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "mine" {
		t.Errorf("the existing file was touched: %q, %v", b, err)
	}
}

func TestDemoUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-o", filepath.Join(t.TempDir(), "out.parquet")},
		{"--workers", "-1", "-o", filepath.Join(t.TempDir(), "out")},
		{"somefile.jsonl"},
	} {
		if code, _, stderr := runDemoMain(t, args...); code != 2 {
			t.Errorf("%v: exit code %d, want 2 (stderr %q)", args, code, stderr)
		}
	}
}

func TestDemoUsesConvertDefaults(t *testing.T) {
	o, err := convertDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if o.TextField != "text" || o.InvalidUTF8 != "repair" || o.Compression != "zstd" || o.BatchRows <= 0 || o.Workers <= 0 {
		t.Errorf("convertDefaults() = %+v", o)
	}
}
