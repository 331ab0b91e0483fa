package command

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/gzip"
	"github.com/sluice-data/sluice/io/dataset"
)

// The hostile command-line suite: what a careless or hostile user does to
// sluice, each case with the exit code it must give, the files it must
// leave alone or never create, and the manifest counts it must write.
// Every case runs in a fresh directory that is also the working directory.

const (
	rowsA = `{"id":"a1","text":"The river ran past the mill and the old stone bridge."}` + "\n" +
		`{"id":"a2","text":"A second row about the mountains and the valley."}` + "\n" +
		`{"id":"a3","text":"A third row, about the harbour in winter."}` + "\n"
	rowsC = `{"id":"c1","text":"Another file, another row."}` + "\n" +
		`{"id":"c2","text":"And the last row of it."}` + "\n"
)

// hostileCase is one command and what it must do.
type hostileCase struct {
	name  string
	files map[string]string // written before the command
	prep  [][]string        // sluice commands run first; each must succeed
	after map[string]string // written after prep, before the command
	args  []string
	stdin string
	code  int
	err   string   // a substring of stderr
	keep  []string // paths (files or trees) the command must leave byte for byte as they were
	never []string // paths that must not exist afterwards
	// counts, when set, are the manifest counts the command must write
	// (rows_in, rows_out, removed, quarantined) to manifest.
	manifest string
	counts   *[4]int64
	check    func(t *testing.T, stdout, stderr string)
}

func counts(in, out, removed, quarantined int64) *[4]int64 {
	return &[4]int64{in, out, removed, quarantined}
}

func TestHostileCommandLines(t *testing.T) {
	for _, c := range hostileCases() {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			writeFiles(t, c.files)
			for _, p := range c.prep {
				if code, out, errs := sluiceIn(t, "", p...); code != 0 {
					t.Fatalf("preparing with sluice %v: exit %d\n%s%s", p, code, out, errs)
				}
			}
			writeFiles(t, c.after)
			before := map[string]string{}
			for _, k := range c.keep {
				before[k] = snapshot(t, k)
			}
			code, stdout, stderr := sluiceIn(t, c.stdin, c.args...)
			if code != c.code {
				t.Fatalf("sluice %v: exit %d, want %d\nstdout: %s\nstderr: %s", c.args, code, c.code, stdout, stderr)
			}
			if c.err != "" && !strings.Contains(stderr, c.err) {
				t.Errorf("stderr %q does not say %q", stderr, c.err)
			}
			for _, k := range c.keep {
				if after := snapshot(t, k); after != before[k] {
					t.Errorf("%s changed:\nbefore %s\nafter  %s", k, before[k], after)
				}
			}
			for _, p := range c.never {
				if _, err := os.Lstat(p); err == nil {
					t.Errorf("%s exists; it must not", p)
				}
			}
			if c.counts != nil {
				m, err := dataset.ReadManifest(c.manifest)
				if err != nil {
					t.Fatalf("manifest: %v", err)
				}
				got := [4]int64{m.Counts.RowsIn, m.Counts.RowsOut, m.Counts.Removed, m.Counts.Quarantined}
				if got != *c.counts {
					t.Errorf("manifest counts (in, out, removed, quarantined) = %v, want %v", got, *c.counts)
				}
			}
			leftovers(t, ".")
			if c.check != nil {
				c.check(t, stdout, stderr)
			}
		})
	}
}

func hostileCases() []hostileCase {
	toParquet := []string{"convert", "a.jsonl", "-o", "b.parquet"}
	toDataset := []string{"convert", "a.jsonl", "-o", "ds"}
	a := map[string]string{"a.jsonl": rowsA}
	ac := map[string]string{"a.jsonl": rowsA, "c.jsonl": rowsC}
	var cases []hostileCase
	add := func(c ...hostileCase) { cases = append(cases, c...) }

	// Outputs that are inputs, or hold them, or lie where inputs are read.
	add(
		hostileCase{name: "parquet output is its own input", files: a, prep: [][]string{toParquet},
			args: []string{"convert", "b.parquet", "-o", "b.parquet", "--overwrite"}, code: 2, err: "also an input", keep: []string{"b.parquet", "b.manifest.json"}},
		hostileCase{name: "dataset is its own output", files: a, prep: [][]string{toDataset},
			args: []string{"convert", "ds", "-o", "ds", "--overwrite"}, code: 2, err: "input", keep: []string{"ds"}},
		hostileCase{name: "clean into its own input", files: a, prep: [][]string{toDataset},
			args: []string{"clean", "ds", "-o", "ds", "--overwrite", "--normalize"}, code: 2, keep: []string{"ds"}},
		hostileCase{name: "dedup exact into its own input file", files: a,
			args: []string{"dedup", "exact", "a.jsonl", "-o", "a.jsonl", "--overwrite"}, code: 2, err: "also an input", keep: []string{"a.jsonl"}},
		hostileCase{name: "output directory holds the input and a project", files: map[string]string{"proj/in.jsonl": rowsA, "proj/src/main.py": "print(1)\n", "proj/data/keep.txt": "x"},
			args: []string{"convert", "proj/in.jsonl", "-o", "proj", "--overwrite"}, code: 2, err: "contains the input", keep: []string{"proj"}},
		hostileCase{name: "output directory with data/ that is not a dataset", files: map[string]string{"a.jsonl": rowsA, "proj/src/main.py": "print(1)\n", "proj/data/x.txt": "x"},
			args: []string{"convert", "a.jsonl", "-o", "proj", "--overwrite"}, code: 2, err: "not a sluice dataset", keep: []string{"proj"}},
		hostileCase{name: "a stray manifest.json does not make a dataset", files: map[string]string{"a.jsonl": rowsA, "proj/manifest.json": `{"tool":"sluice"}`, "proj/notes.md": "mine"},
			args: []string{"convert", "a.jsonl", "-o", "proj", "--overwrite"}, code: 2, err: "not a sluice dataset", keep: []string{"proj"}},
		hostileCase{name: "the working directory as output", files: map[string]string{"sub/a.jsonl": rowsA, "main.go": "package main\n"},
			args: []string{"convert", "sub/a.jsonl", "-o", ".", "--overwrite"}, code: 2, keep: []string{"."}},
		hostileCase{name: "output inside the input directory", files: map[string]string{"in/a.jsonl": rowsA},
			args: []string{"convert", "in", "-o", "in/out"}, code: 2, err: "would be read as input", never: []string{"in/out"}, keep: []string{"in"}},
		hostileCase{name: "one-file output inside the input directory", files: map[string]string{"in/a.jsonl": rowsA},
			args: []string{"convert", "in", "-o", "in/out.parquet"}, code: 2, never: []string{"in/out.parquet"}},
		hostileCase{name: "output directory holds an input directory", files: map[string]string{"work/in/a.jsonl": rowsA},
			args: []string{"convert", "work/in", "-o", "work"}, code: 2, keep: []string{"work"}},
		hostileCase{name: "side file of the output is an input", files: map[string]string{"out.quarantine.jsonl": rowsA},
			args: []string{"convert", "out.quarantine.jsonl", "-o", "out.parquet"}, code: 2, never: []string{"out.parquet"}},
		hostileCase{name: "probes file is an input", files: a,
			args: []string{"memorize", "probes", "a.jsonl", "-o", "a.jsonl", "--overwrite"}, code: 2, err: "also an input", keep: []string{"a.jsonl"}},
		hostileCase{name: "clusters table is an input", files: a,
			args: []string{"dedup", "minhash", "a.jsonl", "-o", "out", "--clusters", "a.jsonl"}, code: 2, keep: []string{"a.jsonl"}, never: []string{"out"}},
	)

	// Replacing outputs: only what sluice wrote, only once the new one is whole.
	add(
		hostileCase{name: "existing output without --overwrite", files: ac, prep: [][]string{toDataset},
			args: []string{"convert", "c.jsonl", "-o", "ds"}, code: 2, err: "already exists", keep: []string{"ds"}},
		hostileCase{name: "failed overwrite keeps the previous output", files: map[string]string{"a.jsonl": rowsA, "bad.parquet": "PAR1 this is not parquet at all PAR1"},
			prep: [][]string{toDataset}, args: []string{"convert", "bad.parquet", "-o", "ds", "--overwrite"}, code: 1, keep: []string{"ds"}},
		hostileCase{name: "failed overwrite of a one-file output keeps it", files: map[string]string{"a.jsonl": rowsA, "bad.parquet": "PAR1 this is not parquet at all PAR1"},
			prep: [][]string{toParquet}, args: []string{"convert", "bad.parquet", "-o", "b.parquet", "--overwrite"}, code: 1, keep: []string{"b.parquet", "b.manifest.json"}},
		hostileCase{name: "overwrite replaces only the files the manifest lists", files: ac,
			prep: [][]string{{"convert", "a.jsonl", "-o", "ds", "--max-file-rows", "1"}},
			args: []string{"convert", "c.jsonl", "-o", "ds", "--overwrite"}, code: 0, manifest: "ds/manifest.json", counts: counts(2, 2, 0, 0),
			never: []string{"ds/data/part-00001.parquet", "ds/data/part-00002.parquet"}},
		hostileCase{name: "overwrite leaves the user's own files in a dataset", files: ac, prep: [][]string{toDataset},
			after: map[string]string{"ds/NOTES.md": "mine", "ds/data/README": "mine too"},
			args:  []string{"convert", "c.jsonl", "-o", "ds", "--overwrite"}, code: 0, keep: []string{"ds/NOTES.md", "ds/data/README"},
			manifest: "ds/manifest.json", counts: counts(2, 2, 0, 0)},
		hostileCase{name: "a file in the way that no manifest lists stops the commit", files: map[string]string{"a.jsonl": rowsA, "d.jsonl": rowsA + rowsA},
			prep:  [][]string{toDataset},
			after: map[string]string{"ds/removed/part-00000.parquet": "the user's own"},
			args:  []string{"dedup", "exact", "d.jsonl", "-o", "ds", "--overwrite"}, code: 2, err: "not written by sluice",
			keep: []string{"ds"}},
		hostileCase{name: "an empty manifest.json is not a dataset", files: map[string]string{"a.jsonl": rowsA, "mine/manifest.json": "", "mine/data/.keep": ""},
			args: []string{"convert", "a.jsonl", "-o", "mine"}, code: 2, keep: []string{"mine"}},
		hostileCase{name: "a one-file output sluice did not write", files: map[string]string{"a.jsonl": rowsA, "out.parquet": "my own bytes"},
			args: []string{"convert", "a.jsonl", "-o", "out.parquet", "--overwrite"}, code: 2, err: "not written by sluice", keep: []string{"out.parquet"}, never: []string{"out.manifest.json"}},
		hostileCase{name: "two one-file outputs with one stem", files: ac, prep: [][]string{{"convert", "a.jsonl", "-o", "same.parquet"}},
			args: []string{"convert", "c.jsonl", "-o", "same.jsonl.zst"}, code: 2, err: "belongs to", keep: []string{"same.parquet", "same.manifest.json"}, never: []string{"same.jsonl.zst"}},
		hostileCase{name: "two one-file outputs with one stem, --overwrite", files: ac, prep: [][]string{{"convert", "a.jsonl", "-o", "same.parquet"}},
			args: []string{"convert", "c.jsonl", "-o", "same.jsonl.zst", "--overwrite"}, code: 2, err: "belongs to", keep: []string{"same.parquet", "same.manifest.json"}},
		hostileCase{name: "inspect reads the counts of its own manifest", files: ac, prep: [][]string{{"convert", "a.jsonl", "-o", "same.parquet"}},
			args: []string{"inspect", "same.parquet", "--json"}, code: 0,
			check: func(t *testing.T, stdout, _ string) {
				var rep struct {
					Rows           int64           `json:"rows"`
					ManifestCounts *dataset.Counts `json:"manifest_counts"`
				}
				if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.Rows != 3 || rep.ManifestCounts == nil || rep.ManifestCounts.RowsOut != 3 {
					t.Errorf("inspect: %+v %v", rep, err)
				}
			}},
		hostileCase{name: "overwrite of one's own one-file output", files: ac, prep: [][]string{toParquet},
			args: []string{"convert", "c.jsonl", "-o", "b.parquet", "--overwrite"}, code: 0, manifest: "b.manifest.json", counts: counts(2, 2, 0, 0)},
		hostileCase{name: "demo refuses an existing directory", files: map[string]string{"mine/notes.txt": "keep me"},
			args: []string{"demo", "-o", "mine"}, code: 2, keep: []string{"mine"}},
		hostileCase{name: "demo refuses a dataset that is not a demo's", files: a, prep: [][]string{toDataset},
			args: []string{"demo", "-o", "ds"}, code: 2, keep: []string{"ds"}},
		hostileCase{name: "a web URL as output", files: a,
			args: []string{"convert", "a.jsonl", "-o", "https://example.com/out/"}, code: 2, err: "not supported", never: []string{"https:"}},
		hostileCase{name: "a web URL as input", args: []string{"convert", "https://example.com/a.jsonl", "-o", "out"}, code: 2, err: "not supported", never: []string{"out"}},
		hostileCase{name: "what a killed run left is cleaned", files: map[string]string{"a.jsonl": rowsA, "ds/.sluice-tmp-123/data/part-00000.parquet": "half", "ds/.sluice-lock": "pid 1"},
			args: []string{"convert", "a.jsonl", "-o", "ds"}, code: 0, manifest: "ds/manifest.json", counts: counts(3, 3, 0, 0), never: []string{"ds/.sluice-tmp-123", "ds/.sluice-lock"}},
		hostileCase{name: "an incomplete dataset is refused as input", files: a,
			prep: [][]string{toDataset}, args: []string{"convert", "ds-incomplete", "-o", "out"}, code: 2, err: "incomplete", never: []string{"out"}},
		hostileCase{name: "inspect refuses an incomplete dataset", files: a,
			prep: [][]string{toDataset}, args: []string{"inspect", "ds-incomplete"}, code: 2, err: "--allow-incomplete"},
		hostileCase{name: "an incomplete dataset read on purpose", files: a,
			prep: [][]string{toDataset}, args: []string{"convert", "ds-incomplete", "-o", "out", "--allow-incomplete"}, code: 0, manifest: "out/manifest.json", counts: counts(3, 3, 0, 0)},
	)
	// The incomplete dataset: a copy of ds without its manifest.
	for i := range cases {
		if strings.Contains(cases[i].name, "incomplete dataset") {
			cases[i].prep = append(cases[i].prep, []string{"convert", "a.jsonl", "-o", "ds-incomplete/data/part-00000.parquet"})
		}
	}

	// Inputs: every row ends in one place, whatever the order and the form.
	add(
		hostileCase{name: "JSONL then Parquet is refused", files: a, prep: [][]string{toParquet},
			args: []string{"convert", "a.jsonl", "b.parquet", "-o", "x"}, code: 2, err: "cannot mix", never: []string{"x"}},
		hostileCase{name: "Parquet then JSONL is refused the same way", files: a, prep: [][]string{toParquet},
			args: []string{"convert", "b.parquet", "a.jsonl", "-o", "x"}, code: 2, err: "cannot mix", never: []string{"x"}},
		hostileCase{name: "a directory holding JSONL and Parquet", files: map[string]string{"in/a.jsonl": rowsA},
			prep: [][]string{{"convert", "in/a.jsonl", "-o", "in/b.parquet"}}, args: []string{"convert", "in", "-o", "x"}, code: 2, err: "cannot mix"},
		hostileCase{name: "the same file named twice is read once", files: a,
			args: []string{"convert", "a.jsonl", "./a.jsonl", "-o", "x"}, code: 0, manifest: "x/manifest.json", counts: counts(3, 3, 0, 0)},
		hostileCase{name: "directory scans skip hidden and side files and plain JSON",
			files: map[string]string{"in/a.jsonl": rowsA, "in/.old.jsonl": rowsC, "in/x.quarantine.jsonl": rowsC, "in/x.manifest.json": "{}", "in/config.json": "{}"},
			args:  []string{"convert", "in", "-o", "x"}, code: 0, manifest: "x/manifest.json", counts: counts(3, 3, 0, 0)},
		hostileCase{name: "stdin as -", stdin: rowsA,
			args: []string{"convert", "-", "-o", "x.parquet"}, code: 0, manifest: "x.manifest.json", counts: counts(3, 3, 0, 0)},
		hostileCase{name: "gzip on stdin", stdin: gz(rowsA),
			args: []string{"convert", "-", "-o", "x.parquet"}, code: 0, manifest: "x.manifest.json", counts: counts(3, 3, 0, 0)},
		hostileCase{name: "WARC on stdin", stdin: warcRecord("http://a.example/", "<p>hello</p>") + warcRecord("http://b.example/", "<p>again</p>"),
			args: []string{"convert", "-", "-o", "x.parquet"}, code: 0, manifest: "x.manifest.json", counts: counts(2, 2, 0, 0)},
		hostileCase{name: "stdin twice is one stream", stdin: rowsA,
			args: []string{"convert", "-", "-", "-o", "x.parquet"}, code: 0, manifest: "x.manifest.json", counts: counts(3, 3, 0, 0)},
		hostileCase{name: "a full inference pass over stdin", stdin: rowsA,
			args: []string{"convert", "-", "-o", "x.parquet", "--infer-rows", "all"}, code: 2, err: "stream", never: []string{"x.parquet"}},
		hostileCase{name: "JSONL to standard output", files: a,
			args: []string{"convert", "a.jsonl", "-o", "-"}, code: 0,
			check: func(t *testing.T, stdout, stderr string) {
				if strings.Count(stdout, "\n") != 3 || !strings.HasPrefix(stdout, `{"id":"a1"`) {
					t.Errorf("stdout %q, want the three rows", stdout)
				}
				if !strings.Contains(stderr, "3 written") {
					t.Errorf("the summary goes to stderr: %q", stderr)
				}
			}},
		hostileCase{name: "quarantined lines go to stderr with -o -", files: map[string]string{"a.jsonl": rowsA + "not json\n"},
			args: []string{"convert", "a.jsonl", "-o", "-"}, code: 0,
			check: func(t *testing.T, stdout, stderr string) {
				if strings.Count(stdout, "\n") != 3 || !strings.Contains(stderr, `"line":4`) {
					t.Errorf("stdout %q stderr %q", stdout, stderr)
				}
			}},
		hostileCase{name: "standard output cannot hold removed rows", files: a,
			args: []string{"clean", "a.jsonl", "-o", "-", "--filters", "gopher_quality"}, code: 2, err: "removed rows"},
		hostileCase{name: "a byte order mark", files: map[string]string{"bom.jsonl": "\xef\xbb\xbf" + rowsA},
			args: []string{"convert", "bom.jsonl", "-o", "x"}, code: 0, manifest: "x/manifest.json", counts: counts(3, 3, 0, 0)},
		hostileCase{name: "malformed JSON is quarantined", files: map[string]string{"m.jsonl": rowsA + "{\"text\": \n[1,2]\n"},
			args: []string{"convert", "m.jsonl", "-o", "x"}, code: 0, manifest: "x/manifest.json", counts: counts(5, 3, 0, 2)},
		hostileCase{name: "invalid UTF-8 is repaired", files: map[string]string{"u.jsonl": "{\"text\":\"bad \xff byte\"}\n"},
			args: []string{"convert", "u.jsonl", "-o", "x"}, code: 0, manifest: "x/manifest.json", counts: counts(1, 1, 0, 0)},
		hostileCase{name: "invalid UTF-8 quarantined on request", files: map[string]string{"u.jsonl": "{\"text\":\"bad \xff byte\"}\n"},
			args: []string{"convert", "u.jsonl", "-o", "x", "--invalid-utf8", "quarantine"}, code: 0, manifest: "x/manifest.json", counts: counts(1, 0, 0, 1)},
		hostileCase{name: "a truncated gzip keeps the rows before the damage", files: map[string]string{"t.jsonl.gz": cut(gz(manyRows(5000)), 2)},
			args: []string{"convert", "t.jsonl.gz", "-o", "x"}, code: 1, err: "t.jsonl.gz",
			check: func(t *testing.T, _, _ string) {
				m, err := dataset.ReadManifest("x/manifest.json")
				if err != nil || m.Counts.Check() != nil || len(m.Errors) != 1 {
					t.Errorf("manifest of a partial read: %+v, %v", m, err)
				}
			}},
		hostileCase{name: "an empty file", files: map[string]string{"e.jsonl": ""},
			args: []string{"convert", "e.jsonl", "-o", "x"}, code: 0, manifest: "x/manifest.json", counts: counts(0, 0, 0, 0)},
		hostileCase{name: "a missing text field", files: map[string]string{"n.jsonl": `{"id":1,"body":"no text"}` + "\n"},
			args: []string{"convert", "n.jsonl", "-o", "x"}, code: 0, manifest: "x/manifest.json", counts: counts(1, 1, 0, 0)},
		hostileCase{name: "a line longer than --max-line-bytes", files: map[string]string{"l.jsonl": `{"text":"` + strings.Repeat("x", 5000) + `"}` + "\n" + rowsC},
			args: []string{"convert", "l.jsonl", "-o", "x", "--max-line-bytes", "1KiB"}, code: 0, manifest: "x/manifest.json", counts: counts(3, 2, 0, 1)},
		hostileCase{name: "integers beyond int64 stay exact", files: map[string]string{"i.jsonl": `{"n":9223372036854775807}` + "\n" + `{"n":9223372036854775808}` + "\n" + `{"n":9007199254740993}` + "\n"},
			args: []string{"convert", "i.jsonl", "-o", "i.parquet"}, code: 0, manifest: "i.manifest.json", counts: counts(3, 3, 0, 0),
			check: roundTrip("i.parquet", `{"n":9223372036854775807}`, `{"n":9223372036854775808}`, `{"n":9007199254740993}`)},
		hostileCase{name: "an integer beyond int64 met after inference", files: map[string]string{"i.jsonl": `{"n":1}` + "\n" + `{"n":99999999999999999999}` + "\n" + `{"n":9223372036854775807}` + "\n"},
			args: []string{"convert", "i.jsonl", "-o", "i.parquet", "--infer-rows", "1"}, code: 0, manifest: "i.manifest.json", counts: counts(3, 3, 0, 0),
			check: roundTrip("i.parquet", `{"n":1}`, `{"n":99999999999999999999}`, `{"n":9223372036854775807}`)},
		hostileCase{name: "1e400 ends in one place", files: map[string]string{"f.jsonl": `{"x":1.5}` + "\n" + `{"x":1e400}` + "\n"},
			args: []string{"convert", "f.jsonl", "-o", "f.parquet", "--infer-rows", "all"}, code: 0, manifest: "f.manifest.json", counts: counts(2, 2, 0, 0),
			check: roundTrip("f.parquet", `{"x":1.5}`, `{"x":1e400}`)},
		hostileCase{name: "random bytes named .warc", files: map[string]string{"r.warc": "\x00\x9c\xfe\x13\x37\x42\x00\x01\x02\x03"},
			args: []string{"convert", "r.warc", "-o", "x"}, code: 2, err: "r.warc", never: []string{"x"}},
		hostileCase{name: "random bytes named .parquet", files: map[string]string{"r.parquet": "\x00\x9c\xfe\x13\x37\x42\x00\x01\x02\x03"},
			args: []string{"convert", "r.parquet", "-o", "x"}, code: 2, err: "r.parquet", never: []string{"x"}},
		hostileCase{name: "a truncated plain WARC", files: map[string]string{"t.warc": warcRecord("http://a.example/", "<p>whole</p>") + warcRecord("http://b.example/", "<p>cut short here</p>")[:150]},
			args: []string{"convert", "t.warc", "-o", "x"}, code: 1, err: "t.warc",
			check: func(t *testing.T, _, _ string) {
				m, err := dataset.ReadManifest("x/manifest.json")
				if err != nil || m.Counts.Check() != nil || m.Counts.RowsOut != 1 {
					t.Errorf("manifest: %+v, %v", m, err)
				}
			}},
		hostileCase{name: "a WARC record whose Content-Length lies", files: map[string]string{"l.warc": strings.Replace(warcRecord("http://a.example/", "<p>liar</p>"), "Content-Length: ", "Content-Length: 9", 1) + warcRecord("http://b.example/", "<p>after</p>") + warcRecord("http://c.example/", "<p>after too</p>")},
			// The liar is quarantined; the records after it are read.
			args: []string{"convert", "l.warc", "-o", "x"}, code: 0, manifest: "x/manifest.json", counts: counts(3, 2, 0, 1)},
	)

	// Flags are checked before any work.
	flagCase := func(name, errText string, args ...string) hostileCase {
		return hostileCase{name: name, files: a, args: args, code: 2, err: errText, never: []string{"out"}}
	}
	add(
		flagCase("threshold NaN", "threshold", "dedup", "minhash", "a.jsonl", "-o", "out", "--threshold", "NaN"),
		flagCase("threshold Inf", "threshold", "dedup", "minhash", "a.jsonl", "-o", "out", "--threshold", "Inf"),
		flagCase("threshold above 1", "threshold", "dedup", "minhash", "a.jsonl", "-o", "out", "--threshold", "1.5"),
		flagCase("num-perm beyond what a page holds", "--num-perm is 32768", "dedup", "minhash", "a.jsonl", "-o", "out", "--num-perm", "32768", "--bands", "16"),
		flagCase("clusters not parquet", ".parquet", "dedup", "minhash", "a.jsonl", "-o", "out", "--clusters", "x.csv"),
		flagCase("max-file-rows 0", "max-file-rows", "convert", "a.jsonl", "-o", "out", "--max-file-rows", "0"),
		flagCase("max-file-bytes 0", "max-file-bytes", "convert", "a.jsonl", "-o", "out", "--max-file-bytes", "0"),
		flagCase("page-bytes tiny", "page-bytes", "convert", "a.jsonl", "-o", "out", "--page-bytes", "10"),
		flagCase("batch-rows 0", "batch-rows", "convert", "a.jsonl", "-o", "out", "--batch-rows", "0"),
		flagCase("negative workers", "workers", "convert", "a.jsonl", "-o", "out", "--workers", "-1"),
		hostileCase{name: "workers 0 means every core, as in a pipeline file", files: a,
			args: []string{"convert", "a.jsonl", "-o", "out", "--workers", "0"}, code: 0, manifest: "out/manifest.json", counts: counts(3, 3, 0, 0)},
		flagCase("unknown compression", "compression", "convert", "a.jsonl", "-o", "out", "--compression", "lz5"),
		flagCase("compression level 99", "compression-level", "convert", "a.jsonl", "-o", "out", "--compression-level", "99"),
		flagCase("infer-rows nonsense", "infer-rows", "convert", "a.jsonl", "-o", "out", "--infer-rows", "some"),
		flagCase("invalid-utf8 nonsense", "invalid-utf8", "convert", "a.jsonl", "-o", "out", "--invalid-utf8", "drop"),
		flagCase("unknown flag", "", "convert", "a.jsonl", "-o", "out", "--frobnicate"),
		flagCase("no input", "no input", "convert", "-o", "out"),
		flagCase("missing input", "nope.jsonl", "convert", "nope.jsonl", "-o", "out"),
		flagCase("glob matching nothing", "no file matches", "convert", "nothing-*.jsonl", "-o", "out"),
		flagCase("keep nonsense", "--keep", "dedup", "lines", "a.jsonl", "-o", "out", "--keep", "all"),
		flagCase("negative min-line-chars", "min-line-chars", "dedup", "lines", "a.jsonl", "-o", "out", "--min-line-chars", "-1"),
		oneError(flagCase("unknown profile", "", "clean", "a.jsonl", "-o", "out", "--profile", "foo"),
			`--profile: unknown profile "foo" (want one of paper, datatrove, dolma, nemo)`),
		oneError(flagCase("unknown profile with rule sets", "", "clean", "a.jsonl", "-o", "out", "--filters", "c4", "--profile", "foo"),
			`--profile: unknown profile "foo" (want one of paper, datatrove, dolma, nemo)`),
		oneError(flagCase("unknown pii kind", "", "clean", "a.jsonl", "-o", "out", "--pii", "email,ssn"),
			`--pii: unknown kind "ssn" (known: email, phone, ip)`),
		flagCase("recipe with stage flags", "give the stages either by a recipe or as flags", "clean", "a.jsonl", "-o", "out", "--recipe", "fineweb", "--pii", "email"),
		flagCase("recipe with a pipeline file", "either --config or --recipe", "clean", "a.jsonl", "-o", "out", "--recipe", "c4", "--config", "p.yaml"),
		flagCase("unknown recipe", `--recipe: unknown recipe "finweb"`, "clean", "a.jsonl", "-o", "out", "--recipe", "finweb"),
		flagCase("normalize none is no stage", "no stage to run", "clean", "a.jsonl", "-o", "out", "--normalize", "none"),
		flagCase("unknown recipe to print", "unknown recipe finweb; did you mean fineweb?", "recipe", "finweb"),
		flagCase("two recipes to print", "at most one NAME", "recipe", "c4", "gopher"),
	)

	// Fidelity.
	add(
		hostileCase{name: "ordinary prose keeps its capitalised stop words", files: map[string]string{"p.jsonl": prose()},
			args: []string{"clean", "p.jsonl", "-o", "out", "--filters", "gopher_quality"}, code: 0, manifest: "out/manifest.json", counts: counts(1, 1, 0, 0)},
		hostileCase{name: "line dedup keeps a kept line's line break", files: map[string]string{"d.jsonl": `{"id":"1","text":"Menu bar here\nfirst story\n"}` + "\n" + `{"id":"2","text":"second story\nMenu bar here\n"}` + "\n"},
			args: []string{"dedup", "lines", "d.jsonl", "-o", "out.jsonl", "--min-line-chars", "3"}, code: 0, manifest: "out.manifest.json", counts: counts(2, 2, 0, 0),
			check: func(t *testing.T, _, _ string) {
				b, _ := os.ReadFile("out.jsonl")
				if !strings.Contains(string(b), `"first story\n"`) || !strings.Contains(string(b), `"second story\n"`) {
					t.Errorf("kept lines lost their line break: %s", b)
				}
			}},
	)

	// Files that are not datasets (models, reports, cards, counts) go
	// through the same output path: never over an input or a file of
	// one, never over a file sluice did not write.
	lab := map[string]string{"lab.jsonl": labelledRows(), "model.bin": "mine", "notes.txt": "mine"}
	toCleanDataset := []string{"clean", "a.jsonl", "-o", "DS", "--normalize"}
	add(
		hostileCase{name: "classify train over its own training data", files: lab,
			args: []string{"classify", "train", "lab.jsonl", "--label-field", "label", "-o", "lab.jsonl"}, code: 2, err: "also an input", keep: []string{"lab.jsonl"}},
		hostileCase{name: "classify train over its own training data with --overwrite", files: lab,
			args: []string{"classify", "train", "lab.jsonl", "--label-field", "label", "-o", "lab.jsonl", "--overwrite"}, code: 2, err: "also an input", keep: []string{"lab.jsonl"}},
		hostileCase{name: "classify train -o over a user file", files: lab,
			args: []string{"classify", "train", "lab.jsonl", "--label-field", "label", "-o", "model.bin"}, code: 2, err: "not written by sluice", keep: []string{"model.bin"}},
		hostileCase{name: "classify train --save-text over a user file", files: lab,
			args: []string{"classify", "train", "lab.jsonl", "--label-field", "label", "-o", "m.bin", "--save-text", "notes.txt", "--overwrite"}, code: 2, err: "not written by sluice",
			keep: []string{"notes.txt", "lab.jsonl"}, never: []string{"m.bin", "m.bin.manifest.json"}},
		hostileCase{name: "classify train --save-text is the model", files: lab,
			args: []string{"classify", "train", "lab.jsonl", "--label-field", "label", "-o", "m.bin", "--save-text", "m.bin"}, code: 2, err: "also an output", never: []string{"m.bin"}},
		hostileCase{name: "classify train writes a model and its text of one name", files: lab,
			args: []string{"classify", "train", "lab.jsonl", "--label-field", "label", "-o", "hq.bin", "--save-text", "hq.txt", "-q"}, code: 0,
			check: func(t *testing.T, _, _ string) {
				for _, f := range []string{"hq.bin.manifest.json", "hq.txt.manifest.json"} {
					if _, err := dataset.ReadManifest(f); err != nil {
						t.Errorf("%s: %v", f, err)
					}
				}
			}},
		hostileCase{name: "classify train replaces its own model with --overwrite only", files: lab,
			prep: [][]string{{"classify", "train", "lab.jsonl", "--label-field", "label", "-o", "m.bin", "-q"}},
			args: []string{"classify", "train", "lab.jsonl", "--label-field", "label", "-o", "m.bin", "-q"}, code: 2, err: "--overwrite", keep: []string{"m.bin", "m.bin.manifest.json"}},
		hostileCase{name: "report over its input's manifest", files: a, prep: [][]string{toCleanDataset},
			args: []string{"report", "DS", "-o", "DS/manifest.json", "--overwrite"}, code: 2, err: "file of the input dataset", keep: []string{"DS"}},
		hostileCase{name: "card over a removed part of its input", files: a, prep: [][]string{toCleanDataset},
			args: []string{"report", "DS", "--card", "-o", "DS/removed/part-00000.parquet", "--overwrite"}, code: 2, err: "file of the input dataset", keep: []string{"DS"}},
		hostileCase{name: "report over a data part named by its input", files: a, prep: [][]string{toCleanDataset},
			args: []string{"report", "DS/data/part-00000.parquet", "-o", "DS/manifest.json", "--overwrite"}, code: 2, keep: []string{"DS"}},
		hostileCase{name: "the card goes beside its dataset's manifest", files: a, prep: [][]string{toCleanDataset},
			args: []string{"report", "DS", "--card"}, code: 0,
			check: func(t *testing.T, _, _ string) {
				if code, o, e := sluiceIn(t, "", "verify", "DS"); code != 0 {
					t.Errorf("verify after the card: %d %s %s", code, o, e)
				}
				if _, err := dataset.ReadManifest("DS/README.md.manifest.json"); err != nil {
					t.Errorf("the card's manifest: %v", err)
				}
			}},
		hostileCase{name: "a page an earlier version wrote is replaced with --overwrite only", files: map[string]string{"a.jsonl": rowsA, "r.html": oldPage},
			prep: [][]string{toDataset}, args: []string{"report", "ds", "-o", "r.html"}, code: 2, err: "--overwrite", keep: []string{"r.html"}},
		hostileCase{name: "a page an earlier version wrote, with --overwrite", files: map[string]string{"a.jsonl": rowsA, "r.html": oldPage},
			prep: [][]string{toDataset}, args: []string{"report", "ds", "-o", "r.html", "--overwrite"}, code: 0,
			check: func(t *testing.T, _, _ string) {
				if b, _ := os.ReadFile("r.html"); string(b) == oldPage {
					t.Error("the old page was not replaced")
				}
			}},
		hostileCase{name: "token counts over their input", files: map[string]string{"t.json": rowsA},
			args: []string{"tokens", "t.json", "-o", "t.json", "--overwrite"}, code: 2, err: "also an input", keep: []string{"t.json"}},
		hostileCase{name: "token counts over a user file", files: map[string]string{"a.jsonl": rowsA, "t.csv": "mine"},
			args: []string{"tokens", "a.jsonl", "-o", "t.csv", "--overwrite"}, code: 2, err: "not written by sluice", keep: []string{"t.csv"}},
		hostileCase{name: "a CPU profile over an input", files: a,
			args: []string{"--cpuprofile", "a.jsonl", "convert", "a.jsonl", "-o", "b.parquet"}, code: 2, err: "also an input", keep: []string{"a.jsonl"}, never: []string{"b.parquet"}},
		hostileCase{name: "a cluster table and token counts verify as one-file outputs", files: a,
			prep: [][]string{{"dedup", "minhash", "a.jsonl", "-o", "o", "--clusters", "cl.parquet"}, {"tokens", "a.jsonl", "-o", "t.parquet"}},
			args: []string{"verify", "cl.parquet"}, code: 0,
			check: func(t *testing.T, _, _ string) {
				if code, o, e := sluiceIn(t, "", "verify", "t.parquet"); code != 0 {
					t.Errorf("verify t.parquet: %d %s %s", code, o, e)
				}
			}},
		hostileCase{name: "cluster table over the output's manifest", files: a,
			args: []string{"dedup", "minhash", "a.jsonl", "-o", "o.parquet", "--clusters", "o.removed.parquet"}, code: 2, err: "also an output", never: []string{"o.parquet"}},
	)
	return cases
}

// oldPage is a report page as a version that wrote no manifest beside it
// left it.
const oldPage = "<!doctype html>\n<html><head>\n<meta name=\"generator\" content=\"sluice report\">\n</head></html>\n"

// labelledRows is a small labelled training file of two classes.
func labelledRows() string {
	var b strings.Builder
	for i := range 40 {
		label, text := "river", "the river ran past the mill and the bridge"
		if i%2 == 1 {
			label, text = "harbour", "boats in the harbour froze in winter ice"
		}
		fmt.Fprintf(&b, `{"text":"%s %d","label":"%s"}`+"\n", text, i, label)
	}
	return b.String()
}

// oneError makes c check that its standard error is the one line
// "sluice: error: msg".
func oneError(c hostileCase, msg string) hostileCase {
	c.check = func(t *testing.T, _, stderr string) {
		if want := "sluice: error: " + msg + "\n"; stderr != want {
			t.Errorf("stderr %q, want %q", stderr, want)
		}
	}
	return c
}

// prose is one ordinary English paragraph whose stop words are
// capitalised at sentence starts.
func prose() string {
	text := "The harbour froze early that winter. And the boats stayed ashore until spring came back to the coast. " +
		"The fishermen mended nets with care in the long evenings, while their children watched the ice. " +
		"With the thaw came the first ships, and the village came alive again with trade and with talk of the sea. " +
		"That was the year the old lighthouse keeper retired to a cottage by the dunes, to have some rest at last."
	b, _ := json.Marshal(map[string]string{"id": "p1", "text": text})
	return string(b) + "\n"
}

// roundTrip checks that the one-file output converts back to JSONL lines
// that hold the given members exactly.
func roundTrip(path string, want ...string) func(t *testing.T, _, _ string) {
	return func(t *testing.T, _, _ string) {
		if code, out, errs := sluiceIn(t, "", "convert", path, "-o", "back.jsonl"); code != 0 {
			t.Fatalf("convert back: %d %s %s", code, out, errs)
		}
		b, _ := os.ReadFile("back.jsonl")
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != len(want) {
			t.Fatalf("back: %q", lines)
		}
		for i, w := range want {
			if lines[i] != w {
				t.Errorf("row %d came back as %s, want %s", i, lines[i], w)
			}
		}
	}
}

// sluiceIn runs the command line in-process with stdin as standard input
// and returns its exit code and output.
func sluiceIn(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	if stdin != "" {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() { w.Write([]byte(stdin)); w.Close() }()
		old := os.Stdin
		os.Stdin = r
		defer func() { os.Stdin = old; r.Close() }()
	}
	var out, errb bytes.Buffer
	code := Main(append([]string{"sluice"}, args...), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func writeFiles(t *testing.T, files map[string]string) {
	t.Helper()
	for name, body := range files {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot describes a file or a tree: every path with its size and hash.
func snapshot(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			fmt.Fprintf(&b, "%s/ ", path)
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s:%d:%x ", path, len(data), xxhash.Sum64(data))
		return nil
	})
	if err != nil {
		return "missing: " + err.Error()
	}
	return b.String()
}

// leftovers fails the test when a run left its temporary files or lock.
func leftovers(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if strings.Contains(name, ".sluice-tmp-") || strings.HasSuffix(name, ".sluice-lock") || strings.Contains(name, ".tmp-") {
			t.Errorf("left behind: %s", path)
		}
		return nil
	})
}

// manyRows is n distinct JSONL rows.
func manyRows(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"id":%d,"text":"row %d of %x"}`+"\n", i, i*7919, uint32(i)*2654435761)
	}
	return b.String()
}

// cut returns the first 1/k of s.
func cut(s string, k int) string { return s[:len(s)/k] }

func gz(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

// warcRecord is a WARC response record holding an HTML page.
func warcRecord(uri, html string) string {
	http := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + html
	return fmt.Sprintf("WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: %s\r\nWARC-Date: 2024-01-01T00:00:00Z\r\n"+
		"WARC-Record-ID: <urn:uuid:%016x>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n",
		uri, xxhash.Sum64String(uri), len(http), http)
}
