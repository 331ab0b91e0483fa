package command

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// budgetMain runs `sluice budget ARGS...` through Main and returns its exit
// code and output.
func budgetMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errw bytes.Buffer
	code = Main(append([]string{"sluice", "budget"}, args...), strings.NewReader(""), &out, &errw)
	return code, out.String(), errw.String()
}

// budgetJSON mirrors the documented --json keys, independently of the
// command's own types.
type budgetJSON struct {
	CorpusTokens           float64  `json:"corpus_tokens"`
	Docs                   *float64 `json:"docs"`
	TokensPerDoc           *float64 `json:"tokens_per_doc"`
	Epochs                 float64  `json:"epochs"`
	TokensSeen             float64  `json:"tokens_seen"`
	Params                 *float64 `json:"params"`
	TokensPerParam         float64  `json:"tokens_per_param"`
	FLOPs                  *float64 `json:"flops"`
	OptimalTokens          *float64 `json:"optimal_tokens"`
	EpochsNeeded           *float64 `json:"epochs_needed"`
	OptimalFLOPs           *float64 `json:"optimal_flops"`
	OptimalParams          float64  `json:"optimal_params"`
	OptimalParamsSeen      float64  `json:"optimal_params_seen"`
	OptimalParamsSeenFLOPs float64  `json:"optimal_params_seen_flops"`
	Mixture                *struct {
		TargetTokens float64 `json:"target_tokens"`
		Sources      []struct {
			Name              string  `json:"name"`
			Weight            float64 `json:"weight"`
			Share             float64 `json:"share"`
			Tokens            float64 `json:"tokens"`
			ContributedTokens float64 `json:"contributed_tokens"`
			Epochs            float64 `json:"epochs"`
		} `json:"sources"`
	} `json:"mixture"`
	Warnings []struct {
		Code    string `json:"code"`
		Source  string `json:"source"`
		Message string `json:"message"`
	} `json:"warnings"`
}

func parseBudgetJSON(t *testing.T, out string) (budgetJSON, map[string]any) {
	t.Helper()
	var r budgetJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, out)
	}
	var keys map[string]any
	if err := json.Unmarshal([]byte(out), &keys); err != nil {
		t.Fatal(err)
	}
	return r, keys
}

func approx(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

var workedExample = []string{"--docs", "1_000_000", "--tokens-per-doc", "800", "--epochs", "3", "--params", "1B"}

func TestBudgetWorkedExampleTable(t *testing.T) {
	var out bytes.Buffer
	o := &BudgetOptions{Docs: "1000000", TokensPerDoc: "800", Epochs: "3", Params: "1B", TokensPerParam: "20"}
	if err := runBudget(context.Background(), o, nil, Streams{Out: &out}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	lines := map[string]string{}
	for _, l := range strings.Split(text, "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 {
			lines[f[0]+" "+f[1]] = l
		}
	}
	for _, want := range []struct{ line, has string }{
		{"corpus 800M", "1.0M docs × 800 tokens"},
		{"tokens seen", "2.4B tokens"},
		{"model 1.0B", "1.0B params"},
		{"training compute", "1.44e19 FLOPs"},
		{"tokens 20.0B", "for 1.0B params"},
		{"epochs needed", "25"},
		{"compute 1.2e20", "1.2e20 FLOPs"},
	} {
		if !strings.Contains(lines[want.line], want.has) {
			t.Errorf("no line %q with %q in\n%s", want.line, want.has, text)
		}
	}
	for _, want := range []string{"model for the corpus   40.0M params", "model for tokens seen  120M params"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	// The values start in one column across the run and compute-optimal tables.
	col := -1
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, "  training compute") && !strings.HasPrefix(l, "  tokens ") {
			continue
		}
		i := strings.IndexAny(l, "0123456789")
		if col >= 0 && i != col {
			t.Errorf("values not aligned:\n%s", text)
		}
		col = i
	}
	_, warnings, ok := strings.Cut(text, "\nwarnings\n")
	if !ok || strings.Count(warnings, "  ! ") != 2 ||
		!strings.Contains(warnings, "undertrained") || !strings.Contains(warnings, "25 epochs") ||
		!strings.Contains(warnings, "Muennighoff et al. 2023") {
		t.Errorf("warnings:\n%s", text)
	}
}

func TestBudgetJSON(t *testing.T) {
	code, out, stderr := budgetMain(t, append(workedExample, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r, keys := parseBudgetJSON(t, out)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"corpus_tokens", r.CorpusTokens, 800e6},
		{"epochs", r.Epochs, 3},
		{"tokens_seen", r.TokensSeen, 2.4e9},
		{"tokens_per_param", r.TokensPerParam, 20},
		{"optimal_params", r.OptimalParams, 40e6},
		{"optimal_params_seen", r.OptimalParamsSeen, 120e6},
		{"optimal_params_seen_flops", r.OptimalParamsSeenFLOPs, 6 * 120e6 * 2.4e9},
	} {
		if !approx(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	for _, c := range []struct {
		name string
		got  *float64
		want float64
	}{
		{"docs", r.Docs, 1e6}, {"tokens_per_doc", r.TokensPerDoc, 800}, {"params", r.Params, 1e9},
		{"flops", r.FLOPs, 1.44e19}, {"optimal_tokens", r.OptimalTokens, 20e9},
		{"epochs_needed", r.EpochsNeeded, 25}, {"optimal_flops", r.OptimalFLOPs, 1.2e20},
	} {
		if c.got == nil || !approx(*c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if r.Mixture != nil {
		t.Errorf("mixture %+v, want null", r.Mixture)
	}
	if len(r.Warnings) != 2 || r.Warnings[0].Code != "undertrained" || r.Warnings[1].Code != "optimal_epochs_over_16" {
		t.Errorf("warnings %+v", r.Warnings)
	}
	if len(keys) != 16 {
		t.Errorf("%d keys, want 16: %v", len(keys), keys)
	}

	// Without --params the numbers that need it are null, and the keys stay.
	code, out, stderr = budgetMain(t, "--tokens", "2.4B", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r, keys = parseBudgetJSON(t, out)
	for _, k := range []string{"params", "flops", "optimal_tokens", "epochs_needed", "optimal_flops", "docs", "tokens_per_doc", "mixture"} {
		if v, ok := keys[k]; !ok || v != nil {
			t.Errorf("%s = %v (present %v), want null", k, v, ok)
		}
	}
	if w, ok := keys["warnings"].([]any); !ok || len(w) != 0 {
		t.Errorf("warnings = %v, want []", keys["warnings"])
	}
	if r.TokensSeen != 2.4e9 || r.Epochs != 1 || r.OptimalParams != 120e6 {
		t.Errorf("without params: %+v", r)
	}
}

func TestBudgetWithoutParamsTable(t *testing.T) {
	code, out, stderr := budgetMain(t, "--tokens", "7e9", "--epochs", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"14.0B tokens", "model for the corpus   350M params", "model for tokens seen  700M params"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"training compute", "epochs needed", "warnings"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("%q without --params:\n%s", unwanted, out)
		}
	}
}

func TestBudgetMixture(t *testing.T) {
	code, out, stderr := budgetMain(t, "--mix", "web=0.7,code=0.2", "--mix", "math=0.1",
		"--source-tokens", "web=800B,code=40B,math=5B", "--target-tokens", "1T", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r, _ := parseBudgetJSON(t, out)
	if r.Mixture == nil || r.Mixture.TargetTokens != 1e12 || len(r.Mixture.Sources) != 3 {
		t.Fatalf("mixture %+v", r.Mixture)
	}
	if r.CorpusTokens != 845e9 || r.TokensSeen != 1e12 {
		t.Errorf("corpus %v, tokens seen %v", r.CorpusTokens, r.TokensSeen)
	}
	want := []struct {
		name                       string
		share, contributed, epochs float64
	}{{"web", 0.7, 700e9, 0.875}, {"code", 0.2, 200e9, 5}, {"math", 0.1, 100e9, 20}}
	for i, s := range r.Mixture.Sources {
		w := want[i]
		if s.Name != w.name || !approx(s.Share, w.share) || !approx(s.ContributedTokens, w.contributed) || !approx(s.Epochs, w.epochs) {
			t.Errorf("source %d: %+v, want %+v", i, s, w)
		}
	}
	if len(r.Warnings) != 2 || r.Warnings[0].Code != "epochs_over_4" || r.Warnings[0].Source != "code" ||
		r.Warnings[1].Code != "epochs_over_16" || r.Warnings[1].Source != "math" {
		t.Errorf("warnings %+v", r.Warnings)
	}

	code, out, stderr = budgetMain(t, "--mix", "web=0.7,code=0.2,math=0.1", "--source-tokens", "web=800B,code=40B,math=5B", "--target-tokens", "1T")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"mixture for 1.0T tokens",
		"  source  weight  share  available  contributed  epochs",
		"  code       0.2    20%      40.0B         200B       5",
		"  math       0.1    10%       5.0B         100B      20",
		"source math is repeated 20 epochs",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

func TestBudgetMixFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mix.yaml")
	yaml := "target_tokens: 1T\nsources:\n  web: {tokens: 800B, weight: 0.7}\n  code: {tokens: 100B, weight: 0.3}\n"
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := budgetMain(t, "--mix-file", path, "--params", "7B", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r, _ := parseBudgetJSON(t, out)
	if r.Mixture == nil || len(r.Mixture.Sources) != 2 || r.Mixture.Sources[0].Name != "web" ||
		!approx(r.Mixture.Sources[1].Epochs, 3) || !approx(r.Mixture.Sources[0].Epochs, 0.875) {
		t.Fatalf("mixture %+v", r.Mixture)
	}
	if r.FLOPs == nil || !approx(*r.FLOPs, 6*7e9*1e12) || len(r.Warnings) != 0 {
		t.Errorf("flops %v, warnings %+v", r.FLOPs, r.Warnings)
	}

	// --target-tokens overrides the file's; without either, the mixture
	// is trained for the compute-optimal tokens of --params.
	code, out, _ = budgetMain(t, "--mix-file", path, "--target-tokens", "2T", "--json")
	if r, _ = parseBudgetJSON(t, out); code != 0 || r.TokensSeen != 2e12 {
		t.Errorf("--target-tokens 2T: exit %d, tokens seen %v", code, r.TokensSeen)
	}
	noTarget := filepath.Join(t.TempDir(), "mix.yaml")
	if err := os.WriteFile(noTarget, []byte("sources:\n  web: {tokens: 100B, weight: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = budgetMain(t, "--mix-file", noTarget, "--params", "7B", "--json")
	if r, _ = parseBudgetJSON(t, out); code != 0 || r.TokensSeen != 140e9 || !approx(r.Mixture.Sources[0].Epochs, 1.4) {
		t.Errorf("target from --params: exit %d, %+v", code, r)
	}
}

func TestBudgetUsageErrors(t *testing.T) {
	mixFile := filepath.Join(t.TempDir(), "mix.yaml")
	if err := os.WriteFile(mixFile, []byte("sources:\n  web: {tokens: lots, weight: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "no corpus size"},
		{[]string{"--params", "1B"}, "no corpus size"},
		{[]string{"--tokens", "1B", "--docs", "10", "--tokens-per-doc", "5"}, "--tokens and --docs/--tokens-per-doc are exclusive"},
		{[]string{"--tokens", "1B", "--docs", "10"}, "exclusive"},
		{[]string{"--docs", "10"}, "--docs needs --tokens-per-doc"},
		{[]string{"--tokens-per-doc", "10"}, "--tokens-per-doc needs --docs"},
		{[]string{"--tokens", "12X"}, `--tokens is "12X"; want a count`},
		{[]string{"--tokens", "1B", "--params", "seven"}, `--params is "seven"; want a count`},
		{[]string{"--tokens", "1B", "--epochs", "0"}, "--epochs is 0; want a finite number in (0, 1e+06]"},
		{[]string{"--tokens", "1B", "--epochs", "three"}, `--epochs is "three"; want a finite number`},
		{[]string{"--tokens", "1B", "--tokens-per-param", "0"}, "--tokens-per-param is 0; want"},
		{[]string{"--tokens", "0"}, "--tokens is 0; want"},
		{[]string{"--tokens", "1B", "--params", "0"}, "--params is 0; want"},
		{[]string{"--tokens", "1B", "--frobnicate"}, "frobnicate"},
		{[]string{"data.jsonl"}, "data.jsonl: no such file"},
		{[]string{"--tokens", "1B", "--target-tokens", "2B"}, "--target-tokens needs --mix"},
		{[]string{"--mix", "web=1"}, "--mix needs --source-tokens"},
		{[]string{"--source-tokens", "web=1B"}, "--source-tokens needs --mix"},
		{[]string{"--mix", "web=1", "--source-tokens", "web=1B", "--tokens", "1B", "--target-tokens", "1B"}, "do not go with a mixture"},
		{[]string{"--mix", "web=1", "--source-tokens", "web=1B", "--epochs", "2", "--target-tokens", "1B"}, "--epochs does not go with a mixture"},
		{[]string{"--mix", "web=1", "--source-tokens", "web=1B"}, "target tokens"},
		{[]string{"--mix", "web", "--source-tokens", "web=1B", "--target-tokens", "1B"}, `--mix: want source=value, not "web"`},
		{[]string{"--mix", "web=heavy", "--source-tokens", "web=1B", "--target-tokens", "1B"}, `--mix web is "heavy"; want a finite number`},
		{[]string{"--mix", "web=1,code=1", "--source-tokens", "web=1B", "--target-tokens", "1B"}, "no count for source code"},
		{[]string{"--mix", "web=1", "--source-tokens", "web=1B,books=2B", "--target-tokens", "1B"}, "names books, which --mix has not"},
		{[]string{"--mix", "web=1", "--source-tokens", "web=12X", "--target-tokens", "1B"}, `--source-tokens web is "12X"; want a count`},
		{[]string{"--mix", "web=0", "--source-tokens", "web=1B", "--target-tokens", "1B"}, "weights are all zero"},
		{[]string{"--mix", "web=1", "--mix-file", mixFile}, "--mix and --mix-file are exclusive"},
		{[]string{"--mix-file", filepath.Join(t.TempDir(), "missing.yaml")}, "--mix-file"},
		{[]string{"--mix-file", mixFile}, `line 2: source web: tokens: "lots" is not a count`},
	} {
		code, out, stderr := budgetMain(t, tc.args...)
		if code != 2 {
			t.Errorf("budget %v: exit %d, want 2 (stdout %q)", tc.args, code, out)
			continue
		}
		if !strings.Contains(stderr, tc.want) {
			t.Errorf("budget %v: stderr %q, want %q", tc.args, stderr, tc.want)
		}
	}
}

func TestBudgetHelp(t *testing.T) {
	code, out, _ := budgetMain(t, "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"--tokens N", "sluice tokens", "--docs N", "--tokens-per-doc M", "--mix-file FILE", "target_tokens: 1T"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the help:\n%s", want, out)
		}
	}
}

func TestBudgetCountsAPathOrReadsACountsFile(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(`{"text":"one two three four"}`+"\n"+`{"text":"five six"}`+"\n"), 0o644)
	counts := filepath.Join(dir, "counts.json")
	runMain(t, "tokens", in, "-o", counts)
	var rep TokenReport
	data, _ := os.ReadFile(counts)
	if err := json.Unmarshal(data, &rep); err != nil || rep.Total.Tokens == 0 {
		t.Fatalf("counts.json: %v %+v", err, rep)
	}
	for _, path := range []string{in, counts} {
		out, _ := runMain(t, "budget", path, "--epochs", "2", "--json")
		var got map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %v\n%s", path, err, out)
		}
		if got["corpus_tokens"].(float64) != float64(rep.Total.Tokens) || got["tokens_seen"].(float64) != 2*float64(rep.Total.Tokens) {
			t.Fatalf("%s: corpus_tokens %v, tokens_seen %v, want %d and twice that", path, got["corpus_tokens"], got["tokens_seen"], rep.Total.Tokens)
		}
	}
}
