//go:build unix

package cputime

import "syscall"

// now returns the process's user+sys CPU time so far, in nanoseconds.
func now() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
