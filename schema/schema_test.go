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

// TestMergeKeepsBigIntegersExact checks that an int field holding integers
// beyond ±2^53 never widens to float, where they would be rounded: meeting a
// float makes it a JSON column instead.
func TestMergeKeepsBigIntegersExact(t *testing.T) {
	big := func() *Type { return &Type{Kind: Int, BigInt: true} }
	for _, c := range []struct {
		a, b *Type
		want string
		big  bool
	}{
		{big(), Scalar(Float), "json", false},
		{Scalar(Float), big(), "json", false},
		{Scalar(Int), Scalar(Float), "float", false},
		{big(), Scalar(Int), "int", true},
		{Scalar(Int), big(), "int", true},
		{big(), big(), "int", true},
		{Scalar(Int), Scalar(Int), "int", false},
		{big(), Scalar(Null), "int", true},
		{Scalar(Null), big(), "int", true},
		{big(), Scalar(String), "json", false},
	} {
		a, b := *c.a, *c.b
		got := Merge(c.a, c.b)
		if got.Kind.String() != c.want || got.BigInt != c.big {
			t.Errorf("Merge(%s big=%v, %s big=%v) = %s big=%v, want %s big=%v", c.a, c.a.BigInt, c.b, c.b.BigInt, got, got.BigInt, c.want, c.big)
		}
		if c.a.Kind != a.Kind || c.a.BigInt != a.BigInt || c.b.Kind != b.Kind || c.b.BigInt != b.BigInt {
			t.Errorf("Merge(%s, %s) modified its arguments", c.a, c.b)
		}
	}
	// Inside structs and lists too.
	s := func(x *Type) *Type { return &Type{Kind: Struct, Fields: []Field{{Name: "x", Type: x}}} }
	l := func(x *Type) *Type { return &Type{Kind: List, Elem: x} }
	if got := Merge(s(big()), s(Scalar(Float))).String(); got != `{"x": "json"}` {
		t.Errorf("struct: %s", got)
	}
	if got := Merge(l(Scalar(Float)), l(big())).String(); got != `["json"]` {
		t.Errorf("list: %s", got)
	}
	if got := Merge(Merge(s(Scalar(Int)), s(big())), s(Scalar(Float))).String(); got != `{"x": "json"}` {
		t.Errorf("struct merged twice: %s", got)
	}
	// The mark is inference's own: it is kept by Finalize and does not show
	// in the schema text.
	fin := Finalize(s(big()))
	if !fin.Fields[0].Type.BigInt || fin.String() != `{"x": "int"}` {
		t.Errorf("Finalize = %s, big=%v", fin, fin.Fields[0].Type.BigInt)
	}
}
