package pipefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/kernels/quality"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/stages"
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
	got := st.(*stages.Quality).Config().(*quality.GopherQualityConfig)
	def := quality.DefaultConfig().GopherQuality
	if got.MinWordCount != 10 || got.MaxMeanWordLength != 12 || got.MaxWordCount != def.MaxWordCount {
		t.Fatalf("config %+v", got)
	}
	st, err = Build(specFrom(t, "  - c4\n"), Common{TextField: "text", Profile: "datatrove"})
	if err != nil {
		t.Fatal(err)
	}
	if c := st.(*stages.Quality).Config().(*quality.C4Config); c.MinWordsPerLine != 3 {
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
		"  - c4: {min_sentences: many}\n":                  "p.yaml:4: stage c4: min_sentences is many",
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

func TestBuildURLFilterFromItsParameters(t *testing.T) {
	subs := filepath.Join(t.TempDir(), "subs.txt")
	os.WriteFile(subs, []byte("# paths\n/wp-login\n"), 0o644)
	st, err := Build(specFrom(t, "  - url_filter: {domains: [spam.example], substrings_file: "+subs+"}\n"), Common{TextField: "text"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := st.(*stages.URLFilter).Config().(stages.URLFilterParams)
	if cfg.DomainCount != 1 || cfg.SubstringCount != 1 {
		t.Fatalf("config %+v", cfg)
	}
	if _, err := Build(specFrom(t, "  - url_filter: {}\n"), Common{}); err == nil || !strings.Contains(err.Error(), "no domain or substring") {
		t.Fatalf("empty lists: %v", err)
	}
}

func TestRegistry(t *testing.T) {
	r, err := known()
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]string{"normalize", "lang"}, quality.Names...),
		"pii", "classify", "dedup_exact", "dedup_lines", "dedup_minhash", "decontaminate", "tokens", "extract", "url_filter")
	if strings.Join(r.names, ",") != strings.Join(want, ",") || strings.Join(Names(), ",") != strings.Join(want, ",") {
		t.Fatalf("names %v, want %v", r.names, want)
	}
	// Every known stage builds from an empty spec or fails with an error
	// naming it, never with a panic or as an unknown stage.
	for _, name := range Names() {
		if _, err := Build(Spec{Name: name, File: "f", Where: "f:1"}, Common{TextField: "text"}); err != nil && !strings.Contains(err.Error(), "stage "+name) {
			t.Errorf("%s: %v", name, err)
		}
	}
	_, err = Build(Spec{Name: "nope", Where: "f:1"}, Common{})
	if err == nil || !strings.Contains(err.Error(), `unknown stage "nope" (known: normalize, lang, `) || !strings.Contains(err.Error(), "url_filter") {
		t.Fatalf("unknown stage: %v", err)
	}
	build := func(Spec, Common) (pipeline.Stage, error) { return nil, nil }
	_, err = newRegistry([]entry{{"a", build, nil}, {"a", build, nil}, {"", build, nil}, {"b", nil, nil}})
	for _, want := range []string{`"a" registered twice`, `stage "" registered without`, `stage "b" registered without`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want an error containing %s", err, want)
		}
	}
}
