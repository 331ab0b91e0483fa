package command

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// memorizeCorpus writes docs documents of about 120 words from three
// sources; with clusters, a minhash_cluster_size column too.
func memorizeCorpus(t *testing.T, dir string, docs int, clusters bool) string {
	t.Helper()
	words := strings.Fields("river stone market lantern harbor quiet violet engine paper window autumn signal copper meadow orbit thunder velvet canyon puzzle ember")
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for i := 0; i < docs; i++ {
		var text strings.Builder
		for p := 0; p < 3; p++ {
			if p > 0 {
				text.WriteString("\n\n")
			}
			for w := 0; w < 40; w++ {
				text.WriteString(words[rng.IntN(len(words))] + " ")
			}
			text.WriteString("é.")
		}
		source := []string{"web", "books", "forum"}[i%3]
		row := map[string]any{"id": fmt.Sprintf("doc%03d", i), "meta": map[string]any{"source": source}, "text": text.String()}
		if clusters {
			row["minhash_cluster_size"] = []int{1, 1, 2, 5, 12}[i%5]
		}
		line, _ := json.Marshal(row)
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(dir, fmt.Sprintf("corpus-%d-%v.jsonl", docs, clusters))
	os.WriteFile(path, []byte(b.String()), 0o644)
	return path
}

func readProbes(t *testing.T, path string) []map[string]any {
	t.Helper()
	var out []map[string]any
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func TestMemorizeProbesAreSeeded(t *testing.T) {
	dir := t.TempDir()
	corpus := memorizeCorpus(t, dir, 60, false)
	run := func(name string, args ...string) string {
		out := filepath.Join(dir, name+".jsonl")
		runMain(t, append([]string{"memorize", "probes", corpus, "-o", out, "--n", "10", "--prefix-tokens", "16", "--suffix-tokens", "8"}, args...)...)
		data, _ := os.ReadFile(out)
		return string(data)
	}
	a := run("a", "--seed", "5", "--workers", "1", "--batch-rows", "7")
	b := run("b", "--seed", "5", "--workers", "2", "--batch-rows", "13")
	c := run("c", "--seed", "6")
	if a != b {
		t.Fatal("the same seed gave other probes with other workers and batches")
	}
	if a == c {
		t.Fatal("another seed gave the same probes")
	}
	text := map[string]string{}
	for _, r := range rowsOf(t, corpus) {
		text[r["id"].(string)] = r["text"].(string)
	}
	probes := readProbes(t, filepath.Join(dir, "a.jsonl"))
	if len(probes) != 10 {
		t.Fatalf("%d probes, want 10", len(probes))
	}
	for _, p := range probes {
		doc := text[p["source_id"].(string)]
		bs, bm, be := int(p["byte_start"].(float64)), int(p["byte_split"].(float64)), int(p["byte_end"].(float64))
		if doc[bs:bm] != p["prefix"] || doc[bm:be] != p["suffix"] {
			t.Fatalf("probe %s does not cut its document at its offsets", p["id"])
		}
		if len(p["prefix_ids"].([]any)) != 16 || len(p["suffix_ids"].([]any)) != 8 ||
			p["token_split"].(float64)-p["token_start"].(float64) != 16 || p["token_end"].(float64)-p["token_split"].(float64) != 8 {
			t.Fatalf("probe %s has the wrong token counts: %v", p["id"], p)
		}
		if _, ok := p["dup_count"]; ok {
			t.Fatal("a dup_count without dedup annotations")
		}
	}
	m := readManifest(t, filepath.Join(dir, "a.manifest.json"))
	if m["options"].(map[string]any)["seed"] != 5.0 {
		t.Fatalf("the seed is not recorded: %v", m["options"])
	}
}

func TestMemorizeProbesStratified(t *testing.T) {
	dir := t.TempDir()
	corpus := memorizeCorpus(t, dir, 60, true)
	out := filepath.Join(dir, "p.jsonl")
	stdout, _ := runMain(t, "memorize", "probes", corpus, "-o", out, "--n", "12", "--prefix-tokens", "8", "--suffix-tokens", "8", "--stratify-by", "dup_count")
	count := map[string]int{}
	for _, p := range readProbes(t, out) {
		dup := int(p["dup_count"].(float64))
		if want := map[int]string{1: "1", 2: "2", 5: "5-8", 12: "9-16"}[dup]; p["stratum"] != want {
			t.Fatalf("dup_count %d in stratum %v", dup, p["stratum"])
		}
		count[p["stratum"].(string)]++
	}
	if fmt.Sprint(count) != "map[1:3 2:3 5-8:3 9-16:3]" {
		t.Fatalf("strata %v\n%s", count, stdout)
	}
	runMain(t, "memorize", "probes", corpus, "-o", out, "--overwrite", "--n", "7", "--prefix-tokens", "8", "--suffix-tokens", "8", "--stratify-by", "source")
	count = map[string]int{}
	for _, p := range readProbes(t, out) {
		count[p["source"].(string)]++
	}
	if fmt.Sprint(count) != "map[books:3 forum:2 web:2]" {
		t.Fatalf("sources %v", count)
	}
	// Probes of a perfect model score 100% exact; of a useless one, 0%.
	gen := filepath.Join(dir, "gen.jsonl")
	var g strings.Builder
	for _, p := range readProbes(t, out) {
		line, _ := json.Marshal(map[string]any{"id": p["id"], "generation": p["suffix"]})
		g.Write(append(line, '\n'))
	}
	os.WriteFile(gen, []byte(g.String()), 0o644)
	stdout, _ = runMain(t, "memorize", "score", "--probes", out, "--generations", gen, "--verbatim-tokens", "8")
	if !strings.Contains(stdout, "(total)          7       7   100.0%      8.00       8       8       8    100.0%") {
		t.Fatalf("perfect model:\n%s", stdout)
	}
}

func TestMemorizeCanaries(t *testing.T) {
	dir := t.TempDir()
	corpus := memorizeCorpus(t, dir, 40, false)
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	runMain(t, "memorize", "canaries", "-o", a, "--n", "6", "--repeats", "1,3,20", "--seed", "9")
	runMain(t, "memorize", "canaries", "-o", b, "--n", "6", "--repeats", "1,3,20", "--seed", "9")
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if string(da) != string(db) || len(da) == 0 {
		t.Fatal("the same seed gave other canaries")
	}
	runMain(t, "memorize", "canaries", "-o", b, "--overwrite", "--n", "6", "--repeats", "1,3,20", "--seed", "10")
	if db, _ = os.ReadFile(b); string(da) == string(db) {
		t.Fatal("another seed gave the same canaries")
	}

	var outs []string
	for _, workers := range []string{"1", "2"} {
		out := filepath.Join(dir, "with-"+workers)
		runMain(t, "memorize", "canaries", "--into", corpus, "-o", out, "--n", "6", "--repeats", "1,3,20", "--seed", "9",
			"--workers", workers, "--batch-rows", "9")
		rows := rowsOf(t, filepath.Join(out, "data"))
		if len(rows) != 40 {
			t.Fatalf("%d rows, want the 40 of the input", len(rows))
		}
		canaries := readProbes(t, filepath.Join(out, "canaries.jsonl"))
		for _, c := range canaries {
			n := 0
			for _, r := range rows {
				n += strings.Count(r["text"].(string), c["canary"].(string))
			}
			want := int(c["repeats"].(float64))
			if n != want || len(c["inserted"].([]any)) != want {
				t.Fatalf("%s: %d copies in the data, %d recorded, want %d", c["id"], n, len(c["inserted"].([]any)), want)
			}
			for _, ins := range c["inserted"].([]any) {
				row := ins.(map[string]any)
				if got := rows[int(row["row"].(float64))]["id"]; got != row["id"] {
					t.Fatalf("insertion %v names row %v", row, got)
				}
			}
		}
		data, _ := os.ReadFile(filepath.Join(out, "canaries.jsonl"))
		part, _ := os.ReadFile(filepath.Join(out, "data", "part-00000.parquet"))
		outs = append(outs, string(data)+string(part))
	}
	if outs[0] != outs[1] {
		t.Fatal("the dataset copy or the canary file depends on --workers")
	}
}

func TestDemoContaminationFindsThePlantedLeak(t *testing.T) {
	dir := t.TempDir()
	demoOut := filepath.Join(dir, "demo")
	runMain(t, "demo", "-o", demoOut)
	var out, errb strings.Builder
	contamOut := filepath.Join(dir, "demo-contam")
	if err := runDemoContamination(t.Context(), []string{filepath.Join(demoOut, "data")}, contamOut, 2, nil, Streams{Out: &out, Err: &errb}); err != nil {
		t.Fatal(err)
	}
	var removed []string
	for _, r := range rowsOf(t, filepath.Join(contamOut, "removed")) {
		removed = append(removed, fmt.Sprintf("%s:%v", r["id"], r["_eval_ids"]))
	}
	if got := strings.Join(removed, " "); got != "books-48527:[demo-eval:read-1]" {
		t.Fatalf("removed %s\n%s", got, out.String())
	}
	if !strings.Contains(out.String(), "read-1 (line 1): 1 row(s), first in row books-48527") {
		t.Fatalf("report:\n%s", out.String())
	}
	if n := len(readProbes(t, filepath.Join(contamOut, "probes.jsonl"))); n != 5 {
		t.Fatalf("%d demo probes", n)
	}
}

// --as rows plants every copy as a row of its own right after the row the
// plan picked: the input rows keep their texts and order, the manifest
// counts the new rows as inserted, and the result does not depend on the
// workers.
func TestMemorizeCanariesAsRows(t *testing.T) {
	dir := t.TempDir()
	corpus := memorizeCorpus(t, dir, 40, false)
	var outs []string
	for _, workers := range []string{"1", "2"} {
		out := filepath.Join(dir, "rows-"+workers)
		runMain(t, "memorize", "canaries", "--into", corpus, "-o", out, "--n", "4", "--repeats", "1,5", "--seed", "9",
			"--as", "rows", "--workers", workers, "--batch-rows", "7")
		rows := rowsOf(t, filepath.Join(out, "data"))
		if len(rows) != 40+12 {
			t.Fatalf("%d rows, want the 40 of the input and 12 canary rows", len(rows))
		}
		byID := map[string]int{}
		var inputIDs []string
		for i, r := range rows {
			id, _ := r["id"].(string)
			byID[id] = i
			if !strings.HasPrefix(id, "canary-") {
				inputIDs = append(inputIDs, id)
			}
		}
		if len(inputIDs) != 40 {
			t.Fatalf("%d input rows in the copy", len(inputIDs))
		}
		for _, c := range readProbes(t, filepath.Join(out, "canaries.jsonl")) {
			ins := c["inserted"].([]any)
			if len(ins) != int(c["repeats"].(float64)) {
				t.Fatalf("%s: %d insertions recorded, want %v", c["id"], len(ins), c["repeats"])
			}
			for _, x := range ins {
				in := x.(map[string]any)
				at, ok := byID[in["id"].(string)]
				if !ok || rows[at]["text"] != c["canary"] {
					t.Fatalf("insertion %v: no row with that id and the canary's text", in)
				}
				// The rows between the one it follows and it are canaries too.
				after := byID[in["after"].(string)]
				for j := after + 1; j < at; j++ {
					if id, _ := rows[j]["id"].(string); !strings.HasPrefix(id, "canary-") {
						t.Fatalf("insertion %v is not right after row %v", in, in["after"])
					}
				}
			}
		}
		m := readManifest(t, filepath.Join(out, "manifest.json"))
		if c := m["counts"].(map[string]any); c["inserted"] != 12.0 || c["rows_in"] != 40.0 || c["rows_out"] != 52.0 {
			t.Fatalf("manifest counts %v", c)
		}
		part, _ := os.ReadFile(filepath.Join(out, "data", "part-00000.parquet"))
		canaries, _ := os.ReadFile(filepath.Join(out, "canaries.jsonl"))
		outs = append(outs, string(part)+string(canaries))
	}
	if outs[0] != outs[1] {
		t.Fatal("the dataset copy or the canary file depends on --workers")
	}
}
