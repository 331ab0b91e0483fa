package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestClassifyKeepsTheChosenLanguages(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(strings.Join([]string{
		`{"id":"en","text":"Call me Ishmael. Some years ago, never mind how long precisely, I thought I would sail about a little and see the watery part of the world."}`,
		`{"id":"zh","text":"欢迎来到我们的网站"}`,
		`{"id":"fr","text":"Longtemps, je me suis couché de bonne heure. Parfois, à peine ma bougie éteinte, mes yeux se fermaient si vite que je n'avais pas le temps de me dire : je m'endors."}`,
	}, "\n")+"\n"), 0o644)
	out := filepath.Join(dir, "out")
	runMain(t, "classify", in, "-o", out, "--lang", "en,zh")
	var kept, removed []string
	for _, r := range rowsOf(t, filepath.Join(out, "data")) {
		kept = append(kept, r["id"].(string)+"="+r["lang"].(string))
	}
	for _, r := range rowsOf(t, filepath.Join(out, "removed")) {
		removed = append(removed, r["id"].(string)+":"+r["_reason"].(string))
	}
	if got := strings.Join(kept, ",") + " | " + strings.Join(removed, ","); got != "en=en,zh=zh | fr:lang" {
		t.Fatalf("got %s", got)
	}

	var o, e strings.Builder
	if code := Main([]string{"sluice", "classify", in, "-o", filepath.Join(dir, "x")}, nil, &o, &e); code != 2 || !strings.Contains(e.String(), "nothing to classify") {
		t.Fatalf("no model: exit %d, %s", code, e.String())
	}
}
