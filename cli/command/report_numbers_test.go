package command

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/parquet-go/parquet-go"
	"github.com/sluice-data/sluice/internal/datasettest"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/report"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
)

// readPage runs sluice report with args and returns the page it wrote.
func readPage(t *testing.T, page string, args ...string) string {
	t.Helper()
	if code, _, errs := mainOutput(append(append([]string{"report"}, args...), "-o", page, "--overwrite")...); code != 0 {
		t.Fatalf("report %v: exit %d: %s", args, code, errs)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Bidi controls in a file name, ids, sources and texts reach the page
// neither raw (an unclosed U+202E would reverse all that follows it) nor
// unisolated: each such string is in a <bdi> or a dir="auto" block, its
// controls written as code points.
func TestCase23ReportIsolatesBidiControls(t *testing.T) {
	dir := t.TempDir()
	const rlo, rli = "\u202e", "\u2067"
	in := filepath.Join(dir, "corpus"+rlo+"lmth.jsonl")
	var lines []string
	for _, id := range []string{"r1", "r2", "r3"} {
		b, _ := json.Marshal(map[string]string{"id": id + rlo + "evil", "source": "web" + rli, "text": "short " + rlo + "desrever"})
		lines = append(lines, string(b))
	}
	os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	out := filepath.Join(dir, "out"+rlo)
	if code, _, errs := mainOutput("clean", in, "-o", out, "--filters", "gopher_quality"); code != 0 {
		t.Fatalf("clean: %s", errs)
	}
	html := readPage(t, filepath.Join(dir, "r.html"), out)
	if i := strings.IndexFunc(html, func(r rune) bool {
		return unicode.Is(unicode.Bidi_Control, r) && r != '\u200e' && r != '\u200f' && r != '\u061c'
	}); i >= 0 {
		t.Errorf("the page holds a raw bidi control: %q", html[max(i-40, 0):min(i+40, len(html))])
	}
	for _, want := range []string{
		"<code><bdi>r1[U+202E]evil</bdi></code>",       // an example's id
		"<code><bdi>web[U+2067]</bdi></code>",          // its source
		`<pre dir="auto">short [U+202E]desrever</pre>`, // its text
		"<h1>sluice report: <bdi>out[U+202E]</bdi></h1>",
		"corpus[U+202E]lmth.jsonl</bdi></code>", // the input in the provenance table
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
}

// richVocabulary are the words of the rich corpus: stop words among them,
// so that the Gopher rules judge the texts by their length.
var richVocabulary = strings.Fields(`the and of to that with for on in is was it as at by from
river mill bridge valley mountain harbour winter summer village market garden letter kitchen
morning evening window station railway carriage farmer teacher doctor painter sailor engine
quiet gentle sudden careful bright narrow ancient heavy silver golden crowded distant hollow
walked carried opened listened painted gathered followed crossed watched remembered wondered`)

// richEvalSets is the number of evaluation sets of the rich run.
const richEvalSets = 71

// evalQuestionOf is the question of evaluation set k: thirteen words and
// more that no generated text holds by chance.
func evalQuestionOf(k int) string {
	return fmt.Sprintf("In exam number %d which of the listed tribunals ruled on the disputed estuary boundary of %d before the armistice treaty", k, k*31)
}

// richCorpus writes a corpus of n rows with many columns (nulls in each,
// at different rates), skewed text lengths (most rows under a hundred
// words, one in forty of thousands), and, in some rows, a question of one
// of the evaluation sets; and the richEvalSets sets, in evals/.
func richCorpus(t *testing.T, dir string, n int) (corpus, evals string) {
	t.Helper()
	evals = filepath.Join(dir, "evals")
	os.MkdirAll(evals, 0o755)
	for k := range richEvalSets {
		var b strings.Builder
		for q := range 3 {
			fmt.Fprintf(&b, `{"id":"q%d","question":%q}`+"\n", q, evalQuestionOf(k*3+q))
		}
		os.WriteFile(filepath.Join(evals, fmt.Sprintf("eval-%02d.jsonl", k)), []byte(b.String()), 0o644)
	}
	var b strings.Builder
	seed := uint32(12345)
	next := func() int { seed = seed*1664525 + 1013904223; return int(seed >> 8) }
	for i := range n {
		words := 8 + next()%97
		if i%40 == 7 {
			words = 1500 + next()%3000
		}
		var text strings.Builder
		for w := range words {
			if w > 0 && w%12 == 0 {
				text.WriteString(". ")
			} else if w > 0 {
				text.WriteByte(' ')
			}
			text.WriteString(richVocabulary[next()%len(richVocabulary)])
		}
		text.WriteByte('.')
		// One row in eight repeats its first line: a signal of repeated
		// lines, 0 in most rows.
		if first, _, ok := strings.Cut(text.String(), ". "); ok && i%8 == 1 {
			text.WriteString(strings.Repeat("\n"+first+".", 1+i%5))
		}
		// Sets 0 to 49 are planted in 1 to 5 rows each; the others nowhere.
		if k := i % richEvalSets; k < 50 && i/richEvalSets < k%5+1 {
			text.WriteString(" " + evalQuestionOf(k*3+i%3) + "?")
		}
		row := map[string]any{"id": fmt.Sprintf("doc-%04d", i), "source": []string{"web", "web", "web", "books", "forum", "news"}[i%6],
			"text": text.String(), "score": nullEvery(i, 5, float64(i)/7), "n_views": nullEvery(i, 6, i*i%1000),
			"flag": nullEvery(i, 7, i%2 == 0), "lang": nullEvery(i, 4, []string{"en", "de", "fr"}[i%3]),
			"note": nullEvery(i, 3, "note "+strconv.Itoa(i)), "rating": nullEvery(i, 10, i%5),
			"tags": nullEvery(i, 8, []string{"a", "b"}), "meta": nullEvery(i, 9, map[string]any{"author": "x", "year": 1900 + i%100})}
		line, _ := json.Marshal(row)
		// The members in a fixed order: the first columns are not the ones with nulls.
		b.Write(orderedRow(t, line, "id", "source", "text", "score", "n_views", "flag", "lang", "note", "rating", "tags", "meta"))
		b.WriteByte('\n')
	}
	corpus = filepath.Join(dir, "corpus.jsonl")
	os.WriteFile(corpus, []byte(b.String()), 0o644)
	return corpus, evals
}

// nullEvery is nil for every k-th row, v otherwise.
func nullEvery(i, k int, v any) any {
	if i%k == 0 {
		return nil
	}
	return v
}

// orderedRow writes the members of a JSON object in the order of keys.
func orderedRow(t *testing.T, line []byte, keys ...string) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%s", k, m[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// richRun decontaminates the rich corpus against its evaluation sets, then
// cleans what is left with the Gopher rules in annotate mode: a chain of
// two datasets with many columns, skewed signals and many eval sets.
func richRun(t *testing.T, dir string) (decon, clean string) {
	t.Helper()
	corpus, evals := richCorpus(t, dir, 1200)
	decon, clean = filepath.Join(dir, "decon"), filepath.Join(dir, "clean")
	for _, args := range [][]string{
		{"decontaminate", corpus, "--eval", evals, "--eval-fields", "question", "-o", decon},
		{"clean", filepath.Join(decon, "data"), "-o", clean, "--filters", "gopher_quality,gopher_repetition", "--annotate"},
	} {
		if code, _, errs := mainOutput(args...); code != 0 {
			t.Fatalf("sluice %s: exit %d: %s", strings.Join(args, " "), code, errs)
		}
	}
	return decon, clean
}

func TestRichRunShots(t *testing.T) {
	dir := os.Getenv("SLUICE_SHOTS_DIR")
	if dir == "" {
		t.Skip()
	}
	decon, clean := richRun(t, dir)
	readPage(t, filepath.Join(dir, "report.html"), decon, clean)
	a, b := richFiltered(t, dir, decon)
	readPage(t, filepath.Join(dir, "compare.html"), a, "--compare", b)
}

// richFiltered cleans the decontaminated rich corpus twice in filter
// mode, with the Gopher word count minimum at its default (50) and at 20.
func richFiltered(t *testing.T, dir, decon string) (a, b string) {
	t.Helper()
	a, b = filepath.Join(dir, "words50"), filepath.Join(dir, "words20")
	cfg := filepath.Join(dir, "words20.yaml")
	os.WriteFile(cfg, []byte("input: ["+strconv.Quote(filepath.Join(decon, "data"))+"]\noutput: "+strconv.Quote(b)+
		"\nstages:\n  - gopher_quality: {min_word_count: 20}\n"), 0o644)
	for _, args := range [][]string{
		{"clean", filepath.Join(decon, "data"), "-o", a, "--filters", "gopher_quality"},
		{"run", cfg},
	} {
		if code, _, errs := mainOutput(args...); code != 0 {
			t.Fatalf("sluice %s: exit %d: %s", strings.Join(args, " "), code, errs)
		}
	}
	return a, b
}

// directNulls counts, with parquet-go, the rows whose top-level column is
// null in the Parquet files of dir: the values of each column's first
// leaf that start a row (repetition level 0) and are undefined at the top
// (definition level 0) in an optional column.
func directNulls(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if len(files) == 0 {
		t.Fatalf("no Parquet files in %s", dir)
	}
	out := map[string]int64{}
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		pf, err := parquet.OpenFile(f, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		first := map[string]int{} // top-level column -> its first leaf
		for i, p := range pf.Schema().Columns() {
			if _, ok := first[p[0]]; !ok {
				first[p[0]] = i
			}
		}
		for _, rg := range pf.RowGroups() {
			chunks := rg.ColumnChunks()
			for _, field := range pf.Schema().Fields() {
				if field.Optional() { // a required column has no nulls
					out[field.Name()] += nullRows(t, chunks[first[field.Name()]])
				}
			}
		}
		f.Close()
	}
	return out
}

func nullRows(t *testing.T, cc parquet.ColumnChunk) int64 {
	t.Helper()
	pages := cc.Pages()
	defer pages.Close()
	var n int64
	for {
		p, err := pages.ReadPage()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]parquet.Value, p.NumValues())
		if k, err := p.Values().ReadValues(vals); err != nil && err != io.EOF || k != len(vals) {
			t.Fatalf("read %d of %d values: %v", k, len(vals), err)
		}
		for _, v := range vals {
			if v.RepetitionLevel() == 0 && v.DefinitionLevel() == 0 {
				n++
			}
		}
	}
}

// The schema table of a dataset with many columns counts each column's
// nulls: the counts a direct read of the Parquet files finds.
func TestCase25ReportSchemaNullsOfManyColumns(t *testing.T) {
	dir := t.TempDir()
	decon, clean := richRun(t, dir)
	rep, err := report.Gather(context.Background(), []string{decon, clean}, report.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := directNulls(t, filepath.Join(clean, "data"))
	if len(rep.Schema) < 10 || want["lang"] == 0 || want["note"] == 0 {
		t.Fatalf("the run should have many columns with nulls: %d columns, nulls %v", len(rep.Schema), want)
	}
	counted := 0
	for _, c := range rep.Schema {
		if !c.HasNulls {
			continue
		}
		counted++
		if c.Nulls != want[c.Name] {
			t.Errorf("column %s: the report counts %d nulls, the files hold %d", c.Name, c.Nulls, want[c.Name])
		}
	}
	if counted < 8 {
		t.Errorf("only %d columns with a null count", counted)
	}
	html := readPage(t, filepath.Join(dir, "r.html"), decon, clean)
	if !strings.Contains(html, fmt.Sprintf(`<tr><td><code><bdi>lang</bdi></code></td><td><code><bdi>utf8</bdi></code></td><td class="n">%s</td></tr>`, thousandsOf(want["lang"]))) {
		t.Errorf("the page's schema table does not show %d nulls for lang", want["lang"])
	}
}

// thousandsOf writes n as the page does: 1,234.
func thousandsOf(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// passesAll reports whether v is on the kept side of every threshold.
func passesAll(v float64, ths []report.Threshold) bool {
	for _, th := range ths {
		if (th.Kind == "min" && v < th.Value) || (th.Kind == "max" && v > th.Value) || (th.Kind == "below" && v >= th.Value) {
			return false
		}
	}
	return true
}

// thresholdLabel finds the labels the threshold lines write in a chart,
// with where each starts.
var thresholdLabel = regexp.MustCompile(`(?s)<text x="([-0-9.e]+)"[^>]*>((?:← )?(?:removed|kept) [^<]*%[^<]*)</text>`)

// Each signal's bars hold its rows, split by the side of the thresholds
// they are on, as a direct count of the rows finds them: the bar that
// straddles a threshold shows its removed rows in red. A skewed signal is
// drawn on a log axis, not squashed into one bar; the labels of the
// threshold lines lie inside the chart.
func TestCase26SignalBarsCountTheRowsOnEachSide(t *testing.T) {
	dir := t.TempDir()
	decon, clean := richRun(t, dir)
	rep, err := report.Gather(context.Background(), []string{decon, clean}, report.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	rows := datasettest.Rows(t, filepath.Join(clean, "data"))
	labelStyle := text.Style{Font: font.From(font.Font{Typeface: "Liberation", Variant: "Sans"}, 8.5), Handler: plot.DefaultTextHandler}
	var wordCount *report.Signal
	for _, s := range rep.Signals {
		var values, kept, removed int64
		for _, r := range rows {
			if v, ok := r[s.Column].(float64); ok {
				values++
				if passesAll(v, s.Thresholds) {
					kept++
				} else {
					removed++
				}
			}
		}
		var barsKept, barsRemoved int64
		for _, b := range s.Bins {
			barsKept += b.Kept
			barsRemoved += b.Removed
		}
		if s.Rows != values || barsKept != kept || barsRemoved != removed {
			t.Errorf("%s: %d values in bars of %d kept and %d removed rows; the data has %d values, %d and %d",
				s.Column, s.Rows, barsKept, barsRemoved, values, kept, removed)
		}
		for _, m := range thresholdLabel.FindAllStringSubmatch(string(s.Chart.SVG), -1) {
			x, _ := strconv.ParseFloat(m[1], 64)
			if w := labelStyle.Width(m[2]).Points(); x < 0 || x+w > 480.5 {
				t.Errorf("%s: the label %q runs from %.1f to %.1f, past the chart's 0 to 480", s.Column, m[2], x, x+w)
			}
		}
		if s.Column == "gopher_word_count" {
			wordCount = s
		}
	}
	if wordCount == nil {
		t.Fatal("no gopher_word_count chart")
	}
	var tallest int64
	for _, b := range wordCount.Bins {
		tallest = max(tallest, b.Rows())
		if b.Hi <= 50 && b.Kept > 0 || b.Lo >= 50 && b.Removed > 0 {
			t.Errorf("gopher_word_count %g to %g: %d kept, %d removed, on the wrong side of min_word_count 50", b.Lo, b.Hi, b.Kept, b.Removed)
		}
	}
	if !wordCount.LogX || tallest*2 > wordCount.Rows {
		t.Errorf("gopher_word_count is skewed: want a log axis and no bar with half the rows; log %v, tallest bar %d of %d",
			wordCount.LogX, tallest, wordCount.Rows)
	}
	if dup := signalNamed(rep, "gopher_rep_dup_line_frac"); dup == nil || !dup.LogY || !strings.Contains(string(dup.Chart.SVG), "rows (log scale)") {
		t.Errorf("gopher_rep_dup_line_frac, 0 in most rows, should count its rows on a log axis: %+v", dup)
	}
	if labels := thresholdLabel.FindAllString(string(wordCount.Chart.SVG), -1); len(labels) != 1 {
		t.Errorf("gopher_word_count: %d threshold labels, want the one of min_word_count (max_word_count lies past the data)", len(labels))
	}
}

func signalNamed(rep *report.Report, column string) *report.Signal {
	for _, s := range rep.Signals {
		if s.Column == column {
			return s
		}
	}
	return nil
}

// The contamination chart draws the top sets of many, the table lists
// every set, and each set's count of examples found is the count of its
// distinct examples in the _eval_ids of the removed rows.
func TestCase26ContaminationOfManyEvalSets(t *testing.T) {
	dir := t.TempDir()
	decon, clean := richRun(t, dir)
	rep, err := report.Gather(context.Background(), []string{decon, clean}, report.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]map[string]bool{}
	for _, r := range datasettest.Rows(t, filepath.Join(decon, "removed")) {
		ids, _ := r["_eval_ids"].([]any)
		for _, id := range ids {
			set, ex, _ := strings.Cut(id.(string), ":")
			if found[set] == nil {
				found[set] = map[string]bool{}
			}
			found[set][ex] = true
		}
	}
	if len(rep.Contam) != richEvalSets || len(found) != 50 {
		t.Fatalf("%d eval sets in the report, %d found in removed/; want %d and 50", len(rep.Contam), len(found), richEvalSets)
	}
	html := readPage(t, filepath.Join(dir, "r.html"), decon, clean)
	table := html[strings.Index(html, `<table id="contamination-table">`):]
	table = table[:strings.Index(table, "</table>")]
	cells := regexp.MustCompile(`<tr><td><bdi>([^<]+)</bdi></td>.*?data-col="found">([0-9,]+)<`).FindAllStringSubmatch(table, -1)
	if len(cells) != richEvalSets {
		t.Fatalf("the table lists %d eval sets, want %d", len(cells), richEvalSets)
	}
	prev := int64(1 << 62)
	for _, c := range cells {
		n, _ := strconv.ParseInt(strings.ReplaceAll(c[2], ",", ""), 10, 64)
		if n != int64(len(found[c[1]])) {
			t.Errorf("eval set %s: the table says %d examples found, removed/ holds %d", c[1], n, len(found[c[1]]))
		}
		if n > prev {
			t.Errorf("eval set %s (%d found) after one with %d: the table is not most found first", c[1], n, prev)
		}
		prev = n
	}
	if ch := rep.Chart("contamination"); ch.Marks != 10 || !strings.Contains(string(ch.SVG), "top 10 of 71") {
		t.Errorf("the contamination chart draws %d sets, want the top 10 of 71, said in its title", ch.Marks)
	}
}

// --compare writes each change as B − A, A the compared run and B this
// one, as sluice diff A B does, and says so.
func TestCase26CompareChangeIsThisRunMinusTheCompared(t *testing.T) {
	dir := t.TempDir()
	decon, _ := richRun(t, dir)
	a, b := richFiltered(t, dir, decon)
	ma, err := dataset.ReadManifest(filepath.Join(a, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	mb, err := dataset.ReadManifest(filepath.Join(b, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if ma.Counts.RowsOut == mb.Counts.RowsOut {
		t.Fatal("the two runs should write different numbers of rows")
	}
	html := readPage(t, filepath.Join(dir, "cmp.html"), a, "--compare", b)
	for _, want := range []string{"<th class=\"n\">A: compared run</th><th class=\"n\">B: this run</th><th class=\"n\">change (B − A)</th>",
		fmt.Sprintf(`<tr><td><bdi>written</bdi></td><td class="n" data-col="a">%s</td><td class="n" data-col="b">%s</td><td class="n" data-col="change">%s</td></tr>`,
			thousandsOf(mb.Counts.RowsOut), thousandsOf(ma.Counts.RowsOut), template.HTMLEscapeString(fmt.Sprintf("%+d", ma.Counts.RowsOut-mb.Counts.RowsOut)))} {
		if !strings.Contains(html, want) {
			t.Errorf("the comparison does not show %s", want)
		}
	}
}

// On a chain of two datasets, the funnel's counts are those of the
// manifests, the reasons those of removed/, and the languages those of a
// direct count of the lang column, null included.
func TestReportRichRunCountsMatchTheData(t *testing.T) {
	dir := t.TempDir()
	decon, clean := richRun(t, dir)
	md, err := dataset.ReadManifest(filepath.Join(decon, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	mc, err := dataset.ReadManifest(filepath.Join(clean, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	html := readPage(t, filepath.Join(dir, "r.html"), decon, clean)
	want := map[string]int64{"rows_in": md.Counts.RowsIn, "rows_out": mc.Counts.RowsOut,
		"removed": md.Counts.Removed + mc.Counts.Removed, "quarantined": md.Counts.Quarantined + mc.Counts.Quarantined}
	if got := pageCounts(t, html); !equalCounts(got, want) {
		t.Errorf("page counts %v, manifests %v", got, want)
	}
	rep, err := report.Gather(context.Background(), []string{decon, clean}, report.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	removed := map[string]int64{}
	for _, r := range datasettest.Rows(t, filepath.Join(decon, "removed")) {
		removed[r["_stage"].(string)+"/"+r["_reason"].(string)]++
	}
	for _, r := range rep.Reasons {
		if n := removed[r.Stage+"/"+r.Reason]; r.Rows != n || r.Manifest != n {
			t.Errorf("%s/%s: the report counts %d (manifest %d), removed/ holds %d", r.Stage, r.Reason, r.Rows, r.Manifest, n)
		}
	}
	langs := map[string]int64{}
	for _, r := range datasettest.Rows(t, filepath.Join(clean, "data")) {
		l, ok := r["lang"].(string)
		if !ok {
			l = "(null)"
		}
		langs[l]++
	}
	if len(rep.Languages) != len(langs) || langs["(null)"] == 0 {
		t.Errorf("languages %+v, the data has %v", rep.Languages, langs)
	}
	for _, l := range rep.Languages {
		if l.Rows != langs[l.Name] {
			t.Errorf("language %s: %d rows in the report, %d in the data", l.Name, l.Rows, langs[l.Name])
		}
	}
}

// The tokens of a chain that ends in a token count are the sums of the
// n_tokens column, in all and per source, as the page's table lists them.
func TestReportRichRunTokensMatchTheData(t *testing.T) {
	dir := t.TempDir()
	decon, clean := richRun(t, dir)
	tok := filepath.Join(dir, "tok")
	if code, _, errs := mainOutput("tokens", filepath.Join(clean, "data"), "-o", tok, "--add-column", "--group-by", "source"); code != 0 {
		t.Fatalf("tokens: exit %d: %s", code, errs)
	}
	rep, err := report.Gather(context.Background(), []string{decon, clean, tok}, report.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	bySource := map[string]int64{}
	for _, r := range datasettest.Rows(t, filepath.Join(tok, "data")) {
		n := int64(r["n_tokens"].(float64))
		total += n
		bySource[r["source"].(string)] += n
	}
	if rep.Tokens == nil || rep.Tokens.Total != total || total == 0 {
		t.Fatalf("tokens %+v, the data has %d", rep.Tokens, total)
	}
	html := readPage(t, filepath.Join(dir, "r.html"), decon, clean, tok)
	for src, n := range bySource {
		if !regexp.MustCompile(`<tr><td><bdi>` + src + `</bdi></td><td class="n">[0-9,]+</td><td class="n">` + thousandsOf(n) + `</td>`).MatchString(html) {
			t.Errorf("the tokens table does not show %d tokens for %s", n, src)
		}
	}
}
