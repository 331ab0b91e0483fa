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

func TestDedupLinesRemovesRepeatedLines(t *testing.T) {
	dir := t.TempDir()
	docs := []string{
		"Home | News | Contact\nThe first story is about rivers.\nSubscribe to our newsletter",
		"Home | News | Contact\nA second story about mountains.\nSubscribe to our newsletter",
		"Home | News | Contact\nSubscribe to our newsletter",
		"A unique text with a short line:\nok\nok",
	}
	var b strings.Builder
	for i, d := range docs {
		fmt.Fprintf(&b, `{"id":"d%d","text":%q}`+"\n", i, d)
	}
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(b.String()), 0o644)

	texts := func(path string) (kept []string, removed []string) {
		for _, r := range rowsOf(t, filepath.Join(path, "data")) {
			kept = append(kept, r["text"].(string))
		}
		for _, r := range rowsOf(t, filepath.Join(path, "removed")) {
			removed = append(removed, r["id"].(string)+":"+r["_reason"].(string))
		}
		return kept, removed
	}
	none := filepath.Join(dir, "none")
	runMain(t, "dedup", "lines", in, "-o", none, "--min-line-chars", "3", "--batch-rows", "1")
	kept, removed := texts(none)
	want := []string{"The first story is about rivers.", "A second story about mountains.", "A unique text with a short line:\nok\nok"}
	if strings.Join(kept, "|") != strings.Join(want, "|") || strings.Join(removed, ",") != "d2:empty_after_line_dedup" {
		t.Fatalf("--keep none: kept %q removed %v", kept, removed)
	}

	first := filepath.Join(dir, "first")
	runMain(t, "dedup", "lines", in, "-o", first, "--keep", "first")
	kept, removed = texts(first)
	want = []string{docs[0], "A second story about mountains.", "A unique text with a short line:\nok"}
	if strings.Join(kept, "|") != strings.Join(want, "|") || strings.Join(removed, ",") != "d2:empty_after_line_dedup" {
		t.Fatalf("--keep first: kept %q removed %v", kept, removed)
	}
}
