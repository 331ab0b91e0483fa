package duckdb_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"
)

// TestPartialSchemaReadback converts rows with the README's schema, which
// names some of meta's members, and checks with DuckDB that meta keeps the
// named ones and _extra holds the others under their paths, as the README's
// Schema section shows.
func TestPartialSchemaReadback(t *testing.T) {
	bin := buildSluice(t)
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "schema.json")
	in := filepath.Join(dir, "in.jsonl")
	out := filepath.Join(dir, "out.parquet")
	if err := os.WriteFile(schemaFile, []byte(`{"id": "string", "text": "string", "meta": {"source": "string", "year": "int"}, "tags": ["string"], "extra": "json"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := `{"id": "a", "text": "x", "meta": {"source": "web", "year": "2020", "lang": "en"}}
{"id": "b", "text": "y", "meta": {"source": "books", "year": 1999}}
`
	if err := os.WriteFile(in, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	runSluice(t, bin, "convert", in, "--schema", schemaFile, "-o", out)

	db := openDuckDB(t)
	rs, err := db.QueryContext(t.Context(), `SELECT id, meta.source, meta.year, _extra->>'$."meta.lang"', _extra->>'$."meta.year"', _extra
		FROM read_parquet(`+sqlString(out)+`) ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	type row struct {
		id, source             string
		year                   sql.NullInt64
		lang, extraYear, extra sql.NullString
	}
	want := []row{
		{"a", "web", sql.NullInt64{}, sql.NullString{String: "en", Valid: true}, sql.NullString{String: "2020", Valid: true},
			sql.NullString{String: `{"meta.year":"2020","meta.lang":"en"}`, Valid: true}},
		{"b", "books", sql.NullInt64{Int64: 1999, Valid: true}, sql.NullString{}, sql.NullString{}, sql.NullString{}},
	}
	var got []row
	for rs.Next() {
		var r row
		if err := rs.Scan(&r.id, &r.source, &r.year, &r.lang, &r.extraYear, &r.extra); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}
