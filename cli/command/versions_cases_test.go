package command

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/diff"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/provenance"
)

// The versioning commands as a careless or a hostile user runs them, each
// test in a fresh directory that is also the working directory, on
// datasets sluice wrote.

// inFreshDir makes a new directory the working directory and writes
// files there.
func inFreshDir(t *testing.T, files map[string]string) {
	t.Helper()
	t.Chdir(t.TempDir())
	writeFiles(t, files)
}

// mustSluice runs a command line that must succeed.
func mustSluice(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := sluiceIn(t, "", args...)
	if code != 0 {
		t.Fatalf("sluice %v: exit %d\n%s%s", args, code, out, errs)
	}
	return out
}

// wantExit runs a command line that must exit with code and returns its
// standard output and error.
func wantExit(t *testing.T, code int, args ...string) (string, string) {
	t.Helper()
	got, out, errs := sluiceIn(t, "", args...)
	if got != code {
		t.Fatalf("sluice %v: exit %d, want %d\nstdout: %s\nstderr: %s", args, got, code, out, errs)
	}
	return out, errs
}

// editManifest rewrites the manifest at path as edit changes it.
func editManifest(t *testing.T, path string, edit func(m map[string]any)) {
	t.Helper()
	m := readManifest(t, path)
	edit(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func wantLines(t *testing.T, what, text string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains("\n"+text, "\n"+l+"\n") {
			t.Errorf("%s has no line %q:\n%s", what, l, text)
		}
	}
}

// A rebuild whose output is the version it rebuilds (its recorded
// command had --overwrite, and an input changed since) is refused before
// anything runs, as are outputs inside it and outputs that are its
// inputs; the version stays byte for byte.
func TestRerunRefusesToReplaceTheVersionItRebuilds(t *testing.T) {
	inFreshDir(t, map[string]string{"in.jsonl": manyRows(100)})
	mustSluice(t, "convert", "in.jsonl", "-o", "v2")
	mustSluice(t, "convert", "in.jsonl", "-o", "v2", "--overwrite")
	mustSluice(t, "convert", "in.jsonl", "-o", "one.parquet")
	writeFiles(t, map[string]string{"in.jsonl": manyRows(50)}) // changed since
	before := map[string]string{}
	for _, p := range []string{"v2", "one.parquet", "one.manifest.json", "in.jsonl"} {
		before[p] = snapshot(t, p)
	}
	cases := []struct {
		args []string
		err  string
	}{
		{[]string{"rerun", "v2", "-o", "v2", "--allow-changed"}, "sluice: error: -o v2: output v2 is also an input directory; write the output elsewhere\n"},
		{[]string{"rerun", "v2", "-o", "v2/again", "--allow-changed"}, "sluice: error: -o v2/again: output v2/again lies in the input directory v2, " +
			"so it would be read as input by the next run; write the output elsewhere\n"},
		{[]string{"rerun", "v2", "-o", "in.jsonl", "--allow-changed"}, "sluice: error: -o in.jsonl: output in.jsonl is also an input; write the output elsewhere\n"},
		{[]string{"rerun", "one.parquet", "-o", "one.parquet", "--allow-changed"}, "sluice: error: -o one.parquet: output one.parquet is also an input; write the output elsewhere\n"},
		{[]string{"rerun", "one.parquet", "-o", "one.jsonl", "--allow-changed"}, "sluice: error: -o one.jsonl: output one.manifest.json is also an input; write the output elsewhere\n"},
	}
	for _, c := range cases {
		out, errs := wantExit(t, 2, c.args...)
		if out != "" || errs != c.err {
			t.Errorf("sluice %v:\nstdout %q\nstderr %q, want %q", c.args, out, errs, c.err)
		}
	}
	for p, b := range before {
		if after := snapshot(t, p); after != b {
			t.Errorf("%s changed:\nbefore %s\nafter  %s", p, b, after)
		}
	}
	for _, p := range []string{"v2/again", "one.jsonl"} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	leftovers(t, ".")
}

// A manifest that records a rerun as its command is refused, whether the
// rerun is its first word or follows a global flag, instead of rerunning
// itself without end.
func TestRerunOfARecordedRerunIsRefused(t *testing.T) {
	inFreshDir(t, map[string]string{"a.jsonl": rowsA})
	mustSluice(t, "convert", "a.jsonl", "-o", "v")
	for _, command := range [][]any{{"sluice", "rerun", "v", "-o", "w"}, {"sluice", "--log-format", "text", "rerun", "v", "-o", "w"}} {
		editManifest(t, "v/manifest.json", func(m map[string]any) { m["command"] = command })
		before := snapshot(t, "v")
		_, errs := wantExit(t, 1, "rerun", "v", "-o", "w")
		want := "sluice: error: v/manifest.json: records \"rerun v -o w\" as the command that made it, and a rerun writes no version of its own: refusing to rerun it\n"
		if len(command) > 5 {
			want = "sluice: error: v/manifest.json records a rerun (of v) as the command that made it, and a rerun writes no version of its own: refusing to rerun it\n"
		}
		if errs != want {
			t.Errorf("%v: stderr %q, want %q", command, errs, want)
		}
		if after := snapshot(t, "v"); after != before {
			t.Errorf("v changed:\nbefore %s\nafter  %s", before, after)
		}
		if _, err := os.Lstat("w"); err == nil {
			t.Error("w was written")
		}
	}
	leftovers(t, ".")
}

// A copy of a dataset with one data file swapped for another dataset's
// records the same version id: diff says the versions differ, names the
// file that is not what the manifest records, and --exit-code fails.
func TestDiffDecidesFromTheFilesNotTheRecordedID(t *testing.T) {
	inFreshDir(t, map[string]string{"w.jsonl": manyRows(199), "o.jsonl": manyRows(50)})
	mustSluice(t, "convert", "w.jsonl", "-o", "v2")
	mustSluice(t, "convert", "o.jsonl", "-o", "other")
	copyTree(t, "v2", "same")
	copyTree(t, "v2", "tw")
	copyFile(t, "other/data/part-00000.parquet", "tw/data/part-00000.parquet")
	id := manifestOf(t, "v2").VersionID
	if manifestOf(t, "tw").VersionID != id {
		t.Fatal("the copy does not record the version id")
	}

	out, errs := wantExit(t, 1, "diff", "v2", "tw", "--exit-code")
	if strings.Contains(out, "the same version") {
		t.Errorf("diff calls a changed copy the same version:\n%s", out)
	}
	st, _ := os.Stat("other/data/part-00000.parquet")
	wantLines(t, "diff v2 tw", out,
		"B does not match its manifest, 2 problem(s) (see sluice verify):",
		fmt.Sprintf("  incomplete  tw/data/part-00000.parquet: %d bytes, the manifest records %d: cut short", st.Size(), manifestOf(t, "v2").Outputs[0].Bytes),
		"  changed     tw/data/part-00000.parquet: 50 rows, the manifest records 199",
		"rows (matched by id): 50 same, 149 only in A, 0 only in B, 0 changed")
	if want := fmt.Sprintf("sluice: error: v2 and tw differ, although both manifests record version %s\n", id); errs != want {
		t.Errorf("stderr %q, want %q", errs, want)
	}
	var d diff.Result
	jsonOf(t, 0, &d, "diff", "v2", "tw", "--json", "--no-rows")
	if d.Identical || len(d.ProblemsA) != 0 || len(d.ProblemsB) != 2 || d.ProblemsB[0].Path != filepath.Join("tw", "data", "part-00000.parquet") {
		t.Errorf("diff --json: identical %v, problems of A %+v, of B %+v", d.Identical, d.ProblemsA, d.ProblemsB)
	}
	if _, errs := wantExit(t, 1, "diff", "v2", "tw", "--exit-code", "--no-rows"); !strings.Contains(errs, "differ") {
		t.Errorf("--no-rows --exit-code: %s", errs)
	}
	// An untouched copy is the same version, byte for byte.
	out, _ = wantExit(t, 0, "diff", "v2", "same", "--exit-code")
	wantLines(t, "diff v2 same", out,
		"the same version: the same data and removed files, byte for byte (each hashed again), and the same counts",
		"rows (matched by id): 199 same, 0 only in A, 0 only in B, 0 changed")
	leftovers(t, ".")
}

// A version without a text or an id column has its rows counted, and
// diff says what it could not compare; one with ids but no text is
// matched by id alone, and says so.
func TestDiffCountsTheRowsOfAVersionWithoutTextOrID(t *testing.T) {
	var numbers, ids strings.Builder
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&numbers, `{"n":%d}`+"\n", i)
		fmt.Fprintf(&ids, `{"id":%d,"n":%d}`+"\n", i, i)
	}
	inFreshDir(t, map[string]string{"a.jsonl": manyRows(50), "n.jsonl": numbers.String(), "i.jsonl": ids.String()})
	mustSluice(t, "convert", "a.jsonl", "-o", "A")
	mustSluice(t, "convert", "n.jsonl", "-o", "B")
	mustSluice(t, "convert", "i.jsonl", "-o", "C")

	var d diff.Result
	jsonOf(t, 0, &d, "diff", "A", "B", "--json")
	noMatch := "B has no text column (text) and B has no id column (id) to match rows by: the rows cannot be matched, only counted"
	if r := d.Rows; r == nil || r.Key != "none" || r.RowsA != 50 || r.RowsB != 50 || r.Same+r.OnlyA+r.OnlyB+r.Changed != 0 || r.NotCompared != noMatch {
		t.Errorf("diff A B rows: %+v", d.Rows)
	}
	out, _ := wantExit(t, 0, "diff", "A", "B")
	wantLines(t, "diff A B", out, "rows: 50 in A, 50 in B, not matched: "+noMatch)
	wantExit(t, 1, "diff", "A", "B", "--exit-code")

	jsonOf(t, 0, &d, "diff", "A", "C", "--json")
	byID := "B has no text column (text): rows are matched by id (id), their texts are not compared"
	if r := d.Rows; r == nil || r.Key != "id" || r.RowsA != 50 || r.RowsB != 50 || r.Same != 50 || r.NotCompared != byID {
		t.Errorf("diff A C rows: %+v", d.Rows)
	}
	out, _ = wantExit(t, 0, "diff", "A", "C")
	wantLines(t, "diff A C", out, "rows (matched by id): 50 same, 0 only in A, 0 only in B, 0 changed", "  ("+byID+")")
	leftovers(t, ".")
}

// --rows-out goes through the output path: the rows that differ are
// written whole, or nothing is; an output inside a compared version is
// refused; rows that cannot be matched write nothing (this used to
// panic after writing a.parquet).
func TestDiffRowsOutIsWrittenWholeOrNotAtAll(t *testing.T) {
	var numbers strings.Builder
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&numbers, `{"n":%d}`+"\n", i)
	}
	inFreshDir(t, map[string]string{"a.jsonl": manyRows(50), "c.jsonl": manyRows(40), "n.jsonl": numbers.String()})
	mustSluice(t, "convert", "a.jsonl", "-o", "A")
	mustSluice(t, "convert", "n.jsonl", "-o", "B")
	mustSluice(t, "convert", "c.jsonl", "-o", "C")

	out, _ := wantExit(t, 0, "diff", "A", "B", "--rows-out", "rows")
	wantLines(t, "diff A B --rows-out", out, "rows: 50 in A, 50 in B, not matched: B has no text column (text) and B has no id column (id) "+
		"to match rows by: the rows cannot be matched, only counted; --rows-out writes nothing")
	if _, err := os.Lstat("rows"); err == nil {
		t.Error("rows/ was written for rows that cannot be matched")
	}

	out, _ = wantExit(t, 0, "diff", "A", "C", "--rows-out", "rows")
	wantLines(t, "diff A C --rows-out", out, "rows (matched by id): 40 same, 10 only in A, 0 only in B, 0 changed",
		"rows written: "+filepath.Join("rows", "a.parquet")+", "+filepath.Join("rows", "b.parquet"))
	entries, _ := os.ReadDir("rows")
	if len(entries) != 3 || entries[2].Name() != "manifest.json" {
		t.Errorf("rows/ holds %v, want a.parquet, b.parquet and the manifest that lists them", entries)
	}
	a := rowsOf(t, filepath.Join("rows", "a.parquet"))
	if len(a) != 10 || a[0]["id"] != 40.0 || a[0]["_diff"] != diff.OnlyA || a[9]["id"] != 49.0 {
		t.Errorf("rows/a.parquet: %v", a)
	}
	if b := rowsOf(t, filepath.Join("rows", "b.parquet")); len(b) != 0 {
		t.Errorf("rows/b.parquet: %v", b)
	}

	before := snapshot(t, "A")
	_, errs := wantExit(t, 2, "diff", "A", "C", "--rows-out", "A/rows")
	if want := "sluice: error: --rows-out: output A/rows lies in the input directory A, so it would be read as input by the next run; write the output elsewhere\n"; errs != want {
		t.Errorf("--rows-out inside A: stderr %q, want %q", errs, want)
	}
	if after := snapshot(t, "A"); after != before {
		t.Errorf("A changed:\nbefore %s\nafter  %s", before, after)
	}

	// A data file whose pages do not decode fails the comparison after
	// --rows-out began: nothing is left of it.
	copyTree(t, "C", "broken")
	part := filepath.Join("broken", "data", "part-00000.parquet")
	b, _ := os.ReadFile(part)
	clear(b[4 : len(b)/2])
	os.WriteFile(part, b, 0o644)
	if _, errs := wantExit(t, 1, "diff", "A", "broken", "--rows-out", "rows2"); !strings.Contains(errs, part) {
		t.Errorf("a broken data file: %s", errs)
	}
	if _, err := os.Lstat("rows2"); err == nil {
		t.Error("a failed diff left rows2/")
	}
	leftovers(t, ".")
}

// verify finds a part file in a subfolder of data/ (or removed/) that the
// manifest does not list, and a manifest edited to list no data files
// while its counts say 199 rows, even with its version id made to match.
func TestVerifyChecksEveryFileUnderDataAndTheCounts(t *testing.T) {
	inFreshDir(t, map[string]string{"w.jsonl": manyRows(199)})
	mustSluice(t, "convert", "w.jsonl", "-o", "ds")
	wantExit(t, 0, "verify", "ds")

	copyTree(t, "ds", "nested")
	copyFile(t, "ds/data/part-00000.parquet", "nested/data/more/part-00009.parquet")
	copyFile(t, "ds/data/part-00000.parquet", "nested/removed/old/part-00001.parquet")
	out, errs := wantExit(t, 1, "verify", "nested")
	wantLines(t, "verify nested", out,
		"extra       nested/data/more/part-00009.parquet: not listed in the manifest; readers of data/ would read it",
		"extra       nested/removed/old/part-00001.parquet: not listed in the manifest; readers of removed/ would read it")
	if !strings.Contains(errs, "2 problem(s) found") {
		t.Errorf("verify nested: %s", errs)
	}

	copyTree(t, "ds", "edited")
	editManifest(t, "edited/manifest.json", func(m map[string]any) { m["outputs"] = []any{} })
	m, err := dataset.ReadManifest("edited/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	editManifest(t, "edited/manifest.json", func(raw map[string]any) { raw["version_id"] = dataset.VersionID(m) })
	var v provenance.Verification
	jsonOf(t, 1, &v, "verify", "edited", "--json")
	if v.Rows != 0 || len(v.Problems) != 2 {
		t.Fatalf("verify edited: %+v", v)
	}
	out, _ = wantExit(t, 1, "verify", "edited")
	wantLines(t, "verify edited", out,
		"counts      edited/manifest.json: the 0 data files it lists hold 0 rows, the counts say rows_out 199",
		"extra       edited/data/part-00000.parquet: not listed in the manifest; readers of data/ would read it")
	if strings.Contains(out, ": OK") {
		t.Errorf("verify edited says OK:\n%s", out)
	}
	leftovers(t, ".")
}

// A parent recorded by a relative path is found where the run was, not
// where log is run: another dataset of the same name in the current
// directory is not taken for it, and a project moved whole still has its
// history.
func TestLogFindsARelativeParentWhereTheRunWas(t *testing.T) {
	inFreshDir(t, map[string]string{"proj/a.jsonl": manyRows(50), "other/a.jsonl": manyRows(20)})
	t.Chdir("proj")
	mustSluice(t, "convert", "a.jsonl", "-o", "v1")
	mustSluice(t, "convert", "v1", "-o", "v2")
	parent := manifestOf(t, "v1").VersionID
	t.Chdir("../other")
	mustSluice(t, "convert", "a.jsonl", "-o", "v1") // another v1
	for _, proj := range []string{"../proj", "../moved"} {
		if proj == "../moved" {
			if err := os.Rename("../proj", proj); err != nil {
				t.Fatal(err)
			}
		}
		var log LogResult
		jsonOf(t, 0, &log, "log", proj+"/v2", "--json")
		if len(log.Versions) != 2 || log.Versions[1].VersionID != parent || log.Versions[1].Problem != "" || log.Versions[1].Counts.RowsOut != 50 {
			t.Errorf("log %s/v2: %+v", proj, log.Versions)
		}
		out, _ := wantExit(t, 0, "log", proj+"/v2")
		wantLines(t, "log "+proj+"/v2", out, "version "+parent+"  v1", "  command  sluice convert a.jsonl -o v1")
		if strings.Contains(out, "now holds") {
			t.Errorf("log %s/v2 took the v1 here for the parent:\n%s", proj, out)
		}
	}
	leftovers(t, "..")
}

// trace of an id that several rows carry shows each of them, kept and
// removed, in every version of the history.
func TestTraceShowsEveryRowOfAnID(t *testing.T) {
	inFreshDir(t, map[string]string{"dup.jsonl": `{"id":"same","text":"first copy"}` + "\n" + `{"id":"same","text":"second copy"}` + "\n" +
		`{"id":"other","text":"another row"}` + "\n" + `{"id":"same","text":"first copy"}` + "\n"})
	mustSluice(t, "convert", "dup.jsonl", "-o", "w1")
	mustSluice(t, "dedup", "exact", "w1", "-o", "w2")
	var tr TraceResult
	jsonOf(t, 0, &tr, "trace", "w2", "same", "--json")
	var got []string
	for _, h := range tr.Hops {
		got = append(got, fmt.Sprintf("%s %s %s:%d %s", h.Path, h.Status, filepath.Base(filepath.Dir(h.File)), h.Row, h.Text))
	}
	want := []string{"w2 kept data:1 first copy", "w2 kept data:2 second copy", "w2 removed removed:1 first copy",
		"w1 kept data:1 first copy", "w1 kept data:2 second copy", "w1 kept data:4 first copy"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("trace w2 same:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	out, _ := wantExit(t, 0, "trace", "w2", "same")
	part := func(d, sub string) string { return filepath.Join(d, sub, "part-00000.parquet") }
	wantLines(t, "trace w2 same", out,
		"  kept     "+part("w2", "data")+" row 1", "  text     first copy",
		"  kept     "+part("w2", "data")+" row 2", "  text     second copy",
		"  removed  "+part("w2", "removed")+" row 1: stage dedup_exact, reason exact_dup",
		"  kept     "+part("w1", "data")+" row 4")
	if n := strings.Count(out, "\nversion "); n != 2 {
		t.Errorf("trace names %d versions, want 2:\n%s", n, out)
	}
	leftovers(t, ".")
}

// A rebuild replaces an existing output only when rerun is told to, not
// because the recorded command had --overwrite; and a version whose files
// are not what its manifest records does not reproduce, whatever the
// rebuild wrote.
func TestRerunReplacesOnlyWhenAskedAndChecksTheOldFiles(t *testing.T) {
	inFreshDir(t, map[string]string{"in.jsonl": manyRows(30), "o.jsonl": manyRows(10)})
	mustSluice(t, "convert", "in.jsonl", "-o", "v")
	mustSluice(t, "convert", "in.jsonl", "-o", "v", "--overwrite")
	mustSluice(t, "convert", "o.jsonl", "-o", "other")
	before := snapshot(t, "other")
	if _, errs := wantExit(t, 2, "rerun", "v", "-o", "other"); !strings.Contains(errs, "other: output already exists") {
		t.Errorf("rerun onto an existing dataset: %s", errs)
	}
	if after := snapshot(t, "other"); after != before {
		t.Errorf("other changed:\nbefore %s\nafter  %s", before, after)
	}
	var res RerunResult
	jsonOf(t, 0, &res, "rerun", "v", "-o", "other", "--overwrite", "--json")
	if !res.Reproduced || res.NewVersion != manifestOf(t, "v").VersionID || strings.Join(res.Command[1:], " ") != "convert in.jsonl -o other --overwrite" {
		t.Errorf("rerun --overwrite: %+v", res)
	}

	mustSluice(t, "convert", "o.jsonl", "-o", "small")
	copyTree(t, "v", "tampered")
	copyFile(t, "small/data/part-00000.parquet", "tampered/data/part-00000.parquet")
	out, errs := wantExit(t, 1, "rerun", "tampered", "-o", "again")
	if !strings.Contains(out, "not reproduced: again is version "+manifestOf(t, "v").VersionID) ||
		!strings.Contains(out, "  tampered does not match its manifest: changed: "+filepath.Join("tampered", "data", "part-00000.parquet")) ||
		!strings.Contains(errs, "did not reproduce: tampered does not match its manifest") {
		t.Errorf("rerun of a tampered version:\n%s%s", out, errs)
	}
	leftovers(t, ".")
}

// A version made with --limit recorded the head of its input that it read:
// rerun checks that head, not the whole file, and reproduces the version;
// a change inside the head is still a changed input.
func TestRerunOfALimitedRunChecksTheHeadItRead(t *testing.T) {
	inFreshDir(t, map[string]string{"in.jsonl": manyRows(60000)})
	mustSluice(t, "convert", "in.jsonl", "-o", "v", "--limit", "10", "--batch-bytes", "64KiB", "-j", "1")
	m := manifestOf(t, "v")
	st, err := os.Stat("in.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Inputs) != 1 || m.Inputs[0].Bytes >= st.Size() {
		t.Fatalf("the limited run recorded %+v of a %d-byte file: the test needs a head shorter than the file", m.Inputs, st.Size())
	}
	var res RerunResult
	jsonOf(t, 0, &res, "rerun", "v", "-o", "again", "--json")
	if !res.Reproduced || res.NewVersion != m.VersionID {
		t.Errorf("rerun of a limited run: %+v", res)
	}
	b, err := os.ReadFile("in.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	b[20] ^= 1 // a byte of the first row
	if err := os.WriteFile("in.jsonl", b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs := wantExit(t, 1, "rerun", "v", "-o", "third"); !strings.Contains(errs, "its first") {
		t.Errorf("rerun after a change in the head it read: %s", errs)
	}
}
