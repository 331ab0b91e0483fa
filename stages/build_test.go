package stages

import (
	"strings"
	"testing"

	"github.com/sluice-data/sluice/kernels/quality"
	"go.yaml.in/yaml/v3"
)

func specFrom(t *testing.T, src string) Spec {
	t.Helper()
	f, err := ParseFile("p.yaml", []byte("input: [x]\noutput: y\nstages:\n"+src))
	if err != nil {
		t.Fatal(err)
	}
	return f.Stages[0]
}

func TestBuildDecodesTheStagesOwnParameters(t *testing.T) {
	st, err := Build(specFrom(t, "  - gopher_quality: {min_word_count: 10, max_mean_word_length: 12}\n"), Common{TextField: "text"})
	if err != nil {
		t.Fatal(err)
	}
	got := st.(*Quality).Config().(*quality.GopherQualityConfig)
	def := quality.DefaultConfig().GopherQuality
	if got.MinWordCount != 10 || got.MaxMeanWordLength != 12 || got.MaxWordCount != def.MaxWordCount {
		t.Fatalf("config %+v", got)
	}
	st, err = Build(specFrom(t, "  - c4\n"), Common{TextField: "text", Profile: "datatrove"})
	if err != nil {
		t.Fatal(err)
	}
	if c := st.(*Quality).Config().(*quality.C4Config); c.MinWordsPerLine != 3 {
		t.Fatalf("datatrove profile not applied: %+v", c)
	}
}

func TestBuildErrorsNameTheLine(t *testing.T) {
	cases := map[string]string{
		"  - gopher_quality: {min_words: 10}\n":            `p.yaml:4: stage gopher_quality: unknown key "min_words"`,
		"  - fineweb: {max_short_line_frac: 2}\n":          "max_short_line_frac",
		"  - normalize: {form: nfd}\n":                     "nfd",
		"  - pii: {kinds: [email, ssn]}\n":                 "ssn",
		"  - dedup_fuzzy: {}\n":                            `unknown stage "dedup_fuzzy"`,
		"  - c4: {min_sentences: many}\n":                  "line 4",
		"  - gopher_repetition: {max_dup_line_frac: -1}\n": "max_dup_line_frac",
	}
	for src, want := range cases {
		_, err := Build(specFrom(t, src), Common{TextField: "text"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error containing %q", strings.TrimSpace(src), err, want)
		}
	}
	var n yaml.Node
	if _, err := ParseFile("p.yaml", []byte("input: [x]\nstages: {normalize: {}}\n")); err == nil {
		t.Error("stages as a mapping should be an error")
	}
	_ = n
}
