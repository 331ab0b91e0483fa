package duckdb_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestTasksParquetUnnest converts a small instruction file with
// `sluice tasks convert --to parquet` and checks that DuckDB reads the
// messages column as a list of structs and that unnest gives the turns.
func TestTasksParquetUnnest(t *testing.T) {
	bin := buildSluice(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "tasks.jsonl")
	if err := os.WriteFile(in, []byte(`{"instruction":"Add the numbers.","input":"2 and 3","output":"5","id":"a"}
{"instruction":"Name a colour.","output":"Blue.","system":"Be brief."}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "tasks.parquet")
	runSluice(t, bin, "tasks", "convert", in, "-o", out, "--to", "parquet")
	db := openDuckDB(t)

	var typ string
	if err := db.QueryRow(`SELECT typeof(messages) FROM read_parquet(?) LIMIT 1`, out).Scan(&typ); err != nil {
		t.Fatal(err)
	}
	if typ != `STRUCT("role" VARCHAR, "content" VARCHAR)[]` && typ != `STRUCT(role VARCHAR, content VARCHAR)[]` {
		t.Errorf("messages is %s in DuckDB, want a list of struct(role, content)", typ)
	}
	// Two unnests in one SELECT run side by side: i numbers the turns, so
	// the order does not rest on the sort being stable.
	rows, err := db.Query(`SELECT file_row_number, m.role, m.content
		FROM (SELECT file_row_number, unnest(generate_series(1, len(messages))) AS i, unnest(messages) AS m
		      FROM read_parquet(?, file_row_number = true))
		ORDER BY file_row_number, i`, out)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got [][3]any
	for rows.Next() {
		var row int64
		var role, content string
		if err := rows.Scan(&row, &role, &content); err != nil {
			t.Fatal(err)
		}
		got = append(got, [3]any{row, role, content})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := [][3]any{
		{int64(0), "user", "Add the numbers.\n\n2 and 3"}, {int64(0), "assistant", "5"},
		{int64(1), "system", "Be brief."}, {int64(1), "user", "Name a colour."}, {int64(1), "assistant", "Blue."},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("unnest(messages):\n got %v\nwant %v", got, want)
	}
	var id string
	if err := db.QueryRow(`SELECT json_extract_string(extra, '$.id') FROM read_parquet(?) WHERE extra IS NOT NULL`, out).Scan(&id); err != nil || id != "a" {
		t.Errorf("extra id %q (%v), want a", id, err)
	}
}
