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
	// A kept line stays byte for byte as it was, its line break included.
	want := []string{"The first story is about rivers.\n", "A second story about mountains.\n", "A unique text with a short line:\nok\nok"}
	if strings.Join(kept, "|") != strings.Join(want, "|") || strings.Join(removed, ",") != "d2:empty_after_line_dedup" {
		t.Fatalf("--keep none: kept %q removed %v", kept, removed)
	}

	first := filepath.Join(dir, "first")
	runMain(t, "dedup", "lines", in, "-o", first, "--keep", "first")
	kept, removed = texts(first)
	want = []string{docs[0], "A second story about mountains.\n", "A unique text with a short line:\nok\n"}
	if strings.Join(kept, "|") != strings.Join(want, "|") || strings.Join(removed, ",") != "d2:empty_after_line_dedup" {
		t.Fatalf("--keep first: kept %q removed %v", kept, removed)
	}
}

func TestDedupMinHashClustersNearDuplicates(t *testing.T) {
	dir := t.TempDir()
	licence := "Permission is hereby granted, free of charge, to any person obtaining a copy of this software and " +
		"associated documentation files (the Software), to deal in the Software without restriction, including " +
		"without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell " +
		"copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the " +
		"following conditions: The above copyright notice and this permission notice shall be included in all " +
		"copies or substantial portions of the Software."
	story := "Le café de la gare ouvre à six heures et ferme tard le soir quand les derniers trains sont partis vers le sud " +
		"et que les voyageurs fatigués rentrent enfin chez eux après une longue journée passée en ville à travailler."
	docs := []string{
		"Copyright (c) 2019 Jane Doe\n\n" + licence,
		"Copyright (c) 2023 Acme Corporation\n\n" + strings.ReplaceAll(licence, " ", "   "),
		story,
		strings.ToUpper(strings.NewReplacer("é", "e", "à", "a", ",", "", ".", "!").Replace(story)),
		"A completely different text about the migration of birds across the northern sea in the autumn months, " +
			"when the days grow shorter and the weather turns cold and windy over the water.",
		"",
	}
	var b strings.Builder
	for i, d := range docs {
		fmt.Fprintf(&b, `{"id":"d%d","text":%q}`+"\n", i, d)
	}
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(b.String()), 0o644)

	var outputs []string
	for _, args := range [][]string{{"--workers", "1"}, {"--workers", "2", "--batch-rows", "1"}, {"--verify", "signature"}} {
		out := filepath.Join(dir, strings.Join(args, ""))
		runMain(t, append([]string{"dedup", "minhash", in, "-o", out}, args...)...)
		var kept, removed []string
		for _, r := range rowsOf(t, filepath.Join(out, "data")) {
			kept = append(kept, r["id"].(string))
		}
		for _, r := range rowsOf(t, filepath.Join(out, "removed")) {
			removed = append(removed, fmt.Sprintf("%s->%s:%s", r["id"], r["_dup_of"], r["_reason"]))
		}
		got := strings.Join(kept, ",") + " | " + strings.Join(removed, ",")
		if want := "d0,d2,d4,d5 | d1->d0:near_dup,d3->d2:near_dup"; got != want {
			t.Fatalf("%v:\n got %s\nwant %s", args, got, want)
		}
		outputs = append(outputs, got)
	}

	annotated := filepath.Join(dir, "annotated.jsonl")
	runMain(t, "dedup", "minhash", in, "-o", annotated, "--annotate")
	var marks []string
	for _, r := range rowsOf(t, annotated) {
		marks = append(marks, fmt.Sprintf("%s:%v/%v", r["id"], r["minhash_cluster"], r["minhash_cluster_size"]))
	}
	if got := strings.Join(marks, ","); got != "d0:0/2,d1:0/2,d2:2/2,d3:2/2,d4:<nil>/<nil>,d5:<nil>/<nil>" {
		t.Fatalf("--annotate: %s", got)
	}

	clusters := filepath.Join(dir, "clusters.parquet")
	runMain(t, "dedup", "minhash", in, "-o", filepath.Join(dir, "with-table"), "--clusters", clusters)
	var table []string
	for _, r := range rowsOf(t, clusters) {
		table = append(table, fmt.Sprintf("%s:%v:%v", r["id"], r["cluster_size"], r["kept"]))
	}
	if got := strings.Join(table, ","); got != "d0:2:true,d1:2:false,d2:2:true,d3:2:false" {
		t.Fatalf("cluster table %s", got)
	}

	var o, e strings.Builder
	if code := Main([]string{"sluice", "dedup", "minhash", in, "-o", filepath.Join(dir, "x"), "--bands", "7"}, nil, &o, &e); code != 2 ||
		!strings.Contains(e.String(), "does not divide") {
		t.Fatalf("bands not dividing num-perm: exit %d, %s", code, e.String())
	}
}

// Without an id column a row's id is <file>:<line>: the line in a JSONL
// input (blank and quarantined lines counted), the row number in a Parquet
// input, and still the right line after an earlier stage removed rows.
func TestDupOfIsFileAndLineWithoutIDs(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	river := "The river runs through the old town and past the mill where the baker works every morning before dawn."
	lines := []string{
		`{"text":"a lighthouse keeper writes letters to ships that never answer"}`,
		`{"text":"a lighthouse keeper writes letters to ships that never answer"}`,
		``,
		`not json`,
		fmt.Sprintf(`{"text":%q}`, river),
		fmt.Sprintf(`{"text":%q}`, strings.Replace(river, "every", "each", 1)),
	}
	os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	dupOf := func(out string) string {
		var got []string
		for _, r := range rowsOf(t, filepath.Join(out, "removed")) {
			got = append(got, fmt.Sprintf("%s<-%s", r["_dup_of"], r["_reason"]))
		}
		return strings.ReplaceAll(strings.Join(got, ","), dir+string(filepath.Separator), "")
	}

	out := filepath.Join(dir, "exact")
	runMain(t, "dedup", "exact", in, "-o", out, "--batch-rows", "2", "--workers", "2")
	if got := dupOf(out); got != "in.jsonl:1<-exact_dup" {
		t.Fatalf("exact dedup of JSONL: %s", got)
	}

	pq := filepath.Join(dir, "in.parquet")
	runMain(t, "convert", in, "-o", pq)
	out = filepath.Join(dir, "exact-pq")
	runMain(t, "dedup", "exact", pq, "-o", out, "--batch-rows", "2")
	if got := dupOf(out); got != "in.parquet:1<-exact_dup" {
		t.Fatalf("exact dedup of Parquet: %s", got)
	}

	// Exact dedup removes line 2 first; MinHash must still name line 5.
	file := filepath.Join(dir, "p.yaml")
	out = filepath.Join(dir, "both")
	os.WriteFile(file, []byte(fmt.Sprintf("input: [%q]\noutput: %q\nstages:\n  - dedup_exact: {}\n  - dedup_minhash: {threshold: 0.6, num_perm: 64, bands: 16, ngram: 3}\n", in, out)), 0o644)
	runMain(t, "run", file, "--batch-rows", "10")
	if got := dupOf(out); got != "in.jsonl:1<-exact_dup,in.jsonl:5<-near_dup" {
		t.Fatalf("pipeline: %s", got)
	}
}

func TestDedupMinHashReportsLargestClusters(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	// Cluster k holds k%3+2 copies of a text of its own words; the first
	// copies come first, then the others.
	for copy := 0; copy < 4; copy++ {
		for k := 0; k < 12; k++ {
			if copy >= k%3+2 {
				continue
			}
			words := make([]string, 30)
			for j := range words {
				words[j] = fmt.Sprintf("w%dx%d", k, j)
			}
			fmt.Fprintf(&b, `{"id":"c%d-%d","text":%q}`+"\n", k, copy, strings.Join(words, " "))
		}
	}
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(b.String()), 0o644)
	out := filepath.Join(dir, "out")
	stdout, _ := runMain(t, "dedup", "minhash", in, "-o", out)

	m := readManifest(t, filepath.Join(out, "manifest.json"))
	report := m["stages"].([]any)[0].(map[string]any)["report"].(map[string]any)
	var largest []string
	for _, c := range report["largest_clusters"].([]any) {
		c := c.(map[string]any)
		largest = append(largest, fmt.Sprintf("%s/%v", c["kept_id"], c["size"]))
	}
	want := "c2-0/4,c5-0/4,c8-0/4,c11-0/4,c1-0/3,c4-0/3,c7-0/3,c10-0/3,c0-0/2,c3-0/2"
	if got := strings.Join(largest, ","); got != want {
		t.Fatalf("largest clusters in the manifest:\n got %s\nwant %s", got, want)
	}
	if fmt.Sprint(report["clusters"], report["documents_in_clusters"], report["cluster_sizes"]) != "12 36 map[2:4 3:4 4:4]" {
		t.Fatalf("report: %v", report)
	}
	if !strings.Contains(stdout, "largest clusters") || !strings.Contains(stdout, "kept c2-0") {
		t.Fatalf("stdout does not list the largest clusters:\n%s", stdout)
	}
}

// A is like B and B like C, but A is not like C: union-find links all
// three, and the kept A must not remove C in B's name.
func TestDedupMinHashRemovesOnlyNearDuplicatesOfTheKeptRow(t *testing.T) {
	dir := t.TempDir()
	words := func(prefix string, from, to int) []string {
		var w []string
		for i := from; i < to; i++ {
			w = append(w, fmt.Sprintf("%s%d", prefix, i))
		}
		return w
	}
	a := words("w", 0, 40)
	b := append(words("w", 0, 32), words("b", 32, 40)...)
	c := append(append(words("c", 0, 8), words("w", 8, 32)...), words("b", 32, 40)...)
	var in strings.Builder
	for i, ws := range [][]string{a, b, c} {
		fmt.Fprintf(&in, `{"id":"%c","text":%q}`+"\n", 'A'+i, strings.Join(ws, " "))
	}
	path := filepath.Join(dir, "in.jsonl")
	os.WriteFile(path, []byte(in.String()), 0o644)
	out := filepath.Join(dir, "out")
	runMain(t, "dedup", "minhash", path, "-o", out, "--ngram", "3", "--num-perm", "64", "--bands", "32", "--threshold", "0.5")
	var kept, removed []string
	for _, r := range rowsOf(t, filepath.Join(out, "data")) {
		kept = append(kept, r["id"].(string))
	}
	for _, r := range rowsOf(t, filepath.Join(out, "removed")) {
		removed = append(removed, fmt.Sprintf("%s->%s", r["id"], r["_dup_of"]))
	}
	if got := strings.Join(kept, ",") + " | " + strings.Join(removed, ","); got != "A,C | B->A" {
		t.Fatalf("got %s, want A,C | B->A", got)
	}
}
