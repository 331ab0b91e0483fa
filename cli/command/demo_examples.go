package command

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/sluice-data/sluice/demo"
	"github.com/sluice-data/sluice/demo/crawl"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/warc"
	"github.com/sluice-data/sluice/tasks"
)

// demoExamplesDir is the directory under the demo's output that holds the
// input files of the README's worked examples.
const demoExamplesDir = "examples"

// Names of the README's example files that the demo makes from the
// built-in crawl.
const (
	exampleCrawlDirFile = "crawl/CC-MAIN-20240601-00000.warc.gz"
	exampleWETFile      = "CC-MAIN-20240601-00000.warc.wet.gz"
)

// The README commands whose outputs the made-up model's generations
// (gen.jsonl, cgen.jsonl) answer: the examples clean the corpus, annotate
// it with MinHash clusters, sample probes and make canaries exactly so.
// An argument starting with @ is a path in the examples directory.
var (
	exampleCleanArgs = []string{"clean", "@corpus.jsonl.zst", "-o", "@clean/", "--normalize",
		"--filters", "gopher_quality,gopher_repetition,c4,fineweb", "--pii", "email,phone,ip", "--no-progress"}
	exampleAnnotateArgs = []string{"dedup", "minhash", "@clean/data", "--annotate", "-o", "@annotated/", "--no-progress"}
	exampleProbesArgs   = []string{"memorize", "probes", "@annotated/data", "-o", "@probes.jsonl", "--count", "20", "--seed", "7",
		"--stratify-by", "dup_count", "--no-progress"}
	exampleCanaryArgs = []string{"memorize", "canaries", "-o", "@canaries.jsonl", "--count", "100", "--repeats", "1,10,100", "--seed", "3"}
)

// writeDemoExamples writes into dir the input files that the README's
// worked examples read, so that they run as shown from inside dir:
//
//   - the hand-written files of package demo (web.yaml, pipeline.yaml,
//     spam-paths.txt, pages.jsonl, mmlu_mini.jsonl, evals/mmlu_test.jsonl);
//   - the built-in sample as corpus.jsonl, corpus.jsonl.zst and cut in two
//     zstd files under corpus/;
//   - the built-in crawl as crawl.warc.gz and under crawl/, its block list
//     blocked.txt, and a WET file of its pages' plain text;
//   - the built-in fine-tuning sample as tasks-sample.jsonl, its examples
//     without errors as train.jsonl, those of one question and one answer
//     in the instruction shape as alpaca.jsonl, and both under data/;
//   - evals/arc.parquet, a small evaluation set in ARC's shape;
//   - hive/lang=XX/part-0.parquet, the rows of pages.jsonl partitioned by
//     language as Hive and Spark write them;
//   - gen.jsonl and cgen.jsonl, a made-up model's answers to the probes and
//     canaries that the README's memorize commands make: the probes of
//     duplicated documents and the canaries inserted 100 times come back
//     verbatim, the others in part.
//
// They are one output with dir/manifest.json listing them: a later demo
// replaces exactly those, and files of other names in dir (what the
// examples wrote there) are left as they are. It returns the names
// written, sorted.
func writeDemoExamples(ctx context.Context, dir string, workers int) ([]string, error) {
	tmp, err := os.MkdirTemp("", "sluice-demo-examples-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	files := map[string][]byte{}
	err = fs.WalkDir(demo.Examples(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(demo.Examples(), name)
		files[name] = b
		return err
	})
	if err != nil {
		return nil, err
	}

	sample := demo.Sample()
	files["corpus.jsonl"] = sample
	lines := bytes.SplitAfter(sample, []byte("\n"))
	half := bytes.Join(lines[:len(lines)/2], nil)
	for name, data := range map[string][]byte{"corpus.jsonl.zst": sample, "corpus/part-00000.jsonl.zst": half,
		"corpus/part-00001.jsonl.zst": sample[len(half):]} {
		if files[name], err = zstdBytes(data); err != nil {
			return nil, err
		}
	}
	files["crawl.warc.gz"] = crawl.WARC()
	files[exampleCrawlDirFile] = crawl.WARC()
	files["blocked.txt"] = []byte(crawl.BlockedDomains)
	files[tasks.SampleName] = tasks.Sample()

	// The commands below read and write in tmp, as the README's do in dir.
	for _, name := range []string{"corpus.jsonl.zst", "crawl.warc.gz", tasks.SampleName} {
		if err := os.WriteFile(filepath.Join(tmp, name), files[name], 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, "arc.jsonl"), demo.ARCEval(), 0o644); err != nil {
		return nil, err
	}
	sub := func(args ...string) ([]byte, error) {
		return runSubcommand(ctx, tmp, args...)
	}
	j := strconv.Itoa(workers)
	if _, err := sub("convert", "@arc.jsonl", "-o", "@arc.parquet", "-j", j, "--no-progress"); err != nil {
		return nil, err
	}
	if _, err := sub("extract", "@crawl.warc.gz", "--mode", "plain", "-o", "@plain.jsonl", "-j", j, "--no-progress"); err != nil {
		return nil, err
	}
	if files[exampleWETFile], err = wetFromRows(filepath.Join(tmp, "plain.jsonl")); err != nil {
		return nil, err
	}
	report, err := sub("tasks", "validate", "@"+tasks.SampleName, "--json", "--tokenizer", "none")
	if err != nil && !errors.Is(err, errTasksInvalid) {
		return nil, err
	}
	train, alpaca, err := exampleTaskFiles(tasks.Sample(), report)
	if err != nil {
		return nil, err
	}
	files["train.jsonl"], files["alpaca.jsonl"] = train, alpaca
	files["data/chat.jsonl"], files["data/alpaca.jsonl"] = train, alpaca

	for _, args := range [][]string{exampleCleanArgs, exampleAnnotateArgs, exampleProbesArgs} {
		if _, err := sub(append(args, "-j", j)...); err != nil {
			return nil, err
		}
	}
	if _, err := sub(exampleCanaryArgs...); err != nil {
		return nil, err
	}
	if files["gen.jsonl"], err = probeGenerations(filepath.Join(tmp, "probes.jsonl")); err != nil {
		return nil, err
	}
	if files["cgen.jsonl"], err = canaryGenerations(filepath.Join(tmp, "canaries.jsonl")); err != nil {
		return nil, err
	}
	if files["evals/arc.parquet"], err = os.ReadFile(filepath.Join(tmp, "arc.parquet")); err != nil {
		return nil, err
	}
	if err := exampleHive(ctx, tmp, files, j); err != nil {
		return nil, err
	}

	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	m := &dataset.Manifest{Tool: "sluice", Version: Version, Command: []string{"sluice", "demo"}}
	if err := dataset.WriteFileSet(ctx, dir, files, true, m); err != nil {
		return nil, err
	}
	return names, nil
}

// exampleHive adds to files a hive-partitioned folder of Parquet files,
// hive/lang=XX/part-0.parquet, holding the rows of pages.jsonl by the
// language `sluice clean --lang any` finds (the lang column is the folder
// name, not a column of the files). It works in tmp.
func exampleHive(ctx context.Context, tmp string, files map[string][]byte, workers string) error {
	if err := os.WriteFile(filepath.Join(tmp, "pages.jsonl"), files["pages.jsonl"], 0o644); err != nil {
		return err
	}
	if _, err := runSubcommand(ctx, tmp, "clean", "@pages.jsonl", "--lang", "any", "-o", "@pages-lang.jsonl", "-j", workers, "--no-progress"); err != nil {
		return err
	}
	byLang := map[string]*bytes.Buffer{}
	var langs []string
	err := readJSONLines(filepath.Join(tmp, "pages-lang.jsonl"), func(line []byte) error {
		var row map[string]json.RawMessage
		if err := json.Unmarshal(line, &row); err != nil {
			return err
		}
		var lang string
		if err := json.Unmarshal(row["lang"], &lang); err != nil || lang == "" {
			return fmt.Errorf("pages-lang.jsonl: a row without a language: %s", line)
		}
		delete(row, "lang")
		delete(row, "lang_score")
		b, err := json.Marshal(struct {
			ID   json.RawMessage `json:"id"`
			Text json.RawMessage `json:"text"`
		}{row["id"], row["text"]})
		if byLang[lang] == nil {
			byLang[lang] = &bytes.Buffer{}
			langs = append(langs, lang)
		}
		byLang[lang].Write(append(b, '\n'))
		return err
	})
	if err != nil {
		return err
	}
	for _, lang := range langs {
		in, out := "hive-"+lang+".jsonl", "hive-"+lang+".parquet"
		if err := os.WriteFile(filepath.Join(tmp, in), byLang[lang].Bytes(), 0o644); err != nil {
			return err
		}
		if _, err := runSubcommand(ctx, tmp, "convert", "@"+in, "-o", "@"+out, "-j", workers, "--no-progress"); err != nil {
			return err
		}
		b, err := os.ReadFile(filepath.Join(tmp, out))
		if err != nil {
			return err
		}
		files["hive/lang="+lang+"/part-0.parquet"] = b
	}
	return nil
}

// runSubcommand runs a sluice command line (without the program name);
// an argument starting with @ names a path in dir. It returns what the
// command printed on stdout; its error carries what it printed on stderr.
func runSubcommand(ctx context.Context, dir string, args ...string) ([]byte, error) {
	line := []string{"sluice"}
	for _, a := range args {
		if strings.HasPrefix(a, "@") {
			a = filepath.Join(dir, filepath.FromSlash(a[1:]))
		}
		line = append(line, a)
	}
	var out, errw bytes.Buffer
	app := NewApp(Streams{In: strings.NewReader(""), Out: &out, Err: &errw})
	app.Metadata = map[string]any{argsKey: line}
	if err := app.RunContext(ctx, interspersed(app, line)); err != nil {
		return out.Bytes(), fmt.Errorf("sluice %s: %w\n%s", strings.Join(line[1:], " "), err, errw.Bytes())
	}
	return out.Bytes(), nil
}

// zstdBytes compresses b as one zstd frame.
func zstdBytes(b []byte) ([]byte, error) {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		return nil, err
	}
	defer enc.Close()
	return enc.EncodeAll(b, nil), nil
}

// wetFromRows makes a WET file, gzip member by member as Common Crawl
// writes them, from the rows of `sluice extract --mode plain` (JSONL): a
// warcinfo record, then one conversion record of text/plain a page.
func wetFromRows(rowsFile string) ([]byte, error) {
	f, err := os.Open(rowsFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out bytes.Buffer
	w := warc.NewWriter(&out, true)
	err = w.Write([]warc.Field{{Name: "WARC-Type", Value: "warcinfo"}, {Name: "WARC-Date", Value: "2024-06-01T09:00:00Z"},
		{Name: "WARC-Record-ID", Value: "<urn:uuid:00000000-0000-4000-9000-000000000000>"},
		{Name: "Content-Type", Value: "application/warc-fields"}},
		[]byte("software: sluice demo\r\ndescription: the plain text of the demo crawl's pages\r\n"))
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	n := 0
	for sc.Scan() {
		var row struct {
			URL      string `json:"url"`
			Date     string `json:"warc_date"`
			RecordID string `json:"warc_record_id"`
			Text     string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			return nil, fmt.Errorf("%s: %w", rowsFile, err)
		}
		n++
		err := w.Write([]warc.Field{{Name: "WARC-Type", Value: "conversion"}, {Name: "WARC-Target-URI", Value: row.URL},
			{Name: "WARC-Date", Value: row.Date},
			{Name: "WARC-Record-ID", Value: fmt.Sprintf("<urn:uuid:00000000-0000-4000-9000-%012d>", n)},
			{Name: "WARC-Refers-To", Value: row.RecordID},
			{Name: "Content-Type", Value: "text/plain"}}, []byte(row.Text))
		if err != nil {
			return nil, err
		}
	}
	return out.Bytes(), sc.Err()
}

// exampleTaskFiles returns the lines of the fine-tuning sample that have
// no error in report (the JSON of `sluice tasks validate --json`), and
// those of them made of one question and one answer (after an optional
// system message) in the instruction shape {id, system, instruction,
// output}.
func exampleTaskFiles(sample, report []byte) (train, alpaca []byte, err error) {
	var rep struct {
		Errors []struct {
			Line int64 `json:"line"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(report, &rep); err != nil {
		return nil, nil, fmt.Errorf("tasks validate --json: %w", err)
	}
	bad := map[int64]bool{}
	for _, e := range rep.Errors {
		bad[e.Line] = true
	}
	var t, a bytes.Buffer
	for i, line := range bytes.SplitAfter(sample, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 || bad[int64(i+1)] {
			continue
		}
		t.Write(line)
		var ex struct {
			ID       string `json:"id"`
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(line, &ex); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", tasks.SampleName, i+1, err)
		}
		m := ex.Messages
		system := ""
		if len(m) > 0 && m[0].Role == "system" {
			system, m = m[0].Content, m[1:]
		}
		if len(m) != 2 || m[0].Role != "user" || m[1].Role != "assistant" {
			continue
		}
		var b []byte
		if system == "" {
			b, err = json.Marshal(struct {
				ID          string `json:"id"`
				Instruction string `json:"instruction"`
				Output      string `json:"output"`
			}{ex.ID, m[0].Content, m[1].Content})
		} else {
			b, err = json.Marshal(struct {
				ID          string `json:"id"`
				System      string `json:"system"`
				Instruction string `json:"instruction"`
				Output      string `json:"output"`
			}{ex.ID, system, m[0].Content, m[1].Content})
		}
		if err != nil {
			return nil, nil, err
		}
		a.Write(append(b, '\n'))
	}
	return t.Bytes(), a.Bytes(), nil
}

// probeGenerations returns a made-up model's generations for the probes
// in probesFile: the true continuation for a document with copies in the
// corpus (duplicate count 2 or more), and for the others the first half
// of it followed by words of its own.
func probeGenerations(probesFile string) ([]byte, error) {
	var out bytes.Buffer
	err := readJSONLines(probesFile, func(line []byte) error {
		var p struct {
			ID       string `json:"id"`
			DupCount *int64 `json:"dup_count"`
			Suffix   string `json:"suffix"`
		}
		if err := json.Unmarshal(line, &p); err != nil {
			return err
		}
		gen := p.Suffix
		if p.DupCount == nil || *p.DupCount < 2 {
			cut := strings.LastIndexByte(gen[:len(gen)/2], ' ')
			if cut < 0 {
				cut = 0
			}
			gen = gen[:cut] + " and nobody could say more than that."
		}
		b, err := json.Marshal(map[string]string{"id": p.ID, "generation": gen})
		out.Write(append(b, '\n'))
		return err
	})
	return out.Bytes(), err
}

// canaryGenerations returns a made-up model's generations for the
// canaries in canaryFile, with the rank of the true secret among all
// secrets of the format: a canary inserted 100 times or more comes back
// whole and first, one inserted 10 times keeps its first digits and ranks
// about 2^15th, one inserted once is not remembered at all.
func canaryGenerations(canaryFile string) ([]byte, error) {
	var out bytes.Buffer
	err := readJSONLines(canaryFile, func(line []byte) error {
		var c struct {
			ID      string `json:"id"`
			Secret  string `json:"secret"`
			Repeats int    `json:"repeats"`
		}
		if err := json.Unmarshal(line, &c); err != nil {
			return err
		}
		gen, rank := c.Secret, 1.0
		switch {
		case c.Repeats < 10:
			gen, rank = shiftDigits(c.Secret, 0), 5e8
		case c.Repeats < 100:
			gen, rank = shiftDigits(c.Secret, len(c.Secret)/2), 3e4
		}
		b, err := json.Marshal(struct {
			ID         string  `json:"id"`
			Generation string  `json:"generation"`
			Rank       float64 `json:"rank"`
		}{c.ID, " " + gen, rank})
		out.Write(append(b, '\n'))
		return err
	})
	return out.Bytes(), err
}

// shiftDigits returns s with each digit from index from on replaced by the
// next one (9 by 0).
func shiftDigits(s string, from int) string {
	b := []byte(s)
	for i := from; i < len(b); i++ {
		if b[i] >= '0' && b[i] <= '9' {
			b[i] = '0' + (b[i]-'0'+1)%10
		}
	}
	return string(b)
}

// demoSelf returns how to run this sluice again from a shell: "go run ."
// when it was built by `go run` (or `go test`) into a temporary
// directory, else "sluice".
func demoSelf() string {
	exe, err := os.Executable()
	if err == nil && strings.Contains(filepath.ToSlash(exe), "/go-build") {
		return "go run ."
	}
	return "sluice"
}

// printDemoExamples says where the README's example files are and how to
// run the examples.
func printDemoExamples(w io.Writer, dir string, names []string) {
	shown := map[string]bool{}
	var list []string
	for _, n := range names {
		if i := strings.IndexByte(n, '/'); i >= 0 {
			n = n[:i+1]
		}
		if !shown[n] {
			shown[n] = true
			list = append(list, n)
		}
	}
	fmt.Fprintf(w, "\nThe README's examples read files written to %s:\n", dir)
	line := " "
	for _, n := range list {
		if len(line)+1+len(n) > 100 {
			fmt.Fprintln(w, line)
			line = " "
		}
		line += " " + n
	}
	fmt.Fprintln(w, line)
	fmt.Fprintf(w, "Run them there, in the README's order (later ones read what earlier ones wrote), with sluice on the PATH:\n")
	if demoSelf() != "sluice" {
		fmt.Fprintf(w, "  go install .                # puts sluice in $(go env GOPATH)/bin\n")
	}
	fmt.Fprintf(w, "  cd %s\n  sluice run web.yaml\n", squote(dir))
}
