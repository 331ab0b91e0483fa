package langid_test

import (
	"bufio"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/fasttexttest"
	"github.com/sluice-data/sluice/internal/testenv"
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

// update re-records the golden predictions: go test -run TestParityGolden
// -update runs `fasttext predict-prob` on the built-in model.
var update = flag.Bool("update", false, "re-record "+goldenFile+" with the fasttext command")

// goldenFile holds what `fasttext predict-prob lid.176.ftz TEXTS 5`
// printed for the lines of parityTexts, verbatim.
const goldenFile = "testdata/lid176.predict-prob.txt"

// parityK is the number of labels compared; parityTol the largest
// difference of a probability (fastText prints six significant digits).
const (
	parityK   = 5
	parityTol = 1e-5
)

// parityTexts returns every sample and long texts made of them, and the
// lines fastText reads for them: newlines replaced by spaces, which is
// how sluice reads a text.
func parityTexts(t *testing.T) (texts, lines []string) {
	var all []string
	for _, s := range readSamples(t) {
		texts = append(texts, s.Text)
		all = append(all, s.Text)
	}
	// Long texts: every sample in one, and one language repeated to 64 kB.
	texts = append(texts, strings.Join(all, "\n\n"), strings.Repeat(all[2]+"\n", 64<<10/len(all[2])))
	for _, s := range texts {
		lines = append(lines, strings.ReplaceAll(s, "\n", " "))
	}
	return texts, lines
}

// writeModel writes the built-in model into a file for the fasttext
// command.
func writeModel(t *testing.T) string {
	model := filepath.Join(t.TempDir(), "lid.176.ftz")
	if err := os.WriteFile(model, langid.ModelBytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return model
}

// TestParityGolden compares the predictions of the built-in model with
// those fastText printed for it (goldenFile), so it runs without fastText.
func TestParityGolden(t *testing.T) {
	m, err := langid.LID176()
	if err != nil {
		t.Fatal(err)
	}
	texts, lines := parityTexts(t)
	if *update {
		bin, err := exec.LookPath("fasttext")
		if err != nil {
			t.Fatalf("-update needs the fasttext command: %v", err)
		}
		file := filepath.Join(t.TempDir(), "texts.txt")
		if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := fasttexttest.Run(t, bin, "predict-prob", writeModel(t), file, strconv.Itoa(parityK))
		if err := os.WriteFile(goldenFile, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	var want [][]fasttexttest.Label
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		f := strings.Fields(line)
		var ls []fasttexttest.Label
		for j := 0; j+1 < len(f); j += 2 {
			p, err := strconv.ParseFloat(f[j+1], 64)
			if err != nil {
				t.Fatalf("%s:%d: %v", goldenFile, i+1, err)
			}
			ls = append(ls, fasttexttest.Label{Name: f[j], Prob: p})
		}
		if 2*len(ls) != len(f) {
			t.Fatalf("%s:%d: %q", goldenFile, i+1, line)
		}
		want = append(want, ls)
	}
	if len(want) != len(texts) {
		t.Fatalf("%s: %d lines for %d texts; record it again with -update", goldenFile, len(want), len(texts))
	}
	worst := fasttexttest.Compare(t, m, texts, want, parityK, parityTol)
	t.Logf("%d texts, largest probability difference %.2g", len(texts), worst)
}

// TestParityWithFastText predicts the texts of parityTexts with sluice and
// with `fasttext predict-prob` and compares the five best labels and their
// probabilities. It needs the command: see testenv.Require.
func TestParityWithFastText(t *testing.T) {
	bin := testenv.Require(t, "fasttext")
	m, err := langid.LID176()
	if err != nil {
		t.Fatal(err)
	}
	texts, lines := parityTexts(t)
	want := fasttexttest.PredictProb(t, bin, writeModel(t), lines, parityK)
	worst := fasttexttest.Compare(t, m, texts, want, parityK, parityTol)
	t.Logf("%d texts, largest probability difference %.2g", len(texts), worst)
}
