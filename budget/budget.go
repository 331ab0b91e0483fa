// Package budget plans a training run from the size of its data: how many
// tokens the model sees, how that compares with the compute-optimal amount
// for its size, what the run costs in FLOPs, and how often each source of a
// data mixture is repeated.
//
// The formulas, with N the model's parameters and D the tokens it sees:
//
//   - Tokens seen: D = corpus tokens × epochs, where the corpus is given as
//     tokens or as documents × mean tokens per document.
//
//   - Compute-optimal tokens: D_opt = N × r with r ≈ 20 tokens per parameter,
//     the rule of thumb drawn from Hoffmann et al. 2022, "Training
//     Compute-Optimal Large Language Models" (Chinchilla), arXiv:2203.15556.
//     Read the other way, the compute-optimal model for D tokens has
//     N_opt = D / r parameters. Epochs needed to reach D_opt from the corpus
//     are D_opt / corpus tokens.
//
//   - Training compute: C ≈ 6·N·D FLOPs (2·N·D forward, 4·N·D backward),
//     Kaplan et al. 2020, "Scaling Laws for Neural Language Models",
//     arXiv:2001.08361. The attention term that grows with the context
//     length is left out, as it is there.
//
//   - Repetition: Muennighoff et al. 2023, "Scaling Data-Constrained
//     Language Models", arXiv:2305.16264, find that up to ~4 epochs of
//     repeated data are worth almost as much as fresh data, that returns
//     diminish beyond that, and that repeated tokens are worth little beyond
//     ~16 epochs (their fitted decay constant R*_D ≈ 15.4).
//
//   - Mixtures: each source s with weight w_s contributes
//     T × w_s / Σw tokens of a target total T and is repeated
//     contributed / available epochs.
//
// The numbers are rules of thumb for planning, not predictions of loss.
package budget

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sluice-data/sluice/internal/limit"
)

// Defaults and thresholds of the plan.
const (
	// DefaultTokensPerParam is the Chinchilla rule of thumb (Hoffmann et al. 2022).
	DefaultTokensPerParam = 20.0
	// DiminishingEpochs is where repetition starts to cost (Muennighoff et al. 2023).
	DiminishingEpochs = 4.0
	// WorthlessEpochs is where repetition stops paying (Muennighoff et al. 2023).
	WorthlessEpochs = 16.0
	// UndertrainedRatio flags runs that see less than this fraction of the
	// compute-optimal tokens for their model size.
	UndertrainedRatio = 0.5
)

// Warning codes; a warning about one source of a mixture also names it.
const (
	WarnEpochsOver4         = "epochs_over_4"
	WarnEpochsOver16        = "epochs_over_16"
	WarnOptimalEpochsOver4  = "optimal_epochs_over_4"
	WarnOptimalEpochsOver16 = "optimal_epochs_over_16"
	WarnUndertrained        = "undertrained"
)

// Input describes a run. Zero means "not given" for every field; the corpus
// must come from exactly one of CorpusTokens, Docs × TokensPerDoc or Mix.
type Input struct {
	CorpusTokens   float64 // unique tokens in the training data
	Docs           float64 // documents, with TokensPerDoc instead of CorpusTokens
	TokensPerDoc   float64 // mean tokens per document
	Epochs         float64 // passes over the corpus; 1 when zero; not with Mix
	Params         float64 // model parameters; optional
	TokensPerParam float64 // DefaultTokensPerParam when zero
	Mix            *Mix    // a data mixture instead of one corpus
}

// Mix is a weighted data mixture trained for a target number of tokens.
type Mix struct {
	// TargetTokens is the tokens trained on; when zero, the compute-optimal
	// tokens for Input.Params.
	TargetTokens float64
	Sources      []Source
}

// Source is one part of a mixture.
type Source struct {
	Name   string
	Tokens float64 // unique tokens available
	Weight float64 // relative weight; the weights are normalized
}

// SourcePlan is what one source contributes to a mixture.
type SourcePlan struct {
	Source
	Share       float64 // Weight / Σ weights
	Contributed float64 // Share × target tokens
	Epochs      float64 // Contributed / Tokens
}

// Warning is a problem with the plan.
type Warning struct {
	Code    string
	Source  string // the mixture source concerned, if any
	Message string
}

// Plan is the computed budget. Fields that need the model size are zero
// when Params is.
type Plan struct {
	CorpusTokens, Epochs, Params, TokensPerParam float64

	Docs, TokensPerDoc float64 // zero unless the corpus was given as documents

	TokensSeen float64 // CorpusTokens × Epochs
	FLOPs      float64 // 6 · Params · TokensSeen

	OptimalTokens float64 // Params × TokensPerParam
	EpochsNeeded  float64 // OptimalTokens / CorpusTokens
	OptimalFLOPs  float64 // 6 · Params · OptimalTokens

	// OptimalParams is the compute-optimal model for one epoch of the
	// corpus, CorpusTokens / TokensPerParam; OptimalParamsSeen the one for
	// the tokens seen, TokensSeen / TokensPerParam, which costs
	// OptimalParamsSeenFLOPs = 6 · OptimalParamsSeen · TokensSeen.
	OptimalParams          float64
	OptimalParamsSeen      float64
	OptimalParamsSeenFLOPs float64

	// Mix holds the target tokens (= TokensSeen) of a mixture and Sources
	// its sources in the order given; CorpusTokens is then the sum of the
	// sources' tokens and Epochs the average repetition.
	Mix     bool
	Sources []SourcePlan

	Warnings []Warning
}

// TrainingFLOPs is the training compute of a model with params parameters
// on tokens tokens: 6·N·D (Kaplan et al. 2020).
func TrainingFLOPs(params, tokens float64) float64 { return 6 * params * tokens }

// Compute checks in and plans the run.
func Compute(in Input) (Plan, error) {
	p := Plan{Params: in.Params, TokensPerParam: in.TokensPerParam}
	if err := nonNegative("params", in.Params); err != nil {
		return p, err
	}
	if p.TokensPerParam == 0 {
		p.TokensPerParam = DefaultTokensPerParam
	}
	if err := positive("tokens per parameter", p.TokensPerParam); err != nil {
		return p, err
	}
	if p.Params > 0 {
		p.OptimalTokens = p.Params * p.TokensPerParam
	}

	if in.Mix != nil {
		if in.CorpusTokens != 0 || in.Docs != 0 || in.TokensPerDoc != 0 {
			return p, errors.New("a mixture gives the corpus size: no corpus tokens or documents with it")
		}
		if in.Epochs != 0 {
			return p, errors.New("a mixture gives the tokens seen (its target): no epochs with it")
		}
		if err := p.mix(*in.Mix); err != nil {
			return p, err
		}
	} else {
		if err := p.corpus(in); err != nil {
			return p, err
		}
	}

	p.OptimalParams = p.CorpusTokens / p.TokensPerParam
	p.OptimalParamsSeen = p.TokensSeen / p.TokensPerParam
	p.OptimalParamsSeenFLOPs = TrainingFLOPs(p.OptimalParamsSeen, p.TokensSeen)
	if p.Params > 0 {
		p.FLOPs = TrainingFLOPs(p.Params, p.TokensSeen)
		p.EpochsNeeded = p.OptimalTokens / p.CorpusTokens
		p.OptimalFLOPs = TrainingFLOPs(p.Params, p.OptimalTokens)
	}
	if err := p.checkResults(); err != nil {
		return p, err
	}
	p.warn()
	return p, nil
}

// results is the range of every number a plan computes: inputs that
// are each finite can multiply past what a float64 holds.
var results = limit.Closed(0, math.MaxFloat64)

// checkResults refuses a plan with a number that overflowed, naming it,
// so that no plan with an infinity is printed or encoded.
func (p *Plan) checkResults() error {
	type result struct {
		name string
		v    float64
	}
	named := []result{
		{"corpus tokens", p.CorpusTokens}, {"tokens seen", p.TokensSeen}, {"epochs", p.Epochs},
		{"training FLOPs", p.FLOPs}, {"compute-optimal tokens", p.OptimalTokens},
		{"epochs needed", p.EpochsNeeded}, {"compute-optimal FLOPs", p.OptimalFLOPs},
		{"compute-optimal model", p.OptimalParams}, {"model for the tokens seen", p.OptimalParamsSeen},
		{"compute of the model for the tokens seen", p.OptimalParamsSeenFLOPs},
	}
	for _, s := range p.Sources {
		named = append(named, result{"epochs of source " + s.Name, s.Epochs},
			result{"tokens contributed by source " + s.Name, s.Contributed})
	}
	var errs []error
	for _, r := range named {
		if err := results.Check(r.name, r.v); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// corpus sets the corpus and the tokens seen of a run without a mixture.
func (p *Plan) corpus(in Input) error {
	for _, v := range []struct {
		name string
		x    float64
	}{{"corpus tokens", in.CorpusTokens}, {"documents", in.Docs}, {"tokens per document", in.TokensPerDoc}, {"epochs", in.Epochs}} {
		if err := nonNegative(v.name, v.x); err != nil {
			return err
		}
	}
	switch {
	case in.CorpusTokens > 0 && (in.Docs > 0 || in.TokensPerDoc > 0):
		return errors.New("give the corpus as tokens or as documents × tokens per document, not both")
	case in.CorpusTokens > 0:
		p.CorpusTokens = in.CorpusTokens
	case in.Docs > 0 && in.TokensPerDoc > 0:
		p.Docs, p.TokensPerDoc = in.Docs, in.TokensPerDoc
		p.CorpusTokens = in.Docs * in.TokensPerDoc
	case in.Docs > 0:
		return errors.New("documents need tokens per document")
	case in.TokensPerDoc > 0:
		return errors.New("tokens per document need the number of documents")
	default:
		return errors.New("no corpus size: give its tokens, or documents × tokens per document")
	}
	if err := finite("corpus tokens", p.CorpusTokens); err != nil {
		return err
	}
	p.Epochs = in.Epochs
	if p.Epochs == 0 {
		p.Epochs = 1
	}
	p.TokensSeen = p.CorpusTokens * p.Epochs
	return finite("tokens seen", p.TokensSeen)
}

// mix sets the corpus, the tokens seen and the sources of a mixture.
func (p *Plan) mix(m Mix) error {
	if len(m.Sources) == 0 {
		return errors.New("the mixture has no sources")
	}
	if err := nonNegative("target tokens", m.TargetTokens); err != nil {
		return err
	}
	target := m.TargetTokens
	if target == 0 {
		if p.OptimalTokens == 0 {
			return errors.New("the mixture needs target tokens (or the parameters, to train for the compute-optimal tokens)")
		}
		target = p.OptimalTokens
	}
	seen := map[string]bool{}
	var corpus, weights float64
	for _, s := range m.Sources {
		if s.Name == "" {
			return errors.New("a mixture source has no name")
		}
		if seen[s.Name] {
			return fmt.Errorf("mixture source %q is given twice", s.Name)
		}
		seen[s.Name] = true
		if err := nonNegative(fmt.Sprintf("weight of source %q", s.Name), s.Weight); err != nil {
			return err
		}
		if err := positive(fmt.Sprintf("tokens of source %q", s.Name), s.Tokens); err != nil {
			return err
		}
		corpus += s.Tokens
		weights += s.Weight
	}
	if weights == 0 {
		return errors.New("the mixture's weights are all zero")
	}
	if err := finite("mixture tokens", corpus+weights); err != nil {
		return err
	}
	p.Mix = true
	p.CorpusTokens = corpus
	p.TokensSeen = target
	p.Epochs = target / corpus
	for _, s := range m.Sources {
		sp := SourcePlan{Source: s, Share: s.Weight / weights}
		sp.Contributed = sp.Share * target
		sp.Epochs = sp.Contributed / s.Tokens
		p.Sources = append(p.Sources, sp)
	}
	return nil
}

// warn lists the plan's problems.
func (p *Plan) warn() {
	add := func(code, source, format string, a ...any) {
		p.Warnings = append(p.Warnings, Warning{Code: code, Source: source, Message: fmt.Sprintf(format, a...)})
	}
	if !p.Mix { // a mixture's average repetition hides its sources'; they are checked one by one
		switch {
		case p.Epochs > WorthlessEpochs:
			add(WarnEpochsOver16, "", "%s epochs over the corpus: repeated data is worth little beyond ~16 epochs (Muennighoff et al. 2023); spend the compute on fewer epochs of a larger model, or find more data",
				Number(p.Epochs))
		case p.Epochs > DiminishingEpochs:
			add(WarnEpochsOver4, "", "%s epochs over the corpus: returns diminish after ~4 epochs of repetition (Muennighoff et al. 2023)",
				Number(p.Epochs))
		}
	}
	for _, s := range p.Sources {
		switch {
		case s.Epochs > WorthlessEpochs:
			add(WarnEpochsOver16, s.Name, "source %s is repeated %s epochs: repeated data is worth little beyond ~16 epochs (Muennighoff et al. 2023); lower its weight or add data",
				s.Name, Number(s.Epochs))
		case s.Epochs > DiminishingEpochs:
			add(WarnEpochsOver4, s.Name, "source %s is repeated %s epochs: returns diminish after ~4 epochs of repetition (Muennighoff et al. 2023)",
				s.Name, Number(s.Epochs))
		}
	}
	if p.Params == 0 {
		return
	}
	if p.TokensSeen < UndertrainedRatio*p.OptimalTokens {
		add(WarnUndertrained, "", "undertrained: %s tokens seen are %s%% of the %s compute-optimal for %s parameters at %s tokens per parameter (Hoffmann et al. 2022); a %s-parameter model is compute-optimal for these tokens",
			Count(p.TokensSeen), Number(100*p.TokensSeen/p.OptimalTokens), Count(p.OptimalTokens), Count(p.Params),
			Number(p.TokensPerParam), Count(p.OptimalParamsSeen))
	}
	fourEpochParams := DiminishingEpochs * p.CorpusTokens / p.TokensPerParam
	switch {
	case p.EpochsNeeded > WorthlessEpochs:
		add(WarnOptimalEpochsOver16, "", "the corpus is too small for %s parameters: the compute-optimal %s tokens take %s epochs of its %s, and repeated data is worth little beyond ~16 epochs (Muennighoff et al. 2023); find more data, or train at most %s parameters to stay within 4 epochs",
			Count(p.Params), Count(p.OptimalTokens), Number(p.EpochsNeeded), Count(p.CorpusTokens), Count(fourEpochParams))
	case p.EpochsNeeded > DiminishingEpochs:
		add(WarnOptimalEpochsOver4, "", "the compute-optimal %s tokens for %s parameters take %s epochs of the corpus's %s: returns diminish after ~4 epochs of repetition (Muennighoff et al. 2023); %s parameters stay within 4 epochs",
			Count(p.OptimalTokens), Count(p.Params), Number(p.EpochsNeeded), Count(p.CorpusTokens), Count(fourEpochParams))
	}
}

func finite(name string, x float64) error {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return fmt.Errorf("%s: %v is not a finite number", name, x)
	}
	return nil
}

func nonNegative(name string, x float64) error {
	if err := finite(name, x); err != nil {
		return err
	}
	if x < 0 {
		return fmt.Errorf("%s must not be negative, not %s", name, Number(x))
	}
	return nil
}

func positive(name string, x float64) error {
	if err := finite(name, x); err != nil {
		return err
	}
	if x <= 0 {
		return fmt.Errorf("%s must be positive, not %s", name, Number(x))
	}
	return nil
}

// countSuffixes are the decimal exponents of the count suffixes.
var countSuffixes = map[byte]int{'K': 3, 'M': 6, 'B': 9, 'T': 12}

// ParseCount reads a count of tokens, documents or parameters: a decimal
// number (underscores may separate digits, an exponent is allowed) with an
// optional K, M, B or T suffix (thousand, million, billion, trillion; any
// case): 800, 1_000_000, 7e9, 125M, 1.5T, 2.4b.
func ParseCount(s string) (float64, error) {
	bad := func() (float64, error) {
		return 0, fmt.Errorf("%q is not a count (e.g. 800, 1_000_000, 7e9, 125M, 1.5B, 2T)", s)
	}
	t := strings.TrimSpace(s)
	exp := 0
	if t != "" {
		if e, ok := countSuffixes[strings.ToUpper(t[len(t)-1:])[0]]; ok {
			t, exp = strings.TrimSpace(t[:len(t)-1]), e
		}
	}
	if t == "" {
		return bad()
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c >= '0' && c <= '9', c == '.', c == 'e', c == 'E', c == '+':
		case c == '_':
			if i == 0 || i == len(t)-1 || !isDigit(t[i-1]) || !isDigit(t[i+1]) {
				return bad()
			}
		default: // a sign in front, hex, inf and nan are not counts
			return bad()
		}
	}
	t = strings.ReplaceAll(t, "_", "")
	if t[0] == 'e' || t[0] == 'E' || t[0] == '+' {
		return bad()
	}
	var f float64
	var err error
	if exp > 0 && !strings.ContainsAny(t, "eE") {
		// 2.4e9 is parsed as one decimal, correctly rounded; 2.4 × 1e9 is not.
		f, err = strconv.ParseFloat(t+"e"+strconv.Itoa(exp), 64)
	} else {
		f, err = strconv.ParseFloat(t, 64)
		f *= math.Pow10(exp)
	}
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return bad()
	}
	return f, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
