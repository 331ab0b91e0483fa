package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type quarantined struct {
	File      string `json:"file"`
	Line      int64  `json:"line"`
	Offset    int64  `json:"offset"`
	Error     string `json:"error"`
	Raw       string `json:"raw"`
	RawBase64 []byte `json:"raw_base64"`
}

func readQuarantine(t *testing.T, path string) []quarantined {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []quarantined
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var q quarantined
		if err := json.Unmarshal(line, &q); err != nil {
			t.Fatalf("quarantine line %q: %v", line, err)
		}
		out = append(out, q)
	}
	return out
}

func TestBadLinesAreQuarantinedWithFileAndLine(t *testing.T) {
	cases := []struct {
		name    string
		line    string
		wantErr string
	}{
		{"malformed", `{"text": "unterminated}`, "malformed JSON: unterminated string"},
		{"trailing garbage", `{"text": "x"} extra`, "malformed JSON: unexpected data after the value"},
		{"not an object", `["text", 1]`, "not a JSON object"},
		{"bare string", `"just a string"`, "not a JSON object"},
		{"bad number", `{"text": "x", "n": 01}`, "malformed JSON"},
		{"control character", "{\"text\": \"tab\there\"}", "control character in string"},
		{"deep nesting", `{"a":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`, "nesting deeper than 128 levels"},
		{"lone surrogate is repaired, not quarantined", `{"text": "\ud800x"}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			src := writeFile(t, dir, "in.jsonl", []byte(`{"text":"good one"}`+"\n"+c.line+"\n"+`{"text":"good two"}`+"\n"))
			out := filepath.Join(dir, "out.parquet")
			m := run(t, testConfig(t, out, src))
			q := readQuarantine(t, filepath.Join(dir, "out.quarantine.jsonl"))
			if c.wantErr == "" {
				if len(q) != 0 || m.Counts.RowsOut != 3 {
					t.Fatalf("want 3 rows and no quarantine, got %+v, %v", m.Counts, q)
				}
				return
			}
			if m.Counts.RowsOut != 2 || m.Counts.Quarantined != 1 || len(q) != 1 {
				t.Fatalf("counts %+v, quarantine %v", m.Counts, q)
			}
			if q[0].File != src || q[0].Line != 2 || q[0].Raw != c.line || !strings.Contains(q[0].Error, c.wantErr) {
				t.Fatalf("quarantine entry %+v, want line 2 of %s with error %q", q[0], src, c.wantErr)
			}
			if q[0].Offset != int64(len(`{"text":"good one"}`)+1) {
				t.Fatalf("offset %d", q[0].Offset)
			}
		})
	}
}

func TestInvalidUTF8IsRepairedOrQuarantined(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, dir, "in.jsonl", []byte("{\"text\":\"bad \xff byte\"}\n{\"text\":\"fine\"}\n"))
	out := filepath.Join(dir, "repaired.jsonl")
	m := run(t, testConfig(t, out, src))
	if m.Counts.UTF8Repaired != 1 || m.Counts.RowsOut != 2 {
		t.Fatalf("repair: counts %+v", m.Counts)
	}
	rows := readJSONL(t, out)
	if rows[0]["text"] != "bad \uFFFD byte" {
		t.Fatalf("repaired text %q", rows[0]["text"])
	}

	out = filepath.Join(dir, "strict.parquet")
	cfg := testConfig(t, out, src)
	cfg.RepairUTF8 = false
	m = run(t, cfg)
	q := readQuarantine(t, filepath.Join(dir, "strict.quarantine.jsonl"))
	if m.Counts.Quarantined != 1 || len(q) != 1 || !strings.Contains(q[0].Error, "invalid UTF-8") {
		t.Fatalf("quarantine mode: counts %+v, entries %+v", m.Counts, q)
	}
	if string(q[0].RawBase64) != "{\"text\":\"bad \xff byte\"}" {
		t.Fatalf("raw bytes not kept exactly: %q", q[0].RawBase64)
	}
}

func TestTruncatedCompressedInputKeepsRowsBeforeTheDamage(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 20000; i++ {
		b.WriteString(`{"text":"row number `)
		b.WriteString(strings.Repeat("x", i%37))
		b.WriteString(`"}` + "\n")
	}
	full := []byte(b.String())
	for name, data := range map[string][]byte{"in.jsonl.gz": gzipBytes(full), "in.jsonl.zst": zstdBytes(full)} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			src := writeFile(t, dir, name, data[:len(data)/2])
			out := filepath.Join(dir, "out.parquet")
			cfg := testConfig(t, out, src)
			m, err := Run(context.Background(), cfg, nil, "test")
			if !errors.Is(err, ErrPartialInput) {
				t.Fatalf("got %v, want ErrPartialInput", err)
			}
			if !strings.Contains(err.Error(), src) || !strings.Contains(err.Error(), "after byte") {
				t.Fatalf("error does not name the file and offset: %v", err)
			}
			if m.Counts.RowsOut == 0 || m.Counts.RowsIn >= 20000 {
				t.Fatalf("expected the rows before the damage, got %+v", m.Counts)
			}
			checkManifest(t, cfg.Target, m)
			if len(m.Inputs) != 1 || m.Inputs[0].Error == "" {
				t.Fatalf("manifest does not record the input error: %+v", m.Inputs)
			}
		})
	}
}

func TestEmptyInputsGiveAnEmptyReadableOutput(t *testing.T) {
	dir := t.TempDir()
	empty := writeFile(t, dir, "empty.jsonl", nil)
	blank := writeFile(t, dir, "blank.jsonl", []byte("\n  \n\r\n"))
	out := filepath.Join(dir, "out.parquet")
	m := run(t, testConfig(t, out, empty, blank))
	if m.Counts.RowsIn != 0 || m.Counts.RowsOut != 0 || len(m.Outputs) != 1 {
		t.Fatalf("counts %+v outputs %v", m.Counts, m.Outputs)
	}
	if m.Inputs[1].BlankLines != 3 {
		t.Fatalf("blank lines %d, want 3", m.Inputs[1].BlankLines)
	}
	back := filepath.Join(dir, "back.jsonl")
	run(t, testConfig(t, back, out))
	if rows := readJSONL(t, back); len(rows) != 0 {
		t.Fatalf("rows from an empty input: %v", rows)
	}
}

func TestHundredMegabyteLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 100 MB line")
	}
	dir := t.TempDir()
	big := strings.Repeat("abcdefghij", 10<<20) // 100 MiB of text
	data := []byte(`{"text":"short"}` + "\n" + `{"id":"big","text":"` + big + `"}` + "\n" + `{"text":"after"}` + "\n")
	src := writeFile(t, dir, "big.jsonl", data)
	out := filepath.Join(dir, "out.jsonl")
	m := run(t, testConfig(t, out, src))
	if m.Counts.RowsOut != 3 {
		t.Fatalf("counts %+v", m.Counts)
	}
	rows := readJSONL(t, out)
	if rows[1]["text"] != big || rows[2]["text"] != "after" {
		t.Fatal("the 100 MB line did not come back whole")
	}

	// Over --max-line-bytes the line is quarantined with its first KB.
	cfg := testConfig(t, filepath.Join(dir, "limited.parquet"), src)
	cfg.MaxLineBytes = 1 << 20
	m = run(t, cfg)
	q := readQuarantine(t, filepath.Join(dir, "limited.quarantine.jsonl"))
	if m.Counts.RowsOut != 2 || len(q) != 1 || q[0].Line != 2 || !strings.Contains(q[0].Error, "line too long") || len(q[0].Raw) != 1024 {
		t.Fatalf("counts %+v quarantine %+v", m.Counts, q)
	}
}

func TestMissingTextFieldIsCountedAndKept(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, dir, "in.jsonl", []byte(`{"id":"1","text":"a"}`+"\n"+`{"id":"2"}`+"\n"+`{"id":"3","text":null}`+"\n"))
	m := run(t, testConfig(t, filepath.Join(dir, "out.parquet"), src))
	if m.Counts.MissingText != 2 || m.Counts.RowsOut != 3 {
		t.Fatalf("counts %+v", m.Counts)
	}
}

func TestLateFieldsGoToExtraOrQuarantine(t *testing.T) {
	dir := t.TempDir()
	data := `{"id":"1","n":1}` + "\n" + `{"id":"2","n":2}` + "\n" + `{"id":"3","n":"three","late":true}` + "\n"
	src := writeFile(t, dir, "in.jsonl", []byte(data))

	cfg := testConfig(t, filepath.Join(dir, "loose.jsonl"), src)
	cfg.InferRows = 2
	m := run(t, cfg)
	if m.Counts.RowsOut != 3 {
		t.Fatalf("loose: counts %+v", m.Counts)
	}
	rows := readJSONL(t, filepath.Join(dir, "loose.jsonl"))
	if rows[2]["n"] != "three" || rows[2]["late"] != true {
		t.Fatalf("values outside the schema were not kept: %v", rows[2])
	}

	cfg = testConfig(t, filepath.Join(dir, "strict.parquet"), src)
	cfg.InferRows, cfg.Strict = 2, true
	m = run(t, cfg)
	q := readQuarantine(t, filepath.Join(dir, "strict.quarantine.jsonl"))
	if m.Counts.RowsOut != 2 || len(q) != 1 || q[0].Line != 3 || !strings.Contains(q[0].Error, "does not fit the schema") {
		t.Fatalf("strict: counts %+v quarantine %+v", m.Counts, q)
	}
}
