// Package command is sluice's command line: one file per command, each a
// thin adapter from flags to an options struct and a run function that the
// tests call directly. Exit codes are decided in Main alone: 0 success, 1
// the job failed, 2 bad usage, 130 interrupted.
package command

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/sluice-data/sluice/internal/limit"
	"github.com/sluice-data/sluice/internal/sidefile"
	"github.com/sluice-data/sluice/io/blob"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/urfave/cli/v2"
)

// Version is the tool version recorded in manifests.
const Version = "0.1.0"

// Streams are a command's standard streams.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
}

// usageError marks an error as the user's misuse of the command line
// (exit code 2) rather than a failed job (exit code 1).
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// jobError marks an error returned by a command's action once its
// arguments were accepted.
type jobError struct{ err error }

func (j jobError) Error() string { return j.err.Error() }
func (j jobError) Unwrap() error { return j.err }

// action adapts a run function to urfave/cli and tags its errors.
func action(run func(c *cli.Context) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		err := run(c)
		var u usageError
		if err == nil || errors.As(err, &u) {
			return err
		}
		if errors.Is(err, dataset.ErrRefused) || errors.Is(err, input.ErrReadOnce) {
			return usageError{err} // an output sluice will not write, an input it cannot read as asked: the user's to change
		}
		if refusedValue(err) {
			return usageError{err} // a value or a side file out of bounds: the user's to change
		}
		return jobError{err}
	}
}

// refusedValue reports whether err is a value out of its range or a side
// file refused for its size or kind, wherever it was found.
func refusedValue(err error) bool {
	var l *limit.Error
	var f *sidefile.Error
	return errors.As(err, &l) || errors.As(err, &f)
}

// argsKey is the cli.App Metadata key of the command line the app runs,
// which manifests record.
const argsKey = "args"

// commandLine returns the command line Main was given, as manifests record
// it; nil when the app was run otherwise.
func commandLine(c *cli.Context) []string {
	args, _ := c.App.Metadata[argsKey].([]string)
	return args
}

// NewApp returns the sluice command line. Main records its arguments in
// the app's Metadata under "args" before running it; manifests record that
// command line.
func NewApp(s Streams) *cli.App {
	var profile *cpuProfile // --cpuprofile
	app := &cli.App{
		Name:    "sluice",
		Usage:   "turn raw text corpora into clean, deduplicated, token-counted training datasets",
		Version: Version,
		Description: "sluice reads JSONL (plain, .gz, .zst), Parquet and web crawls (WARC, WET) as Arrow record\n" +
			"batches and writes Parquet datasets that DuckDB, Polars, pyarrow and Spark read as they are, with\n" +
			"a manifest.json that accounts for every input row. `sluice demo` runs it all on a built-in sample.",
		Reader:    s.In,
		Writer:    s.Out,
		ErrWriter: s.Err,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "log-format", Value: "text", Usage: "how errors are printed on stderr: text (one line a problem) or json (one object a line)"},
			&cli.StringFlag{Name: "cpuprofile", Hidden: true, Usage: "write a Go CPU profile to this file"},
			&cli.StringFlag{Name: "s3-endpoint", EnvVars: []string{"AWS_ENDPOINT_URL"}, Usage: "the URL of an S3-compatible store (MinIO, Ceph, R2 ...) that s3:// paths name, addressed by path; goes anywhere on the command line"},
		},
		Before: func(c *cli.Context) error {
			blob.SetEndpoint(c.String("s3-endpoint"))
			if path := c.String("cpuprofile"); path != "" {
				var err error
				profile, err = startCPUProfile(path, c.Args().Slice())
				return err
			}
			return nil
		},
		After: func(c *cli.Context) error {
			if profile != nil {
				return profile.stop()
			}
			return nil
		},
		Commands: []*cli.Command{
			convertCommand(s),
			extractCommand(s),
			cleanCommand(s),
			classifyCommand(s),
			runCommand(s),
			recipeCommand(s),
			launchCommand(s),
			taskCommand(s),
			statusCommand(s),
			dedupCommand(s),
			decontaminateCommand(s),
			memorizeCommand(s),
			tokensCommand(s),
			budgetCommand(s),
			tasksCommand(s),
			inspectCommand(s),
			demoCommand(s),
			reportCommand(s),
			verifyCommand(s),
			logCommand(s),
			diffCommand(s),
			traceCommand(s),
			rerunCommand(s),
			completionCommand(s),
			manCommand(s),
		},
		Action:               unknownCommand,
		ExitErrHandler:       func(*cli.Context, error) {},
		OnUsageError:         unknownFlag,
		EnableBashCompletion: false,
	}
	finishCommands("", app.Commands)
	checkFlags("", app.Commands)
	refuseObjectStoreOutputs("", app.Commands)
	return app
}

// Main runs the command line and returns the process exit code.
// SIGINT and SIGTERM cancel the run's context.
func Main(args []string, in io.Reader, out, errw io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return mainContext(ctx, args, in, out, errw)
}

// mainContext runs the command line under ctx, whose cancelling is an
// interrupt, and returns the exit code.
func mainContext(ctx context.Context, args []string, in io.Reader, out, errw io.Writer) int {
	ctx, commits := dataset.WithCommits(ctx)
	app := NewApp(Streams{In: in, Out: out, Err: errw})
	app.Metadata = map[string]any{argsKey: args}
	err := app.RunContext(ctx, interspersed(app, args))
	if ctx.Err() != nil {
		if code, told := interrupted(errw, err, commits); told {
			return code
		}
	}
	if err == nil {
		return 0
	}
	jsonLog := false
	for i, a := range args {
		if a == "--log-format=json" || (a == "--log-format" && i+1 < len(args) && args[i+1] == "json") {
			jsonLog = true
		}
	}
	printError(errw, err, jsonLog)
	var j jobError
	if errors.As(err, &j) {
		return 1
	}
	return 2
}

// interrupted tells what an interrupted run left on disk, from what its
// outputs' commits did (an interrupt never stops a commit that began),
// and returns the exit code; told is false when the run failed in a
// commit, which is reported as any failure.
func interrupted(errw io.Writer, err error, commits *dataset.Commits) (code int, told bool) {
	if len(commits.Unfinished()) > 0 {
		return 0, false
	}
	done := commits.Completed()
	switch {
	case err == nil && len(done) > 0:
		fmt.Fprintf(errw, "sluice: interrupted after the output was complete: %s written in full\n", strings.Join(done, ", "))
		return 0, true
	case len(done) > 0:
		fmt.Fprintf(errw, "sluice: interrupted; %s written in full before the interrupt; temporary files of the rest removed, any earlier output of the rest left as it was\n",
			strings.Join(done, ", "))
	default:
		fmt.Fprintln(errw, "sluice: interrupted; temporary files removed, any earlier output left as it was")
	}
	return 130, true
}

func printError(w io.Writer, err error, jsonLog bool) {
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	if jsonLog {
		b, _ := json.Marshal(map[string]string{"level": "error", "msg": msg})
		fmt.Fprintln(w, string(b))
		return
	}
	fmt.Fprintln(w, "sluice: error: "+msg)
}

// printJSON writes v as indented JSON, the --json output of the commands
// that have one.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
