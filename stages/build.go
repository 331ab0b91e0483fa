package stages

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/sluice-data/sluice/kernels/minhash"
	"github.com/sluice-data/sluice/kernels/quality"
	"github.com/sluice-data/sluice/pipeline"
)

// Common are the settings every stage of a run shares.
type Common struct {
	TextField string
	Annotate  bool
	Profile   string // quality rule defaults: paper, datatrove, dolma, nemo
}

// Names lists the stages Build knows: those `sluice clean` runs, in its
// order, then the dedup stages that pipeline files may use.
var Names = append([]string{"normalize", "lang"}, append(append([]string(nil), quality.Names...), "pii", "classify", "dedup_exact", "dedup_lines", "dedup_minhash", "decontaminate", "extract", "url_filter")...)

// Build makes the stage a spec names, with its parameters decoded
// strictly (unknown keys are errors naming the line).
func Build(spec Spec, c Common) (pipeline.Stage, error) {
	what := "stage " + spec.Name
	switch spec.Name {
	case "normalize":
		var p NormalizeParams
		if err := DecodeStrict(spec.Params, &p, spec.File, what); err != nil {
			return nil, err
		}
		s, err := NewNormalize(c.TextField, p)
		return wrap(s, err, spec)
	case "dedup_exact":
		p := ExactParams{IDField: "id"}
		if err := DecodeStrict(spec.Params, &p, spec.File, what); err != nil {
			return nil, err
		}
		return NewExactDedup(c.TextField, p), nil
	case "dedup_lines":
		var p struct {
			Keep         string `yaml:"keep"`
			MinLineChars int    `yaml:"min_line_chars"`
		}
		if err := DecodeStrict(spec.Params, &p, spec.File, what); err != nil {
			return nil, err
		}
		if p.Keep != "" && p.Keep != "none" && p.Keep != "first" {
			return nil, fmt.Errorf("%s: stage dedup_lines: keep must be none or first, not %q", spec.Where, p.Keep)
		}
		return NewGlobalLines(c.TextField, LinesParams{KeepFirst: p.Keep == "first", MinLineChars: p.MinLineChars}), nil
	case "dedup_minhash":
		p := MinHashParams{Params: minhash.DefaultParams(), Threshold: 0.8, Verify: "jaccard", Keep: "first", IDField: "id"}
		p.Seed = 1
		if err := DecodeStrict(spec.Params, &p, spec.File, what); err != nil {
			return nil, err
		}
		s, err := NewGlobalMinHash(c.TextField, p, c.Annotate)
		return wrap(s, err, spec)
	case "decontaminate":
		p := DefaultDecontamParams()
		if err := DecodeStrict(spec.Params, &p, spec.File, what); err != nil {
			return nil, err
		}
		s, err := NewDecontaminate(c.TextField, p, c.Annotate)
		return wrap(s, err, spec)
	case "extract":
		var p ExtractParams
		if err := DecodeStrict(spec.Params, &p, spec.File, what); err != nil {
			return nil, err
		}
		s, err := NewExtract(c.TextField, p, c.Annotate)
		return wrap(s, err, spec)
	case "url_filter":
		var p URLFilterParams
		if err := DecodeStrict(spec.Params, &p, spec.File, what); err != nil {
			return nil, err
		}
		s, err := NewURLFilter(p, c.Annotate)
		return wrap(s, err, spec)
	case "lang":
		var p LangParams
		if err := DecodeStrict(spec.Params, &p, spec.File, what); err != nil {
			return nil, err
		}
		s, err := NewLang(c.TextField, p, c.Annotate)
		return wrap(s, err, spec)
	case "classify":
		var p ClassifyParams
		if err := DecodeStrict(spec.Params, &p, spec.File, what); err != nil {
			return nil, err
		}
		s, err := NewClassify(c.TextField, p, c.Annotate)
		return wrap(s, err, spec)
	case "pii":
		var p PIIParams
		if err := DecodeStrict(spec.Params, &p, spec.File, what); err != nil {
			return nil, err
		}
		s, err := NewPII(c.TextField, p)
		return wrap(s, err, spec)
	}
	for _, name := range quality.Names {
		if spec.Name != name {
			continue
		}
		cfg, err := quality.ProfileConfig(profileOrDefault(c.Profile))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec.Where, err)
		}
		// A stage's parameters are its own part of the quality config.
		if err := DecodeStrict(spec.Params, ruleSetConfig(&cfg, name), spec.File, what); err != nil {
			return nil, err
		}
		s, err := NewQuality(c.TextField, name, cfg, c.Annotate)
		return wrap(s, err, spec)
	}
	return nil, fmt.Errorf("%s: unknown stage %q (known: %s)", spec.Where, spec.Name, strings.Join(Names, ", "))
}

// ruleSetConfig returns a pointer to the field of c that configures the
// rule set name (the field whose yaml key is the name).
func ruleSetConfig(c *quality.Config, name string) any {
	v := reflect.ValueOf(c).Elem()
	for i := 0; i < v.NumField(); i++ {
		if strings.Split(v.Type().Field(i).Tag.Get("yaml"), ",")[0] == name {
			return v.Field(i).Addr().Interface()
		}
	}
	panic("stages: quality.Config has no field for rule set " + name)
}

func profileOrDefault(p string) string {
	if p == "" {
		return "paper"
	}
	return p
}

func wrap[S pipeline.Stage](s S, err error, spec Spec) (pipeline.Stage, error) {
	if err != nil {
		return nil, fmt.Errorf("%s: stage %s: %w", spec.Where, spec.Name, err)
	}
	return s, nil
}
