package command

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sluice-data/sluice/io/dataset"
	"github.com/urfave/cli/v2"
)

// The walking test: it builds the command tree and runs every command that
// writes through the same hostile uses, so that a command added later is
// tried the same way without anyone writing its cases. A command it does not
// know fails the test until it is described below (how to run it, which of
// its flags name what it writes); nothing else about it is written by hand.
//
// For every path a writing command writes (-o and the side outputs such as
// --clusters, --save-text, --rows-out) it checks: the path is an input, a
// file inside an input dataset, or a file or folder the user made (with and
// without --overwrite): exit 2 and every file in the folder byte for byte as
// it was; a first run succeeds and leaves no temporary file; a second run
// without --overwrite is refused and changes nothing, with --overwrite it
// succeeds. Commands that read rows get a stream on standard input: they
// read all of it (the manifest counts every row) or refuse it up front.
// Interrupted at several points (the real binary, SIGINT), a command
// leaves either its earlier output byte for byte (exit 130) or a complete new
// output (exit 0), and no temporary file either way. Commands that only
// read must leave the folder as it was.

// walkSpec says how to run one command of the tree.
type walkSpec struct {
	// args is a run that succeeds. Paths are relative to the test's
	// folder, which holds walkFiles and what prep wrote. "{in}" is the
	// main input (a.jsonl, or the dataset ds when the command reads
	// datasets too), "{bin}" the sluice binary.
	args []string
	prep [][]string // sluice commands run first; each must succeed
	// outputs are the flags that name a path the command writes, with the
	// value args gives them. Empty for a command that only reads.
	outputs []string
	// notOutputs are flags whose usage mentions writing but that name no
	// path the command writes (a folder for temporary files, say).
	notOutputs []string
	// stream: "{in}" may be "-", rows on standard input.
	stream bool
	// dataset: "{in}" may also be the dataset ds (convert a.jsonl -o ds).
	dataset bool
	// noInterrupt skips the interrupt points (with the reason).
	noInterrupt string
	// again, when set, says why a second run over the command's own
	// output without --overwrite is not refused (the reason).
	again string
	// unlisted, when set, says why the command writes files that no
	// manifest lists (the reason).
	unlisted string
}

// walkCorpus is the main input: 40 rows, labelled, with repeated lines.
func walkCorpus(n int) string {
	var b strings.Builder
	words := []string{"river", "mill", "bridge", "valley", "harbour", "winter", "mountain", "lantern", "orchard", "meadow"}
	for i := 0; i < n; i++ {
		label := "pos"
		if i%2 == 1 {
			label = "neg"
		}
		w := words[i%len(words)]
		fmt.Fprintf(&b, `{"id":"d%d","label":%q,"text":"The %s near the old town was quiet in the morning light, row %d.\nA line that every page repeats at its end.\nAnd then the %s again, with %d more words about the %s and the %s."}`+"\n",
			i, label, w, i, words[(i+3)%len(words)], i*7, w, words[(i+5)%len(words)])
	}
	return b.String()
}

const walkRows = 40

// walkChat is a fine-tuning task file of valid chat examples.
const walkChat = `{"messages":[{"role":"user","content":"Name a river in France."},{"role":"assistant","content":"The Loire."}]}
{"messages":[{"role":"user","content":"What is two and two?"},{"role":"assistant","content":"Four."}]}
{"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Say hello."},{"role":"assistant","content":"Hello."}]}
{"messages":[{"role":"user","content":"Spell cat."},{"role":"assistant","content":"C, A, T."}]}
`

// walkFiles are the files every walking case starts from.
func walkFiles() map[string]string {
	warc := warcRecord("https://example.com/a", "<html><body><p>The first page of the crawl, with a few words of text on it for the extractor.</p></body></html>") +
		warcRecord("https://example.org/b", "<html><body><p>The second page, another site and other words, long enough to keep.</p></body></html>")
	return map[string]string{
		"a.jsonl":     walkCorpus(walkRows),
		"eval.jsonl":  `{"id":"q1","question":"The river near the old town was quiet in the morning light, row 3. A line that every page repeats at its end."}` + "\n",
		"p.yaml":      "input: [a.jsonl]\nstages:\n  - gopher_quality: {min_word_count: 5}\n  - dedup_exact: {}\n",
		"crawl.warc":  warc,
		"chat.jsonl":  walkChat,
		"gen.jsonl":   `{"id":"p0","generation":"the river"}` + "\n",
		"budget.yaml": "",
	}
}

// walkSpecs describes every command of the tree, by its full name.
func walkSpecs() map[string]walkSpec {
	ds := []string{"convert", "a.jsonl", "-o", "ds"}
	model := []string{"classify", "train", "a.jsonl", "--label-field", "label", "-o", "m.bin", "--epoch", "2", "--dim", "8"}
	probes := []string{"memorize", "probes", "a.jsonl", "-o", "probes.jsonl", "--n", "3", "--prefix-tokens", "4", "--suffix-tokens", "4"}
	rerunnable := []string{"convert", "a.jsonl", "-o", "v1"}
	launch := []string{"launch", "p.yaml", "-o", "out", "--tasks", "2", "--sluice-binary", "{bin}", "--no-progress"}
	return map[string]walkSpec{
		// Commands that write.
		"convert":        {args: []string{"convert", "{in}", "-o", "out.parquet"}, outputs: []string{"output"}, stream: true, dataset: true},
		"extract":        {args: []string{"extract", "crawl.warc", "-o", "out"}, outputs: []string{"output"}},
		"clean":          {args: []string{"clean", "{in}", "-o", "out", "--normalize"}, outputs: []string{"output"}, stream: true, dataset: true},
		"classify":       {args: []string{"classify", "{in}", "-o", "out.parquet", "--lang", "any"}, outputs: []string{"output"}, stream: true, dataset: true},
		"classify train": {args: model, outputs: []string{"output", "save-text"}, dataset: true},
		"run":            {args: []string{"run", "p.yaml", "-o", "out"}, outputs: []string{"output"}},
		"launch": {args: launch,
			outputs: []string{"output"}, notOutputs: []string{"executor"}, again: "a launch resumes its own output",
			unlisted:    "a launch's plan, logs and work files are told by their names (scaleout.Clear removes those alone)",
			noInterrupt: "its tasks run in other processes; the launch tests interrupt and resume it"},
		"dedup exact":       {args: []string{"dedup", "exact", "{in}", "-o", "out"}, outputs: []string{"output"}, stream: true, dataset: true},
		"dedup lines":       {args: []string{"dedup", "lines", "{in}", "-o", "out"}, outputs: []string{"output"}, stream: true, dataset: true},
		"dedup minhash":     {args: []string{"dedup", "minhash", "{in}", "-o", "out", "--clusters", "clusters.parquet"}, outputs: []string{"output", "clusters"}, stream: true, dataset: true},
		"decontaminate":     {args: []string{"decontaminate", "{in}", "--eval", "eval.jsonl", "-o", "out", "--ngram", "8"}, outputs: []string{"output"}, stream: true, dataset: true},
		"memorize probes":   {args: probes, outputs: []string{"output"}, dataset: true},
		"memorize canaries": {args: []string{"memorize", "canaries", "-o", "canaries.jsonl", "--n", "2"}, outputs: []string{"output"}},
		"tokens":            {args: []string{"tokens", "{in}", "-o", "counts.parquet"}, outputs: []string{"output"}, stream: true, dataset: true},
		"tasks convert":     {args: []string{"tasks", "convert", "chat.jsonl", "-o", "out.parquet", "--to", "parquet"}, outputs: []string{"output"}},
		"tasks split":       {args: []string{"tasks", "split", "chat.jsonl", "-o", "splits"}, outputs: []string{"output"}},
		"demo": {args: []string{"demo", "-o", "out"}, outputs: []string{"output"}, again: "the demo replaces its own earlier output",
			noInterrupt: "a run of several commands; each is interrupted on its own here"},
		"report": {args: []string{"report", "ds", "-o", "report.html"}, prep: [][]string{ds}, outputs: []string{"output"}},
		"rerun":  {args: []string{"rerun", "v1", "-o", "v2"}, prep: [][]string{rerunnable}, outputs: []string{"output"}},
		"diff":   {args: []string{"diff", "ds", "v1", "--rows-out", "rows"}, prep: [][]string{ds, rerunnable}, outputs: []string{"rows-out"}, notOutputs: []string{"temp-dir"}},

		// Commands that only read (and print).
		"classify test":   {args: []string{"classify", "test", "m.bin", "a.jsonl", "--label-field", "label"}, prep: [][]string{model}},
		"recipe":          {args: []string{"recipe", "fineweb"}},
		"task":            {args: []string{"task", "--help"}},
		"status":          {args: []string{"status", "out"}, prep: [][]string{launch}},
		"memorize score":  {args: []string{"memorize", "score", "--probes", "probes.jsonl", "--generations", "gen.jsonl"}, prep: [][]string{probes}},
		"budget":          {args: []string{"budget", "a.jsonl", "--params", "1e9"}},
		"tasks validate":  {args: []string{"tasks", "validate", "chat.jsonl"}},
		"inspect":         {args: []string{"inspect", "ds"}, prep: [][]string{ds}},
		"verify":          {args: []string{"verify", "ds"}, prep: [][]string{ds}},
		"log":             {args: []string{"log", "ds"}, prep: [][]string{ds}},
		"trace":           {args: []string{"trace", "ds", "d3"}, prep: [][]string{ds}},
		"completion":      {args: []string{"completion", "bash"}},
		"completion bash": {args: []string{"completion", "bash"}},
		"completion zsh":  {args: []string{"completion", "zsh"}},
		"completion fish": {args: []string{"completion", "fish"}},
		"dedup":           {args: []string{"dedup", "--help"}},
		"memorize":        {args: []string{"memorize", "--help"}},
		"tasks":           {args: []string{"tasks", "--help"}},
		"man":             {args: []string{"man"}},
	}
}

// leafCommands returns the full names of every command of the tree that
// runs something (help aside).
func leafCommands(prefix string, cmds []*cli.Command) map[string]*cli.Command {
	out := map[string]*cli.Command{}
	for _, c := range cmds {
		if c.Name == "help" {
			continue
		}
		name := strings.TrimPrefix(prefix+" "+c.Name, " ")
		if c.Action != nil {
			out[name] = c
		}
		for k, v := range leafCommands(name, c.Subcommands) {
			out[k] = v
		}
	}
	return out
}

// TestWalkCoversEveryCommand fails for a command the walking test does not
// describe, and for a flag that mentions writing but is neither one of its
// outputs nor declared as something else.
func TestWalkCoversEveryCommand(t *testing.T) {
	specs := walkSpecs()
	leaves := leafCommands("", NewApp(Streams{}).Commands)
	for name, c := range leaves {
		spec, ok := specs[name]
		if !ok {
			t.Errorf("sluice %s is not described in walkSpecs: add how to run it and which flags name what it writes", name)
			continue
		}
		for _, f := range c.Flags {
			flag := f.Names()[0]
			if slices.Contains(spec.outputs, flag) || slices.Contains(spec.notOutputs, flag) {
				continue
			}
			if names := writesAPath(f); names != "" {
				t.Errorf("sluice %s --%s: its usage says it %s; list it in the spec's outputs (or notOutputs)", name, flag, names)
			}
		}
		for _, flag := range spec.outputs {
			if !cmdHasFlag(c, flag) {
				t.Errorf("sluice %s: the spec names --%s, which the command does not have", name, flag)
			}
		}
	}
	for name := range specs {
		if _, ok := leaves[name]; !ok {
			t.Errorf("walkSpecs describes sluice %s, which the tree does not have", name)
		}
	}
}

// writesAPath tells whether a flag's usage says it names a path written:
// a string or path flag whose usage speaks of writing a file or folder.
func writesAPath(f cli.Flag) string {
	var usage string
	switch f := f.(type) {
	case *cli.StringFlag:
		usage = f.Usage
	case *cli.PathFlag:
		usage = f.Usage
	default:
		return ""
	}
	u := strings.ToLower(usage)
	for _, w := range []string{"write ", "writes ", "written", "the file to", "the directory to", "where to"} {
		if strings.Contains(u, w) {
			return fmt.Sprintf("%q", w)
		}
	}
	return ""
}

// walkDir makes a fresh folder with the walking inputs and what the spec's
// prep (and, for dataset specs, the dataset ds) writes, and enters it.
func walkDir(t *testing.T, spec walkSpec, bin string) {
	t.Helper()
	t.Chdir(t.TempDir())
	writeFiles(t, walkFiles())
	prep := spec.prep
	if spec.dataset && !slices.ContainsFunc(prep, func(p []string) bool { return slices.Contains(p, "ds") }) {
		prep = append([][]string{{"convert", "a.jsonl", "-o", "ds"}}, prep...)
	}
	for _, p := range prep {
		p = expand(p, "a.jsonl", bin)
		if code, out, errs := sluiceIn(t, "", p...); code != 0 {
			t.Fatalf("preparing with sluice %v: exit %d\n%s%s", p, code, out, errs)
		}
	}
}

// expand fills a spec's placeholders.
func expand(args []string, in, bin string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		a = strings.ReplaceAll(a, "{in}", in)
		out[i] = strings.ReplaceAll(a, "{bin}", bin)
	}
	return out
}

// withFlag returns args with flag's value replaced (or the flag added).
func withFlag(args []string, flag, value string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		if (a == "--"+flag || (flag == "output" && a == "-o")) && i+1 < len(out) {
			out[i+1] = value
			return out
		}
	}
	return append(out, "--"+flag, value)
}

// flagValue returns the value args gives flag.
func flagValue(args []string, flag string) string {
	for i, a := range args {
		if (a == "--"+flag || (flag == "output" && a == "-o")) && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// isFilePath tells a one-file output from a folder by its name.
func isFilePath(p string) bool { return filepath.Ext(p) != "" }

// needsBinary reports whether the spec runs the sluice binary.
func needsBinary(spec walkSpec) bool {
	for _, p := range append([][]string{spec.args}, spec.prep...) {
		if slices.Contains(p, "{bin}") {
			return true
		}
	}
	return false
}

func TestWalkEveryCommand(t *testing.T) {
	specs := walkSpecs()
	leaves := leafCommands("", NewApp(Streams{}).Commands)
	names := make([]string, 0, len(specs))
	for n := range specs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		spec := specs[name]
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			bin := ""
			if needsBinary(spec) {
				bin = sluiceBinary(t)
			}
			if len(spec.outputs) == 0 {
				walkReader(t, spec, bin)
				return
			}
			ins := []string{"a.jsonl"}
			if spec.dataset {
				ins = append(ins, "ds")
			}
			for _, in := range ins {
				args := expand(spec.args, in, bin)
				if !slices.Contains(spec.args, "{in}") && in != "a.jsonl" {
					continue
				}
				t.Run("first_run_then_again", func(t *testing.T) { walkRuns(t, spec, leaves[name], args, bin) })
				for _, flag := range spec.outputs {
					walkOutput(t, spec, leaves[name], args, flag, in, bin)
				}
			}
			if spec.stream {
				t.Run("stream_input", func(t *testing.T) { walkStream(t, spec, bin) })
			}
		})
	}
}

// files returns every file under root.
func files(t *testing.T, root string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out[filepath.Clean(path)] = true
		}
		return nil
	})
	return out
}

// listedByManifests returns the files that the sluice manifests under root
// list, the manifests included.
func listedByManifests(t *testing.T, root string) map[string]bool {
	t.Helper()
	owned := map[string]bool{}
	for f := range files(t, root) {
		if !strings.HasSuffix(f, "manifest.json") {
			continue
		}
		m, err := dataset.ReadManifest(f)
		if err != nil {
			continue
		}
		owned[f] = true
		for _, name := range m.Files {
			owned[filepath.Join(filepath.Dir(f), name)] = true
		}
	}
	return owned
}

// walkReader runs a command that only reads: it succeeds and writes
// nothing.
func walkReader(t *testing.T, spec walkSpec, bin string) {
	walkDir(t, spec, bin)
	before := snapshot(t, ".")
	args := expand(spec.args, "a.jsonl", bin)
	if code, out, errs := sluiceIn(t, "", args...); code != 0 {
		t.Fatalf("sluice %v: exit %d\n%s%s", args, code, out, errs)
	}
	if after := snapshot(t, "."); after != before {
		t.Errorf("sluice %v only reads, but the folder changed:\nbefore %s\nafter  %s", args, before, after)
	}
}

// walkRuns: a first run succeeds with nothing left over; a second is
// refused without --overwrite and changes nothing; with it, it succeeds.
func walkRuns(t *testing.T, spec walkSpec, cmd *cli.Command, args []string, bin string) {
	walkDir(t, spec, bin)
	made := files(t, ".")
	if code, out, errs := sluiceIn(t, "", args...); code != 0 {
		t.Fatalf("sluice %v: exit %d\n%s%s", args, code, out, errs)
	}
	leftovers(t, ".")
	if spec.unlisted == "" {
		owned := listedByManifests(t, ".")
		for f := range files(t, ".") {
			if !made[f] && !owned[f] {
				t.Errorf("sluice %v wrote %s, which no manifest lists: a later --overwrite could not tell it is sluice's", args, f)
			}
		}
	}
	if spec.again != "" {
		return
	}
	before := snapshot(t, ".")
	code, _, errs := sluiceIn(t, "", args...)
	if code != 2 {
		t.Errorf("sluice %v over its own earlier output without --overwrite: exit %d, want 2\n%s", args, code, errs)
	}
	if after := snapshot(t, "."); after != before {
		t.Errorf("a refused run changed the folder:\nbefore %s\nafter  %s", before, after)
	}
	if !cmdHasFlag(cmd, "overwrite") {
		return
	}
	again := append(slices.Clone(args), "--overwrite")
	if code, out, errs := sluiceIn(t, "", again...); code != 0 {
		t.Errorf("sluice %v: exit %d\n%s%s", again, code, out, errs)
	}
	leftovers(t, ".")
}

// walkOutput points one output flag at what it must never replace.
func walkOutput(t *testing.T, spec walkSpec, cmd *cli.Command, args []string, flag, in, bin string) {
	value := flagValue(args, flag)
	if value == "" {
		value = flag + ".txt" // a side output the run does not ask for
	}
	type target struct {
		name  string
		path  string
		user  bool // made by the user before the run
		extra []string
	}
	input := firstInput(args, value)
	targets := []target{
		{name: "is_an_input_file", path: input},
		{name: "is_an_input_file_overwrite", path: input, extra: []string{"--overwrite"}},
		{name: "is_a_user_file", path: value, user: true},
		{name: "is_a_user_file_overwrite", path: value, user: true, extra: []string{"--overwrite"}},
	}
	if in == "ds" {
		targets = append(targets,
			target{name: "is_the_input_dataset", path: "ds", extra: []string{"--overwrite"}},
			target{name: "is_the_input_manifest", path: "ds/manifest.json", extra: []string{"--overwrite"}},
			target{name: "is_an_input_part_file", path: "ds/data/part-00000.parquet", extra: []string{"--overwrite"}},
		)
	}
	for _, tg := range targets {
		t.Run(fmt.Sprintf("%s_%s_from_%s", flag, tg.name, in), func(t *testing.T) {
			walkDir(t, spec, bin)
			if tg.user {
				if isFilePath(tg.path) {
					writeFiles(t, map[string]string{tg.path: "the user's own file, not sluice's\n"})
				} else {
					writeFiles(t, map[string]string{filepath.Join(tg.path, "notes.txt"): "the user's own folder\n"})
				}
			}
			run := withFlag(args, flag, tg.path)
			if cmdHasFlag(cmd, "overwrite") {
				run = append(run, tg.extra...)
			}
			before := snapshot(t, ".")
			code, out, errs := sluiceIn(t, "", run...)
			if code != 2 {
				t.Errorf("sluice %v: exit %d, want 2 (a refused output)\n%s%s", run, code, out, errs)
			}
			if after := snapshot(t, "."); after != before {
				t.Errorf("sluice %v changed files:\nbefore %s\nafter  %s", run, before, after)
			}
		})
	}
}

// firstInput returns the first argument that names one of the walking
// inputs (not the output's value): the file a command reads.
func firstInput(args []string, output string) string {
	files := walkFiles()
	for _, a := range args {
		if _, ok := files[a]; ok && a != output {
			return a
		}
	}
	return "a.jsonl"
}

// cmdHasFlag reports whether the command has the flag.
func cmdHasFlag(c *cli.Command, flag string) bool {
	return slices.ContainsFunc(c.Flags, func(f cli.Flag) bool { return f.Names()[0] == flag })
}

// walkStream gives a command that reads rows its input on standard input:
// it reads every row or refuses the stream up front.
func walkStream(t *testing.T, spec walkSpec, bin string) {
	walkDir(t, spec, bin)
	args := expand(spec.args, "-", bin)
	before := snapshot(t, ".")
	code, out, errs := sluiceIn(t, walkCorpus(walkRows), args...)
	switch code {
	case 2:
		if after := snapshot(t, "."); after != before {
			t.Errorf("sluice %v refused the stream but changed files:\nbefore %s\nafter  %s", args, before, after)
		}
	case 0:
		out := flagValue(args, "output")
		manifest := dataset.ParseTarget(out).SidePath("manifest.json")
		if _, err := os.Stat(manifest); err != nil {
			return // a counts table: it accounts for its rows itself
		}
		m, err := dataset.ReadManifest(manifest)
		if err != nil {
			t.Fatal(err)
		}
		if m.Artifact != "" {
			return // a table of results (token counts): its counts are its own rows
		}
		if m.Counts.RowsIn != walkRows {
			t.Errorf("sluice %v on a stream: the manifest counts %d rows in, the stream had %d", args, m.Counts.RowsIn, walkRows)
		}
	default:
		t.Errorf("sluice %v on a stream: exit %d, want 0 (all rows read) or 2 (refused up front)\n%s%s", args, code, out, errs)
	}
	leftovers(t, ".")
}

// TestWalkInterruptEveryCommand interrupts the real binary at several
// points of a run that replaces an earlier output: either the earlier
// output is left byte for byte (exit 130) or the new one is complete
// (exit 0), and no temporary file is left.
func TestWalkInterruptEveryCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every writing command several times as a process")
	}
	bin := sluiceBinary(t)
	specs := walkSpecs()
	names := make([]string, 0, len(specs))
	for n, s := range specs {
		if len(s.outputs) > 0 && s.noInterrupt == "" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	leaves := leafCommands("", NewApp(Streams{}).Commands)
	for _, name := range names {
		spec := specs[name]
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			args := expand(spec.args, "a.jsonl", bin)
			again := args
			if cmdHasFlag(leaves[name], "overwrite") {
				again = append(slices.Clone(args), "--overwrite")
			}
			for _, delay := range []time.Duration{5 * time.Millisecond, 30 * time.Millisecond, 80 * time.Millisecond, 200 * time.Millisecond} {
				walkDir(t, spec, bin)
				// With --overwrite, the run replaces an earlier output;
				// without, it writes a new one.
				if len(again) > len(args) {
					if code, out, errs := sluiceIn(t, "", args...); code != 0 {
						t.Fatalf("sluice %v: exit %d\n%s%s", args, code, out, errs)
					}
				}
				// The next run reads more rows, so a new output differs
				// from the old one.
				reads := slices.Contains(args, "a.jsonl")
				if reads {
					writeFiles(t, map[string]string{"a.jsonl": walkCorpus(walkRows + 5)})
				}
				before := snapshot(t, ".")
				code, errs := interruptProcess(t, bin, again, delay)
				after := snapshot(t, ".")
				switch code {
				case 130:
					// What the command says it wrote in full before the
					// interrupt (a rerun's rebuild, then its check cut
					// short) must be complete; everything else as it was.
					written := writtenBeforeInterrupt(errs)
					for _, p := range written {
						walkComplete(t, p)
					}
					if a, b := without(after, written), without(before, written); a != b {
						t.Errorf("after %v: exit 130 but the files changed:\nbefore %s\nafter  %s\n%s", delay, b, a, errs)
					}
				case 0:
					if reads && after == before {
						t.Errorf("after %v: exit 0 but nothing changed\n%s", delay, errs)
					}
					for _, flag := range spec.outputs {
						if path := flagValue(args, flag); path != "" {
							walkComplete(t, path)
						}
					}
				default:
					t.Errorf("after %v: exit %d, want 130 (earlier output kept) or 0 (new output complete)\n%s", delay, code, errs)
				}
				leftovers(t, ".")
			}
		})
	}
}

// writtenBeforeInterrupt returns the outputs that an interrupted run's
// message says were written in full before the interrupt.
func writtenBeforeInterrupt(errs string) []string {
	const before, after = "sluice: interrupted; ", " written in full before the interrupt"
	for _, line := range strings.Split(errs, "\n") {
		if rest, ok := strings.CutPrefix(line, before); ok {
			if list, _, ok := strings.Cut(rest, after); ok {
				return strings.Split(list, ", ")
			}
		}
	}
	return nil
}

// without drops from a snapshot the entries of the outputs given: a
// folder and what it holds, or a file and the side files of its stem.
func without(snap string, outputs []string) string {
	var kept []string
	for _, e := range strings.Fields(snap) {
		p, _, _ := strings.Cut(strings.TrimSuffix(e, "/"), ":")
		p = filepath.Clean(p)
		drop := false
		for _, out := range outputs {
			stem := strings.TrimSuffix(out, filepath.Ext(out))
			if p == out || strings.HasPrefix(p, out+"/") || (stem != out && strings.HasPrefix(p, stem+".")) {
				drop = true
			}
		}
		if !drop {
			kept = append(kept, e)
		}
	}
	return strings.Join(kept, " ")
}

// interruptProcess runs the binary in the current folder and sends it SIGINT
// after delay; it returns the exit code and standard error.
func interruptProcess(t *testing.T, bin string, args []string, delay time.Duration) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(delay, func() { cmd.Process.Signal(syscall.SIGINT) })
	err := cmd.Wait()
	timer.Stop()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, errb.String()
	case errors.As(err, &exit):
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGINT {
			// Killed before the runtime took the signal over: nothing
			// was written yet, which the caller checks as for 130.
			return 130, errb.String()
		}
		return exit.ExitCode(), errb.String()
	}
	t.Fatal(err)
	return -1, ""
}

// walkComplete checks that what a command wrote at path is whole: a
// dataset passes verify; a one-file output's manifest lists files that are
// all there; any other file exists.
func walkComplete(t *testing.T, path string) {
	t.Helper()
	target := dataset.ParseTarget(path)
	manifest := target.SidePath("manifest.json")
	if _, err := os.Stat(manifest); err != nil {
		if _, err := os.Stat(path); err != nil {
			t.Errorf("exit 0 but %s is missing", path)
		}
		return
	}
	if target.Kind == dataset.Directory {
		if code, out, errs := sluiceIn(t, "", "verify", path); code != 0 {
			t.Errorf("exit 0 but sluice verify %s: exit %d\n%s%s", path, code, out, errs)
		}
		return
	}
	m, err := dataset.ReadManifest(manifest)
	if err != nil {
		// The manifest of another kind of file (probes, say): the file
		// itself must be there.
		if _, err := os.Stat(path); err != nil {
			t.Errorf("exit 0 but %s is missing", path)
		}
		return
	}
	for _, f := range m.Files {
		if _, err := os.Stat(filepath.Join(filepath.Dir(manifest), f)); err != nil {
			t.Errorf("exit 0 but %s lists %s, which is missing", manifest, f)
		}
	}
}
