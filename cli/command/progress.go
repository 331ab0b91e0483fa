package command

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/pipeline"
	"golang.org/x/term"
)

// progress is a byte progress bar on a terminal, and nothing elsewhere.
type progress struct {
	mu  sync.Mutex
	bar *progressbar.ProgressBar
	on  bool
	// sized tells whether the bar has its total: the first set gives it.
	sized bool
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newProgress returns a bar labelled msg on w when want is set and w is a
// terminal, and a progress that shows nothing otherwise.
func newProgress(w io.Writer, want bool, msg string) *progress {
	if !want || !isTerminal(w) {
		return &progress{}
	}
	return startProgress(w, msg)
}

// startProgress starts a bar on w, whatever w is. The bar's clock starts
// now, before the first bytes are read: the rate it shows is the bytes
// read over the time since the run started. A bar made at the first set
// instead, with a run's first batch already read, would divide those bytes
// by the microseconds since, and show terabytes a second.
func startProgress(w io.Writer, msg string) *progress {
	bar := progressbar.NewOptions64(1, progressbar.OptionSetWriter(w), progressbar.OptionShowBytes(true),
		progressbar.OptionSetDescription(msg), progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionClearOnFinish(), progressbar.OptionSetWidth(30), progressbar.OptionShowCount())
	bar.StartWithoutRender()
	return &progress{bar: bar, on: true}
}

func (p *progress) set(done, total int64) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.sized || total != p.bar.GetMax64() {
		p.bar.ChangeMax64(max(total, 1))
		p.sized = true
	}
	p.bar.Set64(done)
}

func (p *progress) finish() {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sized { // a bar never drawn has nothing to clear
		p.bar.Finish()
	}
}

// view is how a command's runs show themselves on standard error: a
// progress bar on a terminal, and with --verbose the settings, each pass,
// each input file and each stage's time.
type view struct {
	progress bool
	detail   io.Writer // nil: no details
	said     bool      // the settings were printed
}

// view returns how the runs of a command with these options show
// themselves.
func (o *ConvertOptions) view(s Streams) *view {
	v := &view{progress: !o.NoProgress && !o.Quiet}
	if o.Verbose && !o.Quiet {
		v.detail = s.Err
	}
	return v
}

// settings prints, once, the inputs, the effective settings and the
// stages of a run about to start.
func (v *view) settings(cfg pipeline.Config) {
	if v == nil || v.detail == nil || v.said {
		return
	}
	v.said = true
	var bytes int64
	for _, in := range cfg.Inputs {
		bytes += in.Size
	}
	fmt.Fprintf(v.detail, "sluice: %d input file(s), %s\n", len(cfg.Inputs), humanBytes(bytes))
	if b, err := json.Marshal(cfg); err == nil {
		fmt.Fprintf(v.detail, "sluice: settings %s\n", b)
	}
	if len(cfg.Stages) > 0 {
		names := make([]string, len(cfg.Stages))
		for i, st := range cfg.Stages {
			names[i] = st.Name()
		}
		fmt.Fprintf(v.detail, "sluice: stages %s\n", strings.Join(names, ", "))
	}
}

// pass prints what a pass of a global stage over the input did.
func (v *view) pass(label string, m *dataset.Manifest, took time.Duration) {
	if v == nil || v.detail == nil || m == nil {
		return
	}
	fmt.Fprintf(v.detail, "sluice: pass %s: %d rows read in %.2fs\n", label, m.Counts.RowsIn, took.Seconds())
}

// finished prints each input file and each stage of a finished run.
func (v *view) finished(m *dataset.Manifest) {
	if v == nil || v.detail == nil || m == nil {
		return
	}
	for _, in := range m.Inputs {
		fmt.Fprintf(v.detail, "sluice: input %s: %d rows, %d quarantined, %s", in.Path, in.Rows, in.Quarantined, humanBytes(in.Bytes))
		if in.Error != "" {
			fmt.Fprintf(v.detail, ", error: %s", in.Error)
		}
		fmt.Fprintln(v.detail)
	}
	for _, st := range m.Stages {
		fmt.Fprintf(v.detail, "sluice: stage %s: %d in, %d out, %.2fs\n", st.Name, st.RowsIn, st.RowsOut, st.Seconds)
	}
	fmt.Fprintf(v.detail, "sluice: wall time %.2fs\n", m.WallSecs)
}

// runWithProgress runs cfg with a progress bar labelled what on a
// terminal; v may be nil (no bar, no details).
func runWithProgress(ctx context.Context, cfg pipeline.Config, command []string, s Streams, v *view, what string) (*dataset.Manifest, error) {
	v.settings(cfg)
	m, err := runShown(ctx, cfg, command, s, v, what)
	v.finished(m)
	return m, err
}

// runShown runs cfg with a progress bar when v asks for one.
func runShown(ctx context.Context, cfg pipeline.Config, command []string, s Streams, v *view, what string) (*dataset.Manifest, error) {
	bar := newProgress(s.Err, v != nil && v.progress, what)
	cfg.Progress = bar.set
	if cfg.Target.Kind == dataset.Stdout {
		if len(cfg.Stages) > 0 {
			return nil, usagef("-o -: standard output holds kept rows only; give a file or directory output to keep the removed rows too")
		}
		cfg.Target.Stream, cfg.Target.Errs = s.Out, s.Err
	}
	m, err := runPipeline(ctx, cfg, command)
	bar.finish()
	return m, err
}

// runPipeline runs cfg on at most cfg.Workers cores; every command that
// runs a pipeline runs it through here.
func runPipeline(ctx context.Context, cfg pipeline.Config, command []string) (*dataset.Manifest, error) {
	defer limitCores(cfg.Workers)()
	return pipeline.Run(ctx, cfg, command, Version)
}

// prepareGlobals runs the passes of each global stage (dedup) among built
// (pipeline.PrepareGlobals): each pass reads the corpus through the stages
// before it, writing nothing, then its filter takes its place in built.
// Each pass has its own progress bar, labelled with the pass.
func prepareGlobals(ctx context.Context, cfg pipeline.Config, built []pipeline.Stage, command []string, s Streams, v *view) error {
	all := cfg
	all.Stages = built
	v.settings(all)
	return pipeline.PrepareGlobals(cfg.Inputs, built, func(sts []pipeline.Stage, label string) error {
		pass := pipeline.PassConfig(cfg, sts)
		start := time.Now()
		m, err := runShown(ctx, pass, command, s, v, label)
		v.pass(label, m, time.Since(start))
		return err
	})
}

// printStageCounts prints each stage's rows in and out and its removals
// by reason.
func printStageCounts(w io.Writer, m *dataset.Manifest) {
	for _, st := range m.Stages {
		fmt.Fprintf(w, "  %-18s %8d in %8d out", st.Name, st.RowsIn, st.RowsOut)
		reasons := make([]string, 0, len(st.Removed))
		for reason := range st.Removed {
			reasons = append(reasons, reason)
		}
		sort.Strings(reasons)
		for _, reason := range reasons {
			fmt.Fprintf(w, "  %s=%d", reason, st.Removed[reason])
		}
		fmt.Fprintln(w)
	}
}
