package command

import (
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
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
