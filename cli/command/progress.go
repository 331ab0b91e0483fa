package command

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
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
	w   io.Writer
	on  bool
	msg string
}

func newProgress(w io.Writer, want bool, msg string) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, on: want && ok && term.IsTerminal(int(f.Fd())), msg: msg}
}

func (p *progress) set(done, total int64) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar == nil {
		p.bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(p.w), progressbar.OptionShowBytes(true),
			progressbar.OptionSetDescription(p.msg), progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionClearOnFinish(), progressbar.OptionSetWidth(30), progressbar.OptionShowCount())
	}
	p.bar.Set64(done)
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
	}
}

// runWithProgress runs cfg with a progress bar labelled what on a terminal.
func runWithProgress(ctx context.Context, cfg pipeline.Config, command []string, s Streams, show bool, what string) (*dataset.Manifest, error) {
	bar := newProgress(s.Err, show, what)
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
func prepareGlobals(ctx context.Context, cfg pipeline.Config, built []pipeline.Stage, command []string, s Streams, show bool) error {
	return pipeline.PrepareGlobals(built, func(sts []pipeline.Stage, label string) error {
		pass := cfg
		pass.Target = dataset.Target{Kind: dataset.Discard}
		pass.Stages = sts
		if u, ok := sts[0].(pipeline.ColumnUser); ok && len(sts) == 1 {
			pass.Columns = u.Columns()
		}
		_, err := runWithProgress(ctx, pass, command, s, show, label)
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
