package pipefile

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/sluice-data/sluice/kernels/quality"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/stages"
)

// Common are the settings every stage of a run shares.
type Common struct {
	TextField string
	Annotate  bool
	Profile   quality.Profile // quality rule defaults: paper, datatrove, dolma, nemo
}

// builder decodes a spec's parameters and makes its stage.
type builder func(spec Spec, c Common) (pipeline.Stage, error)

type entry struct {
	name   string
	build  builder
	params func() any // the parameters' defaults, as a pointer to them
}

// stage is the entry of a stage whose parameters start as defaults()
// and that newStage makes from them (see decoded).
func stage[P any, S pipeline.Stage](name string, defaults func() P, newStage func(P, Common) (S, error)) entry {
	return entry{name, decoded(defaults, newStage), func() any { p := defaults(); return &p }}
}

// entries lists the stages Build knows: those `sluice clean` runs, in its
// order, then the global stages and the WARC stages that pipeline files
// may use.
func entries() []entry {
	es := []entry{
		stage("normalize", func() stages.NormalizeParams { return stages.NormalizeParams{} },
			func(p stages.NormalizeParams, c Common) (*stages.Normalize, error) {
				return stages.NewNormalize(c.TextField, p)
			}),
		stage("lang", func() stages.LangParams { return stages.LangParams{} },
			func(p stages.LangParams, c Common) (*stages.Lang, error) {
				return stages.NewLang(c.TextField, p, c.Annotate)
			}),
	}
	for _, name := range quality.Names {
		es = append(es, entry{name, qualityBuilder(name), qualityParams(name)})
	}
	return append(es,
		stage("pii", func() stages.PIIParams { return stages.PIIParams{} },
			func(p stages.PIIParams, c Common) (*stages.PII, error) {
				return stages.NewPII(c.TextField, p)
			}),
		stage("classify", func() stages.ClassifyParams { return stages.ClassifyParams{} },
			func(p stages.ClassifyParams, c Common) (*stages.Classify, error) {
				return stages.NewClassify(c.TextField, p, c.Annotate)
			}),
		stage("dedup_exact", func() stages.ExactParams { return stages.ExactParams{IDField: "id"} },
			func(p stages.ExactParams, c Common) (*stages.ExactDedup, error) {
				return stages.NewExactDedup(c.TextField, p), nil
			}),
		stage("dedup_lines", func() linesSpec { return linesSpec{} }, newLines),
		stage("dedup_minhash", stages.DefaultMinHashParams,
			func(p stages.MinHashParams, c Common) (*stages.GlobalMinHash, error) {
				return stages.NewGlobalMinHash(c.TextField, p, c.Annotate)
			}),
		stage("decontaminate", stages.DefaultDecontamParams,
			func(p stages.DecontamParams, c Common) (*stages.Decontaminate, error) {
				return stages.NewDecontaminate(c.TextField, p, c.Annotate)
			}),
		stage("tokens", stages.DefaultTokensParams,
			func(p stages.TokensParams, c Common) (*stages.Tokens, error) {
				return stages.NewTokensStage(c.TextField, p)
			}),
		stage("extract", func() stages.ExtractParams { return stages.ExtractParams{} },
			func(p stages.ExtractParams, c Common) (*stages.Extract, error) {
				return stages.NewExtract(c.TextField, p, c.Annotate)
			}),
		stage("url_filter", func() stages.URLFilterParams { return stages.URLFilterParams{} },
			func(p stages.URLFilterParams, c Common) (*stages.URLFilter, error) {
				return stages.NewURLFilter(p, c.Annotate)
			}),
	)
}

// linesSpec is how a pipeline file writes the parameters of line dedup.
type linesSpec struct {
	Keep         string `yaml:"keep"` // none or first
	MinLineChars int    `yaml:"min_line_chars" limit:"[0,1e9]"`
}

func newLines(p linesSpec, c Common) (*stages.GlobalLines, error) {
	if p.Keep != "" && p.Keep != "none" && p.Keep != "first" {
		return nil, fmt.Errorf("keep must be none or first, not %q", p.Keep)
	}
	return stages.NewGlobalLines(c.TextField, stages.LinesParams{KeepFirst: p.Keep == "first", MinLineChars: p.MinLineChars}), nil
}

// decoded returns the builder of a stage whose parameters start as
// defaults() and take the spec's values, decoded strictly (unknown keys
// are errors naming the line), and that newStage makes from them.
func decoded[P any, S pipeline.Stage](defaults func() P, newStage func(P, Common) (S, error)) builder {
	return func(spec Spec, c Common) (pipeline.Stage, error) {
		p := defaults()
		if err := DecodeStrict(spec.Params, &p, spec.File, "stage "+spec.Name); err != nil {
			return nil, err
		}
		s, err := newStage(p, c)
		if err != nil {
			return nil, fmt.Errorf("%s: stage %s: %w", spec.Where, spec.Name, err)
		}
		return s, nil
	}
}

// qualityBuilder returns the builder of the quality rule set name: the
// rule defaults of the run's profile, overridden by the stage's
// parameters, which are the rule set's own part of the quality config.
func qualityBuilder(name string) builder {
	return func(spec Spec, c Common) (pipeline.Stage, error) {
		cfg, err := quality.ProfileConfig(c.Profile)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec.Where, err)
		}
		rules, err := stages.RuleSetConfig(&cfg, name)
		if err != nil {
			return nil, fmt.Errorf("%s: stage %s: %w", spec.Where, spec.Name, err)
		}
		if err := DecodeStrict(spec.Params, rules, spec.File, "stage "+spec.Name); err != nil {
			return nil, err
		}
		s, err := stages.NewQuality(c.TextField, name, cfg, c.Annotate)
		if err != nil {
			return nil, fmt.Errorf("%s: stage %s: %w", spec.Where, spec.Name, err)
		}
		return s, nil
	}
}

// qualityParams returns the defaults of the quality rule set name under
// the paper profile.
func qualityParams(name string) func() any {
	return func() any {
		cfg := quality.DefaultConfig()
		rules, _ := stages.RuleSetConfig(&cfg, name)
		return rules
	}
}

// registry is the stages Build knows, by name, and their names in order.
type registry struct {
	names  []string
	build  map[string]builder
	params map[string]func() any
}

// newRegistry checks the entries: each has a name and a builder, no name
// repeats, and every quality rule set has its part of the quality config.
func newRegistry(es []entry) (*registry, error) {
	r := &registry{build: make(map[string]builder, len(es)), params: make(map[string]func() any, len(es))}
	var errs []error
	for _, e := range es {
		switch {
		case e.name == "" || e.build == nil:
			errs = append(errs, fmt.Errorf("pipefile: stage %q registered without a name or a builder", e.name))
		case r.build[e.name] != nil:
			errs = append(errs, fmt.Errorf("pipefile: stage %q registered twice", e.name))
		default:
			r.names = append(r.names, e.name)
			r.build[e.name] = e.build
			r.params[e.name] = e.params
		}
	}
	def := quality.DefaultConfig()
	for _, name := range quality.Names {
		if _, err := stages.RuleSetConfig(&def, name); err != nil {
			errs = append(errs, fmt.Errorf("pipefile: stage %s: %w", name, err))
		}
	}
	return r, errors.Join(errs...)
}

var known = sync.OnceValues(func() (*registry, error) { return newRegistry(entries()) })

// Names lists the stages Build knows: those `sluice clean` runs, in its
// order, then the global stages and the WARC stages that pipeline files
// may use.
func Names() []string {
	r, _ := known()
	return append([]string(nil), r.names...)
}

// Params returns the default parameters of the stage name (a pointer to
// its parameter struct, whose fields are the keys a pipeline file gives
// it), or false for an unknown stage.
func Params(name string) (any, bool) {
	r, _ := known()
	if p := r.params[name]; p != nil {
		return p(), true
	}
	return nil, false
}

// Build makes the stage a spec names, with its parameters decoded
// strictly (unknown keys are errors naming the line). An unknown stage is
// an error that lists the known ones.
func Build(spec Spec, c Common) (pipeline.Stage, error) {
	r, err := known()
	if err != nil {
		return nil, err
	}
	build, ok := r.build[spec.Name]
	if !ok {
		return nil, fmt.Errorf("%s: unknown stage %q (known: %s)", spec.Where, spec.Name, strings.Join(r.names, ", "))
	}
	return build(spec, c)
}
