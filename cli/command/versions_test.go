package command

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/diff"
	"github.com/sluice-data/sluice/internal/datasettest"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/provenance"
)

// storyText is a paragraph the Gopher quality rules keep, cut to words
// words (at least 50 for the rules' default).
func storyText(i, words int) string {
	w := strings.Fields("The history of the river is long and the people who live near it have many stories to tell about the water. " +
		"They say that the river was once wider and that the boats that came up from the sea were larger than any seen today. " +
		"In the spring the snow melts and the water rises, and the farmers move their animals to higher ground. " +
		"Children learn to swim in the shallow bends, and old men fish from the stone bridge in the evening.")
	return strings.Join(w[:min(words, len(w))], " ") + fmt.Sprintf(" This is story number %d and it is told with care.", i)
}

// versionCorpus writes in.jsonl: 40 rows with ids, of which the rows
// i%10 == 3 are too short for the Gopher rules, the rows i%10 == 7 repeat
// the text of row i-1 (exact duplicates), the rows i%10 == 5 are of about
// 60 words (kept when the rules want 50, dropped when they want 70), the
// rows i%10 == 9 hold an email address; then a line that is not JSON. It
// returns the path and each id's line.
func versionCorpus(t *testing.T, dir string) (string, map[string]int64) {
	t.Helper()
	var b strings.Builder
	lines := map[string]int64{}
	prev := ""
	for i := 0; i < 40; i++ {
		text := storyText(i, 100)
		switch i % 10 {
		case 3:
			text = "too short"
		case 5:
			text = storyText(i, 48)
		case 7:
			text = prev
		case 9:
			text += " Write to jane.doe@example.com for more."
		}
		prev = text
		row, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("r%02d", i), "text": text})
		b.Write(row)
		b.WriteByte('\n')
		lines[fmt.Sprintf("r%02d", i)] = int64(i + 1)
	}
	b.WriteString("{not json\n")
	p := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, lines
}

// jsonOf runs the command line, which must exit with code, and decodes
// its standard output into v.
func jsonOf(t *testing.T, code int, v any, args ...string) {
	t.Helper()
	got, out, errs := mainCode(args...)
	if got != code {
		t.Fatalf("sluice %v: exit %d, want %d\n%s%s", args, got, code, out, errs)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("sluice %v: %v\n%s", args, err, out)
	}
}

func manifestOf(t *testing.T, dir string) *dataset.Manifest {
	t.Helper()
	m, err := dataset.ReadManifest(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A three-step history (convert with lineage, clean, exact dedup): each
// manifest names the one before as its parent, log lists the steps with
// what each removed, trace follows a duplicate and a short row back to
// their input lines, and diff tells what the cleaning removed.
func TestHistoryLogTraceAndDiff(t *testing.T) {
	dir := t.TempDir()
	in, lines := versionCorpus(t, dir)
	v1, v2, v3 := filepath.Join(dir, "v1"), filepath.Join(dir, "v2"), filepath.Join(dir, "v3")
	runMain(t, "convert", in, "-o", v1, "--lineage")
	runMain(t, "clean", v1, "-o", v2, "--filters", "gopher_quality")
	out, _ := runMain(t, "dedup", "exact", v2, "-o", v3)
	m1, m2, m3 := manifestOf(t, v1), manifestOf(t, v2), manifestOf(t, v3)
	if !strings.Contains(out, fmt.Sprintf("version: %s (parent %s)\n", m3.VersionID, m2.VersionID)) {
		t.Errorf("dedup's summary does not name its version and parent:\n%s", out)
	}
	if len(m1.Parents) != 0 || len(m2.Parents) != 1 || m2.Parents[0] != (dataset.Parent{VersionID: m1.VersionID, Path: v1}) ||
		len(m3.Parents) != 1 || m3.Parents[0] != (dataset.Parent{VersionID: m2.VersionID, Path: v2}) {
		t.Fatalf("parents: v1 %+v, v2 %+v, v3 %+v", m1.Parents, m2.Parents, m3.Parents)
	}

	var log LogResult
	jsonOf(t, 0, &log, "log", v3, "--json")
	var ids []string
	for _, v := range log.Versions {
		ids = append(ids, v.VersionID)
	}
	if want := []string{m3.VersionID, m2.VersionID, m1.VersionID}; !slices.Equal(ids, want) {
		t.Fatalf("log versions %v, want %v", ids, want)
	}
	if st := log.Versions[1].Stages; len(st) != 1 || st[0].Name != "gopher_quality" || st[0].Removed["word_count"] != 4 {
		t.Errorf("log of v2: stages %+v, want gopher_quality removing the 4 short rows", st)
	}
	if st := log.Versions[0].Stages; len(st) != 1 || st[0].Removed["exact_dup"] != 4 || log.Versions[0].Counts.RowsIn != 36 {
		t.Errorf("log of v3: stages %+v, counts %+v", st, log.Versions[0].Counts)
	}
	if v := log.Versions[2]; v.Counts.Quarantined != 1 || v.Command[1] != "convert" || v.ToolVersion != Version || v.Date == "" {
		t.Errorf("log of v1: %+v", v)
	}
	text, _ := runMain(t, "log", v3)
	for _, want := range []string{"version " + m3.VersionID + "  " + v3, "version " + m1.VersionID + "  " + v1,
		"parent   " + m2.VersionID, "exact_dup=4", "word_count=4", "command  sluice convert " + in + " -o " + v1 + " --lineage"} {
		if !strings.Contains(text, want) {
			t.Errorf("log does not show %q:\n%s", want, text)
		}
	}

	// r17 repeats r16: dedup removed it in v3; clean and convert kept it.
	var tr TraceResult
	jsonOf(t, 0, &tr, "trace", v3, "r17", "--json")
	if len(tr.Hops) != 3 {
		t.Fatalf("trace r17: %+v", tr.Hops)
	}
	h := tr.Hops[0]
	if h.Status != provenance.Removed || h.Stage != "dedup_exact" || h.Reason != "exact_dup" || h.DupOf != "r16" ||
		!slices.Equal(h.Stages, []string{"dedup_exact"}) || h.SrcFile != in || h.SrcRow != lines["r17"] {
		t.Errorf("trace r17 in v3: %+v", h)
	}
	if tr.Hops[1].Status != provenance.Kept || tr.Hops[2].Status != provenance.Kept || tr.Hops[2].Row != lines["r17"] ||
		tr.Hops[2].VersionID != m1.VersionID {
		t.Errorf("trace r17 before v3: %+v", tr.Hops[1:])
	}
	// r23 is too short: gone from v3, removed by the rules in v2.
	text, _ = runMain(t, "trace", v3, "r23")
	for _, want := range []string{"absent   not in this version", "removed  " + filepath.Join(v2, "removed", "part-00000.parquet") +
		" row 3: stage gopher_quality, reason word_count", fmt.Sprintf("read from %s line %d", in, lines["r23"]), "text: too short"} {
		if !strings.Contains(text, want) {
			t.Errorf("trace r23 does not show %q:\n%s", want, text)
		}
	}
	if code, _, errs := mainCode("trace", v3, "r99"); code != 1 || !strings.Contains(errs, `"r99"`) {
		t.Errorf("trace of an unknown id: exit %d, %s", code, errs)
	}

	// diff v1 v2: the short rows are only in v1; nothing changed.
	var d diff.Result
	jsonOf(t, 0, &d, "diff", v1, v2, "--json")
	if r := d.Rows; r == nil || r.Key != "id" || r.OnlyA != 4 || r.OnlyB != 0 || r.Changed != 0 || r.Same != 36 {
		t.Fatalf("diff v1 v2 rows: %+v", d.Rows)
	}
	if ex := d.Rows.Examples.OnlyA; len(ex) != 3 || ex[0].ID != "r03" || ex[0].Text != "too short" || ex[0].Row != 4 {
		t.Errorf("diff v1 v2 examples: %+v", ex)
	}
	if len(d.Config.Stages) != 1 || d.Config.Stages[0].Stage != "gopher_quality" || d.Config.Stages[0].Only != "b" {
		t.Errorf("diff v1 v2 stages: %+v", d.Config.Stages)
	}
}

// Two runs of one pipeline that differ by one threshold: diff names the
// parameter, the counts of its reason in both, and exactly the rows the
// stricter run dropped, which --rows-out writes with _diff.
func TestDiffOfTwoThresholds(t *testing.T) {
	dir := t.TempDir()
	in, _ := versionCorpus(t, dir)
	runs := map[int]string{}
	for _, words := range []int{50, 70} {
		pipe := filepath.Join(dir, fmt.Sprintf("p%d.yaml", words))
		os.WriteFile(pipe, []byte(fmt.Sprintf("input: [%q]\nstages:\n  - gopher_quality: {min_word_count: %d}\n", in, words)), 0o644)
		runs[words] = filepath.Join(dir, fmt.Sprintf("w%d", words))
		runMain(t, "run", pipe, "-o", runs[words], "--lineage")
	}
	rowsOut := filepath.Join(dir, "changes")
	var d diff.Result
	jsonOf(t, 0, &d, "diff", runs[50], runs[70], "--json", "--rows-out", rowsOut, "--examples", "5")
	if st := d.Config.Stages; len(st) != 1 || st[0].Stage != "gopher_quality" || len(st[0].Changes) != 1 ||
		st[0].Changes[0].Key != "min_word_count" || st[0].Changes[0].A != 50.0 || st[0].Changes[0].B != 70.0 {
		t.Errorf("configuration: %+v", d.Config.Stages)
	}
	if len(d.Config.Inputs) != 0 || d.Config.ToolVersion != nil || len(d.Config.Options) != 0 {
		t.Errorf("configuration beyond the threshold: %+v", d.Config)
	}
	var wordCount *diff.Count
	for i, c := range d.Counts {
		if c.Stage == "gopher_quality" && c.What == "word_count" {
			wordCount = &d.Counts[i]
		}
	}
	if wordCount == nil || wordCount.A != 4 || wordCount.B != 8 || wordCount.Delta != 4 {
		t.Errorf("counts of word_count: %+v", wordCount)
	}
	// The rows only in A are the rows the second run removed and the
	// first kept.
	removedBy := func(dir string) []string {
		var ids []string
		for _, r := range datasettest.Read(t, dir).Removed {
			ids = append(ids, r["id"].(string))
		}
		sort.Strings(ids)
		return ids
	}
	var want []string
	for _, id := range removedBy(runs[70]) {
		if !slices.Contains(removedBy(runs[50]), id) {
			want = append(want, id)
		}
	}
	if r := d.Rows; r.OnlyA != int64(len(want)) || r.OnlyB != 0 || r.Changed != 0 || len(want) != 4 {
		t.Fatalf("rows: %+v, want only in A %v", r, want)
	}
	var got []string
	for _, e := range d.Rows.Examples.OnlyA {
		got = append(got, e.ID)
	}
	if !slices.Equal(got, want) {
		t.Errorf("examples only in A %v, want %v", got, want)
	}
	rows := rowsOf(t, filepath.Join(rowsOut, "a.parquet"))
	got = nil
	for _, r := range rows {
		if r["_diff"] != diff.OnlyA || r["_src_row"] == nil {
			t.Errorf("a row of a.parquet: %v", r)
		}
		got = append(got, r["id"].(string))
	}
	if !slices.Equal(got, want) {
		t.Errorf("a.parquet holds %v, want %v", got, want)
	}
	if rows := rowsOf(t, filepath.Join(rowsOut, "b.parquet")); len(rows) != 0 {
		t.Errorf("b.parquet holds %d rows", len(rows))
	}
	// The text output says the same.
	text, _ := runMain(t, "diff", runs[50], runs[70])
	for _, want := range []string{"stage         gopher_quality min_word_count: 50 -> 70", "rows (matched by id): 32 same, 4 only in A, 0 only in B, 0 changed",
		"only in A  r05: "} {
		if !strings.Contains(text, want) {
			t.Errorf("diff does not say %q:\n%s", want, text)
		}
	}
	if code, _, _ := mainCode("diff", runs[50], runs[70], "--exit-code", "--no-rows"); code != 1 {
		t.Errorf("--exit-code on versions that differ: exit %d", code)
	}
	if code, _, errs := mainCode("diff", runs[50], runs[70], "--rows-out", rowsOut); code != 2 {
		t.Errorf("--rows-out into a full directory: exit %d, %s", code, errs)
	}
	if code, out, errs := mainCode("diff", runs[50], runs[50], "--exit-code"); code != 0 || !strings.Contains(out, "the same version") {
		t.Errorf("a version against itself: exit %d\n%s%s", code, out, errs)
	}
}

// Masking emails changes the text of the rows that hold one: by id they
// are changed rows, by content each is a row only in A and one only in B.
func TestDiffChangedTexts(t *testing.T) {
	dir := t.TempDir()
	in, _ := versionCorpus(t, dir)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	runMain(t, "convert", in, "-o", a)
	runMain(t, "clean", a, "-o", b, "--pii", "email")
	var d diff.Result
	jsonOf(t, 0, &d, "diff", a, b, "--json")
	if r := d.Rows; r.Changed != 4 || r.OnlyA != 0 || r.OnlyB != 0 || r.Same != 36 {
		t.Fatalf("by id: %+v", r)
	}
	if ex := d.Rows.Examples.Changed[0]; ex.ID != "r09" || !strings.Contains(ex.TextA, "jane.doe@example.com") ||
		strings.Contains(ex.TextB, "jane.doe@example.com") || ex.RowA != 10 || ex.RowB != 10 {
		t.Errorf("changed example: %+v", ex)
	}
	jsonOf(t, 0, &d, "diff", a, b, "--json", "--by-content")
	if r := d.Rows; r.Key != "content" || r.Changed != 0 || r.OnlyA != 4 || r.OnlyB != 4 || r.Same != 36 {
		t.Errorf("by content: %+v", r)
	}
}

// verify passes an intact dataset, footers or every page, and catches a
// changed file, a missing one, an extra part, a truncated Parquet file, a
// quarantine cut short and a manifest whose outputs were edited.
func TestVerifyFindsWhatChanged(t *testing.T) {
	dir := t.TempDir()
	in, _ := versionCorpus(t, dir)
	good := filepath.Join(dir, "good")
	runMain(t, "clean", in, "-o", good, "--filters", "gopher_quality", "--max-file-rows", "10", "--batch-rows", "5")
	for _, deep := range []string{"", "--deep"} {
		args := []string{"verify", good}
		if deep != "" {
			args = append(args, deep)
		}
		if out, _ := runMain(t, args...); !strings.Contains(out, ": OK") || !strings.Contains(out, "36 rows kept, 4 removed") {
			t.Errorf("sluice %v:\n%s", args, out)
		}
	}
	copyDir := func(name string) string {
		t.Helper()
		to := filepath.Join(dir, name)
		if err := os.CopyFS(to, os.DirFS(good)); err != nil {
			t.Fatal(err)
		}
		return to
	}
	part := func(d string, n int) string { return filepath.Join(d, "data", fmt.Sprintf("part-%05d.parquet", n)) }
	cases := []struct {
		name   string
		tamper func(d string) string // returns the path the problem names
		kind   string
		detail string
	}{
		{"a byte changed", func(d string) string {
			b, _ := os.ReadFile(part(d, 1))
			b[len(b)/2] ^= 0xff
			os.WriteFile(part(d, 1), b, 0o644)
			return part(d, 1)
		}, provenance.Changed, "its bytes changed"},
		{"a part missing", func(d string) string { os.Remove(part(d, 2)); return part(d, 2) }, provenance.Missing, "the manifest lists it"},
		{"an extra part", func(d string) string {
			b, _ := os.ReadFile(part(d, 0))
			os.WriteFile(part(d, 7), b, 0o644)
			return part(d, 7)
		}, provenance.Extra, "not listed in the manifest"},
		{"a truncated part", func(d string) string {
			os.Truncate(part(d, 3), 300)
			return part(d, 3)
		}, provenance.Incomplete, "cut short"},
		{"a quarantine cut short", func(d string) string {
			os.WriteFile(filepath.Join(d, "quarantine.jsonl"), nil, 0o644)
			return filepath.Join(d, "quarantine.jsonl")
		}, provenance.Counts, "the quarantine holds 0 lines, the counts say quarantined 1"},
		{"a manifest edited", func(d string) string {
			m := manifestOf(t, d)
			m.Outputs[0].Hash = "0123456789abcdef"
			b, _ := json.Marshal(m)
			os.WriteFile(filepath.Join(d, "manifest.json"), b, 0o644)
			return filepath.Join(d, "manifest.json")
		}, provenance.Changed, "the manifest was edited"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := copyDir(fmt.Sprintf("bad%d", i))
			path := tc.tamper(d)
			var v provenance.Verification
			jsonOf(t, 1, &v, "verify", d, "--json")
			found := false
			for _, p := range v.Problems {
				found = found || (p.Kind == tc.kind && p.Path == path && strings.Contains(p.Detail, tc.detail))
			}
			if !found {
				t.Errorf("problems %+v, want %s of %s (%q)", v.Problems, tc.kind, path, tc.detail)
			}
			code, out, errs := mainCode("verify", d)
			if code != 1 || !strings.Contains(out, tc.kind) || !strings.Contains(errs, "problem(s) found") {
				t.Errorf("text: exit %d\n%s%s", code, out, errs)
			}
		})
	}
	// A one-file output verifies too, its lines counted.
	one := filepath.Join(dir, "one.jsonl")
	runMain(t, "convert", in, "-o", one)
	if out, _ := runMain(t, "verify", one); !strings.Contains(out, "40 rows kept") {
		t.Errorf("verify %s:\n%s", one, out)
	}
	for _, bad := range [][]string{{"verify"}, {"verify", in}, {"verify", filepath.Join(dir, "nothing")}} {
		if code, _, _ := mainCode(bad...); code != 2 {
			t.Errorf("sluice %v: exit %d, want 2", bad, code)
		}
	}
}

// --lineage names every row's input file and line; a second run over that
// output keeps them, for kept and removed rows alike. A Parquet input
// gives row numbers, a WARC input record offsets.
func TestLineageThroughTwoRuns(t *testing.T) {
	dir := t.TempDir()
	in, lines := versionCorpus(t, dir)
	v1, v2 := filepath.Join(dir, "v1"), filepath.Join(dir, "v2")
	runMain(t, "convert", in, "-o", v1, "--lineage")
	runMain(t, "clean", v1, "-o", v2, "--filters", "gopher_quality", "--lineage")
	d := datasettest.Read(t, v2)
	if len(d.Kept) != 36 || len(d.Removed) != 4 {
		t.Fatalf("%d kept, %d removed", len(d.Kept), len(d.Removed))
	}
	for _, r := range append(d.Kept, d.Removed...) {
		if r["_src_file"] != in || r["_src_row"] != float64(lines[r["id"].(string)]) {
			t.Errorf("row %v: _src_file %v, _src_row %v; want %s line %d", r["id"], r["_src_file"], r["_src_row"], in, lines[r["id"].(string)])
		}
	}
	// A Parquet file without lineage: rows numbered from 1.
	pq := filepath.Join(dir, "plain.parquet")
	runMain(t, "convert", in, "-o", pq)
	pqLin := filepath.Join(dir, "pq-lineage")
	runMain(t, "convert", pq, "-o", pqLin, "--lineage")
	for i, r := range datasettest.Read(t, pqLin).Kept {
		if r["_src_file"] != pq || r["_src_row"] != float64(i+1) {
			t.Fatalf("Parquet row %d: %v %v", i, r["_src_file"], r["_src_row"])
		}
	}
	// A WARC file: each row names its record's byte offset.
	recs := []string{warcRecord("http://a.example/", "<p>one</p>"), warcRecord("http://b.example/", "<p>two</p>"), warcRecord("http://c.example/", "<p>three</p>")}
	warcPath := filepath.Join(dir, "crawl.warc")
	os.WriteFile(warcPath, []byte(strings.Join(recs, "")), 0o644)
	pages := filepath.Join(dir, "pages")
	runMain(t, "extract", warcPath, "-o", pages, "--lineage")
	offset := 0
	for i, r := range datasettest.Read(t, pages).Kept {
		if r["_src_file"] != warcPath || r["_src_row"] != float64(offset) {
			t.Errorf("WARC row %d: %v %v, want offset %d", i, r["_src_file"], r["_src_row"], offset)
		}
		offset += len(recs[i])
	}
	// A trace of a removed row ends at its input line.
	var tr TraceResult
	jsonOf(t, 0, &tr, "trace", v2, "r13", "--json")
	if h := tr.Hops[0]; h.Status != provenance.Removed || h.SrcFile != in || h.SrcRow != lines["r13"] {
		t.Errorf("trace r13: %+v", tr.Hops)
	}
}

// rerun rebuilds a version from its manifest: the same bytes when nothing
// changed; a refusal when an input changed, and with --allow-changed a
// rebuild that says it did not reproduce.
func TestRerunReproducesOrSaysWhy(t *testing.T) {
	dir := t.TempDir()
	in, _ := versionCorpus(t, dir)
	v1 := filepath.Join(dir, "v1")
	runMain(t, "clean", in, "-o", v1, "--filters", "gopher_quality", "--pii", "email")
	var res RerunResult
	jsonOf(t, 0, &res, "rerun", v1, "-o", filepath.Join(dir, "again"), "--json")
	if !res.Reproduced || res.NewVersion != manifestOf(t, v1).VersionID || len(res.Differences) != 0 || len(res.Config) != 0 {
		t.Errorf("rerun: %+v", res)
	}
	b, _ := os.ReadFile(in)
	os.WriteFile(in, append(b, []byte(`{"id": "new", "text": "a row added since"}`+"\n")...), 0o644)
	code, _, errs := mainCode("rerun", v1, "-o", filepath.Join(dir, "refused"))
	if code != 1 || !strings.Contains(errs, "input "+in) || !strings.Contains(errs, "--allow-changed") {
		t.Errorf("rerun after the input changed: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "refused")); err == nil {
		t.Errorf("a refused rerun wrote its output")
	}
	code, out, errs := mainCode("rerun", v1, "-o", filepath.Join(dir, "changed"), "--allow-changed")
	if code != 1 || !strings.Contains(out, "not reproduced") || !strings.Contains(out, "changed since: input") {
		t.Errorf("rerun --allow-changed: exit %d\n%s%s", code, out, errs)
	}
}

// The demo's version, and one the demo writes inside its output, rebuild
// byte for byte.
func TestRerunReproducesTheDemo(t *testing.T) {
	dir := t.TempDir()
	demo := filepath.Join(dir, "demo")
	if code, out, errs := runDemoMain(t, "-o", demo); code != 0 {
		t.Fatalf("demo: exit %d\n%s%s", code, out, errs)
	}
	var res RerunResult
	jsonOf(t, 0, &res, "rerun", filepath.Join(demo, "decontaminated"), "-o", filepath.Join(dir, "again"), "--json")
	if !res.Reproduced || res.Output != filepath.Join(dir, "again", "decontaminated") {
		t.Errorf("rerun of the demo's decontaminated: %+v", res)
	}
	m := manifestOf(t, filepath.Join(dir, "again"))
	if m.VersionID != manifestOf(t, demo).VersionID {
		t.Errorf("the demo's own version: %s, rebuilt %s", manifestOf(t, demo).VersionID, m.VersionID)
	}
	var v provenance.Verification
	jsonOf(t, 0, &v, "verify", filepath.Join(dir, "again"), "--json", "--deep")
}

// A launched output with lineage has the rows of one process, verifies
// with its shard manifests, catches a shard manifest that does not add up,
// and reruns byte for byte.
func TestVerifyAndRerunALaunchedOutput(t *testing.T) {
	bin := sluiceBinary(t)
	dir := t.TempDir()
	in := dupCorpus(t, dir, 6, 60)
	pipe := dedupPipeline(t, dir, in)
	out := filepath.Join(dir, "out")
	runMain(t, "launch", pipe, "-o", out, "--tasks", "3", "--sluice-binary", bin, "--no-progress", "--batch-rows", "32", "--lineage")
	// Lineage in a launch names the rows as one process does.
	single := filepath.Join(dir, "single")
	runMain(t, "run", pipe, "-o", single, "--no-progress", "--batch-rows", "32", "--lineage")
	want, got := datasettest.Read(t, single), datasettest.Read(t, out)
	datasettest.Compare(t, "launch --lineage", got, want)
	for _, r := range append(got.Kept, got.Removed...) {
		if f, _ := r["_src_file"].(string); !strings.HasPrefix(f, in) || r["_src_row"] == nil {
			t.Fatalf("a launched row without lineage: %v", r)
		}
	}
	var v provenance.Verification
	jsonOf(t, 0, &v, "verify", out, "--json")
	if v.Shards != 3 || v.Rows == 0 || v.Removed == 0 {
		t.Fatalf("verify of a launched output: %+v", v)
	}
	var res RerunResult
	jsonOf(t, 0, &res, "rerun", out, "-o", filepath.Join(dir, "again"), "--json")
	if !res.Reproduced || res.NewVersion != v.VersionID {
		t.Errorf("rerun of a launched output: %+v", res)
	}
	shard := filepath.Join(out, "manifest-00001.json")
	b, _ := os.ReadFile(shard)
	var sm map[string]any
	json.Unmarshal(b, &sm)
	sm["counts"].(map[string]any)["rows_out"] = sm["counts"].(map[string]any)["rows_out"].(float64) + 1
	b, _ = json.Marshal(sm)
	os.WriteFile(shard, b, 0o644)
	jsonOf(t, 1, &v, "verify", out, "--json")
	if len(v.Problems) == 0 || v.Problems[0].Kind != provenance.Counts {
		t.Errorf("a shard manifest that does not add up: %+v", v.Problems)
	}
}
