package command

import (
	"github.com/sluice-data/sluice/internal/sidefile"
	"github.com/sluice-data/sluice/pipeline/pipefile"
)

// readPipelineFile reads and parses the pipeline file at path, returning
// it and its bytes; its errors are the user's to fix.
func readPipelineFile(path string) (*pipefile.File, []byte, error) {
	data, err := sidefile.ReadFile(path, sidefile.Pipeline)
	if err != nil {
		return nil, nil, usageError{err}
	}
	file, err := pipefile.ParseFile(path, data)
	if err != nil {
		return nil, nil, usageError{err}
	}
	return file, data, nil
}

// mergeFile merges a pipeline file's settings into the flags, for the
// commands that run one (run, clean --config, launch): the text field is
// the file's; the output is the file's unless -o gave one; the file's
// workers, when it sets them, replace --workers; the output is overwritten
// when either --overwrite or the file says so, and so is lineage
// (--lineage). It returns the inputs: args,
// or the file's when args is empty.
func (o *ConvertOptions) mergeFile(file *pipefile.File, args []string) []string {
	o.TextField = file.TextField
	if o.Output == "" {
		o.Output = file.Output
	}
	if file.Workers > 0 {
		o.Workers = file.Workers
	}
	o.Overwrite = o.Overwrite || file.Overwrite
	o.Lineage = o.Lineage || file.Lineage
	if len(args) == 0 {
		args = file.Input
	}
	return args
}
