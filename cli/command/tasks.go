package command

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/kernels/tokenize"
	"github.com/sluice-data/sluice/tasks"
	"github.com/urfave/cli/v2"
)

// TasksValidateOptions are the flags of `sluice tasks validate`.
type TasksValidateOptions struct {
	Format             string
	Tokenizer          string
	MaxTokens          int
	MinAnswerChars     int
	RequireAlternation bool
	JSON               bool
	Workers            int
}

func tasksCommand(s Streams) *cli.Command {
	return &cli.Command{
		Name:  "tasks",
		Usage: "validate, convert and split fine-tuning task JSONL (chat, instruction, completion, ShareGPT)",
		Description: "Formats, one example a line:\n" +
			"  chat         {\"messages\": [{\"role\": \"system|user|assistant|tool\", \"content\": \"...\"}, ...]} (tools, name, weight allowed)\n" +
			"  instruction  {\"instruction\": \"...\", \"input\": \"...\", \"output\": \"...\"} (input and system optional)\n" +
			"  completion   {\"prompt\": \"...\", \"completion\": \"...\"}\n" +
			"  sharegpt     {\"conversations\": [{\"from\": \"human|gpt|system\", \"value\": \"...\"}, ...]}\n" +
			"Other members (id, source, ...) are allowed and kept by conversions.",
		Subcommands: []*cli.Command{
			tasksValidateCommand(s),
			tasksConvertCommand(s),
			tasksSplitCommand(s),
		},
	}
}

func tasksValidateCommand(s Streams) *cli.Command {
	o := &TasksValidateOptions{}
	return &cli.Command{
		Name:      "validate",
		Usage:     "check every line of task files and size them for training",
		ArgsUsage: "FILE...",
		Description: "Errors, each with file and line: not JSON, not an object, missing or wrongly typed members,\n" +
			"unknown roles, empty or white-space-only content, no assistant turn or a last turn that is not the\n" +
			"assistant's, a system message after the first turn, two user turns in a row (ShareGPT, or chat with\n" +
			"--require-alternation), more tokens than --max-tokens, a line of another format than its file's.\n" +
			"Warnings: exact duplicate examples, the same prompt with different answers, very short answers,\n" +
			"examples within 10% of --max-tokens. Statistics: examples, turns, tokens per example and per role\n" +
			"(p50, p90, max), examples over the limit, training tokens per epoch. Exit code 1 when any error is found.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "auto", Destination: &o.Format,
				Usage: "auto, chat, instruction, completion or sharegpt; auto takes each file's format from its first line of a known shape and reports lines of another"},
			&cli.StringFlag{Name: "tokenizer", Value: "cl100k_base", Destination: &o.Tokenizer,
				Usage: "encoding that counts tokens: " + strings.Join(tokenize.Names(), ", ") + ", or none (no token counts, no token limit)"},
			&cli.IntFlag{Name: "max-tokens", Value: 8192, Destination: &o.MaxTokens,
				Usage: "an example with more tokens (content of all turns) is an error; 0 for no limit"},
			&cli.IntFlag{Name: "min-answer-chars", Value: 3, Destination: &o.MinAnswerChars,
				Usage: "a final answer shorter than this many characters draws a short_answer warning; 0 to turn off"},
			&cli.BoolFlag{Name: "require-alternation", Destination: &o.RequireAlternation,
				Usage: "chat: two user turns in a row are an error (they always are in ShareGPT)"},
			jsonFlag(&o.JSON),
			&cli.IntFlag{Name: "workers", Aliases: []string{"j"}, Value: runtime.NumCPU(), Destination: &o.Workers,
				Usage: "goroutines that check lines (the report is the same whatever the number)"},
		},
		Action: action(func(c *cli.Context) error {
			return runTasksValidate(c.Context, o, c.Args().Slice(), s)
		}),
	}
}

// options turns the flags into validation options, reporting every
// problem at once.
func (o *TasksValidateOptions) options() (tasks.Options, error) {
	var problems []string
	opts := tasks.Options{Workers: o.Workers,
		CheckOptions: tasks.CheckOptions{MaxTokens: o.MaxTokens, MinAnswerChars: o.MinAnswerChars, RequireAlternation: o.RequireAlternation}}
	var err error
	if opts.Format, err = tasks.ParseFormat(o.Format); err != nil {
		problems = append(problems, "--format: "+err.Error())
	}
	if o.Tokenizer != "none" {
		if opts.Encoding, err = tokenize.Get(o.Tokenizer); err != nil {
			problems = append(problems, "--tokenizer: "+err.Error())
		}
	}
	if o.MaxTokens < 0 {
		problems = append(problems, "--max-tokens must not be negative")
	}
	if o.MinAnswerChars < 0 {
		problems = append(problems, "--min-answer-chars must not be negative")
	}
	if o.Workers < 1 {
		problems = append(problems, "--workers must be at least 1")
	}
	if len(problems) > 0 {
		return opts, usagef("%s", strings.Join(problems, "; "))
	}
	return opts, nil
}

// errTasksInvalid marks a validation that ran and found errors in the data.
var errTasksInvalid = errors.New("tasks validate found errors")

func runTasksValidate(ctx context.Context, o *TasksValidateOptions, args []string, s Streams) error {
	opts, err := o.options()
	if err != nil {
		return err
	}
	if len(args) == 0 {
		return usagef("no task file given (tasks validate FILE...)")
	}
	files, err := input.Expand(args)
	if err != nil {
		return usageError{err}
	}
	rep, err := tasks.Validate(ctx, files, opts)
	if err != nil {
		return err
	}
	if o.JSON {
		if err := printJSON(s.Out, rep); err != nil {
			return err
		}
	} else if err := rep.WriteText(s.Out); err != nil {
		return err
	}
	if !rep.OK() {
		return fmt.Errorf("%w: %d error(s); the first: %v", errTasksInvalid, len(rep.Errors), rep.Errors[0])
	}
	return nil
}

// TasksConvertOptions are the flags of `sluice tasks convert`.
type TasksConvertOptions struct {
	Output      string
	To          string
	From        string
	System      string
	SkipInvalid bool
	Overwrite   bool
	JSON        bool
}

func tasksConvertCommand(s Streams) *cli.Command {
	o := &TasksConvertOptions{}
	return &cli.Command{
		Name:      "convert",
		Usage:     "convert task files between formats, or to Parquet, refusing conversions that lose information",
		ArgsUsage: "IN... -o OUT --to chat|instruction|completion|parquet",
		Description: "instruction, completion and ShareGPT convert to chat (the instruction and its input joined by a blank\n" +
			"line into one user turn); chat and ShareGPT examples of one user turn and one answer convert to\n" +
			"instruction or completion. An example the target cannot hold (several exchanges, a system message\n" +
			"for completion, tool calls, names or weights outside chat) stops the conversion with its file, line\n" +
			"and reason. Parquet output has a messages column of list<struct<role, content>> and an extra column\n" +
			"(the other members as a JSON object). Members such as id are kept. OUT.manifest.json records the run.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Destination: &o.Output,
				Usage: "the file to write: .jsonl for chat, instruction or completion, .parquet for parquet"},
			&cli.StringFlag{Name: "to", Required: true, Destination: &o.To,
				Usage: "chat, instruction, completion or parquet"},
			&cli.StringFlag{Name: "format", Value: "auto", Destination: &o.From,
				Usage: "the input format: auto, chat, instruction, completion or sharegpt"},
			&cli.StringFlag{Name: "system", Destination: &o.System,
				Usage: "a system prompt for examples that have none (chat and instruction output)"},
			&cli.BoolFlag{Name: "skip-invalid", Destination: &o.SkipInvalid,
				Usage: "send lines with errors to OUT.quarantine.jsonl (file, line, error, raw) instead of stopping at the first"},
			&cli.BoolFlag{Name: "overwrite", Destination: &o.Overwrite, Usage: "replace an existing output"},
			jsonFlag(&o.JSON),
		},
		Action: action(func(c *cli.Context) error {
			return runTasksConvert(c.Context, o, c.Args().Slice(), commandLine(c), s)
		}),
	}
}

func runTasksConvert(ctx context.Context, o *TasksConvertOptions, args, command []string, s Streams) error {
	opts := tasks.ConvertOptions{System: o.System, SkipInvalid: o.SkipInvalid, Overwrite: o.Overwrite}
	var problems []string
	var err error
	if opts.From, err = tasks.ParseFormat(o.From); err != nil {
		problems = append(problems, "--format: "+err.Error())
	}
	toParquet := o.To == "parquet"
	if !toParquet {
		if opts.To, err = tasks.ParseFormat(o.To); err != nil || opts.To == tasks.Auto || opts.To == tasks.ShareGPT {
			problems = append(problems, fmt.Sprintf("--to must be chat, instruction, completion or parquet, not %q", o.To))
		}
	}
	switch {
	case toParquet && !strings.HasSuffix(o.Output, ".parquet"):
		problems = append(problems, "-o: --to parquet writes a .parquet file")
	case !toParquet && !strings.HasSuffix(o.Output, ".jsonl"):
		problems = append(problems, "-o: --to "+o.To+" writes a .jsonl file")
	}
	if o.System != "" && opts.To == tasks.Completion {
		problems = append(problems, "--system: completion has no place for a system prompt")
	}
	if len(args) == 0 {
		problems = append(problems, "no input given (IN... -o OUT)")
	}
	if len(problems) > 0 {
		return usagef("%s", strings.Join(problems, "; "))
	}
	files, err := input.Expand(args)
	if err != nil {
		return usageError{err}
	}
	m, err := tasks.ConvertFiles(ctx, files, o.Output, opts, command, Version)
	if err != nil {
		return err
	}
	if o.JSON {
		return printJSON(s.Out, newSummary(dataset.ParseTarget(o.Output), m))
	}
	fmt.Fprintf(s.Out, "%d examples written to %s (%d lines read, %d quarantined)\n",
		m.Counts.RowsOut, o.Output, m.Counts.RowsIn, m.Counts.Quarantined)
	return nil
}

// TasksSplitOptions are the flags of `sluice tasks split`.
type TasksSplitOptions struct {
	Output    string
	Ratios    string
	Names     string
	By        string
	Field     string
	Seed      uint64
	Format    string
	Overwrite bool
	JSON      bool
}

func tasksSplitCommand(s Streams) *cli.Command {
	o := &TasksSplitOptions{}
	return &cli.Command{
		Name:      "split",
		Usage:     "split task files into train/validation/test by a seeded hash, keeping groups together",
		ArgsUsage: "IN... -o DIR",
		Description: "Each example goes to the split that the xxhash64 (seeded with --seed) of its group key falls in, so\n" +
			"an example stays in its split when the file grows or is reordered. Groups: --by prompt (default) keeps\n" +
			"examples with the same prompt in matching normal form (lowercase, no punctuation or accents) together,\n" +
			"so no prompt straddles train and test; --by id or --by field --field NAME group by a member (an example\n" +
			"without it is grouped by its content). Lines are written as they are to DIR/<name>.jsonl; DIR/manifest.json\n" +
			"records the seed, ratios and grouping. Prompts found in more than one split are reported.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Destination: &o.Output,
				Usage: "the directory to write the splits into"},
			&cli.StringFlag{Name: "ratios", Value: "0.9,0.05,0.05", Destination: &o.Ratios,
				Usage: "the share of each split, adding up to 1"},
			&cli.StringFlag{Name: "names", Destination: &o.Names,
				Usage: "the split names (default train,test for two ratios, train,validation,test for three)"},
			&cli.StringFlag{Name: "by", Value: "prompt", Destination: &o.By,
				Usage: "group examples by prompt, id (the member named by --field, default id) or field (--field NAME)"},
			&cli.StringFlag{Name: "field", Destination: &o.Field,
				Usage: "the member --by id or --by field reads; dots reach into objects (meta.source)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Destination: &o.Seed,
				Usage: "the hash seed; the same seed gives the same split"},
			&cli.StringFlag{Name: "format", Value: "auto", Destination: &o.Format,
				Usage: "the input format: auto, chat, instruction, completion or sharegpt"},
			&cli.BoolFlag{Name: "overwrite", Destination: &o.Overwrite,
				Usage: "replace DIR if it holds an earlier split (it has a manifest.json)"},
			jsonFlag(&o.JSON),
		},
		Action: action(func(c *cli.Context) error {
			return runTasksSplit(c.Context, o, c.Args().Slice(), commandLine(c), s)
		}),
	}
}

func runTasksSplit(ctx context.Context, o *TasksSplitOptions, args, command []string, s Streams) error {
	opts := tasks.SplitOptions{Seed: o.Seed, Overwrite: o.Overwrite, Field: o.Field}
	var problems []string
	var err error
	for _, r := range strings.Split(o.Ratios, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(r), 64)
		if err != nil {
			problems = append(problems, fmt.Sprintf("--ratios: %q is not a number", r))
		}
		opts.Ratios = append(opts.Ratios, v)
	}
	opts.Names = tasks.DefaultSplitNames(len(opts.Ratios))
	if o.Names != "" {
		opts.Names = strings.Split(o.Names, ",")
	}
	if opts.By, err = tasks.ParseSplitBy(o.By); err != nil {
		problems = append(problems, "--by: "+err.Error())
	}
	if opts.By == tasks.ByID && opts.Field == "" {
		opts.Field = "id"
	}
	if opts.Format, err = tasks.ParseFormat(o.Format); err != nil {
		problems = append(problems, "--format: "+err.Error())
	}
	if len(problems) == 0 {
		if err := opts.Validate(); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(args) == 0 {
		problems = append(problems, "no input given (IN... -o DIR)")
	}
	if len(problems) > 0 {
		return usagef("%s", strings.Join(problems, "; "))
	}
	files, err := input.Expand(args)
	if err != nil {
		return usageError{err}
	}
	rep, err := tasks.SplitFiles(ctx, files, o.Output, opts, command, Version)
	if err != nil {
		return err
	}
	if o.JSON {
		return printJSON(s.Out, rep)
	}
	return rep.WriteText(s.Out)
}

// tasksDemo shows the tasks commands on the sample task file built into
// the binary: it writes the file into dir, validates it (the report goes
// to s.Out; its errors are expected and not returned), converts its valid
// examples to dir/tasks-sample.parquet, quarantining the others, and
// splits it by prompt into dir/tasks-split/. `sluice demo` calls it.
func tasksDemo(ctx context.Context, dir string, s Streams) error {
	// The sample is an output of its own (dir/manifest.json lists it), so
	// a later demo replaces it and nothing else there.
	m := &dataset.Manifest{Tool: "sluice", Version: Version, Command: []string{"sluice", "demo"}}
	if err := dataset.WriteFileSet(ctx, dir, map[string][]byte{tasks.SampleName: tasks.Sample()}, true, m); err != nil {
		return err
	}
	sample := filepath.Join(dir, tasks.SampleName)
	fmt.Fprintf(s.Out, "$ sluice tasks validate %s\n", sample)
	vo := &TasksValidateOptions{Format: "auto", Tokenizer: "cl100k_base", MaxTokens: 8192, MinAnswerChars: 3, Workers: 1}
	if err := runTasksValidate(ctx, vo, []string{sample}, s); err != nil {
		if !errors.Is(err, errTasksInvalid) {
			return err
		}
		fmt.Fprintf(s.Out, "(the sample has errors on purpose; convert --skip-invalid quarantines them)\n")
	}
	out := filepath.Join(dir, "tasks-sample.parquet")
	fmt.Fprintf(s.Out, "\n$ sluice tasks convert %s --to parquet --skip-invalid -o %s\n", sample, out)
	co := &TasksConvertOptions{Output: out, To: "parquet", From: "auto", SkipInvalid: true, Overwrite: true}
	if err := runTasksConvert(ctx, co, []string{sample}, []string{"sluice", "demo"}, s); err != nil {
		return err
	}
	split := filepath.Join(dir, "tasks-split")
	fmt.Fprintf(s.Out, "\n$ sluice tasks split %s -o %s\n", sample, split)
	so := &TasksSplitOptions{Output: split, Ratios: "0.8,0.1,0.1", By: "prompt", Format: "auto", Overwrite: true}
	return runTasksSplit(ctx, so, []string{sample}, []string{"sluice", "demo"}, s)
}
