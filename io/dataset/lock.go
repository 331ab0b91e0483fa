package dataset

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// lock is an output's lock file: held (flock) while a run writes the
// output, so that a second run on the same output stops at once, naming
// the first. The kernel releases the lock when its holder dies, so the
// file a killed run leaves behind does not block the next run.
type lock struct {
	path string
	f    *os.File
}

// ErrLocked is returned when another run is writing the same output.
var ErrLocked = errors.New("another sluice run is writing this output")

func acquire(path string) (*lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s: %w (%s); wait for it to finish or stop it", path, ErrLocked, strings.TrimSpace(string(holder)))
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	host, _ := os.Hostname()
	f.Truncate(0)
	fmt.Fprintf(f, "pid %d on %s since %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	return &lock{path: path, f: f}, nil
}

// release removes the lock file and unlocks it.
func (l *lock) release() {
	os.Remove(l.path)
	syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	l.f.Close()
}
