package pipeline

import (
	"strings"
	"testing"

	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/pqio"
)

func TestValidateReportsEveryProblemAtOnce(t *testing.T) {
	bad := Config{Workers: 0, BatchRows: -1, BatchBytes: 1, InferRows: -5, MaxDepth: 1, MaxLineBytes: 1, TextField: "text",
		Output: dataset.Options{MaxFileRows: -1, MaxFileBytes: 10, Parquet: pqio.Options{Codec: pqio.Zstd, Level: 40, PageBytes: 5}}}
	err := bad.Validate()
	if err == nil {
		t.Fatal("a bad configuration passed")
	}
	for _, want := range []string{"--workers", "--batch-rows", "--infer-rows", "--max-file-rows", "--max-file-bytes", "--page-bytes", "--compression-level"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not name %s: %v", want, err)
		}
	}
	// Zero settings take their defaults and are valid; zero limits mean none.
	if err := (Config{}).withDefaults().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	good := Config{}.withDefaults()
	if good.BatchRows != DefaultBatchRows || good.TextField != DefaultTextField || good.InferRows != DefaultInferRows {
		t.Errorf("defaults %+v", good)
	}
}
