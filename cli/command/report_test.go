package command

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/datasettest"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/report"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of testdata/")

const reportCorpus = "testdata/report/corpus.jsonl"

// cleanReportCorpus runs `sluice clean` on the report corpus into dir.
func cleanReportCorpus(t *testing.T, dir string, extra ...string) string {
	t.Helper()
	out := filepath.Join(dir, "clean")
	args := append([]string{"clean", reportCorpus, "-o", out, "--filters", "gopher_quality,gopher_repetition", "-j", "1"}, extra...)
	if code, _, errs := mainOutput(args...); code != 0 {
		t.Fatalf("sluice %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	return out
}

// pageCounts reads the data-count numbers of a page.
func pageCounts(t *testing.T, html string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, m := range regexp.MustCompile(`data-count="([a-z_]+)">([0-9,]+)<`).FindAllStringSubmatch(html, -1) {
		n, err := strconv.ParseInt(strings.ReplaceAll(m[2], ",", ""), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		out[m[1]] = n
	}
	return out
}

// The page's funnel and removal counts are the manifest's, and the
// examples are rows of removed/ with their reason.
func TestReportFunnelEqualsManifest(t *testing.T) {
	dir := t.TempDir()
	out := cleanReportCorpus(t, dir)
	page := filepath.Join(dir, "report.html")
	code, stdout, errs := mainOutput("report", out, "-o", page)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	if !strings.Contains(stdout, page) {
		t.Errorf("report does not print the path it wrote: %q", stdout)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	m, err := dataset.ReadManifest(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Counts.Removed == 0 || m.Counts.Quarantined == 0 {
		t.Fatalf("the corpus should remove and quarantine rows: %+v", m.Counts)
	}
	want := map[string]int64{"rows_in": m.Counts.RowsIn, "rows_out": m.Counts.RowsOut, "removed": m.Counts.Removed, "quarantined": m.Counts.Quarantined}
	if got := pageCounts(t, html); !equalCounts(got, want) {
		t.Errorf("page counts %v, manifest %v", got, want)
	}

	rep, err := report.Gather(context.Background(), []string{out}, report.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	removed := datasettest.Rows(t, filepath.Join(out, "removed"))
	for _, r := range rep.Reasons {
		if r.Rows != r.Manifest {
			t.Errorf("%s/%s: %d rows in removed/, %d in the manifest", r.Stage, r.Reason, r.Rows, r.Manifest)
		}
		if len(r.Examples) == 0 {
			t.Errorf("%s/%s: no example", r.Stage, r.Reason)
		}
		for _, ex := range r.Examples {
			found := false
			for _, row := range removed {
				if row["id"] == ex.ID && row["_stage"] == r.Stage && row["_reason"] == r.Reason && strings.HasPrefix(row["text"].(string), ex.Text) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s/%s: example %+v is not a removed row of that reason", r.Stage, r.Reason, ex)
			}
			if !strings.Contains(html, "<code><bdi>"+ex.ID+"</bdi></code>") {
				t.Errorf("the page does not show the example id %s", ex.ID)
			}
		}
	}
	if len(rep.Quarantine) != 1 || rep.Quarantine[0].Lines != m.Counts.Quarantined {
		t.Errorf("quarantine by kind: %+v, manifest counts %d", rep.Quarantine, m.Counts.Quarantined)
	}
	if strings.Contains(html, "<script") || strings.Contains(html, "http://") && !strings.Contains(html, `xmlns="http://www.w3.org/2000/svg"`) {
		t.Errorf("the page has a script or fetches something")
	}
}

func equalCounts(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// An annotated run's signals are drawn with their thresholds, and the
// shares on each side of a threshold are the rows of the data.
func TestReportSignalThresholds(t *testing.T) {
	dir := t.TempDir()
	out := cleanReportCorpus(t, dir, "--annotate")
	rep, err := report.Gather(context.Background(), []string{out}, report.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	rows := datasettest.Rows(t, filepath.Join(out, "data"))
	var checked int
	for _, s := range rep.Signals {
		if s.Chart.Marks == 0 || !strings.Contains(string(s.Chart.SVG), "<title>") {
			t.Errorf("%s: chart without marks", s.Column)
		}
		for _, th := range s.Thresholds {
			var pass, fail int64
			for _, r := range rows {
				v, ok := r[s.Column].(float64)
				if !ok {
					continue
				}
				if (th.Kind == "min" && v >= th.Value) || (th.Kind == "max" && v <= th.Value) {
					pass++
				} else {
					fail++
				}
			}
			if th.Pass != pass || th.Fail != fail {
				t.Errorf("%s %s %v: %d pass, %d fail; the data has %d and %d", s.Column, th.Key, th.Value, th.Pass, th.Fail, pass, fail)
			}
			checked++
		}
	}
	wc := -1
	for i, s := range rep.Signals {
		if s.Column == "gopher_word_count" {
			wc = i
		}
	}
	if wc < 0 || len(rep.Signals[wc].Thresholds) != 2 || rep.Signals[wc].Thresholds[0].Value != 50 {
		t.Fatalf("gopher_word_count should be drawn with min_word_count 50 and max_word_count: %+v", rep.Signals)
	}
	if checked < 10 {
		t.Errorf("only %d thresholds checked", checked)
	}
}

// Ids, texts and sources with markup are text on the page.
func TestReportEscapesMarkup(t *testing.T) {
	dir := t.TempDir()
	hostile := `</svg></pre><script>alert(1)</script><img src=x onerror=alert(2)>`
	var lines []string
	for i := range 3 {
		row := map[string]any{"id": "r" + strconv.Itoa(i) + hostile, "source": "s" + hostile, "text": "short " + hostile}
		b, _ := json.Marshal(row)
		lines = append(lines, string(b))
	}
	lines = append(lines, `{"id": "`+hostile)
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	out := filepath.Join(dir, "out")
	if code, _, errs := mainOutput("clean", in, "-o", out, "--filters", "gopher_quality"); code != 0 {
		t.Fatalf("clean: %s", errs)
	}
	page := filepath.Join(dir, "r.html")
	if code, _, errs := mainOutput("report", out, "-o", page); code != 0 {
		t.Fatalf("report: %s", errs)
	}
	b, _ := os.ReadFile(page)
	html := string(b)
	for _, bad := range []string{"<script", "<img", "</svg></pre>"} {
		if strings.Contains(html, bad) {
			t.Errorf("the page holds %q from the data", bad)
		}
	}
	for _, want := range []string{"r0&lt;/svg&gt;&lt;/pre&gt;&lt;script&gt;", "s&lt;/svg&gt;"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page does not show %q escaped", want)
		}
	}
}

// The card is the Hugging Face format: front matter, processing,
// statistics, loading (golden file; the temporary folder is OUT).
func TestReportCard(t *testing.T) {
	dir := t.TempDir()
	out := cleanReportCorpus(t, dir)
	if code, stdout, errs := mainOutput("report", out, "--card", "--license", "cc-by-4.0"); code != 0 || !strings.Contains(stdout, "README.md") {
		t.Fatalf("report --card: exit %d, %s %s", code, stdout, errs)
	}
	b, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(string(b), dir, "OUT")
	golden := filepath.Join("testdata", "report", "card.md")
	if *updateGolden {
		os.WriteFile(golden, []byte(got), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("card differs from %s (go test -run TestReportCard -update rewrites it):\n%s", golden, got)
	}
	// A second run replaces the card sluice wrote, with --overwrite only.
	if code, _, errs := mainOutput("report", out, "--card"); code != 2 || !strings.Contains(errs, "--overwrite") {
		t.Errorf("report --card over its own card without --overwrite: exit %d, %s", code, errs)
	}
	if code, _, errs := mainOutput("report", out, "--card", "--overwrite"); code != 0 {
		t.Errorf("report --card --overwrite over its own card: %s", errs)
	}
}

func TestReportUsageErrors(t *testing.T) {
	dir := t.TempDir()
	out := cleanReportCorpus(t, dir)
	foreign := filepath.Join(dir, "notes.html")
	os.WriteFile(foreign, []byte("<p>mine</p>"), 0o644)
	other := filepath.Join(dir, "other")
	if code, _, errs := mainOutput("convert", reportCorpus, "-o", other); code != 0 {
		t.Fatal(errs)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report"}, "at least one DATASET"},
		{[]string{"report", filepath.Join(dir, "missing")}, "not a sluice dataset"},
		{[]string{"report", dir}, "not a sluice dataset"},
		{[]string{"report", out, "-o", foreign}, "not written by sluice"},
		{[]string{"report", out, "-o", foreign, "--overwrite"}, "not written by sluice"},
		{[]string{"report", out, other, "-o", filepath.Join(dir, "x.html")}, "order they ran"},
		{[]string{"report", out, "--card", "--compare", other}, "--compare"},
		{[]string{"report", out, "--top", "0"}, "--top"},
	} {
		code, _, errs := mainOutput(tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("sluice %s: exit %d, %q; want exit 2 naming %q", strings.Join(tc.args, " "), code, errs, tc.want)
		}
	}
	b, _ := os.ReadFile(foreign)
	if string(b) != "<p>mine</p>" {
		t.Errorf("report replaced a file it did not write")
	}
}

// --compare sets two runs side by side: the threshold that changed, the
// counts, the distributions.
func TestReportCompare(t *testing.T) {
	dir := t.TempDir()
	a := cleanReportCorpus(t, dir, "--annotate")
	cfg := filepath.Join(dir, "p.yaml")
	b := filepath.Join(dir, "b")
	os.WriteFile(cfg, []byte("input: ["+strconv.Quote(reportCorpus)+"]\noutput: "+strconv.Quote(b)+
		"\nannotate: true\nstages:\n  - gopher_quality: {min_word_count: 20}\n  - gopher_repetition: {}\n"), 0o644)
	if code, _, errs := mainOutput("run", cfg); code != 0 {
		t.Fatal(errs)
	}
	page := filepath.Join(dir, "cmp.html")
	if code, _, errs := mainOutput("report", a, "--compare", b, "-o", page); code != 0 {
		t.Fatal(errs)
	}
	html, _ := os.ReadFile(page)
	for _, want := range []string{`id="compare"`, "gopher_quality.min_word_count", "<code><bdi>50</bdi></code>", "<code><bdi>20</bdi></code>", `id="chart-compare-gopher_word_count"`} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("the comparison does not show %s", want)
		}
	}
}
