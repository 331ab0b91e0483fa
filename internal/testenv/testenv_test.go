package testenv

import (
	"fmt"
	"testing"
)

// recorder is a testing.TB that records Skipf and Fatalf instead of
// stopping the test.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                      {}
func (r *recorder) Skipf(f string, args ...any)  { r.skipped = fmt.Sprintf(f, args...) }
func (r *recorder) Fatalf(f string, args ...any) { r.failed = fmt.Sprintf(f, args...) }

func TestRequire(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, ci := range []string{"", "0", "1"} {
		t.Setenv(CIEnv, ci)
		var r recorder
		if got := Require(&r, "no-such-command"); got != "" {
			t.Errorf("%s=%q: path %q", CIEnv, ci, got)
		}
		if ci == "1" && (r.failed == "" || r.skipped != "") || ci != "1" && (r.skipped == "" || r.failed != "") {
			t.Errorf("%s=%q: skipped %q, failed %q", CIEnv, ci, r.skipped, r.failed)
		}
	}
}
