package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspectReadsWhatConvertReads: a hive-partitioned folder
// (dir/lang=en/part-0.parquet, dir/lang=fr/part-0.parquet), which convert
// reads through input.Scan, is inspected file by file, in the same order
// and with the same rows; so is a folder of JSONL files in subfolders.
func TestInspectReadsWhatConvertReads(t *testing.T) {
	tmp := t.TempDir()
	c := writeCorpus(t, tmp, 2)
	hive := filepath.Join(tmp, "hive")
	jsonlHive := filepath.Join(tmp, "hive-jsonl")
	langs := []string{"en", "fr"}
	for _, lang := range langs {
		part := filepath.Join(hive, "lang="+lang, "part-0.parquet")
		if err := os.MkdirAll(filepath.Dir(part), 0o755); err != nil {
			t.Fatal(err)
		}
		convertCorpus(t, c.path, part)
		data, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		lines := filepath.Join(jsonlHive, "lang="+lang, "part-0.jsonl")
		if err := os.MkdirAll(filepath.Dir(lines), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(lines, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	for _, tc := range []struct {
		dir, format string
		unreadable  int64
	}{{hive, "parquet", 0}, {jsonlHive, "jsonl", 4}} {
		got := inspectAsJSON(t, tc.dir)
		if got.Format != tc.format || got.Rows != 2*c.rows || got.Unreadable != tc.unreadable || len(got.Files) != 2 {
			t.Fatalf("inspect %s: format %s, %d rows, %d unreadable, %d files; want %s, %d, %d, 2",
				tc.dir, got.Format, got.Rows, got.Unreadable, len(got.Files), tc.format, 2*c.rows, tc.unreadable)
		}
		for i, f := range got.Files {
			if !strings.Contains(f.Path, "lang="+langs[i]) || f.Rows != c.rows {
				t.Errorf("file %d: %s with %d rows, want lang=%s with %d", i, f.Path, f.Rows, langs[i], c.rows)
			}
		}
		for _, col := range got.Columns {
			if col.Name == "text" && col.Nulls != 2*c.textNulls {
				t.Errorf("%s: text has %d nulls, want %d", tc.dir, col.Nulls, 2*c.textNulls)
			}
		}
		if got.Text == nil || got.Text.CharsTotal != 2*c.charsTotal {
			t.Errorf("%s: text statistics %+v, want %d characters in all", tc.dir, got.Text, 2*c.charsTotal)
		}

		// convert reads the same rows from the same folder.
		out := filepath.Join(tmp, "out-"+tc.format+".jsonl")
		convertCorpus(t, tc.dir, out)
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if n := int64(strings.Count(string(data), "\n")); n != got.Rows {
			t.Errorf("convert %s wrote %d rows, inspect counts %d", tc.dir, n, got.Rows)
		}
	}

	// A folder that mixes formats is refused, as convert refuses it.
	mixed := filepath.Join(tmp, "mixed")
	if err := os.MkdirAll(filepath.Join(mixed, "lang=en"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mixed, "lang=en", "a.jsonl"), []byte(`{"text":"x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	convertCorpus(t, c.path, filepath.Join(mixed, "lang=fr", "b.parquet"))
	if code, _, errs := mainCode("inspect", mixed); code != 2 || !strings.Contains(errs, "b.parquet") {
		t.Errorf("inspect of a folder of JSONL and Parquet: exit %d, %q; want 2 naming b.parquet", code, errs)
	}
}
