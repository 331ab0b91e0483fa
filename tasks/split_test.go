package tasks

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/io/input"
)

func chatLine(i int, prompt string) string {
	return fmt.Sprintf(`{"id":"ex-%d","messages":[{"role":"user","content":%q},{"role":"assistant","content":"answer %d"}]}`, i, prompt, i)
}

// splitOf runs SplitFiles on the lines and returns the split of each line
// (by its text) and the report.
func splitOf(t *testing.T, lines []string, o SplitOptions) (map[string]string, *SplitReport) {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, _ := input.Expand([]string{in})
	if o.Names == nil {
		o.Names = DefaultSplitNames(len(o.Ratios))
	}
	rep, err := SplitFiles(context.Background(), files, filepath.Join(dir, "out"), o, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	where := map[string]string{}
	total := 0
	for _, s := range rep.Splits {
		b, err := os.ReadFile(s.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if l != "" {
				where[l] = s.Name
				total++
			}
		}
	}
	if total != len(lines) {
		t.Fatalf("%d lines in the splits, %d in the input", total, len(lines))
	}
	return where, rep
}

func TestSplitIsStableWhenTheFileGrows(t *testing.T) {
	var lines []string
	for i := range 3000 {
		lines = append(lines, chatLine(i, fmt.Sprintf("Question number %d?", i)))
	}
	o := SplitOptions{Ratios: []float64{0.8, 0.1, 0.1}, Seed: 42}
	first, rep := splitOf(t, lines[:2000], o)
	again, _ := splitOf(t, lines[:2000], o)
	grown, _ := splitOf(t, lines, o)
	for _, l := range lines[:2000] {
		if first[l] != again[l] || first[l] != grown[l] {
			t.Fatalf("%s: split %s, then %s, then %s after appending lines", l, first[l], again[l], grown[l])
		}
	}
	for i, s := range rep.Splits {
		if math.Abs(s.Share-o.Ratios[i]) > 0.03 {
			t.Errorf("split %s has %.3f of the examples, ratio %v", s.Name, s.Share, o.Ratios[i])
		}
	}
	other, _ := splitOf(t, lines[:2000], SplitOptions{Ratios: o.Ratios, Seed: 43})
	moved := 0
	for _, l := range lines[:2000] {
		if other[l] != first[l] {
			moved++
		}
	}
	if moved < 200 {
		t.Errorf("another seed moved only %d of 2000 examples", moved)
	}
}

func TestSplitKeepsPromptsTogether(t *testing.T) {
	var lines []string
	for i := range 600 {
		// 200 prompts, each three times with small differences of case and
		// punctuation, and different answers and ids.
		p := fmt.Sprintf("What is item %d", i%200)
		switch i / 200 {
		case 1:
			p = strings.ToUpper(p) + "?"
		case 2:
			p = "  " + p + "!! "
		}
		lines = append(lines, chatLine(i, p))
	}
	where, rep := splitOf(t, lines, SplitOptions{Ratios: []float64{0.5, 0.5}, Seed: 1})
	for i := range 200 {
		if where[lines[i]] != where[lines[i+200]] || where[lines[i]] != where[lines[i+400]] {
			t.Fatalf("prompt %d straddles splits", i)
		}
	}
	if rep.Overlap.Prompts != 0 || rep.Splits[0].Groups+rep.Splits[1].Groups != 200 {
		t.Errorf("by prompt: overlap %+v, groups %d + %d, want none and 200", rep.Overlap, rep.Splits[0].Groups, rep.Splits[1].Groups)
	}
	// By id every line is its own group: the variants of a prompt land
	// apart and the report says so.
	_, rep = splitOf(t, lines, SplitOptions{Ratios: []float64{0.5, 0.5}, Seed: 1, By: ByID, Field: "id"})
	if rep.Overlap.Prompts < 100 || len(rep.Overlap.Samples) == 0 || rep.Overlap.Examples < 2*rep.Overlap.Prompts {
		t.Errorf("by id: overlap %+v, want most of the 200 prompts", rep.Overlap)
	}
}

func TestSplitRejectsBadLinesAndOptions(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(chatLine(1, "a")+"\n{oops\n"), 0o644)
	files, _ := input.Expand([]string{in})
	_, err := SplitFiles(context.Background(), files, filepath.Join(dir, "out"), SplitOptions{Ratios: []float64{0.5, 0.5}, Names: []string{"a", "b"}}, nil, "")
	if err == nil || !strings.Contains(err.Error(), "in.jsonl:2: not_json") {
		t.Fatalf("error %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "a.jsonl")); err == nil {
		t.Error("a failed split left a split file")
	}
	bad := SplitOptions{Ratios: []float64{0.5, 0.6}, Names: []string{"a", "a"}, By: ByField}
	err = bad.Validate()
	for _, want := range []string{"add up to 1.1", `"a" given twice`, "needs a field name"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v, want it to say %q", err, want)
		}
	}
}

func TestMemberAtDottedPath(t *testing.T) {
	var p Parser
	ex, probs := p.Parse([]byte(`{"meta":{"source":"wiki","n":1},"id":"x","flat":"y","messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a"}]}`), Auto)
	if ex == nil {
		t.Fatalf("not an example: %v", probs)
	}
	d := p.Doc()
	for path, want := range map[string]string{
		"meta.source": `"wiki"`, "id": `"x"`, "meta": `{"source":"wiki","n":1}`,
		"meta.nope": "", "nope": "", "flat.x": "", "meta.source.x": "", "": "", "meta.": "",
	} {
		got := ""
		if v := memberAt(d, ex.Root, path); v >= 0 {
			got = string(d.AppendJSON(nil, v))
		}
		if got != want {
			t.Errorf("memberAt(%q) = %q, want %q", path, got, want)
		}
	}
}
