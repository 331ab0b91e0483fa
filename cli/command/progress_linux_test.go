//go:build linux

package command

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal: what a program writes to tty, read
// from pty, is what a terminal would show.
func openPTY(t *testing.T) (pty, tty *os.File) {
	t.Helper()
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	var unlock int32
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, pty.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		pty.Close()
		t.Skipf("no pseudo-terminal here: unlock: %v", e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, pty.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		pty.Close()
		t.Skipf("no pseudo-terminal here: number: %v", e)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		pty.Close()
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	return pty, tty
}

// TestProgressOnATerminal runs dedup minhash with standard error on a
// terminal: each pass over the input and the writing show a bar, with a
// rate no faster than the truth, and --quiet shows none.
func TestProgressOnATerminal(t *testing.T) {
	dir := t.TempDir()
	in := jsonCorpus(t, dir)
	for _, quiet := range []bool{false, true} {
		pty, tty := openPTY(t)
		shown := make(chan string)
		go func() {
			var b bytes.Buffer
			io.Copy(&b, pty) // ends with EIO once the terminal is closed
			shown <- b.String()
		}()
		args := []string{"sluice", "dedup", "minhash", in, "-o", filepath.Join(dir, fmt.Sprint("out-", quiet))}
		if quiet {
			args = append(args, "--quiet")
		}
		var out bytes.Buffer
		code := Main(args, nil, &out, tty)
		tty.Close()
		screen := <-shown
		pty.Close()
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, screen)
		}
		bars := []string{"dedup_minhash_scan", "dedup_minhash_verify", "writing"}
		for _, label := range bars {
			if got := strings.Contains(screen, label); got == quiet {
				t.Errorf("quiet %v: the terminal shows a %s bar: %v\n%q", quiet, label, got, screen)
			}
		}
		st, _ := os.Stat(in)
		for _, r := range rateRE.FindAllStringSubmatch(screen, -1) {
			if r[2] != "B" && r[2] != "kB" && r[2] != "MB" {
				t.Errorf("a bar shows %s %s/s for a corpus of %d bytes", r[1], r[2], st.Size())
			}
		}
	}
}
