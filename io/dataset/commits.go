package dataset

import (
	"context"
	"sync"
)

// Commits records what the outputs begun under one context did at their
// commit: which completed and which began without completing. A command
// line that is interrupted reads it to tell what is on disk: the commit
// is the point of no return (Commit refuses to begin once the context is
// cancelled, and never stops once it began), so an interrupt before it
// leaves every earlier output as it was and one during it finishes it.
// It is carried by the context (WithCommits), not kept in a global, so
// runs in one process (tests in parallel) never see each other's.
type Commits struct {
	mu        sync.Mutex
	completed []string
	open      map[*Output]string
}

type commitsKey struct{}

// WithCommits returns a context whose outputs report their commits to
// the Commits it returns.
func WithCommits(ctx context.Context) (context.Context, *Commits) {
	c := &Commits{open: map[*Output]string{}}
	return context.WithValue(ctx, commitsKey{}, c), c
}

// commitsOf returns the Commits of ctx, or nil.
func commitsOf(ctx context.Context) *Commits {
	c, _ := ctx.Value(commitsKey{}).(*Commits)
	return c
}

// Completed returns the outputs whose commit completed, in order.
func (c *Commits) Completed() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.completed...)
}

// Unfinished returns the outputs whose commit began and did not complete
// (it failed, or is still running).
func (c *Commits) Unfinished() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, p := range c.open {
		out = append(out, p)
	}
	return out
}

func (c *Commits) began(o *Output) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.open[o] = o.final.Path
	c.mu.Unlock()
}

func (c *Commits) ended(o *Output) {
	if c == nil {
		return
	}
	c.mu.Lock()
	delete(c.open, o)
	c.completed = append(c.completed, o.final.Path)
	c.mu.Unlock()
}

// CommitStep names a point in the life of an output, for WithCommitHook.
type CommitStep int

// The steps a hook is told of.
const (
	// StepBegun: Begin claimed the output; the run has not written yet.
	StepBegun CommitStep = iota
	// StepCommit: the run is done and Commit is called; it has not
	// begun (it checks the context right after the hook returns).
	StepCommit
	// StepMoved: the commit moved the new files into place and removed
	// the previous output's; the manifest is not written yet.
	StepMoved
	// StepCommitted: the commit completed.
	StepCommitted
)

type hookKey struct{}

// WithCommitHook returns a context whose outputs call hook at each step,
// with the output's final path. It is meant for tests that interrupt a
// run at a given point (by cancelling the context from the hook).
func WithCommitHook(ctx context.Context, hook func(step CommitStep, path string)) context.Context {
	return context.WithValue(ctx, hookKey{}, hook)
}

// step calls the hook of the output's context, if any.
func (o *Output) step(s CommitStep) {
	if o.ctx == nil {
		return
	}
	if hook, ok := o.ctx.Value(hookKey{}).(func(CommitStep, string)); ok {
		hook(s, o.final.Path)
	}
}

// beginCommit is where every commit begins: it refuses once the run's
// context is cancelled (an interrupt before the commit leaves the
// previous output as it was) and from then on the commit runs to its end
// whatever the context says. A command that writes several outputs (a
// dataset and its cluster table) is past its point of no return once the
// first of them began its commit: the later ones commit too, so the
// outputs of one run are never half old, half new.
func (o *Output) beginCommit() error {
	o.step(StepCommit)
	if o.ctx != nil {
		if err := o.ctx.Err(); err != nil && !o.commits.anyBegan() {
			return err
		}
	}
	o.commits.began(o)
	return nil
}

// anyBegan reports whether an output of the run began its commit.
func (c *Commits) anyBegan() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.completed) > 0 || len(c.open) > 0
}

// endCommit records a completed commit.
func (o *Output) endCommit() {
	o.commits.ended(o)
	o.step(StepCommitted)
}
