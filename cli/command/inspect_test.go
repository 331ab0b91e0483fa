package command

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// inspectJSON mirrors the documented --json keys, independently of the
// command's own types.
type inspectJSON struct {
	Path  string `json:"path"`
	Files []struct {
		Path string `json:"path"`
		Rows int64  `json:"rows"`
	} `json:"files"`
	Format      string `json:"format"`
	Rows        int64  `json:"rows"`
	Unreadable  int64  `json:"unreadable"`
	Bytes       int64  `json:"bytes"`
	RowGroups   int    `json:"row_groups"`
	Compression string `json:"compression"`
	Columns     []struct {
		Name  string `json:"name"`
		Type  string `json:"type"`
		Nulls int64  `json:"nulls"`
	} `json:"columns"`
	Text *struct {
		Field      string  `json:"field"`
		CharsTotal int64   `json:"chars_total"`
		Min        int64   `json:"min"`
		Mean       float64 `json:"mean"`
		P50        int64   `json:"p50"`
		P90        int64   `json:"p90"`
		P99        int64   `json:"p99"`
		Max        int64   `json:"max"`
	} `json:"text"`
	ManifestCounts *struct {
		RowsIn      int64 `json:"rows_in"`
		RowsOut     int64 `json:"rows_out"`
		Quarantined int64 `json:"quarantined"`
	} `json:"manifest_counts"`
}

// corpus is a small JSONL corpus and what inspect should find in it.
type corpus struct {
	path       string
	rows       int64
	textNulls  int64
	metaNulls  int64
	textLens   []int64 // rune counts of the non-null texts, sorted
	charsTotal int64
}

func writeCorpus(t *testing.T, dir string, badLines int) corpus {
	t.Helper()
	c := corpus{path: filepath.Join(dir, "corpus.jsonl"), rows: 50}
	var b strings.Builder
	words := []string{"data", "größe", "文字", "token", "🙂", "clean"}
	for i := range 50 {
		row := map[string]any{"id": fmt.Sprintf("doc-%02d", i)}
		switch {
		case i%7 == 3:
			row["text"] = nil
			c.textNulls++
		case i == 20: // no text member at all
			c.textNulls++
		default:
			var sb strings.Builder
			for j := 0; j < 1+(i*13)%37; j++ {
				sb.WriteString(words[(i+j)%len(words)] + " ")
			}
			text := sb.String()
			row["text"] = text
			n := int64(utf8.RuneCountInString(text))
			c.textLens = append(c.textLens, n)
			c.charsTotal += n
		}
		if i%10 == 5 {
			row["meta"] = nil
			c.metaNulls++
		} else {
			row["meta"] = map[string]any{"source": "web", "tags": words[:i%3]}
		}
		line, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
		if i == 10 {
			for range badLines {
				b.WriteString("{not json\n")
			}
		}
	}
	if err := os.WriteFile(c.path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	slices.Sort(c.textLens)
	return c
}

// rank is the nearest-rank quantile of sorted values.
func rank(sorted []int64, q float64) int64 {
	r := int(math.Ceil(q * float64(len(sorted))))
	return sorted[min(max(r, 1), len(sorted))-1]
}

func convertCorpus(t *testing.T, in, out string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"sluice", "convert", in, "-o", out}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("convert exited %d: %s", code, stderr.String())
	}
}

func inspectAsJSON(t *testing.T, path string) inspectJSON {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var out, errw bytes.Buffer
	o := &InspectOptions{JSON: true, TextField: "text", mem: mem}
	if err := runInspect(context.Background(), o, []string{path}, Streams{Out: &out, Err: &errw}); err != nil {
		t.Fatalf("inspect %s: %v", path, err)
	}
	var got inspectJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("inspect --json printed %q: %v", out.String(), err)
	}
	return got
}

func checkColumnsAndText(t *testing.T, got inspectJSON, c corpus) {
	t.Helper()
	if got.Rows != c.rows {
		t.Errorf("rows = %d, want %d", got.Rows, c.rows)
	}
	wantNulls := map[string]int64{"id": 0, "text": c.textNulls, "meta": c.metaNulls}
	var names []string
	for _, col := range got.Columns {
		names = append(names, col.Name)
		if want, ok := wantNulls[col.Name]; ok && col.Nulls != want {
			t.Errorf("column %s: %d nulls, want %d", col.Name, col.Nulls, want)
		}
		if col.Name == "meta" && col.Type != "struct<source: utf8, tags: list<utf8>>" {
			t.Errorf("meta has type %q, want struct<source: utf8, tags: list<utf8>>", col.Type)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"id", "meta", "text"}) {
		t.Errorf("columns %v, want id, meta and text", names)
	}
	tx := got.Text
	if tx == nil {
		t.Fatal("no text statistics")
	}
	want := c.textLens
	if tx.Field != "text" || tx.CharsTotal != c.charsTotal || tx.Min != want[0] || tx.Max != want[len(want)-1] ||
		tx.P50 != rank(want, 0.5) || tx.P90 != rank(want, 0.9) || tx.P99 != rank(want, 0.99) {
		t.Errorf("text = %+v, want field text, chars_total %d, min %d, p50 %d, p90 %d, p99 %d, max %d", *tx,
			c.charsTotal, want[0], rank(want, 0.5), rank(want, 0.9), rank(want, 0.99), want[len(want)-1])
	}
	if mean := float64(c.charsTotal) / float64(len(want)); math.Abs(tx.Mean-mean) > 1e-9 {
		t.Errorf("mean = %v, want %v", tx.Mean, mean)
	}
}

func TestInspectDataset(t *testing.T) {
	dir := t.TempDir()
	c := writeCorpus(t, dir, 0)
	out := filepath.Join(dir, "ds")
	convertCorpus(t, c.path, out)

	got := inspectAsJSON(t, out)
	checkColumnsAndText(t, got, c)
	if got.Format != "parquet" || got.Compression != "zstd" || got.RowGroups < 1 || got.Bytes <= 0 {
		t.Errorf("format %q, compression %q, %d row groups, %d bytes; want parquet, zstd, some of each",
			got.Format, got.Compression, got.RowGroups, got.Bytes)
	}
	if len(got.Files) != 1 || filepath.Dir(got.Files[0].Path) != filepath.Join(out, "data") || got.Files[0].Rows != c.rows {
		t.Errorf("files = %+v, want one part file in %s/data with %d rows", got.Files, out, c.rows)
	}
	if m := got.ManifestCounts; m == nil || m.RowsIn != c.rows || m.RowsOut != c.rows || m.Quarantined != 0 {
		t.Errorf("manifest_counts = %+v, want %d rows in and out", m, c.rows)
	}

	// The single Parquet file inside reads the same.
	part := inspectAsJSON(t, got.Files[0].Path)
	checkColumnsAndText(t, part, c)
	if part.ManifestCounts != nil {
		t.Errorf("a part file has no manifest of its own, got %+v", part.ManifestCounts)
	}
}

func TestInspectJSONL(t *testing.T) {
	c := writeCorpus(t, t.TempDir(), 2)
	got := inspectAsJSON(t, c.path)
	checkColumnsAndText(t, got, c)
	if got.Format != "jsonl" || got.Compression != "none" || got.Unreadable != 2 || got.RowGroups != 0 {
		t.Errorf("format %q, compression %q, unreadable %d, row groups %d; want jsonl, none, 2, 0",
			got.Format, got.Compression, got.Unreadable, got.RowGroups)
	}
	st, err := os.Stat(c.path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Bytes != st.Size() {
		t.Errorf("bytes = %d, want the file size %d", got.Bytes, st.Size())
	}
}

func TestInspectHumanOutput(t *testing.T) {
	dir := t.TempDir()
	c := writeCorpus(t, dir, 0)
	out := filepath.Join(dir, "ds")
	convertCorpus(t, c.path, out)

	var stdout, stderr bytes.Buffer
	if code := Main([]string{"sluice", "inspect", out}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("inspect exited %d: %s", code, stderr.String())
	}
	text := stdout.String()
	for _, want := range []string{
		"path         " + out + "\n",
		"rows         50\n",
		"compression  zstd\n",
		"manifest     " + filepath.Join(out, "manifest.json") + ": 50 rows in, 50 out",
		"column  type",
		"\ntext    utf8 ",
		fmt.Sprintf("p50 %d", rank(c.textLens, 0.5)),
		fmt.Sprintf("max %d\n", c.textLens[len(c.textLens)-1]),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

func TestInspectTextFieldFlag(t *testing.T) {
	c := writeCorpus(t, t.TempDir(), 0)
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"sluice", "inspect", c.path, "--json", "--text-field", "body"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("inspect exited %d: %s", code, stderr.String())
	}
	var got inspectJSON
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Text != nil || got.Rows != c.rows {
		t.Errorf("text = %+v, rows = %d; want no text statistics for a missing column, %d rows", got.Text, got.Rows, c.rows)
	}
}

func TestInspectErrorsNameThePath(t *testing.T) {
	dir, empty, notes, broken := inspectFixtures(t)
	cases := []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "no-such-dataset"), "no such file or directory"},
		{"empty directory", empty, "holds no .jsonl"},
		{"not a data file", notes, "not a Parquet or JSONL file"},
		{"broken Parquet", broken, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			o := &InspectOptions{TextField: "text"}
			err := runInspect(context.Background(), o, []string{tc.path}, Streams{Out: &out, Err: &out})
			if err == nil {
				t.Fatalf("no error, printed %q", out.String())
			}
			if !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want one naming %s and saying %q", err, tc.path, tc.want)
			}
		})
	}
}

// inspectFixtures makes the paths inspect must refuse or fail on: an empty
// directory, a text file, and a file that claims to be Parquet but is not.
func inspectFixtures(t *testing.T) (dir, empty, notes, broken string) {
	t.Helper()
	dir = t.TempDir()
	empty = filepath.Join(dir, "empty")
	notes = filepath.Join(dir, "notes.txt")
	broken = filepath.Join(dir, "broken.parquet")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notes, []byte("some notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(broken, []byte("PAR1 but not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, empty, notes, broken
}
