package limit

import (
	"reflect"
	"strings"
)

// Default is the range of a number field without a limit tag, and
// DefaultLen the range of the length of a list or map without one: no
// negative value, no absurd one.
var (
	Default    = Closed(0, 1e15)
	DefaultLen = Closed(0, 1<<20)
)

// Problem is a field Struct refused: Path holds the keys from the struct
// down to the field, as a pipeline file writes them.
type Problem struct {
	Path []string
	Err  *Error
}

// Struct checks every exported field of the struct v points to (or is),
// named by its yaml key, and returns the fields refused, in order:
//
//   - a number (any int, uint or float kind, or a non-nil pointer to one)
//     must lie in the range of its tag `limit:"[lo,hi]"`, or in Default
//     without one; `limit:"any"` lets an integer take any value of its
//     type (seeds). A float is always finite.
//   - a slice or map must have a length in its tag's range, or in
//     DefaultLen; numbers in it must be finite and in Default.
//   - a struct is checked field by field; an inlined one (`yaml:",inline"`)
//     under the keys of the struct around it.
//
// Fields with `yaml:"-"` are not read from files and are not checked.
func Struct(v any) []Problem {
	var out []Problem
	walk(reflect.ValueOf(v), nil, &out)
	return out
}

// walk checks every field of the struct value v, under path.
func walk(v reflect.Value, path []string, out *[]Problem) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return
	}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		key, inline, skip := yamlKey(sf)
		if skip {
			continue
		}
		if inline {
			walk(v.Field(i), path, out)
			continue
		}
		field(v.Field(i), sf.Tag.Get("limit"), append(path[:len(path):len(path)], key), out)
	}
}

// field checks one field's value against its tag.
func field(v reflect.Value, tag string, path []string, out *[]Problem) {
	fail := func(err error) {
		if err != nil {
			*out = append(*out, Problem{Path: path, Err: err.(*Error)})
		}
	}
	name := strings.Join(path, ".")
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		if isNumber(v.Elem().Kind()) {
			v = v.Elem()
		}
	}
	switch {
	case isNumber(v.Kind()):
		fail(checkNumber(v, tag, name))
	case v.Kind() == reflect.Slice || v.Kind() == reflect.Array || v.Kind() == reflect.Map:
		r := DefaultLen
		if tag != "" {
			r = MustParse(tag)
		}
		fail(r.Len(name, v.Len()))
		if v.Kind() == reflect.Map {
			return
		}
		for j := 0; j < v.Len(); j++ {
			e := v.Index(j)
			if isNumber(e.Kind()) {
				fail(checkNumber(e, "", name))
			} else {
				walk(e, path, out)
			}
		}
	default:
		walk(v, path, out)
	}
}

// checkNumber checks a number field against its tag's range.
func checkNumber(v reflect.Value, tag, name string) error {
	r := Default
	switch tag {
	case "any":
		if v.CanFloat() {
			return Closed(-1e300, 1e300).Float(name, v.Float())
		}
		return nil
	case "":
	default:
		r = MustParse(tag)
	}
	switch {
	case v.CanInt():
		return r.Int(name, v.Int())
	case v.CanUint():
		return r.Uint(name, v.Uint())
	default:
		return r.Float(name, v.Float())
	}
}

func isNumber(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// yamlKey is the key a field is read under, as package yaml names it
// (the tag's name, or the field's name in lower case), and whether it is
// inlined or not read at all.
func yamlKey(sf reflect.StructField) (key string, inline, skip bool) {
	parts := strings.Split(sf.Tag.Get("yaml"), ",")
	if parts[0] == "-" || !sf.IsExported() {
		return "", false, true
	}
	for _, p := range parts[1:] {
		if p == "inline" {
			return "", true, false
		}
	}
	if parts[0] == "" {
		return strings.ToLower(sf.Name), false, false
	}
	return parts[0], false, false
}

// Untagged lists the fields of struct type t (under its yaml keys) that
// hold numbers or lists but declare no limit tag, so that a test can
// require every option to say what it takes.
func Untagged(t reflect.Type) []string {
	var out []string
	eachField(t, nil, func(sf reflect.StructField, ft reflect.Type, p []string) {
		k := ft.Kind()
		if (isNumber(k) || k == reflect.Slice || k == reflect.Array || k == reflect.Map) && sf.Tag.Get("limit") == "" {
			out = append(out, strings.Join(p, "."))
		}
	})
	return out
}

// Field is a number field of an options struct: its keys, its kind and
// the range it takes (Any: every value of its kind).
type Field struct {
	Path  []string
	Kind  reflect.Kind
	Range Range
	Any   bool
}

// Fields lists the number fields of struct type t, as Struct checks them,
// so that tests can try values out of range on every one.
func Fields(t reflect.Type) []Field {
	var out []Field
	eachField(t, nil, func(sf reflect.StructField, ft reflect.Type, p []string) {
		if !isNumber(ft.Kind()) {
			return
		}
		tag := sf.Tag.Get("limit")
		f := Field{Path: p, Kind: ft.Kind(), Range: Default, Any: tag == "any"}
		if tag != "" && tag != "any" {
			f.Range = MustParse(tag)
		}
		out = append(out, f)
	})
	return out
}

// eachField calls visit for every field of struct type t and of the
// structs it holds, inline fields under their parent's keys, with the
// field's type behind its pointers and its keys.
func eachField(t reflect.Type, path []string, visit func(sf reflect.StructField, ft reflect.Type, path []string)) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return
	}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		key, inline, skip := yamlKey(sf)
		switch {
		case skip:
		case inline:
			eachField(sf.Type, path, visit)
		default:
			p := append(path[:len(path):len(path)], key)
			ft := sf.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			visit(sf, ft, p)
			eachField(ft, p, visit)
		}
	}
}
