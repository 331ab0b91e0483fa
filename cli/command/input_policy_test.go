package command

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/sluice-data/sluice/io/dataset"
	"github.com/urfave/cli/v2"
)

// The input reader policy on the command line: which files an argument
// names, what a directory scan reads, what a stream may be given to, and
// how much of the input --limit reads.

// manifestCounts reads the counts (rows_in, rows_out, removed,
// quarantined) of the manifest at path.
func manifestCounts(t *testing.T, path string) [4]int64 {
	t.Helper()
	m, err := dataset.ReadManifest(path)
	if err != nil {
		t.Fatalf("manifest: %v", err)
	}
	return [4]int64{m.Counts.RowsIn, m.Counts.RowsOut, m.Counts.Removed, m.Counts.Quarantined}
}

// mustSluiceIn runs a command that must succeed.
func mustSluiceIn(t *testing.T, stdin string, args ...string) {
	t.Helper()
	if code, out, errs := sluiceIn(t, stdin, args...); code != 0 {
		t.Fatalf("sluice %v: exit %d\n%s%s", args, code, out, errs)
	}
}

// fifoOf makes a FIFO at path that gives body to its first reader.
func fifoOf(t *testing.T, path, body string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	go func() {
		if w, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			w.WriteString(body)
			w.Close()
		}
	}()
}

func TestTwoPassCommandsRefuseAStream(t *testing.T) {
	t.Chdir(t.TempDir())
	rows := manyRows(300)
	writeFiles(t, map[string]string{"a.jsonl": rows, "p.yaml": "stages:\n  - dedup_lines: {}\n"})
	mustSluiceIn(t, "", "dedup", "lines", "a.jsonl", "-o", "o")
	before := snapshot(t, "o")
	for _, args := range [][]string{
		{"dedup", "lines", "-", "-o", "o", "--overwrite"},
		{"dedup", "minhash", "-", "-o", "o", "--overwrite"},
		{"memorize", "canaries", "--into", "-", "-o", "o", "--overwrite"},
		{"clean", "-", "-o", "o", "--overwrite", "--config", "p.yaml"},
		{"convert", "-", "-o", "o", "--overwrite", "--infer-rows", "all"},
	} {
		code, _, stderr := sluiceIn(t, rows, args...)
		if code != 2 || !strings.Contains(stderr, "stdin: ") || !strings.Contains(stderr, "can be read only once") {
			t.Errorf("sluice %v on standard input: exit %d, %s", args, code, stderr)
		}
		if after := snapshot(t, "o"); after != before {
			t.Errorf("sluice %v changed the previous output", args)
		}
	}
	labelled := `{"text":"good words here","label":"a"}` + "\n" + `{"text":"bad words there","label":"b"}` + "\n"
	code, _, stderr := sluiceIn(t, labelled, "classify", "train", "-", "--label-field", "label", "--balance", "-o", "m.bin")
	if code != 2 || !strings.Contains(stderr, "stdin: --balance reads the input twice") {
		t.Errorf("classify train --balance on standard input: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat("m.bin"); err == nil {
		t.Errorf("classify train --balance on standard input wrote a model")
	}
	fifoOf(t, "rows.fifo", rows)
	code, _, stderr = sluiceIn(t, "", "dedup", "lines", "rows.fifo", "-o", "o", "--overwrite")
	if code != 2 || !strings.Contains(stderr, "rows.fifo: stage dedup_lines reads the input twice") {
		t.Errorf("dedup lines on a FIFO: exit %d, %s", code, stderr)
	}
	if after := snapshot(t, "o"); after != before {
		t.Errorf("dedup lines on a FIFO changed the previous output")
	}
	leftovers(t, ".")

	// One pass reads a stream as it reads a file.
	mustSluiceIn(t, rows, "dedup", "exact", "-", "-o", "x")
	if got := manifestCounts(t, "x/manifest.json"); got != [4]int64{300, 300, 0, 0} {
		t.Errorf("dedup exact on standard input: counts %v", got)
	}
}

func TestLiteralFileNamesWinOverGlobs(t *testing.T) {
	t.Chdir(t.TempDir())
	writeFiles(t, map[string]string{"[a].jsonl": rowsA, "a.jsonl": rowsC + rowsC, "x[1].jsonl": rowsC})
	mustSluiceIn(t, "", "convert", "[a].jsonl", "-o", "out")
	m, err := dataset.ReadManifest("out/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Inputs) != 1 || m.Inputs[0].Path != "[a].jsonl" || m.Counts.RowsIn != 3 {
		t.Errorf("convert '[a].jsonl' read %+v", m.Inputs)
	}
	mustSluiceIn(t, "", "convert", "x[1].jsonl", "-o", "out2")
	if got := manifestCounts(t, "out2/manifest.json"); got != [4]int64{2, 2, 0, 0} {
		t.Errorf("convert 'x[1].jsonl': counts %v", got)
	}
	// A name no file has is still a glob.
	mustSluiceIn(t, "", "convert", "[b-z][[]1].jsonl", "-o", "out3")
	if got := manifestCounts(t, "out3/manifest.json"); got != [4]int64{2, 2, 0, 0} {
		t.Errorf("convert of a glob: counts %v", got)
	}
}

func TestLinkedFoldersOfAnInputDirectoryAreRead(t *testing.T) {
	t.Chdir(t.TempDir())
	writeFiles(t, map[string]string{"corp/a.jsonl": rowsA, "elsewhere/c.jsonl": rowsC, "elsewhere/more/c2.jsonl": rowsC})
	if err := os.Symlink("../elsewhere", "corp/linked"); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := sluiceIn(t, "", "convert", "corp", "-o", "out")
	if code != 0 || !strings.Contains(stdout, "1 linked folder(s) followed: corp/linked") {
		t.Errorf("convert corp: exit %d, %s%s", code, stdout, stderr)
	}
	if got := manifestCounts(t, "out/manifest.json"); got != [4]int64{7, 7, 0, 0} {
		t.Errorf("convert corp: counts %v, want the 7 rows under it and its link", got)
	}
	m, err := dataset.ReadManifest("out/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if opts, _ := m.Options.(map[string]any); fmt.Sprint(opts["input_links"]) != "[corp/linked]" {
		t.Errorf("the manifest's options do not list the link: %v", m.Options)
	}
	// The folder a link leads to is an input folder: an output there is
	// refused, as one in corp/ is.
	code, _, stderr = sluiceIn(t, "", "convert", "corp", "-o", "elsewhere/out")
	if code != 2 || !strings.Contains(stderr, "input") {
		t.Errorf("an output in a linked folder: exit %d, %s", code, stderr)
	}
	if err := os.Symlink("..", "elsewhere/more/up"); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = sluiceIn(t, "", "convert", "corp", "-o", "out2")
	if code != 2 || !strings.Contains(stderr, "corp/linked/more/up: a symbolic link to") || !strings.Contains(stderr, "loop") {
		t.Errorf("a link loop: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat("out2"); err == nil {
		t.Errorf("a link loop wrote out2")
	}
}

func TestWARCRecordPastTheEndOfTheFileCostsThatRecordOnly(t *testing.T) {
	t.Chdir(t.TempDir())
	lying := "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: https://lie.example/\r\nContent-Length: 999999999\r\n\r\nshort\r\n\r\n"
	r := func(i string) string {
		return warcRecord("https://example.com/"+i, "<html><body><p>Page "+i+" here.</p></body></html>")
	}
	writeFiles(t, map[string]string{
		"plain.warc":      r("1") + lying + r("2") + r("3"),
		"members.warc.gz": gz(r("1")) + gz(lying) + gz(r("2")) + gz(r("3")),
	})
	for name, at := range map[string]int{"plain.warc": len(r("1")), "members.warc.gz": len(gz(r("1")))} {
		out := strings.Split(name, ".")[0]
		mustSluiceIn(t, "", "convert", name, "-o", out)
		if got := manifestCounts(t, out+"/manifest.json"); got != [4]int64{4, 3, 0, 1} {
			t.Errorf("%s: counts %v, want the three good records and the lying one quarantined", name, got)
		}
		b, err := os.ReadFile(out + "/quarantine.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		var q struct {
			File   string `json:"file"`
			Offset int64  `json:"offset"`
			Error  string `json:"error"`
		}
		if err := json.Unmarshal(b, &q); err != nil || q.File != name || q.Offset != int64(at) || !strings.Contains(q.Error, "Content-Length 999999999") {
			t.Errorf("%s: quarantine %s (%v), want the record at byte %d", name, b, err, at)
		}
	}
}

func TestLimitReadsTheFirstRowsOfTheInput(t *testing.T) {
	t.Chdir(t.TempDir())
	writeFiles(t, map[string]string{"a.jsonl": rowsA, "c.jsonl": rowsC, "p.yaml": "input: [a.jsonl, c.jsonl]\noutput: r\nstages:\n  - dedup_lines: {}\n"})
	for out, args := range map[string][]string{
		"conv":  {"convert", "a.jsonl", "c.jsonl", "-o", "conv", "--limit", "4"},
		"clean": {"clean", "a.jsonl", "c.jsonl", "-o", "clean", "--normalize", "--limit", "4"},
		"exact": {"dedup", "exact", "a.jsonl", "c.jsonl", "-o", "exact", "--limit", "4"},
		"lines": {"dedup", "lines", "a.jsonl", "c.jsonl", "-o", "lines", "--limit", "4"},
		"near":  {"dedup", "minhash", "a.jsonl", "c.jsonl", "-o", "near", "--limit", "4"},
		"r":     {"run", "p.yaml", "--limit", "4"},
	} {
		code, stdout, stderr := sluiceIn(t, "", args...)
		if code != 0 || !strings.Contains(stdout, "--limit 4: the first 4 rows of the input were read") {
			t.Errorf("%v: exit %d, %s%s", args, code, stdout, stderr)
		}
		m, err := dataset.ReadManifest(out + "/manifest.json")
		if err != nil {
			t.Fatal(err)
		}
		if m.Counts.RowsIn != 4 || m.Counts.RowsOut+m.Counts.Removed+m.Counts.Quarantined != 4 {
			t.Errorf("%v: counts %+v, want 4 rows in", args, m.Counts)
		}
		if len(m.Inputs) != 2 || m.Inputs[0].Rows != 3 || m.Inputs[1].Rows != 1 {
			t.Errorf("%v: inputs %+v, want 3 rows of a.jsonl and 1 of c.jsonl", args, m.Inputs)
		}
		opts, _ := m.Options.(map[string]any)
		if opts["limit"] != 4.0 {
			t.Errorf("%v: options %v do not record the limit", args, m.Options)
		}
	}
	for _, bad := range []string{"0", "-2", "many"} {
		code, _, stderr := sluiceIn(t, "", "convert", "a.jsonl", "-o", "bad", "--limit", bad)
		if code != 2 || !strings.Contains(stderr, "limit") {
			t.Errorf("--limit %s: exit %d, %s", bad, code, stderr)
		}
	}
	code, _, stderr := sluiceIn(t, "", "launch", "p.yaml", "-o", "l", "--limit", "4")
	if code != 2 || !strings.Contains(stderr, "--limit") {
		t.Errorf("launch --limit: exit %d, %s", code, stderr)
	}
	for _, p := range []string{"bad", "l"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s written", p)
		}
	}
}

// TestEveryReadingCommandHasLimit walks the command tree: a command that
// reads rows into a pipeline (it has the reading flags) has --limit.
func TestEveryReadingCommandHasLimit(t *testing.T) {
	var walk func(path string, cmds []*cli.Command)
	found := 0
	walk = func(path string, cmds []*cli.Command) {
		for _, c := range cmds {
			name := strings.TrimSpace(path + " " + c.Name)
			walk(name, c.Subcommands)
			if !hasFlagNamed(c, "infer-rows") {
				continue
			}
			found++
			if !hasFlagNamed(c, "limit") {
				t.Errorf("sluice %s reads rows but has no --limit", name)
			}
		}
	}
	walk("", NewApp(Streams{}).Commands)
	if found < 8 {
		t.Fatalf("only %d reading commands found", found)
	}
}

func hasFlagNamed(c *cli.Command, name string) bool {
	for _, f := range c.Flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}
