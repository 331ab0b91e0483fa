package dataset

import (
	"testing"

	"github.com/sluice-data/sluice/io/input"
)

func TestParseTargetAndSidePaths(t *testing.T) {
	cases := []struct {
		path     string
		kind     Kind
		comp     input.Compression
		manifest string
	}{
		{"out", Directory, input.None, "out/manifest.json"},
		{"out/", Directory, input.None, "out/manifest.json"},
		{"x.parquet", ParquetFile, input.None, "x.manifest.json"},
		{"x.jsonl", JSONLFile, input.None, "x.manifest.json"},
		{"d/x.jsonl.gz", JSONLFile, input.Gzip, "d/x.manifest.json"},
		{"x.jsonl.zst", JSONLFile, input.Zstd, "x.manifest.json"},
	}
	for _, c := range cases {
		tg := ParseTarget(c.path)
		if r := tg.Removed(); (tg.Kind == Directory && r.Parts() != c.path+"/removed" && r.Parts() != "out/removed") || r.Kind != tg.Kind {
			t.Errorf("%s: removed target %+v", c.path, r)
		}
		if tg.Kind != c.kind || tg.Compression != c.comp || tg.SidePath("manifest.json") != c.manifest {
			t.Errorf("%s: kind %d comp %s manifest %s", c.path, tg.Kind, tg.Compression, tg.SidePath("manifest.json"))
		}
	}
	for path, want := range map[string]string{"x.parquet": "x.removed.parquet", "d/x.jsonl.gz": "d/x.removed.jsonl.gz", "x.jsonl": "x.removed.jsonl"} {
		if got := ParseTarget(path).Removed().Path; got != want {
			t.Errorf("removed target of %s = %s, want %s", path, got, want)
		}
	}
}
