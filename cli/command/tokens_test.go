package command

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/kernels/tokenize"
)

func TestTokensCountsAndGroups(t *testing.T) {
	dir := t.TempDir()
	texts := []string{"Hello, world!", "The quick brown fox jumps over the lazy dog.", "日本語のテキスト", "def f(x):\n    return x * 2\n", "  spaces   and\ttabs  "}
	var b strings.Builder
	want := map[string]int64{}
	enc, err := tokenize.Get("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	c := enc.NewCounter()
	var total int64
	for i := 0; i < 50; i++ {
		text := texts[i%len(texts)]
		src := []string{"web", "code"}[i%2]
		row, _ := json.Marshal(map[string]any{"id": fmt.Sprint(i), "text": text, "meta": map[string]any{"source": src}})
		b.Write(row)
		b.WriteByte('\n')
		n := int64(c.Count([]byte(text)))
		want[src] += n
		total += n
	}
	b.WriteString(`{"id":"x","meta":{"source":"web"}}` + "\n") // no text: not a document
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(b.String()), 0o644)

	out, _ := runMain(t, "tokens", in, "--group-by", "meta.source", "--json", "-o", filepath.Join(dir, "counts.csv"))
	var rep TokenReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	if rep.Total.Tokens != total || rep.Total.Documents != 50 || rep.MissingText != 1 {
		t.Fatalf("total %+v, want %d tokens in 50 documents", rep.Total, total)
	}
	if len(rep.Groups) != 2 {
		t.Fatalf("groups %+v", rep.Groups)
	}
	for _, g := range rep.Groups {
		if g.Tokens != want[g.Group["meta.source"]] || g.Documents != 25 {
			t.Errorf("group %v: %d tokens in %d docs, want %d in 25", g.Group, g.Tokens, g.Documents, want[g.Group["meta.source"]])
		}
	}
	csvData, err := os.ReadFile(filepath.Join(dir, "counts.csv"))
	if err != nil || !strings.Contains(string(csvData), "(total),50,"+fmt.Sprint(total)) {
		t.Fatalf("counts.csv: %v\n%s", err, csvData)
	}

	// --add-column writes the dataset back with n_tokens.
	ds := filepath.Join(dir, "with-tokens.jsonl")
	runMain(t, "tokens", in, "--add-column", "-o", ds)
	rows := rowsOf(t, ds)
	var sum float64
	for _, r := range rows {
		if n, ok := r["n_tokens"].(float64); ok {
			sum += n
		}
	}
	if len(rows) != 51 || int64(sum) != total {
		t.Fatalf("--add-column: %d rows, n_tokens sum %v, want 51 rows and %d", len(rows), sum, total)
	}
}

func TestTokensRejectsUnknownTokenizer(t *testing.T) {
	var o, e strings.Builder
	if code := Main([]string{"sluice", "tokens", "x.jsonl", "--tokenizer", "bogus"}, nil, &o, &e); code != 2 || !strings.Contains(e.String(), "cl100k_base") {
		t.Fatalf("exit %d, stderr %s", code, e.String())
	}
}
