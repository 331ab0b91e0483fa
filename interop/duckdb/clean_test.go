package duckdb_test

import (
	"database/sql"
	"path/filepath"
	"testing"
)

// TestCleanAnnotateReadback checks that the signal, keep and drop_reason
// columns of `sluice clean --annotate` are what DuckDB users query, and
// that filter mode's removed/ holds exactly the rows annotate marks
// keep=false.
func TestCleanAnnotateReadback(t *testing.T) {
	bin := buildSluice(t)
	dir := t.TempDir()
	src := filepath.Join("..", "..", "demo", "sample.jsonl")
	annotated := filepath.Join(dir, "annotated")
	filtered := filepath.Join(dir, "filtered")
	args := []string{"--normalize", "--filters", "gopher_quality,gopher_repetition,c4,fineweb", "--pii", "email,phone,ip"}
	runSluice(t, bin, append([]string{"clean", src, "-o", annotated, "--annotate"}, args...)...)
	runSluice(t, bin, append([]string{"clean", src, "-o", filtered}, args...)...)

	db := openDuckDB(t)
	ann := "read_parquet('" + filepath.Join(annotated, "data", "*.parquet") + "')"
	var kept, dropped int
	var meanWordLen sql.NullFloat64
	err := db.QueryRow(`SELECT count(*) FILTER (WHERE keep), count(*) FILTER (WHERE NOT keep), avg(gopher_mean_word_length) FROM `+ann).
		Scan(&kept, &dropped, &meanWordLen)
	if err != nil {
		t.Fatal(err)
	}
	if kept == 0 || dropped == 0 || !meanWordLen.Valid || meanWordLen.Float64 < 3 || meanWordLen.Float64 > 10 {
		t.Fatalf("kept %d, dropped %d, avg mean word length %v", kept, dropped, meanWordLen)
	}
	types := describe(t, db, "SELECT keep, drop_reason, gopher_mean_word_length, pii_email FROM "+ann)
	for col, want := range map[string]string{"keep": "BOOLEAN", "drop_reason": "VARCHAR", "pii_email": "BIGINT"} {
		if types[col] != want {
			t.Errorf("column %s is %s, want %s", col, types[col], want)
		}
	}

	removed := "read_parquet('" + filepath.Join(filtered, "removed", "*.parquet") + "')"
	var mismatched, removedRows int
	err = db.QueryRow(`SELECT count(*) FROM ` + removed).Scan(&removedRows)
	if err != nil {
		t.Fatal(err)
	}
	err = db.QueryRow(`SELECT count(*) FROM (
		SELECT id, _stage || ':' || _reason AS why FROM ` + removed + `
		FULL OUTER JOIN (SELECT id AS aid, drop_reason FROM ` + ann + ` WHERE NOT keep) a ON id = aid
		WHERE id IS NULL OR aid IS NULL OR why <> drop_reason)`).Scan(&mismatched)
	if err != nil {
		t.Fatal(err)
	}
	if removedRows != dropped || mismatched != 0 {
		t.Fatalf("filter removed %d rows, annotate dropped %d, %d disagree", removedRows, dropped, mismatched)
	}
	var leaked int
	if err := db.QueryRow(`SELECT count(*) FROM read_parquet('` + filepath.Join(filtered, "data", "*.parquet") + `') WHERE text LIKE '%@example.com%'`).Scan(&leaked); err != nil {
		t.Fatal(err)
	}
	if leaked != 0 {
		t.Fatalf("%d kept rows still hold an e-mail address", leaked)
	}
}
