package duckdb_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// duckTypesSQL makes a table with a column of every type that other tools'
// Parquet commonly holds and that sluice must read back as JSON values.
const duckTypesSQL = `CREATE TABLE t AS SELECT * FROM (VALUES
	(1, '{"a": [1, 2.5, null], "b": {"c": "x"}}'::JSON, -1::TINYINT, 255::UTINYINT, 65535::USMALLINT,
	 4294967295::UINTEGER, 18446744073709551615::UBIGINT, 1234.50::DECIMAL(10,2), DATE '2024-02-29',
	 TIMESTAMP '2024-02-29 13:45:30.123456', TIMESTAMPTZ '2024-02-29 13:45:30+00',
	 '0e2c5a9c-3b1f-4d2e-9a57-6c1d8f0b7e42'::UUID, '\x00\xffhi'::BLOB,
	 [1, 2, 3], {'name': 'x', 'n': 7, 'j': '[true]'::JSON}, ['{"k": 1}'::JSON, NULL, '3'::JSON]),
	(2, '"just a string"'::JSON, 127::TINYINT, 0::UTINYINT, 0::USMALLINT,
	 0::UINTEGER, 0::UBIGINT, -0.01::DECIMAL(10,2), DATE '1970-01-01',
	 TIMESTAMP '1970-01-01 00:00:00', TIMESTAMPTZ '1999-12-31 23:59:59.5+00',
	 '00000000-0000-0000-0000-000000000000'::UUID, ''::BLOB,
	 [], {'name': NULL, 'n': NULL, 'j': NULL}, []::JSON[]),
	(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
) AS v(id, j, i8, u8, u16, u32, u64, dec, d, ts, tstz, u, b, l, s, lj)`

// duckTypesJSONL is what sluice convert writes for that table: numbers for
// every integer and decimal type, ISO 8601 text for dates and timestamps,
// the canonical text of UUIDs, base64 for binary, and the JSON column's
// values embedded as JSON, not as strings.
const duckTypesJSONL = `{"id":1,"j":{"a":[1,2.5,null],"b":{"c":"x"}},"i8":-1,"u8":255,"u16":65535,"u32":4294967295,"u64":18446744073709551615,"dec":1234.50,"d":"2024-02-29","ts":"2024-02-29T13:45:30.123456","tstz":"2024-02-29T13:45:30Z","u":"0e2c5a9c-3b1f-4d2e-9a57-6c1d8f0b7e42","b":"AP9oaQ==","l":[1,2,3],"s":{"name":"x","n":7,"j":[true]},"lj":[{"k":1},null,3]}
{"id":2,"j":"just a string","i8":127,"u8":0,"u16":0,"u32":0,"u64":0,"dec":-0.01,"d":"1970-01-01","ts":"1970-01-01T00:00:00","tstz":"1999-12-31T23:59:59.5Z","u":"00000000-0000-0000-0000-000000000000","b":"","l":[],"s":{"name":null,"n":null,"j":null},"lj":[]}
{"id":3,"j":null,"i8":null,"u8":null,"u16":null,"u32":null,"u64":null,"dec":null,"d":null,"ts":null,"tstz":null,"u":null,"b":null,"l":null,"s":null,"lj":null}
`

// goldenParquet is the copy of the DuckDB file kept in the main module, so
// that its tests check the same reading without cgo or DuckDB.
const goldenParquet = "../../io/pqio/testdata/duckdb_types.parquet"

// TestForeignParquetToJSONL writes a table through DuckDB's COPY TO
// Parquet, converts the file to JSONL with sluice and checks every value.
// With SLUICE_UPDATE_GOLDEN=1 it also replaces the main module's copy of
// the file.
func TestForeignParquetToJSONL(t *testing.T) {
	bin := buildSluice(t)
	db := openDuckDB(t)
	dir := t.TempDir()
	pq := filepath.Join(dir, "duck.parquet")
	if _, err := db.ExecContext(t.Context(), duckTypesSQL); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(t.Context(), "COPY (SELECT * FROM t ORDER BY id) TO "+sqlString(pq)+" (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("SLUICE_UPDATE_GOLDEN") == "1" {
		data, err := os.ReadFile(pq)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenParquet, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(strings.TrimSuffix(goldenParquet, ".parquet")+".jsonl", []byte(duckTypesJSONL), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if _, err := os.Stat(goldenParquet); err != nil {
		t.Errorf("the main module's copy of the DuckDB file: %v (SLUICE_UPDATE_GOLDEN=1 writes it)", err)
	} else {
		q := "SELECT * FROM read_parquet(%s)"
		kept, now := describe(t, db, fmt.Sprintf(q, sqlString(goldenParquet))), describe(t, db, fmt.Sprintf(q, sqlString(pq)))
		if !maps.Equal(kept, now) {
			t.Errorf("%s has other column types than DuckDB writes now (SLUICE_UPDATE_GOLDEN=1 rewrites it): %v vs %v", goldenParquet, kept, now)
		}
	}
	out := filepath.Join(dir, "out.jsonl")
	runSluice(t, bin, "convert", pq, "-o", out)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != duckTypesJSONL {
		t.Errorf("sluice convert duck.parquet -o out.jsonl wrote\n%s\nwant\n%s", got, duckTypesJSONL)
		gl, wl := strings.Split(string(got), "\n"), strings.Split(duckTypesJSONL, "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Errorf("line %d:\n got %s\nwant %s", i+1, gl[i], wl[i])
			}
		}
	}

	// DuckDB reads sluice's JSONL back to the same values as the table.
	var same bool
	err = db.QueryRowContext(t.Context(), `SELECT count(*) = 3 FROM read_json(`+sqlString(out)+`) r JOIN t USING (id)
		WHERE r.i8 IS NOT DISTINCT FROM t.i8 AND r.u64::UBIGINT IS NOT DISTINCT FROM t.u64
		AND r.dec::DECIMAL(10,2) IS NOT DISTINCT FROM t.dec AND r.d::DATE IS NOT DISTINCT FROM t.d
		AND r.ts::TIMESTAMP IS NOT DISTINCT FROM t.ts AND r.u::UUID IS NOT DISTINCT FROM t.u
		AND json(r.j::JSON::VARCHAR) IS NOT DISTINCT FROM json(t.j::VARCHAR)`).Scan(&same)
	if err != nil {
		t.Fatal(err)
	}
	if !same {
		t.Errorf("DuckDB reads %s back to other values than the table's", out)
	}
}
