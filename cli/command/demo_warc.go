package command

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sluice-data/sluice/demo/crawl"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/kernels/quality"
	"github.com/sluice-data/sluice/pipeline/pipefile"
)

// demoWARCInput is the name the manifest and quarantine give the built-in
// crawl.
const demoWARCInput = crawl.Name + " (built in)"

// runWARCDemo runs the web part of the demo on the built-in crawl: WARC
// responses → url_filter (a domain block list) → extract (main content,
// encodings detected) → dedup_exact → normalize → gopher_repetition, into
// the dataset directory out, and prints a short summary. It returns the
// manifest.
func runWARCDemo(ctx context.Context, out string, overwrite bool, workers int, command []string, s Streams) (*dataset.Manifest, error) {
	co, err := convertDefaults()
	if err != nil {
		return nil, err
	}
	co.Output, co.Overwrite, co.Workers, co.NoProgress = out, overwrite, workers, true
	tmp, err := os.MkdirTemp("", "sluice-demo-web-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	in := filepath.Join(tmp, crawl.Name)
	blocklist := filepath.Join(tmp, "blocked-domains.txt")
	if err := os.WriteFile(in, crawl.WARC(), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(blocklist, []byte(crawl.BlockedDomains), 0o644); err != nil {
		return nil, err
	}
	cfg, err := co.pipelineConfig([]string{in})
	if err != nil {
		return nil, err
	}
	cfg.Inputs[0].Name = demoWARCInput
	eo := &ExtractOptions{ConvertOptions: *co, Mode: "main", BlockDomains: blocklist}
	if cfg.Stages, err = eo.stages(); err != nil {
		return nil, err
	}
	common := pipefile.Common{TextField: co.TextField, Profile: quality.ProfilePaper}
	for _, name := range []string{"dedup_exact", "normalize", "gopher_repetition"} {
		st, err := pipefile.Build(pipefile.Spec{Name: name, File: "demo", Where: "demo"}, common)
		if err != nil {
			return nil, err
		}
		cfg.Stages = append(cfg.Stages, st)
	}
	if err := prepareGlobals(ctx, cfg, cfg.Stages, command, s, nil); err != nil {
		return nil, err
	}
	m, err := runPipeline(ctx, cfg, command)
	if m == nil {
		return nil, err
	}
	fmt.Fprintf(s.Out, "Web crawl %s: %d responses read, %d pages kept as text in %s\n",
		demoWARCInput, m.Counts.RowsIn, m.Counts.RowsOut, out)
	printStageCounts(s.Out, m)
	if q := m.Side["quarantine"]; q != "" {
		fmt.Fprintf(s.Out, "  %d damaged record(s) quarantined with their byte offsets: %s\n", m.Counts.Quarantined, q)
	}
	fmt.Fprintf(s.Out, "  SELECT url, charset, title, left(text, 60) FROM read_parquet('%s/data/*.parquet');\n", out)
	return m, err
}
