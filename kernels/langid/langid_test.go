package langid_test

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/fasttexttest"
	"github.com/sluice-data/sluice/kernels/langid"
)

type sample struct {
	Lang string `json:"lang"` // expected code; "" when the text has no language
	Text string `json:"text"`
}

func readSamples(t testing.TB) []sample {
	t.Helper()
	f, err := os.Open("testdata/multilingual.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []sample
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var s sample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("testdata/multilingual.jsonl:%d: %v", len(out)+1, err)
		}
		out = append(out, s)
	}
	return out
}

func TestCode(t *testing.T) {
	for label, want := range map[string]string{
		"__label__en":       "en",
		"__label__zh":       "zh",
		"__label__ceb":      "ceb",
		"__label__als":      "als",
		"__label__arz":      "arz",
		"__label__eml":      "eml",
		"__label__eng_Latn": "en",
		"__label__cmn_Hani": "zh",
		"__label__zho_Hans": "zh",
		"__label__deu_Latn": "de",
		"__label__yue_Hani": "yue",
		"__label__arb_Arab": "ar",
		"__label__nob_Latn": "nb",
		"fra":               "fr",
	} {
		if got := langid.Code(label); got != want {
			t.Errorf("Code(%q) = %q, want %q", label, got, want)
		}
	}
}

func TestLID176(t *testing.T) {
	m, err := langid.LID176()
	if err != nil {
		t.Fatal(err)
	}
	if m.NumLabels() != 176 {
		t.Fatalf("lid.176 has %d labels", m.NumLabels())
	}
	p := m.NewPredictor()
	langs := map[string]bool{}
	for i, s := range readSamples(t) {
		if s.Lang == "" {
			continue
		}
		langs[s.Lang] = true
		got := p.PredictString(s.Text, 1, 0, nil)
		if len(got) != 1 || langid.Code(m.Label(got[0].Label)) != s.Lang {
			t.Errorf("sample %d %.40q: got %v, want %s", i+1, s.Text, got, s.Lang)
		}
	}
	if len(langs) < 20 {
		t.Errorf("the samples cover %d languages", len(langs))
	}
	// The two texts every user tries first.
	for text, want := range map[string]string{
		"Call me Ishmael. Some years ago—never mind how long precisely—having little or no money in my purse, and nothing particular to interest me on shore, I thought I would sail about a little and see the watery part of the world.": "en",
		"欢迎来到我们的网站": "zh",
	} {
		got := m.Predict(text, 1, 0)
		if langid.Code(m.Label(got[0].Label)) != want || got[0].Prob < 0.9 {
			t.Errorf("%q: %s %.3f, want %s above 0.9", text, m.Label(got[0].Label), got[0].Prob, want)
		}
	}
}

// TestParityWithFastText predicts every sample, and long texts made of
// them, with sluice and with `fasttext predict-prob` (newlines replaced by
// spaces, which is how sluice reads a text) and compares the five best
// labels and their probabilities.
func TestParityWithFastText(t *testing.T) {
	bin := fasttexttest.Binary(t)
	m, err := langid.LID176()
	if err != nil {
		t.Fatal(err)
	}
	model := t.TempDir() + "/lid.176.ftz"
	if err := os.WriteFile(model, langid.ModelBytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var texts []string
	var all []string
	for _, s := range readSamples(t) {
		texts = append(texts, s.Text)
		all = append(all, s.Text)
	}
	// Long texts: every sample in one, and one language repeated to 64 kB.
	texts = append(texts, strings.Join(all, "\n\n"), strings.Repeat(all[2]+"\n", 64<<10/len(all[2])))
	lines := make([]string, len(texts))
	for i, s := range texts {
		lines[i] = strings.ReplaceAll(s, "\n", " ")
	}
	const k = 5
	want := fasttexttest.PredictProb(t, bin, model, lines, k)
	worst := fasttexttest.Compare(t, m, texts, want, k, 1e-4)
	t.Logf("%d texts, largest probability difference %.2g", len(texts), worst)
}
