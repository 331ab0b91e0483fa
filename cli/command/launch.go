package command

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/sluice-data/sluice/io/blob"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/scaleout"
	"github.com/urfave/cli/v2"
)

// LaunchOptions are the flags of `sluice launch`.
type LaunchOptions struct {
	ConvertOptions
	Executor    string
	Tasks       int
	MaxParallel int
	TasksPerJob int
	Binary      string
	KeepWork    bool
	NoSpill     bool
	Slurm       scaleout.SlurmOptions
	K8s         scaleout.K8sOptions
}

func launchCommand(s Streams) *cli.Command {
	o := &LaunchOptions{}
	out := &cli.StringFlag{Name: "output", Aliases: []string{"o"}, Destination: &o.Output,
		Usage: "the output dataset directory `OUT`, instead of the one the pipeline file names"}
	flags := withOutput(append(inputFlags(&o.ConvertOptions), outputFlags(&o.ConvertOptions)...), out)
	flags = append(flags,
		&cli.StringFlag{Name: "executor", Value: string(scaleout.Local), Destination: &o.Executor,
			Usage: "local (run the tasks here, a process each), slurm (submit one job array per phase, chained afterok) or k8s (write Indexed Job manifests to apply)"},
		&cli.IntFlag{Name: "tasks", Value: 1, Destination: &o.Tasks,
			Usage: "shards of the input (consecutive sorted files, balanced by bytes) and tasks per reduce phase"},
		&cli.IntFlag{Name: "max-parallel", Destination: &o.MaxParallel,
			Usage: "tasks running at once: local default the CPU count; slurm the array's % throttle; k8s the Jobs' parallelism"},
		&cli.IntFlag{Name: "tasks-per-job", Value: 1, Destination: &o.TasksPerJob,
			Usage: "slurm: tasks each array element runs in turn, so that many tasks fit the cluster's MaxArraySize"},
		&cli.StringFlag{Name: "slurm-partition", Destination: &o.Slurm.Partition, Usage: "slurm: sbatch --partition"},
		&cli.IntFlag{Name: "slurm-cpus-per-task", Destination: &o.Slurm.CPUsPerTask, Usage: "slurm: sbatch --cpus-per-task (also give --workers the same number)"},
		&cli.StringFlag{Name: "slurm-mem", Destination: &o.Slurm.Mem, Usage: "slurm: sbatch --mem, e.g. 8G"},
		&cli.StringFlag{Name: "slurm-time", Destination: &o.Slurm.Time, Usage: "slurm: sbatch --time, e.g. 2:00:00"},
		&cli.StringFlag{Name: "k8s-image", Destination: &o.K8s.Image, Usage: "k8s: the container image holding the sluice binary (required)"},
		&cli.StringFlag{Name: "k8s-namespace", Destination: &o.K8s.Namespace, Usage: "k8s: the Jobs' namespace"},
		&cli.StringFlag{Name: "k8s-claim", Destination: &o.K8s.Claim,
			Usage: "k8s: the PersistentVolumeClaim mounted in every pod at --k8s-mount, so that pods share the inputs, the output and the task markers at the paths of the plan (required unless OUT is an s3://, gs:// or az:// URL)"},
		&cli.StringFlag{Name: "k8s-secret", Destination: &o.K8s.Secret,
			Usage: "k8s: the Secret whose keys become the pods' environment (envFrom), e.g. AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY for an s3:// output; --s3-endpoint is passed on as AWS_ENDPOINT_URL"},
		&cli.StringFlag{Name: "k8s-mount", Destination: &o.K8s.MountPath,
			Usage: "k8s: where the claim is mounted, here and in the pods; the inputs and the output must be under it (default: the current directory)"},
		&cli.StringFlag{Name: "k8s-cpu", Destination: &o.K8s.CPU, Usage: "k8s: CPU request per pod"},
		&cli.StringFlag{Name: "k8s-mem", Destination: &o.K8s.Mem, Usage: "k8s: memory request and limit per pod"},
		&cli.StringFlag{Name: "sluice-binary", Destination: &o.Binary,
			Usage: "the sluice binary the tasks run (default: this one); give the path it has on the compute nodes"},
		&cli.BoolFlag{Name: "keep-work", Destination: &o.KeepWork,
			Usage: "keep the intermediates under OUT/_work once the merge wrote and checked manifest.json (default: the merge removes them)"},
		&cli.BoolFlag{Name: "no-spill", Destination: &o.NoSpill,
			Usage: "every phase reads its shard from the input: no spill of the decoded rows under OUT/_work (saves disk about the size of the uncompressed input, costs a read and parse of the input per phase)"},
	)
	return &cli.Command{
		Name:      "launch",
		Usage:     "run a pipeline file as array tasks: here, on Slurm, or on Kubernetes; resumable",
		ArgsUsage: "PIPELINE.yaml",
		Description: "The pipeline compiles to phases written to OUT/_plan.json: dedup_exact, dedup_lines and\n" +
			"dedup_minhash become map and reduce phases over Parquet intermediates in OUT/_work, then every\n" +
			"shard writes its rows (data/part-<shard>-<n>.parquet, removed/, quarantine-<shard>.jsonl,\n" +
			"manifest-<shard>.json) and a\n" +
			"merge writes manifest.json. The rows kept and removed are those of `sluice run` whatever --tasks.\n" +
			"Launching again over the same output runs only the tasks that are not done, first cancelling\n" +
			"the Slurm jobs of the last launch still queued; `sluice status OUT` shows progress.",
		Flags: flags,
		Action: action(func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("launch takes one pipeline file, got %d arguments", c.NArg())
			}
			return runLaunch(c.Context, o, c.Args().First(), commandLine(c), s)
		}),
	}
}

func runLaunch(ctx context.Context, o *LaunchOptions, pipelineFile string, command []string, s Streams) error {
	executor, err := scaleout.ParseExecutor(o.Executor)
	if err != nil {
		return usagef("--%v", err)
	}
	if o.Tasks < 1 {
		return usagef("--tasks must be at least 1")
	}
	file, data, err := readPipelineFile(pipelineFile)
	if err != nil {
		return err
	}
	inputs := o.mergeFile(file, nil)
	if o.Output == "" {
		return usagef("no output: give -o OUT (or `output:` in the pipeline file)")
	}
	if dataset.ParseTarget(o.Output).Kind != dataset.Directory {
		return usagef("launch writes a dataset directory, not one file: %s", o.Output)
	}
	remote := blob.IsURL(o.Output)
	if executor == scaleout.K8s {
		o.K8s.ObjectStore = remote
		if err := o.K8s.Check(); err != nil {
			return usageError{err}
		}
	}
	if remote && executor == scaleout.Slurm {
		return usagef("-o %s: a Slurm launch on an object-store output is not supported: its job scripts and logs live in the output on a shared file system; launch to a shared path, or use --executor local or k8s", o.Output)
	}
	if remote {
		if err := blob.CheckBucket(ctx, o.Output); err != nil {
			return err
		}
	}
	if !remote {
		if err := scaleout.RefuseForeignDir(o.Output); err != nil {
			return err
		}
	}
	cfg, err := o.pipelineConfig(inputs)
	if err != nil {
		return err
	}
	if cfg.Limit > 0 {
		return usagef("--limit: a launch splits the whole input among its tasks; try the pipeline on a few rows with `sluice run --limit N` first")
	}
	restore := limitCores(cfg.Workers) // the plan reads the input to learn its schema
	plan, err := scaleout.NewPlan(ctx, pipelineFile, data, cfg, o.Output, o.Tasks)
	restore()
	if err != nil {
		return err
	}
	plan.Version, plan.Command, plan.KeepWork, plan.NoSpill = Version, command, o.KeepWork, o.NoSpill
	if plan.Binary = o.Binary; plan.Binary == "" && executor == scaleout.K8s {
		plan.Binary = "sluice" // the image's, on its PATH
	} else if plan.Binary == "" {
		if plan.Binary, err = os.Executable(); err != nil {
			return err
		}
	}
	if executor == scaleout.K8s {
		if err := o.K8s.CheckPaths(plan); err != nil {
			return usageError{err}
		}
	}
	planPath := blob.Join(blob.Clean(o.Output), scaleout.PlanFile)
	if !remote {
		if planPath, err = filepath.Abs(filepath.Join(o.Output, scaleout.PlanFile)); err != nil {
			return err
		}
	}
	if err := scaleout.PreparePlanDir(plan, planPath, o.Overwrite); err != nil {
		return err
	}
	if err := plan.WritePlan(planPath); err != nil {
		return err
	}
	// The phases are told as they finish: on standard output in text, on
	// standard error with --json.
	notes := o.notes(s)
	fmt.Fprintf(notes, "plan: %s (%d shards, %d phases)\n", planPath, len(plan.Shards), len(plan.Phases))
	if note := plan.ShardNote(o.Tasks); note != "" {
		fmt.Fprintf(s.Err, "sluice: warning: %s\n", note)
	}
	if err := prepareRelaunch(ctx, plan, o.Slurm, notes); err != nil {
		return err
	}
	o.view(s).settings(cfg)
	res := LaunchResult{Plan: planPath, Executor: string(executor), Shards: len(plan.Shards)}
	switch executor {
	case scaleout.Local:
		parallel := o.MaxParallel
		if parallel <= 0 {
			parallel = runtime.NumCPU()
		}
		if err := scaleout.RunLocal(ctx, plan, planPath, parallel, notes); err != nil {
			if o.JSON { // the phases and tasks of the failed launch
				res.Phases = phaseStates(scaleout.Status(plan))
				printJSON(s.Out, res)
			}
			return err
		}
		return printLaunched(o, s, res, plan)
	case scaleout.Slurm:
		so := o.Slurm
		so.MaxParallel, so.TasksPerJob = o.MaxParallel, o.TasksPerJob
		ids, err := scaleout.SubmitSlurm(ctx, plan, planPath, so, notes)
		if err != nil {
			return err
		}
		res.SlurmJobs, res.Phases = ids, phaseStates(scaleout.Status(plan))
		return o.result(s.Out, res, func(w io.Writer) {
			fmt.Fprintf(w, "submitted; follow with: sluice status %s\n", o.Output)
		})
	case scaleout.K8s:
		ko := o.K8s
		ko.Parallelism = o.MaxParallel
		paths, err := scaleout.K8sManifests(plan, planPath, ko)
		if err != nil {
			return usageError{err}
		}
		res.K8sManifests, res.Phases = paths, phaseStates(scaleout.Status(plan))
		return o.result(s.Out, res, func(w io.Writer) {
			for _, p := range paths {
				fmt.Fprintf(w, "wrote %s\n", p)
			}
			fmt.Fprintf(w, "apply them in order with: sh %s; follow with: sluice status %s\n", paths[len(paths)-1], o.Output)
		})
	}
	return nil
}

// prepareRelaunch readies an output launched before: it cancels the
// Slurm jobs of the last launch that are still queued, and makes the
// merge run again if manifest.json is gone.
func prepareRelaunch(ctx context.Context, plan *scaleout.Plan, so scaleout.SlurmOptions, notes io.Writer) error {
	if err := scaleout.CancelSubmitted(ctx, plan, so, notes); err != nil {
		return err
	}
	changed, err := plan.PrepareRelaunch()
	for _, line := range changed {
		fmt.Fprintln(notes, line)
	}
	return err
}

// printLaunched prints the result of a launch run here: the summary of
// the merged manifest, and with --json the phases too.
func printLaunched(o *LaunchOptions, s Streams, res LaunchResult, plan *scaleout.Plan) error {
	t := dataset.ParseTarget(o.Output)
	m, err := dataset.ReadManifestAt(t.SidePath("manifest.json"))
	if err != nil {
		return err
	}
	o.view(s).finished(m)
	sum := newSummary(t, m)
	res.Result, res.Phases = &sum, phaseStates(scaleout.Status(plan))
	return o.result(s.Out, res, func(w io.Writer) {
		printSummary(w, t, m)
		printStageCounts(w, m)
	})
}
