package budget

import (
	"errors"
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// ParseMixFile reads a mixture from YAML:
//
//	target_tokens: 1T          # optional: the compute-optimal tokens for the model otherwise
//	sources:
//	  web:  {tokens: 800B, weight: 0.7}
//	  code: {tokens: 100B, weight: 0.3}
//
// Counts take ParseCount's forms; weights are relative and need not sum to 1.
// The sources keep the file's order. Errors name the line.
func ParseMixFile(data []byte) (Mix, error) {
	var m Mix
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return m, err
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return m, errors.New("the mixture file is empty")
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return m, lineErr(root, "the mixture file must be a mapping with target_tokens and sources")
	}
	var sources *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "target_tokens":
			n, err := countNode(v)
			if err != nil {
				return m, lineErr(v, "target_tokens: %v", err)
			}
			m.TargetTokens = n
		case "sources":
			sources = v
		default:
			return m, lineErr(k, "unknown key %q (target_tokens, sources)", k.Value)
		}
	}
	if sources == nil {
		return m, lineErr(root, "no sources")
	}
	if sources.Kind != yaml.MappingNode || len(sources.Content) == 0 {
		return m, lineErr(sources, "sources must map each source's name to its tokens and weight")
	}
	for i := 0; i+1 < len(sources.Content); i += 2 {
		k, v := sources.Content[i], sources.Content[i+1]
		s := Source{Name: k.Value}
		if v.Kind != yaml.MappingNode {
			return m, lineErr(v, "source %s: want {tokens: N, weight: W}", s.Name)
		}
		var hasTokens, hasWeight bool
		for j := 0; j+1 < len(v.Content); j += 2 {
			fk, fv := v.Content[j], v.Content[j+1]
			switch fk.Value {
			case "tokens":
				n, err := countNode(fv)
				if err != nil {
					return m, lineErr(fv, "source %s: tokens: %v", s.Name, err)
				}
				s.Tokens, hasTokens = n, true
			case "weight":
				w, err := strconv.ParseFloat(fv.Value, 64)
				if fv.Kind != yaml.ScalarNode || err != nil {
					return m, lineErr(fv, "source %s: weight %q is not a number", s.Name, fv.Value)
				}
				s.Weight, hasWeight = w, true
			default:
				return m, lineErr(fk, "source %s: unknown key %q (tokens, weight)", s.Name, fk.Value)
			}
		}
		if !hasTokens {
			return m, lineErr(v, "source %s has no tokens", s.Name)
		}
		if !hasWeight {
			return m, lineErr(v, "source %s has no weight", s.Name)
		}
		m.Sources = append(m.Sources, s)
	}
	return m, nil
}

func countNode(n *yaml.Node) (float64, error) {
	if n.Kind != yaml.ScalarNode {
		return 0, errors.New("want a count such as 800B")
	}
	return ParseCount(n.Value)
}

func lineErr(n *yaml.Node, format string, a ...any) error {
	return fmt.Errorf("line %d: %s", n.Line, fmt.Sprintf(format, a...))
}
