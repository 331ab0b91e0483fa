package command

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const tasksCorpus = "../../tasks/testdata/corpus"

func TestTasksValidateExitCodesAndJSON(t *testing.T) {
	var out, errb bytes.Buffer
	code := Main([]string{"sluice", "tasks", "validate", tasksCorpus, "--max-tokens", "40", "--json"}, nil, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "tasks validate found errors: 45 error(s); the first: ") {
		t.Fatalf("exit %d, stderr %q; want 1 and the error count", code, errb.String())
	}
	var rep struct {
		Errors   []map[string]any `json:"errors"`
		Warnings []map[string]any `json:"warnings"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	// The same report as the golden file of the tasks package, whose
	// paths are relative to that package.
	golden, err := os.ReadFile("../../tasks/testdata/validate.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Errors   []map[string]any `json:"errors"`
		Warnings []map[string]any `json:"warnings"`
	}
	json.Unmarshal(bytes.ReplaceAll(golden, []byte(`testdata/corpus`), []byte(tasksCorpus)), &want)
	a, _ := json.Marshal(rep)
	b, _ := json.Marshal(want)
	if !bytes.Equal(a, b) || len(rep.Errors) != 45 {
		t.Errorf("--json errors and warnings differ from tasks/testdata/validate.golden.json:\n%s", a)
	}

	out.Reset()
	errb.Reset()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	os.WriteFile(good, []byte(`{"prompt":"Two plus two is","completion":" four."}`+"\n"), 0o644)
	if code := Main([]string{"sluice", "tasks", "validate", good}, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "OK: no errors") {
		t.Fatalf("a valid file: exit %d\n%s%s", code, out.String(), errb.String())
	}
	for _, args := range [][]string{
		{"tasks", "validate", good, "--format", "alpaca"},
		{"tasks", "convert", good, "-o", filepath.Join(dir, "x.jsonl"), "--to", "parquet"},
		{"tasks", "split", good, "-o", filepath.Join(dir, "s"), "--ratios", "0.5,0.6"},
	} {
		if code := Main(append([]string{"sluice"}, args...), nil, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)", args, code)
		}
	}
}

func TestTasksConvertAndSplitCommands(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(`{"instruction":"Say hi.","output":"Hi!","id":"a"}
{"instruction":"Say bye.","input":"in French","output":"Au revoir !","id":"b"}
`), 0o644)
	out := filepath.Join(dir, "chat.jsonl")
	stdout, _ := runMain(t, "tasks", "convert", in, "-o", out, "--to", "chat", "--system", "Be nice.")
	if !strings.Contains(stdout, "2 examples written") {
		t.Errorf("stdout %q", stdout)
	}
	b, _ := os.ReadFile(out)
	want := `{"messages":[{"role":"system","content":"Be nice."},{"role":"user","content":"Say hi."},{"role":"assistant","content":"Hi!"}],"id":"a"}
{"messages":[{"role":"system","content":"Be nice."},{"role":"user","content":"Say bye.\n\nin French"},{"role":"assistant","content":"Au revoir !"}],"id":"b"}
`
	if string(b) != want {
		t.Errorf("converted:\n%s\nwant:\n%s", b, want)
	}
	m := readManifest(t, filepath.Join(dir, "chat.manifest.json"))
	if c := m["counts"].(map[string]any); c["rows_in"].(float64) != 2 || c["rows_out"].(float64) != 2 {
		t.Errorf("manifest counts %v", c)
	}
	stdout, _ = runMain(t, "tasks", "split", out, "-o", filepath.Join(dir, "split"), "--ratios", "0.5,0.5", "--seed", "9", "--json")
	var rep struct {
		Examples int64 `json:"examples"`
		Options  struct {
			Seed uint64 `json:"seed"`
		} `json:"options"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.Examples != 2 || rep.Options.Seed != 9 {
		t.Errorf("split report %s (%v)", stdout, err)
	}
	m = readManifest(t, filepath.Join(dir, "split", "manifest.json"))
	if m["options"].(map[string]any)["seed"].(float64) != 9 {
		t.Errorf("the manifest does not record the seed: %v", m["options"])
	}
}

func TestTasksDemoHook(t *testing.T) {
	var out bytes.Buffer
	dir := t.TempDir()
	if err := tasksDemo(context.Background(), dir, Streams{Out: &out, Err: &out}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"empty_content", "duplicate_example", "19 examples written", "overlap: no prompt is in more than one split"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "tasks-split", "train.jsonl")); err != nil {
		t.Error(err)
	}
}
