package command

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/datasettest"
)

// cleanCorpus writes a small corpus with rows each rule set keeps and
// rows it drops.
func cleanCorpus(t *testing.T, dir string) string {
	t.Helper()
	good := "The history of the river is long and the people who live near it have many stories to tell about the water. " +
		"They say that the river was once wider and that the boats that came up from the sea were larger than any seen today. " +
		"In the spring the snow melts and the water rises, and the farmers move their animals to higher ground. " +
		"Children learn to swim in the shallow bends, and old men fish from the stone bridge in the evening. " +
		"Every summer there is a festival with music and food, and visitors come from the towns along the coast."
	var b strings.Builder
	for i := 0; i < 40; i++ {
		text := fmt.Sprintf("%s Story number %d is told with care.\n\nContact jane.doe%d@example.com or call 283-182-3829.", good, i, i)
		switch i % 5 {
		case 1:
			text = "too short"
		case 2:
			text = strings.Repeat("buy now buy now buy now. ", 40)
		case 3:
			text = good + " lorem ipsum dolor sit amet { }"
		}
		row, _ := json.Marshal(map[string]any{"id": fmt.Sprint(i), "text": text})
		b.Write(row)
		b.WriteByte('\n')
	}
	p := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runMain(t *testing.T, args ...string) (string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := Main(append([]string{"sluice"}, args...), nil, &out, &errb); code != 0 {
		t.Fatalf("sluice %v: exit %d\n%s%s", args, code, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

func readManifest(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// rowsOf converts a dataset or file to JSONL with the command line and
// returns its rows.
func rowsOf(t *testing.T, path string) []map[string]any {
	t.Helper()
	out := filepath.Join(t.TempDir(), "rows.jsonl")
	runMain(t, "convert", path, "-o", out)
	return datasettest.ReadJSONL(t, out)
}

func TestCleanFilterAndAnnotateAgree(t *testing.T) {
	dir := t.TempDir()
	in := cleanCorpus(t, dir)
	filtered := filepath.Join(dir, "filtered")
	annotated := filepath.Join(dir, "annotated")
	args := []string{"--normalize", "--filters", "gopher_quality,gopher_repetition,c4,fineweb", "--pii", "email,phone,ip"}
	runMain(t, append([]string{"clean", in, "-o", filtered}, args...)...)
	runMain(t, append([]string{"clean", in, "-o", annotated, "--annotate"}, args...)...)

	m := readManifest(t, filepath.Join(filtered, "manifest.json"))
	counts := m["counts"].(map[string]any)
	if counts["rows_in"].(float64) != counts["rows_out"].(float64)+counts["removed"].(float64)+counts["quarantined"].(float64) {
		t.Fatalf("counts do not add up: %v", counts)
	}
	if counts["removed"].(float64) == 0 || counts["rows_out"].(float64) == 0 {
		t.Fatalf("the corpus should keep some rows and drop others: %v", counts)
	}

	kept := rowsOf(t, filepath.Join(filtered, "data"))
	removed := rowsOf(t, filepath.Join(filtered, "removed"))
	all := rowsOf(t, filepath.Join(annotated, "data"))
	if len(all) != 40 || len(kept)+len(removed) != 40 {
		t.Fatalf("annotate kept %d rows, filter kept %d and removed %d, of 40", len(all), len(kept), len(removed))
	}
	var keptIDs, markedIDs, removedIDs, reasonIDs []string
	for _, r := range kept {
		keptIDs = append(keptIDs, r["id"].(string))
		if strings.Contains(r["text"].(string), "@example.com") {
			t.Fatalf("an e-mail address survived PII masking: %q", r["text"])
		}
	}
	reasons := map[string]string{}
	for _, r := range removed {
		removedIDs = append(removedIDs, r["id"].(string))
		reasons[r["id"].(string)] = r["_stage"].(string) + ":" + r["_reason"].(string)
	}
	for _, r := range all {
		if r["keep"].(bool) {
			markedIDs = append(markedIDs, r["id"].(string))
		} else {
			reasonIDs = append(reasonIDs, r["id"].(string))
			if got, want := r["drop_reason"], reasons[r["id"].(string)]; got != want {
				t.Errorf("row %s: annotate says %v, filter removed it for %s", r["id"], got, want)
			}
		}
	}
	sort.Strings(keptIDs)
	sort.Strings(markedIDs)
	if strings.Join(keptIDs, ",") != strings.Join(markedIDs, ",") {
		t.Fatalf("filter kept %v\nannotate marked keep %v", keptIDs, markedIDs)
	}
	if _, ok := all[0]["gopher_mean_word_length"]; !ok {
		t.Fatalf("annotate mode has no signal columns: %v", all[0])
	}
}

func TestRunPipelineFile(t *testing.T) {
	dir := t.TempDir()
	in := cleanCorpus(t, dir)
	out := filepath.Join(dir, "out")
	file := filepath.Join(dir, "pipeline.yaml")
	os.WriteFile(file, []byte(fmt.Sprintf(`input: [%q]
output: %q
stages:
  - normalize: {form: nfkc}
  - gopher_quality: {}
  - pii: {kinds: [email]}
`, in, out)), 0o644)
	stdout, _ := runMain(t, "run", file)
	if !strings.Contains(stdout, "gopher_quality") {
		t.Fatalf("run output does not report the stages:\n%s", stdout)
	}
	m := readManifest(t, filepath.Join(out, "manifest.json"))
	st := m["stages"].([]any)
	if len(st) != 3 || st[0].(map[string]any)["config"].(map[string]any)["form"] != "nfkc" {
		t.Fatalf("manifest stages: %v", st)
	}

	os.WriteFile(file, []byte("input: [x]\noutput: y\nstages:\n  - gopher_quality: {min_word: 3}\n"), 0o644)
	var o, e bytes.Buffer
	code := Main([]string{"sluice", "run", file}, nil, &o, &e)
	if code != 2 || !strings.Contains(e.String(), "pipeline.yaml:4") || !strings.Contains(e.String(), `unknown key "min_word"`) {
		t.Fatalf("unknown key: exit %d, stderr %s", code, e.String())
	}
}

func TestRunPipelineWithDedupStages(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	var b strings.Builder
	texts := []string{
		"Menu | Home | About\nThe river runs through the old town and past the mill where the baker works every morning before dawn.",
		"Menu | Home | About\nThe river runs through the old town and past the mill where the baker works every morning before dawn.",
		"Menu | Home | About\nThe river runs through the old town and past the mill where the baker works each morning before dawn.",
		"Menu | Home | About\nA completely different story about a lighthouse keeper who writes letters to ships that never answer.",
	}
	for i, text := range texts {
		fmt.Fprintf(&b, `{"id":"d%d","text":%q}`+"\n", i, text)
	}
	os.WriteFile(in, []byte(b.String()), 0o644)
	out := filepath.Join(dir, "out")
	file := filepath.Join(dir, "p.yaml")
	os.WriteFile(file, []byte(fmt.Sprintf(`input: [%q]
output: %q
stages:
  - dedup_exact: {}
  - dedup_minhash: {threshold: 0.6, num_perm: 64, bands: 16, ngram: 3}
  - dedup_lines: {keep: none}
`, in, out)), 0o644)
	runMain(t, "run", file, "--batch-rows", "1", "--workers", "2")
	var kept, removed []string
	for _, r := range rowsOf(t, filepath.Join(out, "data")) {
		kept = append(kept, r["id"].(string)+"="+r["text"].(string)[:9])
	}
	for _, r := range rowsOf(t, filepath.Join(out, "removed")) {
		removed = append(removed, fmt.Sprintf("%s:%s:%s", r["id"], r["_stage"], r["_reason"]))
	}
	got := strings.Join(kept, ",") + " | " + strings.Join(removed, ",")
	if want := "d0=The river,d3=A complet | d1:dedup_exact:exact_dup,d2:dedup_minhash:near_dup"; got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}

	os.WriteFile(file, []byte("input: [x]\noutput: y\nstages:\n  - dedup_minhash: {bands: 7}\n"), 0o644)
	var o, e strings.Builder
	if code := Main([]string{"sluice", "run", file}, nil, &o, &e); code != 2 || !strings.Contains(e.String(), "does not divide") {
		t.Fatalf("bad bands: exit %d, %s", code, e.String())
	}
}
