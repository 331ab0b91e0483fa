package pipefile

import (
	"reflect"
	"testing"

	"github.com/sluice-data/sluice/internal/limit"
)

// Every number and list a pipeline file can give a stage declares the
// range it takes, and the stage's defaults lie in it.
func TestEveryStageOptionDeclaresItsRange(t *testing.T) {
	for _, name := range Names() {
		p, ok := Params(name)
		if !ok {
			t.Fatalf("stage %s has no parameters", name)
		}
		for _, key := range limit.Untagged(reflect.TypeOf(p)) {
			t.Errorf("stage %s: %s declares no limit tag", name, key)
		}
		for _, problem := range limit.Struct(p) {
			t.Errorf("stage %s: the default is out of range: %v", name, problem.Err)
		}
	}
	for _, key := range limit.Untagged(reflect.TypeOf(File{})) {
		t.Errorf("pipeline file: %s declares no limit tag", key)
	}
}
