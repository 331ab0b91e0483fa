package command

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCleanLangAndClassify(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	rows := `{"id":"en","text":"Call me Ishmael. Some years ago, never mind how long precisely, having little or no money in my purse,\nand nothing particular to interest me on shore, I thought I would sail about a little."}
{"id":"zh","text":"欢迎来到我们的网站"}
{"id":"fr","text":"Longtemps, je me suis couché de bonne heure. Parfois, à peine ma bougie éteinte, mes yeux se fermaient."}
`
	if err := os.WriteFile(in, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.jsonl")
	stdout, _ := runMain(t, "clean", in, "-o", out, "--lang", "en,zh")
	if !strings.Contains(stdout, "lang=1") {
		t.Errorf("summary does not count the removed row:\n%s", stdout)
	}
	got := readJSONL(t, out)
	if len(got) != 2 || got[0]["lang"] != "en" || got[1]["lang"] != "zh" || got[0]["lang_score"].(float64) < 0.9 {
		t.Errorf("kept %v", got)
	}
	removed := readJSONL(t, filepath.Join(dir, "out.removed.jsonl"))
	if len(removed) != 1 || removed[0]["_reason"] != "lang" || removed[0]["lang"] != "fr" {
		t.Errorf("removed %v", removed)
	}

	// The language-ID model as a classifier: keep rows that are French.
	model := filepath.Join(dir, "lid.ftz")
	data, err := os.ReadFile("../../kernels/langid/models/lid.176.ftz")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(model, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out2 := filepath.Join(dir, "out2.jsonl")
	runMain(t, "clean", in, "-o", out2, "--lang", "any", "--classify", "lid="+model+":fr:0.5")
	got = readJSONL(t, out2)
	if len(got) != 1 || got[0]["id"] != "fr" || got[0]["lid_label"] != "fr" || got[0]["lang"] != "fr" {
		t.Errorf("kept %v", got)
	}
	removed = readJSONL(t, filepath.Join(dir, "out2.removed.jsonl"))
	if len(removed) != 2 || removed[0]["_stage"] != "classify_lid" || removed[0]["_reason"] != "lid_score" {
		t.Errorf("removed %v", removed)
	}
}

func readJSONL(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, m)
	}
	return rows
}
