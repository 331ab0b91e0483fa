package pipefile

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/sluice-data/sluice/internal/limit"
	"github.com/sluice-data/sluice/kernels/quality"
	"go.yaml.in/yaml/v3"
)

// File is a pipeline file: inputs, output, common settings and the ordered
// stages with their parameters.
//
//	input: [corpus/*.jsonl.zst]
//	output: clean/
//	text_field: text
//	annotate: false
//	profile: paper          # quality rule defaults: paper, datatrove, dolma, nemo
//	stages:
//	  - normalize: {form: nfc}
//	  - pii: {kinds: [email, phone, ip]}
//	  - gopher_quality: {min_word_count: 50}
//	  - c4: {}
type File struct {
	Input     []string        `yaml:"input" limit:"[0,10000000]"`
	Output    string          `yaml:"output"`
	TextField string          `yaml:"text_field"`
	Annotate  bool            `yaml:"annotate"`
	Profile   quality.Profile `yaml:"profile"`
	Workers   int             `yaml:"workers" limit:"[0,4096]"` // 0: the command line's
	Overwrite bool            `yaml:"overwrite"`
	Lineage   bool            `yaml:"lineage"` // add _src_file and _src_row to every row
	Stages    []Spec          `yaml:"-"`
}

// Spec is one stage of a pipeline file, its parameters not yet decoded.
type Spec struct {
	Name   string
	Params *yaml.Node // nil when the stage has no parameters
	File   string     // the pipeline file (or the flag) the stage comes from
	Where  string     // "file:line" for error messages
}

// ParseFile reads a pipeline file. Unknown keys and bad values are errors
// naming the file and line.
func ParseFile(name string, data []byte) (*File, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: a pipeline file is a mapping with input, output and stages", name)
	}
	root := doc.Content[0]
	f := &File{TextField: "text", Profile: quality.ProfilePaper}
	var stagesNode *yaml.Node
	rest := &yaml.Node{Kind: yaml.MappingNode, Line: root.Line}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "stages" {
			stagesNode = root.Content[i+1]
			continue
		}
		rest.Content = append(rest.Content, root.Content[i], root.Content[i+1])
	}
	if err := DecodeStrict(rest, f, name, "pipeline file"); err != nil {
		return nil, err
	}
	if stagesNode == nil {
		return nil, fmt.Errorf("%s: no stages (add e.g. `stages: [normalize: {}]`)", name)
	}
	if stagesNode.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: stages is a list, one `- name: {parameters}` item each", name, stagesNode.Line)
	}
	for _, item := range stagesNode.Content {
		where := fmt.Sprintf("%s:%d", name, item.Line)
		switch {
		case item.Kind == yaml.ScalarNode:
			f.Stages = append(f.Stages, Spec{Name: item.Value, File: name, Where: where})
		case item.Kind == yaml.MappingNode && len(item.Content) == 2:
			params := item.Content[1]
			if params.Kind == yaml.ScalarNode && params.Tag == "!!null" {
				params = nil
			}
			f.Stages = append(f.Stages, Spec{Name: item.Content[0].Value, Params: params, File: name, Where: where})
		default:
			return nil, fmt.Errorf("%s: a stage is `- name: {parameters}` or `- name`", where)
		}
	}
	return f, nil
}

// DecodeStrict decodes node into v (a pointer to a struct), failing on
// any key v has no field for and on any value out of the range its field
// declares (limit.Struct: NaN, infinities, negative and absurd numbers,
// over-long lists). Errors name file:line, what was being read and the key.
func DecodeStrict(node *yaml.Node, v any, file, what string) error {
	if node == nil {
		return nil
	}
	if err := checkKeys(node, reflect.TypeOf(v).Elem(), file, what); err != nil {
		return err
	}
	if err := node.Decode(v); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			return fmt.Errorf("%s: %s: %s", file, what, strings.Join(te.Errors, "; "))
		}
		return fmt.Errorf("%s: %s: %w", at(file, node), what, err)
	}
	return checkLimits(node, v, file, what)
}

// checkLimits reports every field of v out of its declared range, each
// at the line of its key.
func checkLimits(node *yaml.Node, v any, file, what string) error {
	var errs []error
	for _, p := range limit.Struct(v) {
		errs = append(errs, fmt.Errorf("%s: %s: %w", at(file, valueAt(node, p.Path)), what, p.Err))
	}
	return errors.Join(errs...)
}

// valueAt finds the node of the value under the keys of path, or the
// deepest mapping on the way that holds it (a default not in the file).
func valueAt(node *yaml.Node, path []string) *yaml.Node {
	for _, key := range path {
		if node.Kind != yaml.MappingNode {
			return node
		}
		next := (*yaml.Node)(nil)
		for i := 0; i+1 < len(node.Content); i += 2 {
			if node.Content[i].Value == key {
				next = node.Content[i+1]
			}
		}
		if next == nil {
			return node
		}
		node = next
	}
	return node
}

func checkKeys(node *yaml.Node, t reflect.Type, file, what string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	if node.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: %s: want a mapping of parameters, got %q", at(file, node), what, node.Value)
	}
	known := map[string]reflect.StructField{}
	yamlKeys(t, known)
	for i := 0; i+1 < len(node.Content); i += 2 {
		k := node.Content[i]
		sf, ok := known[k.Value]
		if !ok {
			names := make([]string, 0, len(known))
			for n := range known {
				names = append(names, n)
			}
			sort.Strings(names)
			return fmt.Errorf("%s: %s: unknown key %q (known: %s)", at(file, k), what, k.Value, strings.Join(names, ", "))
		}
		if err := checkNumber(node.Content[i+1], sf, k.Value); err != nil {
			return fmt.Errorf("%s: %s: %w", at(file, k), what, err)
		}
		if err := checkKeys(node.Content[i+1], sf.Type, file, what+"."+k.Value); err != nil && node.Content[i+1].Kind == yaml.MappingNode {
			return err
		}
	}
	return nil
}

// checkNumber refuses a scalar that a number field cannot hold (.nan for
// an integer, -1 for an unsigned one), naming the key and the range.
func checkNumber(value *yaml.Node, sf reflect.StructField, key string) error {
	t := sf.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if value.Kind != yaml.ScalarNode || !isNumber(t.Kind()) {
		return nil
	}
	if value.Decode(reflect.New(t).Interface()) == nil {
		return nil
	}
	want := "a number"
	if t.Kind() != reflect.Float32 && t.Kind() != reflect.Float64 {
		want = "an integer"
	}
	if tag := sf.Tag.Get("limit"); tag != "" && tag != "any" {
		want += " in " + limit.MustParse(tag).String()
	}
	return &limit.Error{Name: key, Value: value.Value, Want: want}
}

func isNumber(k reflect.Kind) bool {
	return (k >= reflect.Int && k <= reflect.Uint64) || k == reflect.Float32 || k == reflect.Float64
}

// at names a node's place: file:line, or the file alone for nodes built
// from flags.
func at(file string, n *yaml.Node) string {
	if n.Line > 0 {
		return fmt.Sprintf("%s:%d", file, n.Line)
	}
	return file
}

// yamlKeys collects the keys a struct type decodes, with their types,
// looking into inlined structs.
func yamlKeys(t reflect.Type, known map[string]reflect.StructField) {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		parts := strings.Split(sf.Tag.Get("yaml"), ",")
		tag := parts[0]
		if tag == "-" || !sf.IsExported() {
			continue
		}
		if len(parts) > 1 && parts[1] == "inline" && sf.Type.Kind() == reflect.Struct {
			yamlKeys(sf.Type, known)
			continue
		}
		if tag == "" {
			tag = strings.ToLower(sf.Name)
		}
		known[tag] = sf
	}
}
