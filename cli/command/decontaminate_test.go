package command

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/datasettest"
)

const (
	evalQuestion = "Which of the following best describes the function of the mitochondria in eukaryotic cells during aerobic respiration?"
	evalStory    = "In the novel, why does the narrator decide to leave the small coastal town after the storm destroys the harbor and the fishing boats?"
)

// contamCorpus writes an eval set and a corpus with planted passages.
func contamCorpus(t *testing.T, dir string) (corpus, eval string) {
	t.Helper()
	eval = filepath.Join(dir, "quiz.jsonl")
	evalLines := []string{
		fmt.Sprintf(`{"id":"bio-1","question":%q,"choices":["It makes ATP","It stores DNA"]}`, evalQuestion),
		fmt.Sprintf(`{"id":"lit-7","question":%q,"choices":["fear","love"]}`, evalStory),
		`{"id":"math-2","question":"What is the sum of the interior angles of a triangle in a flat Euclidean plane, in degrees?","choices":["90","180"]}`,
		`{"id":"short","question":"Two plus two?","choices":["4"]}`,
	}
	os.WriteFile(eval, []byte(strings.Join(evalLines, "\n")+"\n"), 0o644)
	rows := []struct{ id, source, text string }{
		{"w1", "web", "Homework forum. " + evalQuestion + " Anyone know? Thanks in advance."},
		{"w2", "web", "A page about gardening, compost and the best time of the year to plant tomatoes in a cold climate."},
		{"w3", "web", "QUIZ!! which of the following -- best describes the FUNCTION of the mitochondria, in eukaryotic cells; during aerobic respiration"},
		{"b1", "books", "What role do mitochondria play inside eukaryotic cells when those cells respire aerobically? They make ATP for the cell."},
		{"b2", "books", "Chapter two. " + evalStory + " Discuss with your reading group."},
		{"f1", "forum", "Teachers ask which of the following best describes the function of the mitochondria in plants and animals, every year."},
		{"f2", "forum", "Completely unrelated chatter about a football match that went to extra time and penalties last night."},
	}
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, `{"id":%q,"meta":{"source":%q},"text":%q}`+"\n", r.id, r.source, r.text)
	}
	b.WriteString(`{"id":"nulltext","meta":{"source":"web"}}` + "\n")
	corpus = filepath.Join(dir, "corpus.jsonl")
	os.WriteFile(corpus, []byte(b.String()), 0o644)
	return corpus, eval
}

func TestDecontaminateRemovesPlantedPassages(t *testing.T) {
	dir := t.TempDir()
	corpus, eval := contamCorpus(t, dir)
	var first string
	for _, workers := range []string{"1", "2"} {
		out := filepath.Join(dir, "out-"+workers)
		stdout, _ := runMain(t, "decontaminate", corpus, "--eval", eval, "--eval-fields", "question,choices", "-o", out,
			"--workers", workers, "--batch-rows", "2")
		var kept, removed []string
		for _, r := range rowsOf(t, filepath.Join(out, "data")) {
			kept = append(kept, r["id"].(string))
		}
		for _, r := range rowsOf(t, filepath.Join(out, "removed")) {
			removed = append(removed, fmt.Sprintf("%s:%s:%v", r["id"], r["_reason"], r["_eval_ids"]))
		}
		got := strings.Join(kept, ",") + " | " + strings.Join(removed, " ")
		want := "w2,b1,f1,f2,nulltext | w1:contaminated:[quiz:bio-1] w3:contaminated:[quiz:bio-1] b2:contaminated:[quiz:lit-7]"
		if got != want {
			t.Fatalf("workers %s:\n got %s\nwant %s\n%s", workers, got, want, stdout)
		}
		rep, err := os.ReadFile(filepath.Join(out, "contamination.json"))
		if err != nil {
			t.Fatal(err)
		}
		if first == "" {
			first = string(rep)
		} else if first != string(rep) {
			t.Fatal("the report differs between 1 and 2 workers")
		}
		for _, line := range []string{"3 of 8 corpus rows contain evaluation text", "quiz  ", "bio-1 (line 1): 2 row(s), first in row w1",
			"lit-7 (line 2): 1 row(s), first in row b2"} {
			if !strings.Contains(stdout, line) {
				t.Fatalf("stdout lacks %q:\n%s", line, stdout)
			}
		}
	}
	var rep struct {
		EvalSets []struct {
			Name         string
			Examples     int
			TooShort     int `json:"too_short"`
			Contaminated int
			Found        []struct{ ID string }
		} `json:"eval_sets"`
		Sources []struct {
			Source             string
			Rows, Contaminated int64
		}
	}
	json.Unmarshal([]byte(first), &rep)
	s := rep.EvalSets[0]
	if s.Name != "quiz" || s.Examples != 4 || s.TooShort != 1 || s.Contaminated != 2 || s.Found[0].ID != "bio-1" || s.Found[1].ID != "lit-7" {
		t.Fatalf("eval set report %+v", s)
	}
	got := fmt.Sprint(rep.Sources)
	if got != "[{books 2 1} {forum 2 0} {web 4 2}]" {
		t.Fatalf("sources %s", got)
	}

	// n=8 also catches the row sharing 12 words.
	out := filepath.Join(dir, "n8")
	runMain(t, "decontaminate", corpus, "--eval", eval, "--ngram", "8", "-o", out)
	var removed []string
	for _, r := range rowsOf(t, filepath.Join(out, "removed")) {
		removed = append(removed, r["id"].(string))
	}
	if got := strings.Join(removed, ","); got != "w1,w3,b2,f1" {
		t.Fatalf("n=8 removed %s, want w1,w3,b2,f1", got)
	}
}

func TestDecontaminateAnnotateAgreesWithFilter(t *testing.T) {
	dir := t.TempDir()
	corpus, eval := contamCorpus(t, dir)
	out := filepath.Join(dir, "annotated")
	runMain(t, "decontaminate", corpus, "--eval", eval, "-o", out, "--annotate", "--source-field", "meta.source")
	var flagged []string
	for _, r := range rowsOf(t, filepath.Join(out, "data")) {
		ids, _ := r["contam_eval_ids"].([]any)
		if len(ids) > 0 {
			flagged = append(flagged, fmt.Sprintf("%s:%v:%v", r["id"], r["contam_hits"], ids))
		}
		if r["id"] == "f1" && r["contam_hits"].(float64) != 0 {
			t.Fatalf("f1 shares no 13-gram, has contam_hits %v", r["contam_hits"])
		}
	}
	if got := strings.Join(flagged, " "); got != "w1:5:[quiz:bio-1] w3:5:[quiz:bio-1] b2:12:[quiz:lit-7]" {
		t.Fatalf("annotated %s", got)
	}
}

func TestDecontaminatePipelineFileAndErrors(t *testing.T) {
	dir := t.TempDir()
	corpus, eval := contamCorpus(t, dir)
	pf := filepath.Join(dir, "p.yaml")
	os.WriteFile(pf, []byte(fmt.Sprintf("input: [%s]\noutput: %s\nstages:\n  - decontaminate: {eval: [%s], ngram: 13, eval_fields: [question]}\n",
		corpus, filepath.Join(dir, "piped"), eval)), 0o644)
	runMain(t, "run", pf)
	m := readManifest(t, filepath.Join(dir, "piped", "manifest.json"))
	if got := m["counts"].(map[string]any)["removed"]; got != 3.0 {
		t.Fatalf("pipeline file removed %v rows, want 3", got)
	}
	// The report: summarized in the manifest, whole in contamination.json.
	report := m["stages"].([]any)[0].(map[string]any)["report"].(map[string]any)
	if got := report["rows_contaminated"]; got != 3.0 {
		t.Fatalf("manifest report: %v contaminated rows, want 3", got)
	}
	var full struct {
		EvalSets []struct {
			Contaminated int
			Found        []struct{ ID string }
		} `json:"eval_sets"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "piped", "contamination.json"))
	if err != nil {
		t.Fatalf("sluice run wrote no contamination.json: %v", err)
	}
	if err := json.Unmarshal(data, &full); err != nil || len(full.EvalSets) != 1 || len(full.EvalSets[0].Found) != full.EvalSets[0].Contaminated || full.EvalSets[0].Contaminated == 0 {
		t.Fatalf("contamination.json: %v %s", err, data)
	}

	os.WriteFile(pf, []byte(fmt.Sprintf("input: [%s]\noutput: x\nstages:\n  - decontaminate: {eval: [%s], ngrams: 8}\n", corpus, eval)), 0o644)
	var out, errb strings.Builder
	if code := Main([]string{"sluice", "run", pf}, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), `unknown key "ngrams"`) {
		t.Fatalf("unknown key: exit %d, %s", code, errb.String())
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"question":"fine"}`+"\n"+`not json`+"\n"), 0o644)
	errb.Reset()
	if code := Main([]string{"sluice", "decontaminate", corpus, "--eval", bad, "-o", filepath.Join(dir, "o")}, nil, &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), "bad.jsonl:2: malformed JSON") {
		t.Fatalf("bad eval file: exit %d, %s", code, errb.String())
	}
	errb.Reset()
	if code := Main([]string{"sluice", "decontaminate", corpus, "--eval", filepath.Join(dir, "missing.jsonl"), "-o", filepath.Join(dir, "o")}, nil, &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), "missing.jsonl") {
		t.Fatalf("missing eval file: exit %d, %s", code, errb.String())
	}
	errb.Reset()
	if code := Main([]string{"sluice", "decontaminate", corpus, "--eval", eval, "--min-fraction", "2", "-o", filepath.Join(dir, "o")}, nil, &out, &errb); code != 2 {
		t.Fatalf("--min-fraction 2: exit %d, %s", code, errb.String())
	}
}

// TestDecontaminationBeforeAGlobalStage: a decontamination stage before
// line dedup runs in line dedup's counting pass too; its report still
// counts each row once, and the same pipeline launched as tasks keeps and
// removes the same rows as one process.
func TestDecontaminationBeforeAGlobalStage(t *testing.T) {
	bin := sluiceBinary(t) // built from the module, before leaving it
	dir := t.TempDir()
	t.Chdir(dir)
	leak := "the marsh is never silent even in the dead hours before dawn there is always the tick and seep of water finding its way back"
	var b strings.Builder
	for i := 0; i < 50; i++ {
		text := fmt.Sprintf("row %d has words of its own, unlike every other row of the file", i)
		if i%10 == 0 {
			text = leak
		}
		fmt.Fprintf(&b, `{"id":"%d","text":%q}`+"\n", i, text+"\nshared footer line here\n")
	}
	writeFiles(t, map[string]string{
		"in.jsonl":   b.String(),
		"eval.jsonl": `{"id":"e1","question":"` + leak + `"}` + "\n",
		"p.yaml":     "input: [in.jsonl]\nstages:\n  - decontaminate: {eval: [eval.jsonl], ngram: 8}\n  - dedup_lines: {min_line_chars: 3}\n",
	})
	runMain(t, "run", "p.yaml", "-o", "single", "--no-progress")
	var rep struct {
		Scanned      int64 `json:"rows_scanned"`
		Contaminated int64 `json:"rows_contaminated"`
	}
	data, err := os.ReadFile("single/contamination.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil || rep.Scanned != 50 || rep.Contaminated != 5 {
		t.Fatalf("report: %+v %v; want 50 rows scanned, 5 contaminated", rep, err)
	}
	runMain(t, "launch", "p.yaml", "-o", "tasks", "--tasks", "3", "--executor", "local", "--sluice-binary", bin)
	one, many := datasettest.Read(t, "single"), datasettest.Read(t, "tasks")
	if len(one.Kept) != 45 || !reflect.DeepEqual(one.Kept, many.Kept) || !reflect.DeepEqual(one.Removed, many.Removed) {
		t.Fatalf("launch kept %d removed %d rows, one process %d and %d, or they differ", len(many.Kept), len(many.Removed), len(one.Kept), len(one.Removed))
	}
}
