package pipeline

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/sluice-data/sluice/io/blob"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/pqio"
	"github.com/sluice-data/sluice/schema"
)

// A schema inferred from the first rows of a JSONL input has an _extra
// column for the members of later rows it has no place for. Most runs
// find none: then the column is left out of the Parquet outputs that hold
// it, kept rows and removed rows each, before the commit. The decision is
// the whole output's, so that its part files share one schema. A given
// schema (as scale-out tasks get), Parquet inputs (whose _extra an
// earlier step decided on) and an object-store output, whose part files
// are uploaded as they are written, keep the column.

// dropEmptyExtra leaves the _extra column out of the files of m's
// outputs when it is null in every row of them, with the sizes and
// hashes of the files updated.
func (r *runner) dropEmptyExtra(m *dataset.Manifest) error {
	if r.cfg.Schema != nil || r.cfg.Inputs[0].Format != input.JSONL || blob.IsURL(r.cfg.Target.Path) {
		return nil
	}
	if err := dropEmptyColumn(r.cfg, m.Outputs, r.outSchema); err != nil {
		return err
	}
	return dropEmptyColumn(r.cfg, m.Removed, r.removedSchema)
}

// dropEmptyColumn drops _extra from every file, or from none: only when
// each is a Parquet file where it is empty.
func dropEmptyColumn(cfg Config, files []dataset.OutputFile, s *arrow.Schema) error {
	if s == nil || !s.HasField(schema.ExtraField) || len(files) == 0 {
		return nil
	}
	for _, f := range files {
		if !strings.HasSuffix(f.Path, ".parquet") {
			return nil
		}
		empty, ok, err := pqio.ColumnEmpty(f.Path, schema.ExtraField)
		if err != nil {
			return err
		}
		if !ok || !empty {
			return nil
		}
	}
	tmpl, err := pqio.EncodeEmpty(cfg.Mem, schema.WithoutExtra(s), cfg.Output.Parquet)
	if err != nil {
		return err
	}
	for i := range files {
		f := &files[i]
		if f.Bytes, err = pqio.DropColumn(f.Path, schema.ExtraField, tmpl); err != nil {
			return err
		}
		h, err := input.HashFile(f.Path)
		if err != nil {
			return err
		}
		f.Hash = fmt.Sprintf("%016x", h)
	}
	return nil
}
