package budget

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/limit"
)

func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

func codes(ws []Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Code)
	}
	return out
}

func TestBudgetParseCount(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
	}{
		{"125M", 125e6},
		{"1B", 1e9},
		{"1.5T", 1.5e12},
		{"7e9", 7e9},
		{"800", 800},
		{"2.4b", 2.4e9},
		{"1_000_000", 1e6},
		{"10k", 1e4},
		{"1.5K", 1500},
		{"3m", 3e6},
		{"0.5t", 5e11},
		{" 20 ", 20},
		{"1.5 B", 1.5e9},
		{"1e3K", 1e6},
		{"2.5E3", 2500},
		{"0", 0},
		{".5B", 5e8},
		{"1_000B", 1e12},
	} {
		got, err := ParseCount(tc.in)
		if err != nil {
			t.Errorf("ParseCount(%q): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("ParseCount(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{
		"", " ", "B", "12X", "1.2.3M", "-5", "+5", "1__000", "_100", "100_", "1_.5", "0x10", "inf", "NaN",
		"1e", "e9", "1e999", "1,000", "5MB", "1BB", "ten",
	} {
		_, err := ParseCount(bad)
		if err == nil {
			t.Errorf("ParseCount(%q) accepted", bad)
			continue
		}
		if !strings.Contains(err.Error(), `"`+bad+`"`) {
			t.Errorf("ParseCount(%q): error %q does not name the text", bad, err)
		}
	}
}

// The worked example: 1,000,000 documents of 800 tokens, 3 epochs, 1B
// parameters at 20 tokens per parameter.
func TestBudgetWorkedExample(t *testing.T) {
	p, err := Compute(Input{Docs: 1_000_000, TokensPerDoc: 800, Epochs: 3, Params: 1e9})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"corpus tokens", p.CorpusTokens, 800e6},
		{"tokens seen", p.TokensSeen, 2.4e9},
		{"tokens per param", p.TokensPerParam, 20},
		{"optimal tokens", p.OptimalTokens, 20e9},
		{"epochs needed", p.EpochsNeeded, 25},
		{"FLOPs", p.FLOPs, 1.44e19},
		{"optimal FLOPs", p.OptimalFLOPs, 6 * 1e9 * 20e9},
		{"optimal params (corpus)", p.OptimalParams, 40e6},
		{"optimal params (seen)", p.OptimalParamsSeen, 120e6},
		{"optimal params (seen) FLOPs", p.OptimalParamsSeenFLOPs, 6 * 120e6 * 2.4e9},
	} {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if p.FLOPs != 1.44e19 {
		t.Errorf("FLOPs = %v, want exactly 1.44e19", p.FLOPs)
	}
	if got, want := codes(p.Warnings), []string{WarnUndertrained, WarnOptimalEpochsOver16}; !slices.Equal(got, want) {
		t.Fatalf("warnings %v, want %v", got, want)
	}
	for _, w := range p.Warnings {
		if w.Message == "" || w.Source != "" {
			t.Errorf("warning %+v", w)
		}
	}
	if m := p.Warnings[1].Message; !strings.Contains(m, "25 epochs") || !strings.Contains(m, "Muennighoff et al. 2023") {
		t.Errorf("epochs warning %q", m)
	}
	if m := p.Warnings[0].Message; !strings.Contains(m, "12%") || !strings.Contains(m, "120M") {
		t.Errorf("undertrained warning %q", m)
	}
}

func TestBudgetWithoutParams(t *testing.T) {
	p, err := Compute(Input{CorpusTokens: 2.4e9})
	if err != nil {
		t.Fatal(err)
	}
	if p.Epochs != 1 || p.TokensSeen != 2.4e9 || p.TokensPerParam != DefaultTokensPerParam {
		t.Errorf("defaults: %+v", p)
	}
	if p.FLOPs != 0 || p.OptimalTokens != 0 || p.EpochsNeeded != 0 || p.OptimalFLOPs != 0 {
		t.Errorf("numbers that need the model size: %+v", p)
	}
	if p.OptimalParams != 120e6 || p.OptimalParamsSeen != 120e6 {
		t.Errorf("optimal model size %v / %v, want 120M", p.OptimalParams, p.OptimalParamsSeen)
	}
	if len(p.Warnings) != 0 {
		t.Errorf("warnings %v", p.Warnings)
	}

	p, err = Compute(Input{CorpusTokens: 1e9, Epochs: 2, TokensPerParam: 100})
	if err != nil {
		t.Fatal(err)
	}
	if p.OptimalParams != 1e7 || p.OptimalParamsSeen != 2e7 {
		t.Errorf("at 100 tokens per parameter: %v / %v", p.OptimalParams, p.OptimalParamsSeen)
	}
}

func TestBudgetEpochWarnings(t *testing.T) {
	for _, tc := range []struct {
		epochs float64
		want   []string
	}{
		{1, nil},
		{4, nil},
		{4.5, []string{WarnEpochsOver4}},
		{16, []string{WarnEpochsOver4}},
		{17, []string{WarnEpochsOver16}},
	} {
		p, err := Compute(Input{CorpusTokens: 1e9, Epochs: tc.epochs})
		if err != nil {
			t.Fatal(err)
		}
		if got := codes(p.Warnings); !slices.Equal(got, tc.want) {
			t.Errorf("%v epochs: warnings %v, want %v", tc.epochs, got, tc.want)
		}
	}
	// Params: 10B tokens seen; optimal tokens 20 × P.
	for _, tc := range []struct {
		params float64
		want   []string
	}{
		{500e6, nil},                        // 10B tokens, 1 epoch needed
		{1e9, nil},                          // 20B: half the tokens seen is not yet far below
		{1.5e9, []string{WarnUndertrained}}, // 30B: a third seen; 3 epochs needed
		{2.5e9, []string{WarnUndertrained, WarnOptimalEpochsOver4}},
		{10e9, []string{WarnUndertrained, WarnOptimalEpochsOver16}},
	} {
		p, err := Compute(Input{CorpusTokens: 10e9, Params: tc.params})
		if err != nil {
			t.Fatal(err)
		}
		if got := codes(p.Warnings); !slices.Equal(got, tc.want) {
			t.Errorf("%v params: warnings %v, want %v", tc.params, got, tc.want)
		}
	}
}

func TestBudgetMixture(t *testing.T) {
	mix := Mix{TargetTokens: 1e12, Sources: []Source{
		{Name: "web", Tokens: 800e9, Weight: 0.7},
		{Name: "code", Tokens: 100e9, Weight: 0.3},
	}}
	p, err := Compute(Input{Mix: &mix})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Mix || p.CorpusTokens != 900e9 || p.TokensSeen != 1e12 || !near(p.Epochs, 1e12/900e9) {
		t.Errorf("mixture totals: %+v", p)
	}
	want := []struct{ share, contributed, epochs float64 }{{0.7, 700e9, 0.875}, {0.3, 300e9, 3}}
	for i, s := range p.Sources {
		if s.Name != mix.Sources[i].Name || !near(s.Share, want[i].share) ||
			!near(s.Contributed, want[i].contributed) || !near(s.Epochs, want[i].epochs) {
			t.Errorf("source %d: %+v, want %+v", i, s, want[i])
		}
	}
	if len(p.Warnings) != 0 {
		t.Errorf("warnings %v", p.Warnings)
	}

	// Weights are relative: 7 and 3 are 0.7 and 0.3. Code now has 50B
	// tokens and is repeated 6 epochs; math has 10B and 100 epochs.
	mix = Mix{TargetTokens: 1e12, Sources: []Source{
		{Name: "web", Tokens: 800e9, Weight: 6},
		{Name: "code", Tokens: 50e9, Weight: 3},
		{Name: "math", Tokens: 10e9, Weight: 1},
	}}
	p, err = Compute(Input{Mix: &mix})
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range []float64{0.75, 6, 10} {
		if !near(p.Sources[i].Epochs, e) {
			t.Errorf("%s: %v epochs, want %v", p.Sources[i].Name, p.Sources[i].Epochs, e)
		}
	}
	if got, want := codes(p.Warnings), []string{WarnEpochsOver4, WarnEpochsOver4}; !slices.Equal(got, want) {
		t.Errorf("warnings %v, want %v", got, want)
	}
	if p.Warnings[0].Source != "code" || p.Warnings[1].Source != "math" {
		t.Errorf("warning sources: %+v", p.Warnings)
	}
	mix.Sources[2].Tokens = 5e9 // 20 epochs
	p, _ = Compute(Input{Mix: &mix})
	if got, want := codes(p.Warnings), []string{WarnEpochsOver4, WarnEpochsOver16}; !slices.Equal(got, want) {
		t.Errorf("warnings %v, want %v", got, want)
	}

	// Without a target, the mixture is trained for the compute-optimal
	// tokens of the model.
	p, err = Compute(Input{Params: 7e9, Mix: &Mix{Sources: []Source{{Name: "web", Tokens: 100e9, Weight: 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	if p.TokensSeen != 140e9 || p.Sources[0].Epochs != 1.4 || p.FLOPs != 6*7e9*140e9 {
		t.Errorf("optimal target: %+v", p)
	}
}

func TestBudgetInputErrors(t *testing.T) {
	web := []Source{{Name: "web", Tokens: 1e9, Weight: 1}}
	for _, tc := range []struct {
		in   Input
		want string
	}{
		{Input{}, "no corpus size"},
		{Input{CorpusTokens: 1e9, Docs: 10, TokensPerDoc: 5}, "not both"},
		{Input{Docs: 10}, "tokens per document"},
		{Input{TokensPerDoc: 10}, "number of documents"},
		{Input{CorpusTokens: -1}, "negative"},
		{Input{CorpusTokens: 1e9, Epochs: -2}, "epochs must not be negative"},
		{Input{CorpusTokens: 1e9, Params: -1}, "params"},
		{Input{CorpusTokens: 1e9, TokensPerParam: -20}, "tokens per parameter"},
		{Input{CorpusTokens: math.Inf(1)}, "finite"},
		{Input{CorpusTokens: 1e9, Mix: &Mix{TargetTokens: 1e9, Sources: web}}, "mixture gives the corpus size"},
		{Input{Epochs: 2, Mix: &Mix{TargetTokens: 1e9, Sources: web}}, "no epochs"},
		{Input{Mix: &Mix{TargetTokens: 1e9}}, "no sources"},
		{Input{Mix: &Mix{Sources: web}}, "target tokens"},
		{Input{Mix: &Mix{TargetTokens: 1e9, Sources: []Source{{Name: "web", Tokens: 1e9}}}}, "all zero"},
		{Input{Mix: &Mix{TargetTokens: 1e9, Sources: []Source{{Name: "web", Weight: 1}}}}, `tokens of source "web"`},
		{Input{Mix: &Mix{TargetTokens: 1e9, Sources: []Source{{Name: "web", Tokens: 1, Weight: -1}}}}, `weight of source "web"`},
		{Input{Mix: &Mix{TargetTokens: 1e9, Sources: append(web, web...)}}, "twice"},
	} {
		_, err := Compute(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Compute(%+v): error %v, want one with %q", tc.in, err, tc.want)
		}
	}
}

func TestBudgetParseMixFile(t *testing.T) {
	m, err := ParseMixFile([]byte("target_tokens: 1T\nsources:\n  web: {tokens: 800B, weight: 0.7}\n  code:\n    tokens: 1_000_000_000\n    weight: 3e-1\n  books: {tokens: 5e9, weight: 0}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Mix{TargetTokens: 1e12, Sources: []Source{
		{Name: "web", Tokens: 800e9, Weight: 0.7},
		{Name: "code", Tokens: 1e9, Weight: 0.3},
		{Name: "books", Tokens: 5e9, Weight: 0},
	}}
	if m.TargetTokens != want.TargetTokens || !slices.Equal(m.Sources, want.Sources) {
		t.Errorf("got %+v, want %+v", m, want)
	}

	m, err = ParseMixFile([]byte("sources:\n  web: {tokens: 1B, weight: 1}\n"))
	if err != nil || m.TargetTokens != 0 || len(m.Sources) != 1 {
		t.Errorf("without a target: %+v, %v", m, err)
	}

	for _, tc := range []struct{ yaml, want string }{
		{"", "empty"},
		{"- web\n", "line 1: the mixture file must be a mapping"},
		{"target_tokens: 1T\n", "no sources"},
		{"target: 1T\nsources: {}\n", `line 1: unknown key "target"`},
		{"target_tokens: lots\nsources:\n  web: {tokens: 1B, weight: 1}\n", `line 1: target_tokens: "lots" is not a count`},
		{"sources: []\n", "line 1: sources must map"},
		{"sources:\n  web: 1B\n", "line 2: source web: want {tokens: N, weight: W}"},
		{"sources:\n  web:\n    tokens: 12X\n    weight: 1\n", `line 3: source web: tokens: "12X" is not a count`},
		{"sources:\n  web: {tokens: 1B, weight: heavy}\n", `line 2: source web: weight "heavy" is not a number`},
		{"sources:\n  web: {tokens: 1B}\n", "source web has no weight"},
		{"sources:\n  web: {weight: 1}\n", "source web has no tokens"},
		{"sources:\n  web: {tokens: 1B, weight: 1, epochs: 2}\n", `source web: unknown key "epochs"`},
		{"sources: {web: [\n", "yaml"},
	} {
		_, err := ParseMixFile([]byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseMixFile(%q): error %v, want one with %q", tc.yaml, err, tc.want)
		}
	}
}

func TestBudgetFormat(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Count(2.4e9), "2.4B"},
		{Count(1e9), "1.0B"},
		{Count(20e9), "20.0B"},
		{Count(800e6), "800M"},
		{Count(125e6), "125M"},
		{Count(1.5e12), "1.5T"},
		{Count(999.96e6), "1.0B"},
		{Count(1e6), "1.0M"},
		{Count(1500), "1.5K"},
		{Count(800), "800"},
		{Count(2.5e15), "2.5e15"},
		{Scientific(1.44e19), "1.44e19"},
		{Scientific(1.2e20), "1.2e20"},
		{Scientific(6e18), "6e18"},
		{Scientific(5), "5"},
		{Number(3), "3"},
		{Number(25), "25"},
		{Number(2.5), "2.5"},
		{Number(1e12 / 900e9), "1.11"},
		{Number(0.001), "0.001"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// Finite inputs can still multiply past what a float64 holds: Compute
// refuses such a plan, naming each number that overflowed, so that no
// plan with an infinity is printed or encoded as JSON.
func TestComputeRefusesResultsThatOverflow(t *testing.T) {
	_, err := Compute(Input{CorpusTokens: 1e308, Params: 1e308})
	var le *limit.Error
	if !errors.As(err, &le) {
		t.Fatalf("got %v, want a *limit.Error", err)
	}
	for _, want := range []string{"training FLOPs is +Inf", "compute-optimal tokens is +Inf", "compute-optimal FLOPs is +Inf", "give smaller ones"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v lacks %q", err, want)
		}
	}
	if _, err := Compute(Input{CorpusTokens: 1e15, Params: 1e15, Epochs: 1e6}); err != nil {
		t.Errorf("large but finite: %v", err)
	}
}
