package command

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const trainData = "../../kernels/fasttext/testdata/train/"

// splitByLabel writes the rows of a labelled set into one JSONL file per
// label, without the label field.
func splitByLabel(t *testing.T, set, field, dir string) map[string]string {
	t.Helper()
	f, err := os.Open(trainData + set)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*bytes.Buffer{}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var row map[string]any
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		l := row[field].(string)
		delete(row, field)
		if files[l] == nil {
			files[l] = &bytes.Buffer{}
		}
		b, _ := json.Marshal(row)
		files[l].Write(append(b, '\n'))
	}
	paths := map[string]string{}
	for l, b := range files {
		paths[l] = filepath.Join(dir, l+".jsonl")
		if err := os.WriteFile(paths[l], b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

// TestClassifyTrainLoop is the README's loop: positives and negatives,
// train with a held-out split, test, then filter with the model through
// --classify and find the removed rows in removed/.
func TestClassifyTrainLoop(t *testing.T) {
	dir := t.TempDir()
	files := splitByLabel(t, "spamassassin.jsonl.gz", "label", dir)
	model := filepath.Join(dir, "hq.bin")
	out, _ := runMain(t, "classify", "train", "--positive", files["ham"], "--negative", files["spam"], "-o", model,
		"--split", "0.9", "--word-ngrams", "2", "--bucket", "100000", "--dim", "16", "--epoch", "25", "--lr", "0.5", "--thread", "1")
	for _, want := range []string{"held out by --split 0.9", "hq=", "cc=", "words/sec/thread", "held out: "} {
		if !strings.Contains(out, want) {
			t.Errorf("train printed no %q:\n%s", want, out)
		}
	}
	// The same command gives the same bytes.
	again := filepath.Join(dir, "again.bin")
	runMain(t, "classify", "train", "--positive", files["ham"], "--negative", files["spam"], "-o", again,
		"--split", "0.9", "--word-ngrams", "2", "--bucket", "100000", "--dim", "16", "--epoch", "25", "--lr", "0.5", "--thread", "1", "--json")
	a, _ := os.ReadFile(model)
	b, _ := os.ReadFile(again)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("two runs with --thread 1: %d and %d bytes, equal %v", len(a), len(b), bytes.Equal(a, b))
	}

	// Test on every spam and ham row, labelled by a field this time.
	all := filepath.Join(dir, "all.jsonl")
	var buf bytes.Buffer
	for label, f := range map[string]string{"hq": files["ham"], "cc": files["spam"]} {
		b, _ := os.ReadFile(f)
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			buf.WriteString(strings.TrimSuffix(line, "}") + `,"label":"` + label + `"}` + "\n")
		}
	}
	os.WriteFile(all, buf.Bytes(), 0o644)
	js, _ := runMain(t, "classify", "test", model, all, "--json")
	var rep testReport
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatalf("%v: %s", err, js)
	}
	if rep.Examples != 800 || rep.Precision < 0.9 || len(rep.Labels) != 2 || len(rep.Confusion) != 2 {
		t.Fatalf("test: %+v", rep)
	}
	var correct int64
	for i := range rep.Labels {
		correct += rep.Confusion[i][i]
		if rep.Labels[i].Gold != map[string]int64{"hq": 500, "cc": 300}[rep.Labels[i].Label] {
			t.Errorf("label %+v", rep.Labels[i])
		}
	}
	if float64(correct)/800 != rep.Precision {
		t.Errorf("confusion diagonal %d, P@1 %g", correct, rep.Precision)
	}
	text, _ := runMain(t, "classify", "test", model, all)
	if !strings.Contains(text, "N\t800\nP@1\t") || !strings.Contains(text, "confusion") {
		t.Errorf("test printed:\n%s", text)
	}

	// Filter: keep what the model calls hq with probability 0.5 or more.
	filtered := filepath.Join(dir, "filtered")
	runMain(t, "classify", all, "-o", filtered, "--classify", "q="+model+":hq:0.5")
	kept, removed := rowsOf(t, filepath.Join(filtered, "data")), rowsOf(t, filepath.Join(filtered, "removed"))
	if len(kept)+len(removed) != 800 || len(removed) < 250 || len(removed) > 350 {
		t.Fatalf("kept %d, removed %d", len(kept), len(removed))
	}
	spam := 0
	for _, r := range removed {
		if r["_reason"] != "q_score" {
			t.Fatalf("removed row %v", r)
		}
		if r["label"] == "cc" {
			spam++
		}
	}
	if float64(spam) < 0.9*float64(len(removed)) {
		t.Errorf("%d of %d removed rows are spam", spam, len(removed))
	}
}

// TestClassifyTrainLabels learns a field of several labels, and one given
// by --label-from, with --balance.
func TestClassifyTrainLabels(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "lang.bin")
	js, _ := runMain(t, "classify", "train", trainData+"udhr.jsonl.gz", "--label-field", "lang", "-o", model,
		"--minn", "2", "--maxn", "4", "--bucket", "20000", "--dim", "16", "--epoch", "25", "--lr", "0.5", "--thread", "2", "--balance", "--json", "--valid", trainData+"udhr.jsonl.gz")
	var rep trainReport
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatalf("%v: %s", err, js)
	}
	if len(rep.Labels) != 21 || rep.Dropped == 0 || rep.Examples+rep.Dropped != 1542 {
		t.Fatalf("report %+v", rep)
	}
	// With two threads, the other thread may finish epochs while the first
	// reports one: those are not reported.
	n := len(rep.ValidEpochs)
	if n < 2 || rep.ValidTest == nil || rep.ValidTest.Examples != 1542 || rep.ValidEpochs[n-1] != *rep.ValidTest ||
		rep.ValidEpochs[0].Epoch != 1 || rep.ValidEpochs[0].Precision >= rep.ValidTest.Precision {
		t.Errorf("valid: %+v after each epoch, %+v at the end", rep.ValidEpochs, rep.ValidTest)
	}
	for _, l := range rep.Labels {
		if l.Examples != rep.Labels[0].Examples {
			t.Fatalf("--balance left %+v", rep.Labels)
		}
	}
	// --label-from learns any column: here the row's number of words.
	in := filepath.Join(dir, "len.jsonl")
	var b bytes.Buffer
	for i := range 200 {
		n := 1 + i%2
		b.WriteString(`{"text":"` + strings.Repeat("word ", 3*n) + `","n":` + string(rune('0'+n)) + "}\n")
	}
	os.WriteFile(in, b.Bytes(), 0o644)
	runMain(t, "classify", "train", in, "--label-from", "n", "-o", model, "--thread", "1", "--overwrite")
	out, _ := runMain(t, "classify", "test", model, in, "--label-from", "n", "--json")
	if !strings.Contains(out, `"label":"1"`) || !strings.Contains(out, `"examples":200`) {
		t.Errorf("test: %s", out)
	}
}

func TestClassifyTrainBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	good := write("good.jsonl", `{"text":"a b c","label":"x"}`+"\n"+`{"text":"d e f","label":"y"}`+"\n")
	model := filepath.Join(dir, "m.bin")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{good, "--label-field", "topic", "-o", model}, `good.jsonl:1: no such label field "topic" (fields: text,label)`},
		{[]string{write("one.jsonl", `{"text":"a","label":"x"}`+"\n"), "--label-field", "label", "-o", model}, "one label only (x)"},
		{[]string{write("empty.jsonl", ""), "--label-field", "label", "-o", model}, "no training examples"},
		{[]string{"--positive", good, "-o", model}, "--positive and --negative go together"},
		{[]string{good, "-o", model}, "say where the labels are"},
		{[]string{good, "--label-field", "label"}, "no model file"},
		{[]string{good, "--label-field", "label", "-o", model, "--loss", "hinge"}, `--loss: unknown loss "hinge"`},
		{[]string{good, "--label-field", "label", "-o", model, "--word-ngrams", "2", "--bucket", "0"}, "bucket 0"},
		{[]string{good, "--label-field", "label", "-o", model, "--split", "1.5"}, "--split is 1.5"},
	} {
		var o, e strings.Builder
		code := Main(append([]string{"sluice", "classify", "train"}, tc.args...), nil, &o, &e)
		if code != 2 || !strings.Contains(e.String(), tc.want) {
			t.Errorf("%v: exit %d, %s; want exit 2 and %q", tc.args, code, e.String(), tc.want)
		}
	}
	// Rows that hold no usable label fail the job, naming file and line.
	for _, tc := range []struct{ body, want string }{
		{`{"text":"a","label":"x"}` + "\n" + `{"text":"b","label":"two words"}` + "\n", `bad.jsonl:2: label "two words": a label must be non-empty and hold no white space`},
		{`{"text":"a","label":null}` + "\n", `bad.jsonl:1: field "label": the label is null`},
		{`{"text":"a","label":""}` + "\n", `bad.jsonl:1: empty label`},
		{`{"text":"a","label":3}` + "\n", `bad.jsonl:1: field "label": a label is a string`},
	} {
		var o, e strings.Builder
		code := Main([]string{"sluice", "classify", "train", write("bad.jsonl", tc.body), "--label-field", "label", "-o", model}, nil, &o, &e)
		if code != 1 || !strings.Contains(e.String(), tc.want) {
			t.Errorf("%s: exit %d, %s; want exit 1 and %q", tc.body, code, e.String(), tc.want)
		}
	}
	// An empty class: a label whose every example is held out by --split.
	var b strings.Builder
	for i := range 40 {
		b.WriteString(`{"text":"common words ` + strings.Repeat("x", i) + `","label":"a"}` + "\n")
	}
	b.WriteString(`{"text":"the only b","label":"b"}` + "\n")
	var o, e strings.Builder
	split := "0.5"
	for _, s := range []string{"0.5", "0.3", "0.7", "0.1"} {
		// A share whose hash puts the lone b row in the held-out part.
		if !inSplit([]byte("the only b"), mustFloat(s)) {
			split = s
			break
		}
	}
	code := Main([]string{"sluice", "classify", "train", write("rare.jsonl", b.String()), "--label-field", "label", "-o", model, "--split", split}, nil, &o, &e)
	if code != 2 || !strings.Contains(e.String(), `label "b" has no training example left`) {
		t.Errorf("empty class: exit %d, %s", code, e.String())
	}
	// test: a model that is not one, and too few arguments.
	if code := Main([]string{"sluice", "classify", "test", good, good}, nil, &o, &e); code != 2 {
		t.Errorf("test with a JSONL file for a model: exit %d", code)
	}
	if code := Main([]string{"sluice", "classify", "test", model}, nil, &o, &e); code != 2 {
		t.Errorf("test without data: exit %d", code)
	}
}

func mustFloat(s string) float64 {
	var f float64
	json.Unmarshal([]byte(s), &f)
	return f
}
