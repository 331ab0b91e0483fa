package scaleout

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// A task works under a lease: its running marker
// (OUT/_work/markers/<phase>-<task>.running), created atomically (a
// hard link of a whole file, which fails when the name exists) so that
// of two copies of a task only one holds it. The holder renews it every
// Heartbeat while it works, setting the time it expires (Expiry later),
// and removes it when it ends. A lease is alive until it expires; one of
// a process on this host that is gone is dead at once. A copy that finds
// the lease alive waits for it to end; one that finds it dead (stale)
// takes it over. A task killed after its done marker was written leaves
// a stale lease beside it, which the next run of the task, or a
// relaunch, removes (clearDoneLease).

// LeaseTiming is how often a task renews its lease, and how long a lease
// lives without renewal.
type LeaseTiming struct {
	Heartbeat time.Duration
	Expiry    time.Duration
}

// DefaultLease renews every 10 s; a lease not renewed for 60 s is stale.
var DefaultLease = LeaseTiming{Heartbeat: 10 * time.Second, Expiry: 60 * time.Second}

// withDefaults fills the zero fields from DefaultLease, and keeps the
// expiry above the heartbeat.
func (l LeaseTiming) withDefaults() LeaseTiming {
	if l.Heartbeat <= 0 {
		l.Heartbeat = DefaultLease.Heartbeat
	}
	if l.Expiry <= 0 {
		l.Expiry = max(DefaultLease.Expiry, 3*l.Heartbeat)
	}
	return l
}

// Check reports a timing whose lease would expire before it is renewed.
func (l LeaseTiming) Check() error {
	l = l.withDefaults()
	if l.Expiry < 2*l.Heartbeat {
		return fmt.Errorf("lease expiry %v must be at least twice the heartbeat %v", l.Expiry, l.Heartbeat)
	}
	return nil
}

const leaseTime = time.RFC3339Nano

// lease is a lease this process holds.
type lease struct {
	path   string
	token  string // the holder's own, as the file holds it
	marker Marker // renewed by the heartbeat; read once it stopped
	timing LeaseTiming
	stop   chan struct{}
	done   chan struct{}
}

// LeaseState is what a task's running marker says of its holder.
type LeaseState int

// The states of a lease.
const (
	LeaseAlive LeaseState = iota
	LeaseExpired
	LeaseGone // the holder was a process of this host that exited
)

// leaseState reads a lease's state at now. A lease without an expiry (of
// an earlier version, or half written) lives for DefaultLease.Expiry
// after its file was last written.
func leaseState(m Marker, modified, now time.Time, host string) LeaseState {
	if m.Host == host && m.PID > 0 && !alive(m.PID) {
		return LeaseGone
	}
	expires := modified.Add(DefaultLease.Expiry)
	if t, err := time.Parse(leaseTime, m.Expires); err == nil {
		expires = t
	}
	if now.After(expires) {
		return LeaseExpired
	}
	return LeaseAlive
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// readLease reads a lease file: its bytes, marker (zero when not JSON)
// and when it was last written.
func readLease(path string) ([]byte, Marker, time.Time, error) {
	var m Marker
	b, modified, err := storeOf(path).read(path)
	if err != nil {
		return nil, m, time.Time{}, err
	}
	json.Unmarshal(b, &m) // a lease that is not JSON lives by its file's time
	return b, m, modified, nil
}

// createExclusive writes data to path unless path exists (fs.ErrExist):
// the whole file appears at once, as a hard link of a temporary file.
// Where hard links are not supported, it creates path with O_EXCL and
// writes it.
func createExclusive(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	defer os.Remove(tmp.Name())
	if werr != nil {
		return werr
	}
	err = os.Link(tmp.Name(), path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, werr = f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// newToken returns a random token that tells one lease from another.
func newToken() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// errHeld is returned by tryLease when a live lease holds the task.
type errHeld struct{ holder Marker }

func (e errHeld) Error() string {
	return fmt.Sprintf("held by %s", leaseNote(e.holder))
}

// tryLease takes the lease of task i of ph for m, taking over a stale
// one; it returns errHeld when a live lease holds the task. taken is the
// stale lease it took over, if any.
func (p *Plan) tryLease(ph Phase, i int, m Marker, timing LeaseTiming) (l *lease, taken *Marker, err error) {
	path := p.markerPath(ph, i, running)
	st := storeOf(path)
	host, _ := os.Hostname()
	for attempt := 0; ; attempt++ {
		stamp(&m, timing)
		b, err := json.Marshal(m)
		if err != nil {
			return nil, nil, err
		}
		err = st.create(path, append(b, '\n'))
		if err == nil {
			return &lease{path: path, token: m.Token, marker: m, timing: timing}, taken, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, nil, err
		}
		raw, cur, modified, err := readLease(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // released meanwhile
		}
		if err != nil {
			return nil, nil, err
		}
		if leaseState(cur, modified, time.Now(), host) == LeaseAlive {
			return nil, nil, errHeld{cur}
		}
		if attempt > 100 {
			return nil, nil, fmt.Errorf("%s: could not take over the stale lease", path)
		}
		ok, err := st.takeOver(path, raw, m.Token)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			continue
		}
		c := cur
		taken = &c
	}
}

// stamp sets the heartbeat and expiry of m to now.
func stamp(m *Marker, timing LeaseTiming) {
	now := time.Now().UTC()
	m.Heartbeat = now.Format(leaseTime)
	m.Expires = now.Add(timing.Expiry).Format(leaseTime)
}

// keep renews the lease every heartbeat until release; when it finds
// another lease in place of its own, it calls lost and stops renewing.
func (l *lease) keep(lost func(Marker)) {
	l.stop, l.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(l.done)
		tick := time.NewTicker(l.timing.Heartbeat)
		defer tick.Stop()
		for {
			select {
			case <-l.stop:
				return
			case <-tick.C:
			}
			if cur, ok := l.renew(); !ok {
				lost(cur)
				return
			}
		}
	}()
}

// renew writes a new heartbeat, unless the lease is no longer ours; it
// returns the marker in its place then.
func (l *lease) renew() (Marker, bool) {
	if cur, ok := l.held(); !ok {
		return cur, false
	}
	m := l.marker
	stamp(&m, l.timing)
	b, err := json.Marshal(m)
	if err != nil {
		return Marker{}, true
	}
	// The narrow window between the check above and this write is why
	// a lease expires only after several missed heartbeats.
	if err := storeOf(l.path).write(l.path, append(b, '\n')); err != nil {
		return Marker{}, true // a missed heartbeat; the next may succeed
	}
	l.marker = m
	return m, true
}

// held reports whether the lease file is still ours, and returns the
// marker found otherwise.
func (l *lease) held() (Marker, bool) {
	_, cur, _, err := readLease(l.path)
	if err != nil {
		return Marker{}, false
	}
	return cur, cur.Token == l.token
}

// stopKeeping stops the heartbeat.
func (l *lease) stopKeeping() {
	if l.stop != nil {
		close(l.stop)
		<-l.done
		l.stop = nil
	}
}

// release removes the lease if it is still ours.
func (l *lease) release() {
	l.stopKeeping()
	if _, ok := l.held(); ok {
		storeOf(l.path).remove(l.path)
	}
}

// clearDoneLease removes the lease of task i of ph, which is done, when
// the lease is stale: its holder was stopped after it wrote the done
// marker, before it released the lease. A live lease is its holder's to
// release. It returns the lease it removed, if any.
func (p *Plan) clearDoneLease(ph Phase, i int) (*Marker, error) {
	path := p.markerPath(ph, i, running)
	raw, cur, modified, err := readLease(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	if leaseState(cur, modified, time.Now(), host) == LeaseAlive {
		return nil, nil
	}
	removed, err := storeOf(path).takeOver(path, raw, newToken())
	if err != nil || !removed {
		return nil, err
	}
	return &cur, nil
}

// clearDoneLeases removes the stale leases of the plan's done tasks (see
// clearDoneLease) and returns a line for each.
func (p *Plan) clearDoneLeases() ([]string, error) {
	var notes []string
	for _, ph := range p.Phases {
		for i := 0; i < ph.Tasks; i++ {
			if !p.isDone(ph, i) {
				continue
			}
			m, err := p.clearDoneLease(ph, i)
			if err != nil {
				return notes, err
			}
			if m != nil {
				notes = append(notes, fmt.Sprintf("phase %s task %d is done: removed the stale lease of %s, stopped after it completed the task", ph.Name, i, leaseNote(*m)))
			}
		}
	}
	return notes, nil
}

// waitLease takes the lease of task i of ph, waiting while a live lease
// holds it (saying so once to progress). It returns nil when the task
// got done meanwhile.
func (p *Plan) waitLease(ctx context.Context, ph Phase, i int, m Marker, timing LeaseTiming, progress io.Writer) (*lease, error) {
	poll := min(max(timing.Heartbeat/2, 20*time.Millisecond), 2*time.Second)
	said := false
	for {
		if p.isDone(ph, i) {
			_, err := p.clearDoneLease(ph, i)
			return nil, err
		}
		l, taken, err := p.tryLease(ph, i, m, timing)
		var held errHeld
		switch {
		case err == nil:
			if taken != nil {
				fmt.Fprintf(progress, "phase %s task %d: took over the stale lease of %s\n", ph.Name, i, leaseNote(*taken))
			}
			return l, nil
		case !errors.As(err, &held):
			return nil, err
		}
		if !said {
			fmt.Fprintf(progress, "phase %s task %d is %v; waiting for it to end or its lease to expire\n", ph.Name, i, held)
			said = true
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the lease %v: %w", held, ctx.Err())
		case <-time.After(poll):
		}
	}
}
