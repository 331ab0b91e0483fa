package command

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/limit"
	"github.com/sluice-data/sluice/pipeline/pipefile"
)

// stageOption is one number a pipeline file gives a stage, and the YAML
// values it must refuse.
type stageOption struct {
	stage string
	key   []string
	bad   []string
}

// stageOptions walks the parameters of every stage pipeline files know.
func stageOptions(t *testing.T) []stageOption {
	var out []stageOption
	for _, name := range pipefile.Names() {
		p, ok := pipefile.Params(name)
		if !ok {
			t.Fatalf("stage %s has no parameters", name)
		}
		for _, f := range limit.Fields(reflect.TypeOf(p)) {
			bad := []string{"-1"}
			switch f.Kind {
			case reflect.Float32, reflect.Float64:
				bad = append(bad, ".nan", ".inf", "-.inf", "1e300")
			case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
				if !f.Any {
					bad = append(bad, "18446744073709551615")
				}
			default:
				bad = append(bad, ".nan", "9223372036854775807")
			}
			out = append(out, stageOption{stage: name, key: f.Path, bad: bad})
		}
	}
	return out
}

// pipelineWith is a pipeline file whose one stage sets key to value.
func pipelineWith(stage string, key []string, value string) string {
	params := value
	for i := len(key) - 1; i >= 0; i-- {
		params = fmt.Sprintf("{%s: %s}", key[i], params)
	}
	return fmt.Sprintf("input: [a.jsonl]\noutput: out\nstages:\n  - %s: %s\n", stage, params)
}

// Every number of every stage's options in a pipeline file refuses NaN,
// infinities, -1 and a huge value: exit 2 before any work, naming the key,
// nothing written. A new stage or option is covered without a new case.
func TestEveryStageOptionRefusesAbsurdValues(t *testing.T) {
	options := stageOptions(t)
	if len(options) < 40 {
		t.Fatalf("found %d stage options; the walk of the stages is broken", len(options))
	}
	for _, o := range options {
		t.Run(o.stage+" "+strings.Join(o.key, "."), func(t *testing.T) {
			t.Chdir(t.TempDir())
			writeFiles(t, map[string]string{"a.jsonl": rowsA})
			for _, v := range o.bad {
				writeFiles(t, map[string]string{"p.yaml": pipelineWith(o.stage, o.key, v)})
				before := snapshot(t, ".")
				code, _, stderr := sluiceIn(t, "", "run", "p.yaml")
				if code != 2 || !strings.Contains(stderr, o.key[len(o.key)-1]) {
					t.Errorf("%s = %s: exit %d, want 2 and an error naming the key\n%s", strings.Join(o.key, "."), v, code, stderr)
				}
				if after := snapshot(t, "."); after != before {
					t.Errorf("%s = %s: files changed:\nbefore %s\nafter  %s", strings.Join(o.key, "."), v, before, after)
				}
			}
		})
	}
}
