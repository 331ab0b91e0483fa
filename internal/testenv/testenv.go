// Package testenv decides what a test does when an external program it
// needs is not installed.
//
// On a developer's machine with only Go, such a test is skipped. In CI,
// which installs the programs and sets SLUICE_CI=1, a missing program is
// a failure, so that a comparison cannot silently stop running.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// CIEnv names the variable that CI sets to 1.
const CIEnv = "SLUICE_CI"

// Require returns the path of the command cmd, looked up on the PATH.
// When it is missing the test is skipped, or fails if SLUICE_CI=1.
func Require(t testing.TB, cmd string) string {
	t.Helper()
	path, err := exec.LookPath(cmd)
	switch {
	case err == nil:
		return path
	case os.Getenv(CIEnv) == "1":
		t.Fatalf("the %s command is needed and %s=1: %v", cmd, CIEnv, err)
	default:
		t.Skipf("skipping: the %s command is not installed (%v); with %s=1 this fails", cmd, err, CIEnv)
	}
	return ""
}
