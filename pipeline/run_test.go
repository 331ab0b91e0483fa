package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/pqio"
)

// testConfig returns the configuration the command line would build with
// its defaults, for inputs and out.
func testConfig(t *testing.T, out string, inputs ...string) Config {
	t.Helper()
	files, err := input.Expand(inputs)
	if err != nil {
		t.Fatal(err)
	}
	return Config{
		Inputs: files, Target: dataset.ParseTarget(out), Workers: 2, BatchRows: 1000,
		BatchBytes: 1 << 20, InferRows: 10000, RepairUTF8: true, MaxDepth: 128,
		MaxLineBytes: 512 << 20, TextField: "text",
		Output: dataset.Options{MaxFileRows: 1 << 20, MaxFileBytes: 1 << 30,
			Parquet: pqio.Options{Codec: pqio.Zstd, Level: 1, NoDictionary: []string{"text"}}},
	}
}

func run(t *testing.T, cfg Config) *dataset.Manifest {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	cfg.Mem = mem
	m, err := Run(context.Background(), cfg, []string{"test"}, "test")
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	mem.AssertSize(t, 0)
	checkManifest(t, cfg.Target, m)
	return m
}

// checkManifest re-reads the manifest from disk and checks that it adds up.
func checkManifest(t *testing.T, target dataset.Target, want *dataset.Manifest) {
	t.Helper()
	b, err := os.ReadFile(target.SidePath("manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m dataset.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("manifest is not JSON: %v", err)
	}
	c := m.Counts
	if c.RowsIn != c.RowsOut+c.Removed+c.Quarantined {
		t.Fatalf("manifest counts do not add up: %+v", c)
	}
	if c != want.Counts {
		t.Fatalf("manifest on disk %+v differs from the one returned %+v", c, want.Counts)
	}
	var inRows, outRows int64
	for _, in := range m.Inputs {
		inRows += in.Rows
	}
	for _, out := range m.Outputs {
		outRows += out.Rows
		if _, err := os.Stat(out.Path); err != nil {
			t.Fatalf("manifest lists %s: %v", out.Path, err)
		}
	}
	if inRows != c.RowsIn || outRows != c.RowsOut {
		t.Fatalf("per-file rows (in %d, out %d) differ from totals %+v", inRows, outRows, c)
	}
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readJSONL parses every line of a (possibly compressed) JSONL file into
// generic values with exact numbers.
func readJSONL(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := input.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := input.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var rows []map[string]any
	sc := bufio.NewScanner(s)
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		rows = append(rows, decodeObject(t, sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func decodeObject(t *testing.T, line []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %q: %v", line, err)
	}
	return dropNulls(v).(map[string]any)
}

// dropNulls removes null members: a Parquet column cannot tell a missing
// member from a null one, so the round trip writes null for both.
func dropNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if x == nil {
				delete(v, k)
			} else {
				v[k] = dropNulls(x)
			}
		}
		return v
	case []any:
		for i, x := range v {
			v[i] = dropNulls(x)
		}
	case json.Number:
		// Compare floats by value (1.50 and 1.5 are the same number) and
		// integers exactly.
		if !strings.ContainsAny(string(v), ".eE") {
			return string(v)
		}
		var f float64
		fmt.Sscan(string(v), &f)
		return f
	}
	return v
}

const roundTripSource = `{"id":"a","text":"plain ascii","n":1,"f":1.5,"ok":true,"meta":{"source":"web","year":2021,"tags":["x","y"]},"list":[{"k":1},{"k":2,"v":"z"}]}
{"id":"b","text":"unicode: é 漢字 😀 \u00e9 \ud83d\ude00 and escapes \" \\ \/ \b \f \n \r \t \u0001","n":9007199254740993,"f":-0.0,"ok":false,"meta":{"source":"books","tags":[]}}
{"id":"c","text":null,"n":-9223372036854775808,"f":1e300,"meta":null,"list":[]}
{"id":"d","n":9223372036854775807,"f":2.5e-300,"mixed":"a string"}
{"id":"e","text":"","mixed":42,"meta":{"source":"forum","year":null,"tags":["only"]}}
{"id":"f","text":"nested deep","mixed":{"x":[1,2,{"y":null}]},"ml":[1,"a",[2]],"meta":{"source":"x","year":1,"tags":[],"odd":[{},{"k":1}]},"deep":{"a":{"b":{"c":{"d":[[1,2],[3]]}}}}}
{"id":"g","text":"dup keys","dup":1,"dup":2}
`

func TestRoundTripJSONLToParquetToJSONL(t *testing.T) {
	for _, ext := range []string{".jsonl", ".jsonl.gz", ".jsonl.zst"} {
		t.Run(ext, func(t *testing.T) {
			dir := t.TempDir()
			src := writeFile(t, dir, "src.jsonl", []byte(roundTripSource))
			pq := filepath.Join(dir, "mid.parquet")
			run(t, testConfig(t, pq, src))
			back := filepath.Join(dir, "back"+ext)
			run(t, testConfig(t, back, pq))
			want, got := readJSONL(t, src), readJSONL(t, back)
			if len(got) != len(want) {
				t.Fatalf("got %d rows back, want %d", len(got), len(want))
			}
			for i := range want {
				if i == 6 { // duplicate keys: both values come back, the last one wins in Go
					continue
				}
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Errorf("row %d:\n got %v\nwant %v", i, got[i], want[i])
				}
			}
			raw, err := os.ReadFile(back)
			if err != nil {
				t.Fatal(err)
			}
			if ext == ".jsonl" && !bytes.Contains(raw, []byte(`"dup":1,"dup":2`)) {
				t.Errorf("a duplicate member was lost:\n%s", raw)
			}
		})
	}
}

func TestSameOutputWhateverTheWorkerCount(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, `{"id":"%d","text":"document %d %s","n":%d}`+"\n", i, i, strings.Repeat("word ", i%50), i)
		if i%997 == 0 {
			b.WriteString("{broken\n")
		}
	}
	src := writeFile(t, dir, "src.jsonl", []byte(b.String()))
	var outputs [][]byte
	for _, workers := range []int{1, 8} {
		out := filepath.Join(dir, fmt.Sprintf("out-%d.parquet", workers))
		cfg := testConfig(t, out, src)
		cfg.Workers, cfg.BatchRows = workers, 64
		m := run(t, cfg)
		if m.Counts.RowsOut != 5000 || m.Counts.Quarantined != 6 {
			t.Fatalf("workers %d: counts %+v", workers, m.Counts)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		q, err := os.ReadFile(cfg.Target.SidePath("quarantine.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		outputs = append(outputs, append(data, q...))
	}
	if !bytes.Equal(outputs[0], outputs[1]) {
		t.Fatal("--workers 1 and --workers 8 wrote different bytes")
	}

	// Parquet in: row groups are read by the workers in parallel.
	var again [][]byte
	for _, workers := range []int{1, 8} {
		out := filepath.Join(dir, fmt.Sprintf("again-%d.jsonl", workers))
		cfg := testConfig(t, out, filepath.Join(dir, "out-1.parquet"))
		cfg.Workers, cfg.BatchRows = workers, 64
		m := run(t, cfg)
		if m.Counts.RowsIn != 5000 || m.Counts.RowsOut != 5000 {
			t.Fatalf("parquet in, workers %d: counts %+v", workers, m.Counts)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		again = append(again, data)
	}
	if !bytes.Equal(again[0], again[1]) || !bytes.HasPrefix(again[0], []byte(`{"id":"0","text":"document 0 ","n":0}`)) {
		t.Fatalf("Parquet input read in parallel lost its order:\n%.200s", again[1])
	}
}

func TestDatasetDirectoryRollsPartFiles(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 2500; i++ {
		fmt.Fprintf(&b, `{"id":"%d","text":"t%d"}`+"\n", i, i)
	}
	src := writeFile(t, dir, "src.jsonl", []byte(b.String()))
	out := filepath.Join(dir, "ds")
	cfg := testConfig(t, out, src)
	cfg.BatchRows, cfg.Output.MaxFileRows = 100, 1000
	m := run(t, cfg)
	var names []string
	for _, o := range m.Outputs {
		names = append(names, filepath.Base(o.Path))
	}
	if want := "part-00000.parquet part-00001.parquet part-00002.parquet"; strings.Join(names, " ") != want {
		t.Fatalf("part files %v, want %s", names, want)
	}
	if _, err := os.Stat(filepath.Join(out, "quarantine.jsonl")); err != nil {
		t.Fatalf("a dataset directory always has quarantine.jsonl: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(out, "data"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Fatalf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestOutputExistsNeedsOverwrite(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, dir, "src.jsonl", []byte(`{"text":"x"}`+"\n"))
	for _, out := range []string{filepath.Join(dir, "one.parquet"), filepath.Join(dir, "ds")} {
		run(t, testConfig(t, out, src))
		_, err := Run(context.Background(), testConfig(t, out, src), nil, "test")
		if !errors.Is(err, dataset.ErrExists) {
			t.Fatalf("%s: second run without overwrite: got %v, want ErrExists", out, err)
		}
		cfg := testConfig(t, out, src)
		cfg.Overwrite = true
		run(t, cfg)
	}
	// A directory that is not a dataset is never deleted.
	other := filepath.Join(dir, "precious")
	os.MkdirAll(other, 0o755)
	writeFile(t, other, "notes.txt", []byte("keep me"))
	cfg := testConfig(t, other, src)
	cfg.Overwrite = true
	if _, err := Run(context.Background(), cfg, nil, "test"); err == nil || !strings.Contains(err.Error(), "not a sluice dataset") {
		t.Fatalf("overwrite of a foreign directory: got %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, "notes.txt")); err != nil {
		t.Fatal("a foreign directory was touched")
	}
}

func TestMissingOutputDirectoryIsCreated(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, dir, "src.jsonl", []byte(`{"text":"x"}`+"\n"))
	out := filepath.Join(dir, "a", "b", "c.parquet")
	m := run(t, testConfig(t, out, src))
	if m.Counts.RowsOut != 1 {
		t.Fatalf("counts %+v", m.Counts)
	}
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func zstdBytes(b []byte) []byte {
	enc, _ := zstd.NewWriter(nil)
	return enc.EncodeAll(b, nil)
}

// A slice of a Parquet file's row groups reads those rows only, numbered
// from the file's first row, whether the row groups are read whole or
// streamed batch by batch.
func TestParquetInputSlice(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, `{"id":"r%d","text":"row %d"}`+"\n", i, i)
	}
	in := writeFile(t, dir, "in.jsonl", []byte(b.String()))
	pq := filepath.Join(dir, "in.parquet")
	cfg := testConfig(t, pq, in)
	cfg.BatchRows = 4 // five row groups of four rows
	run(t, cfg)

	for _, batchRows := range []int{4, 1} { // row groups whole, then streamed
		cfg := testConfig(t, filepath.Join(dir, fmt.Sprintf("slice-%d.jsonl", batchRows)), pq)
		cfg.Inputs[0].RowGroups = [2]int{1, 3}
		cfg.BatchRows = batchRows
		cfg.Stages = []Stage{&originStage{}}
		m := run(t, cfg)
		rows := readJSONL(t, cfg.Target.Path)
		var got []string
		for _, r := range rows {
			got = append(got, fmt.Sprint(r["id"], "@", r["origin"]))
		}
		want := "r4@in.parquet:5 r5@in.parquet:6 r6@in.parquet:7 r7@in.parquet:8 r8@in.parquet:9 r9@in.parquet:10 r10@in.parquet:11 r11@in.parquet:12"
		if strings.Join(got, " ") != want || m.Inputs[0].Rows != 8 {
			t.Fatalf("batch rows %d: %d rows in the manifest, got\n%s\nwant\n%s", batchRows, m.Inputs[0].Rows, strings.Join(got, " "), want)
		}
	}
}

// originStage adds each row's origin, its file's base name and line.
type originStage struct{}

func (originStage) Name() string { return "origin" }
func (originStage) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	return columnar.SetSchemaFields(in, []arrow.Field{{Name: "origin", Type: arrow.BinaryTypes.String}}), nil
}
func (originStage) Process(ctx context.Context, mem memory.Allocator, batch *Batch) (Result, error) {
	rec := batch.Rec
	origins := make([]string, rec.NumRows())
	for i := range origins {
		origins[i] = filepath.Base(batch.Origin(i))
	}
	col := columnar.Strings(mem, origins, false)
	defer col.Release()
	return Result{Kept: columnar.SetColumns(rec, []arrow.Field{{Name: "origin", Type: arrow.BinaryTypes.String}}, []arrow.Array{col})}, nil
}

// A run that follows earlier passes (of a global stage) times itself from
// the command's start: the manifest's started and wall_seconds hold every
// pass, not the writing pass alone.
func TestWallTimeCountsFromTheCommandsStart(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, dir, "src.jsonl", []byte(`{"text":"x"}`+"\n"))
	cfg := testConfig(t, filepath.Join(dir, "out"), src)
	cfg.Started = time.Now().Add(-90 * time.Second).Truncate(time.Second)
	m := run(t, cfg)
	if m.WallSecs < 90 || m.Started != cfg.Started.UTC().Format(time.RFC3339) {
		t.Fatalf("started %s, %.1f s; want %s and at least 90 s", m.Started, m.WallSecs, cfg.Started.UTC().Format(time.RFC3339))
	}
	cfg = testConfig(t, filepath.Join(dir, "out2"), src)
	if m := run(t, cfg); m.WallSecs > 60 {
		t.Fatalf("a run without a start given took %.1f s by its manifest", m.WallSecs)
	}
}

// The command's start is not an option: two runs of the same command
// record the same options.
func TestStartIsNotAnOption(t *testing.T) {
	b, err := json.Marshal(Config{Started: time.Now(), Workers: 3})
	if err != nil || strings.Contains(string(b), "tarted") {
		t.Fatalf("options %s, %v", b, err)
	}
}
