package scaleout

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/schema"
)

// A JSONL schema is inferred once, at launch, from the whole input as one
// process would infer it (the first --infer-rows rows, or all of them);
// every task then reads with that schema, so that every shard writes the
// same columns as one process would, whatever rows its own files hold.

// errProbed stops a run once its schema is known.
var errProbed = errors.New("schema known")

// schemaProbe is a stage that learns the input schema and stops the run.
type schemaProbe struct{ s *arrow.Schema }

func (p *schemaProbe) Name() string { return "schema_probe" }
func (p *schemaProbe) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	p.s = in
	return nil, errProbed
}
func (p *schemaProbe) Process(context.Context, memory.Allocator, *pipeline.Batch) (pipeline.Result, error) {
	return pipeline.Result{}, errProbed
}

// inferSchema sets s.Schema and s.SchemaExtra to the schema one run over
// cfg's JSONL inputs would infer.
func (s *Settings) inferSchema(ctx context.Context, cfg pipeline.Config) error {
	probe := &schemaProbe{}
	cfg.Stages, cfg.Target, cfg.Progress = []pipeline.Stage{probe}, dataset.Target{Kind: dataset.Discard}, nil
	cfg.Lineage = false // the input's own columns; each task adds the lineage columns
	if _, err := pipeline.Run(ctx, cfg, nil, ""); !errors.Is(err, errProbed) {
		if err == nil {
			err = fmt.Errorf("the input schema could not be learnt")
		}
		return err
	}
	t, extra, err := schema.FromArrowSchema(probe.s)
	if err != nil {
		return err
	}
	s.Schema, s.SchemaExtra = t.String(), extra
	return nil
}
