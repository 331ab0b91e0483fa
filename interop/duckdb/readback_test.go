package duckdb_test

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" database/sql driver
)

// sourcePath is the hand-written JSONL fixture, relative to this directory.
const sourcePath = "testdata/source.jsonl"

// mainModule is the module path expected in the go.mod of the repository root.
const mainModule = "github.com/sluice-data/sluice"

// wantColumns lists the DuckDB type expected for every top-level field of
// the fixture. STRUCT types are matched by shape only (field order and
// quoting inside STRUCT(...) are DuckDB's rendering choices); their fields
// are checked separately in wantFields.
var wantColumns = map[string]string{
	"id":    "VARCHAR",
	"text":  "VARCHAR",
	"note":  "VARCHAR",
	"seq":   "BIGINT",
	"big":   "BIGINT",
	"score": "DOUBLE",
	"ok":    "BOOLEAN",
	"meta":  "STRUCT(...)",
	"tags":  "VARCHAR[]",
	"spans": "STRUCT(...)[]",
}

// wantFields gives the DuckDB type expected for expressions that reach into
// nested columns.
var wantFields = []struct {
	expr string
	typ  string
}{
	{`meta.source`, "VARCHAR"},
	{`meta."year"`, "BIGINT"},
	{`meta.tags`, "VARCHAR[]"},
	{`spans[1]."start"`, "BIGINT"},
	{`spans[1]."end"`, "BIGINT"},
	{`spans[1].label`, "VARCHAR"},
}

// TestReadback converts the fixture with the sluice binary, once to a
// dataset directory and once to a single Parquet file, and checks both with
// DuckDB.
func TestReadback(t *testing.T) {
	rows := loadSource(t, sourcePath)
	bin := buildSluice(t)
	tmp := t.TempDir()
	db := openDuckDB(t)

	t.Run("dataset", func(t *testing.T) {
		out := filepath.Join(tmp, "out")
		runSluice(t, bin, "convert", sourcePath, "-o", out)

		parts, err := filepath.Glob(filepath.Join(out, "data", "part-*.parquet"))
		if err != nil || len(parts) == 0 {
			t.Fatalf("no %s/data/part-*.parquet written (glob error: %v); output tree:\n%s", out, err, listTree(out))
		}
		t.Logf("%d part file(s)", len(parts))

		n := checkParquet(t, db, filepath.Join(out, "data", "*.parquet"), rows)
		checkManifest(t, filepath.Join(out, "manifest.json"), len(rows), n)
	})

	t.Run("single_file", func(t *testing.T) {
		out := filepath.Join(tmp, "one.parquet")
		runSluice(t, bin, "convert", sourcePath, "-o", out)

		if fi, err := os.Stat(out); err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("%s is not a regular file (stat error: %v); output tree:\n%s", out, err, listTree(tmp))
		}
		checkParquet(t, db, out, rows)
	})
}

// loadSource parses the fixture line by line with json.Number for numbers,
// so that expected values are exact (no float64 rounding of big integers).
func loadSource(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	var rows []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			t.Fatalf("%s:%d: blank line in fixture", path, line)
		}
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		var row map[string]any
		if err := dec.Decode(&row); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		if _, err := dec.Token(); err != io.EOF {
			t.Fatalf("%s:%d: trailing data after the JSON object", path, line)
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no rows", path)
	}
	return rows
}

// buildSluice builds the sluice binary from the repository root (../..)
// with cgo disabled and returns its path.
func buildSluice(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatalf("reading the main module's go.mod: %v", err)
	}
	if !bytes.Contains(gomod, []byte("module "+mainModule+"\n")) {
		t.Fatalf("%s/go.mod does not declare module %s", root, mainModule)
	}

	bin := filepath.Join(t.TempDir(), "sluice")
	cmd := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cannot build the sluice binary: `go build -o %s .` in %s (CGO_ENABLED=0) failed: %v\n%s",
			bin, root, err, out)
	}
	return bin
}

// runSluice runs the sluice binary in the test's directory and fails the
// test with its output if it does not exit successfully.
func runSluice(t *testing.T, bin string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), bin, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("sluice %s: %v\n%s", strings.Join(args, " "), err, out.Bytes())
	}
	if out.Len() > 0 {
		t.Logf("sluice %s:\n%s", strings.Join(args, " "), out.Bytes())
	}
}

func openDuckDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.PingContext(t.Context()); err != nil {
		t.Fatalf("opening DuckDB: %v", err)
	}
	return db
}

// checkParquet reads the Parquet file(s) matched by pattern with DuckDB and
// compares them with the source rows. It returns the row count DuckDB saw.
func checkParquet(t *testing.T, db *sql.DB, pattern string, src []map[string]any) int {
	t.Helper()
	scan := fmt.Sprintf("read_parquet(%s)", sqlString(pattern))

	var n int
	if err := db.QueryRowContext(t.Context(), "SELECT count(*) FROM "+scan).Scan(&n); err != nil {
		t.Fatalf("count(*) from %s: %v", pattern, err)
	}
	if n != len(src) {
		t.Errorf("count(*) = %d, want %d (lines in %s)", n, len(src), sourcePath)
	}

	checkColumnTypes(t, db, scan, src)
	checkRows(t, db, pattern, src)
	return n
}

// checkColumnTypes compares DESCRIBE output with wantColumns and wantFields.
func checkColumnTypes(t *testing.T, db *sql.DB, scan string, src []map[string]any) {
	t.Helper()
	got := describe(t, db, "SELECT * FROM "+scan)

	srcKeys := map[string]bool{}
	for _, row := range src {
		for k := range row {
			srcKeys[k] = true
		}
	}
	for k := range srcKeys {
		if _, ok := wantColumns[k]; !ok {
			t.Errorf("fixture field %q has no entry in wantColumns", k)
		}
	}

	names := slices.Sorted(maps.Keys(wantColumns))
	for _, name := range names {
		want := wantColumns[name]
		typ, ok := got[name]
		if !ok {
			t.Errorf("column %q missing from the Parquet schema (columns: %v)", name, slices.Sorted(maps.Keys(got)))
			continue
		}
		if !typeMatches(typ, want) {
			t.Errorf("column %q has DuckDB type %s, want %s", name, typ, want)
		}
	}
	for name, typ := range got {
		if _, ok := wantColumns[name]; !ok {
			t.Logf("extra column %q (%s) not in the source", name, typ)
		}
	}

	exprs := make([]string, len(wantFields))
	for i, f := range wantFields {
		exprs[i] = fmt.Sprintf("%s AS %s", f.expr, sqlIdent(f.expr))
	}
	fields := describe(t, db, "SELECT "+strings.Join(exprs, ", ")+" FROM "+scan)
	for _, f := range wantFields {
		if typ := fields[f.expr]; typ != f.typ {
			t.Errorf("%s has DuckDB type %q, want %s", f.expr, typ, f.typ)
		}
	}
}

// typeMatches reports whether a DuckDB type name matches a wantColumns
// entry, where "STRUCT(...)" stands for any STRUCT type.
func typeMatches(got, want string) bool {
	switch want {
	case "STRUCT(...)":
		return strings.HasPrefix(got, "STRUCT(") && strings.HasSuffix(got, ")")
	case "STRUCT(...)[]":
		return strings.HasPrefix(got, "STRUCT(") && strings.HasSuffix(got, ")[]")
	}
	return got == want
}

// describe returns column name -> DuckDB type for a query.
func describe(t *testing.T, db *sql.DB, query string) map[string]string {
	t.Helper()
	rs, err := db.QueryContext(t.Context(), "DESCRIBE "+query)
	if err != nil {
		t.Fatalf("DESCRIBE %s: %v", query, err)
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		t.Fatal(err)
	}
	nameIdx, typeIdx := slices.Index(cols, "column_name"), slices.Index(cols, "column_type")
	if nameIdx < 0 || typeIdx < 0 {
		t.Fatalf("DESCRIBE returned columns %v, want column_name and column_type", cols)
	}
	types := map[string]string{}
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		types[fmt.Sprint(vals[nameIdx])] = fmt.Sprint(vals[typeIdx])
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return types
}

// parquetRow is one row as read back by DuckDB.
type parquetRow struct {
	cols                           map[string]any // every column of wantColumns
	metaSource                     sql.NullString // meta.source
	tagsLen, metaTagsLen, spansLen sql.NullInt64  // len(tags), len(meta.tags), len(spans)
}

// checkRows reads every row in file order (files in name order, rows in
// file order) and compares it with the source row at the same position.
func checkRows(t *testing.T, db *sql.DB, pattern string, src []map[string]any) {
	t.Helper()
	got := readRows(t, db, pattern)

	// Row order first: if it is off, per-row differences are noise.
	wantIDs := make([]any, len(src))
	gotIDs := make([]any, len(got))
	for i, row := range src {
		wantIDs[i] = row["id"]
	}
	for i, row := range got {
		gotIDs[i] = row.cols["id"]
	}
	if len(diff("ids", wantIDs, gotIDs)) > 0 {
		t.Errorf("rows are not in input order or some are missing:\n got ids %v\nwant ids %v", gotIDs, wantIDs)
		return
	}

	cols := slices.Sorted(maps.Keys(wantColumns))
	for i, want := range src {
		row := got[i]
		where := fmt.Sprintf("row %d (id %v)", i, want["id"])

		// Every column, compared structurally: strings exactly, integers
		// as exact int64 (the big field goes beyond 2^53), floats as
		// float64, and NULL where the source has null or no such field.
		for _, c := range cols {
			for _, d := range diff(c, want[c], row.cols[c]) {
				t.Errorf("%s: %s", where, d)
			}
		}

		// The same values through DuckDB's own nested accessors.
		wantMetaSource := nestedString(want["meta"], "source")
		if row.metaSource.Valid != (wantMetaSource != nil) || (row.metaSource.Valid && row.metaSource.String != *wantMetaSource) {
			t.Errorf("%s: meta.source = %s, want %s", where, showNull(row.metaSource.Valid, row.metaSource.String), showPtr(wantMetaSource))
		}
		checkLen(t, where, "len(tags)", row.tagsLen, want["tags"])
		checkLen(t, where, "len(meta.tags)", row.metaTagsLen, nestedValue(want["meta"], "tags"))
		checkLen(t, where, "len(spans)", row.spansLen, want["spans"])
	}
}

// readRows reads all rows matched by pattern, ordered by file name and
// then by position in the file.
func readRows(t *testing.T, db *sql.DB, pattern string) []parquetRow {
	t.Helper()
	cols := slices.Sorted(maps.Keys(wantColumns))
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = sqlIdent(c)
	}
	query := fmt.Sprintf(`SELECT %s, meta.source, len(tags), len(meta.tags), len(spans)
		FROM read_parquet(%s, filename = true, file_row_number = true)
		ORDER BY filename, file_row_number`, strings.Join(sel, ", "), sqlString(pattern))
	rs, err := db.QueryContext(t.Context(), query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rs.Close()

	var rows []parquetRow
	for rs.Next() {
		vals := make([]any, len(cols))
		var row parquetRow
		ptrs := make([]any, 0, len(cols)+4)
		for j := range vals {
			ptrs = append(ptrs, &vals[j])
		}
		ptrs = append(ptrs, &row.metaSource, &row.tagsLen, &row.metaTagsLen, &row.spansLen)
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatalf("row %d: %v", len(rows), err)
		}
		row.cols = make(map[string]any, len(cols))
		for j, c := range cols {
			row.cols[c] = vals[j]
		}
		rows = append(rows, row)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func checkLen(t *testing.T, where, expr string, got sql.NullInt64, want any) {
	t.Helper()
	list, isList := want.([]any)
	switch {
	case !isList && got.Valid:
		t.Errorf("%s: %s = %d, want NULL", where, expr, got.Int64)
	case isList && (!got.Valid || got.Int64 != int64(len(list))):
		t.Errorf("%s: %s = %s, want %d", where, expr, showNull(got.Valid, got.Int64), len(list))
	}
}

// diff compares a source value (from encoding/json with UseNumber) with the
// value the DuckDB driver scanned, and describes each difference. A missing
// source field is nil, like a JSON null.
func diff(path string, want, got any) []string {
	mismatch := func() []string {
		return []string{fmt.Sprintf("%s = %s, want %s", path, show(got), show(want))}
	}
	switch w := want.(type) {
	case nil:
		if got != nil {
			return mismatch()
		}
	case string:
		if g, ok := got.(string); !ok || g != w {
			return mismatch()
		}
	case bool:
		if g, ok := got.(bool); !ok || g != w {
			return mismatch()
		}
	case json.Number:
		if isIntLiteral(w) {
			// An integer in the source must come back as an exact int64,
			// not as a float that happens to round to the same value.
			if g, ok := got.(int64); !ok || strconv.FormatInt(g, 10) != string(w) {
				return mismatch()
			}
			return nil
		}
		switch g := got.(type) {
		case int64:
			if exact, err := strconv.ParseInt(string(w), 10, 64); err != nil || exact != g {
				return mismatch()
			}
		case float64:
			exact, err := strconv.ParseFloat(string(w), 64)
			if err != nil || exact != g || math.Signbit(exact) != math.Signbit(g) {
				return mismatch()
			}
		default:
			return mismatch()
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return mismatch()
		}
		var out []string
		for i := range w {
			out = append(out, diff(fmt.Sprintf("%s[%d]", path, i+1), w[i], g[i])...)
		}
		return out
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return mismatch()
		}
		keys := map[string]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		var out []string
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			out = append(out, diff(path+"."+k, w[k], g[k])...)
		}
		return out
	default:
		return []string{fmt.Sprintf("%s: unexpected source value of type %T", path, want)}
	}
	return nil
}

// checkManifest checks that the dataset manifest parses as JSON and, under
// its "counts" object, that rows_in == rows_out + quarantined, that rows_in
// is the number of source lines and that rows_out is what DuckDB read.
func checkManifest(t *testing.T, path string, lines, parquetRows int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the manifest: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("%s does not parse as a JSON object: %v", path, err)
	}
	counts, ok := m["counts"].(map[string]any)
	if !ok {
		t.Logf("%s has no \"counts\" object (top-level keys: %v); row counts not checked",
			path, slices.Sorted(maps.Keys(m)))
		return
	}
	valid := true
	count := func(key string) int64 {
		t.Helper()
		num, ok := counts[key].(json.Number)
		if !ok {
			t.Errorf("manifest counts.%s = %v, want an integer", key, counts[key])
			valid = false
			return -1
		}
		v, err := num.Int64()
		if err != nil {
			t.Errorf("manifest counts.%s = %s: %v", key, num, err)
			valid = false
		}
		return v
	}
	in, out, quarantined := count("rows_in"), count("rows_out"), count("quarantined")
	if !valid {
		return
	}
	if in != out+quarantined {
		t.Errorf("manifest counts: rows_in %d != rows_out %d + quarantined %d", in, out, quarantined)
	}
	if in != int64(lines) {
		t.Errorf("manifest counts.rows_in = %d, want %d (lines in %s)", in, lines, sourcePath)
	}
	if out != int64(parquetRows) {
		t.Errorf("manifest counts.rows_out = %d, but DuckDB read %d rows", out, parquetRows)
	}
}

// isIntLiteral reports whether a JSON number has neither a fraction nor an
// exponent.
func isIntLiteral(n json.Number) bool {
	return !strings.ContainsAny(string(n), ".eE")
}

func nestedValue(v any, key string) any {
	if m, ok := v.(map[string]any); ok {
		return m[key]
	}
	return nil
}

func nestedString(v any, key string) *string {
	if s, ok := nestedValue(v, key).(string); ok {
		return &s
	}
	return nil
}

func show(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case string:
		return strconv.Quote(v)
	case json.Number:
		return string(v)
	case []any, map[string]any:
		return fmt.Sprintf("%v", v)
	}
	return fmt.Sprintf("%v (%T)", v, v)
}

func showNull[T any](valid bool, v T) string {
	if !valid {
		return "NULL"
	}
	return show(v)
}

func showPtr(p *string) string {
	if p == nil {
		return "NULL"
	}
	return strconv.Quote(*p)
}

// sqlString quotes s as a SQL string literal.
func sqlString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// sqlIdent quotes s as a SQL identifier.
func sqlIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// listTree lists the files under dir, for failure messages.
func listTree(dir string) string {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		paths = append(paths, "error: "+err.Error())
	}
	if len(paths) == 0 {
		return "  (nothing)"
	}
	slices.Sort(paths)
	return "  " + strings.Join(paths, "\n  ")
}
