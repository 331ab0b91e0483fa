package schema

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func mustParse(t *testing.T, s string) *Type {
	t.Helper()
	typ, err := Parse([]byte(s))
	if err != nil {
		t.Fatalf("Parse(%s): %v", s, err)
	}
	return typ
}

func TestMergeWidens(t *testing.T) {
	cases := []struct{ a, b, want string }{
		{`{"x":"int"}`, `{"x":"float"}`, `{"x": "float"}`},
		{`{"x":"int"}`, `{"x":"string"}`, `{"x": "json"}`},
		{`{"x":"string"}`, `{"x":{"y":"int"}}`, `{"x": "json"}`},
		{`{"x":{"a":"int"}}`, `{"x":{"b":"bool","a":"float"}}`, `{"x": {"a": "float", "b": "bool"}}`},
		{`{"x":["int"]}`, `{"x":["string"]}`, `{"x": ["json"]}`},
		{`{"x":"json"}`, `{"x":"int"}`, `{"x": "json"}`},
		{`{"a":"int"}`, `{"b":"string"}`, `{"a": "int", "b": "string"}`},
	}
	for _, c := range cases {
		got := Merge(mustParse(t, c.a), mustParse(t, c.b)).String()
		if got != c.want {
			t.Errorf("Merge(%s, %s) = %s, want %s", c.a, c.b, got, c.want)
		}
		if back := Merge(mustParse(t, c.b), mustParse(t, c.a)); len(back.Fields) != len(mustParse(t, c.want).Fields) {
			t.Errorf("Merge is not symmetric in its fields for %s, %s", c.a, c.b)
		}
	}
	// Null gives way to anything.
	if got := Merge(Scalar(Null), Scalar(Int)); got.Kind != Int {
		t.Errorf("Merge(null, int) = %s", got)
	}
}

func TestParseRejectsBadSchemas(t *testing.T) {
	for _, s := range []string{`"string"`, `{"a":"integer"}`, `{"a":[]}`, `{"a":["int","string"]}`, `{"a":"int","a":"int"}`, `{"a":1}`, `{"a":"int"} x`} {
		if _, err := Parse([]byte(s)); err == nil {
			t.Errorf("Parse(%s) accepted a bad schema", s)
		}
	}
	_, err := Parse([]byte(`{"meta":{"year":"integer"}}`))
	if err == nil || !strings.Contains(err.Error(), "meta.year") {
		t.Errorf("error does not name the field: %v", err)
	}
}

func TestArrowMappingRoundTrips(t *testing.T) {
	typ := mustParse(t, `{"id":"string","n":"int","f":"float","b":"bool","j":"json","m":{"tags":["string"],"any":["json"]},"l":[{"k":"int"}]}`)
	s := typ.ArrowSchema(true)
	want := map[string]arrow.Type{"id": arrow.STRING, "n": arrow.INT64, "f": arrow.FLOAT64, "b": arrow.BOOL, "j": arrow.STRING,
		"m": arrow.STRUCT, "l": arrow.LIST, ExtraField: arrow.STRING}
	for name, id := range want {
		idx := s.FieldIndices(name)
		if len(idx) != 1 || s.Field(idx[0]).Type.ID() != id {
			t.Errorf("column %s: %v, want %v", name, s.Field(idx[0]).Type, id)
		}
	}
	paths := JSONPaths(s)
	for _, p := range []string{"j", "m.any[]", ExtraField} {
		if !paths[p] {
			t.Errorf("JSON path %s not recorded (have %v)", p, paths)
		}
	}
	back, hasExtra, err := FromArrowSchema(s)
	if err != nil {
		t.Fatal(err)
	}
	if !hasExtra || back.String() != typ.String() {
		t.Fatalf("FromArrowSchema = %s (extra %v), want %s", back, hasExtra, typ)
	}
}

func TestFinalizeTurnsEmptyStructsIntoJSON(t *testing.T) {
	typ := &Type{Kind: Struct, Fields: []Field{
		{Name: "e", Type: &Type{Kind: Struct}},
		{Name: "l", Type: &Type{Kind: List, Elem: &Type{Kind: Struct}}},
	}}
	if got := Finalize(typ).String(); got != `{"e": "json", "l": ["json"]}` {
		t.Fatalf("Finalize = %s", got)
	}
}
