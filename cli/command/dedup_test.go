package command

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDedupExactKeepsFirstOccurrences(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	texts := []string{"alpha beta", "Alpha, BETA!", "gamma", "alpha beta", "delta", "gamma", "alpha   beta"}
	for i, text := range texts {
		fmt.Fprintf(&b, `{"id":"d%d","text":%q}`+"\n", i, text)
	}
	b.WriteString(`{"id":"notext"}` + "\n")
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(b.String()), 0o644)

	var outputs []string
	for _, workers := range []string{"1", "2"} {
		out := filepath.Join(dir, "exact-"+workers)
		runMain(t, "dedup", "exact", in, "-o", out, "--workers", workers, "--batch-rows", "2")
		kept := rowsOf(t, filepath.Join(out, "data"))
		removed := rowsOf(t, filepath.Join(out, "removed"))
		var keptIDs, dups []string
		for _, r := range kept {
			keptIDs = append(keptIDs, r["id"].(string))
		}
		for _, r := range removed {
			dups = append(dups, fmt.Sprintf("%s->%s:%s", r["id"], r["_dup_of"], r["_reason"]))
		}
		got := strings.Join(keptIDs, ",") + " | " + strings.Join(dups, ",")
		want := "d0,d1,d2,d4,d6,notext | d3->d0:exact_dup,d5->d2:exact_dup"
		if got != want {
			t.Fatalf("workers %s:\n got %s\nwant %s", workers, got, want)
		}
		data, _ := os.ReadFile(filepath.Join(out, "data", "part-00000.parquet"))
		outputs = append(outputs, string(data))
	}
	if outputs[0] != outputs[1] {
		t.Fatal("--workers 1 and 2 wrote different data")
	}

	out := filepath.Join(dir, "normalized")
	runMain(t, "dedup", "exact", in, "-o", out, "--normalize")
	var keptIDs []string
	for _, r := range rowsOf(t, filepath.Join(out, "data")) {
		keptIDs = append(keptIDs, r["id"].(string))
	}
	if got := strings.Join(keptIDs, ","); got != "d0,d2,d4,notext" {
		t.Fatalf("--normalize kept %s, want d0,d2,d4,notext", got)
	}
}
