package stages

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/sluice-data/sluice/pipeline"
)

// unprepared stands in for the filter of a global stage whose passes have
// not run: it refuses every schema, so the run fails before it reads a
// row, instead of writing through a filter that has seen nothing (which
// would keep every row).
type unprepared struct{ pipeline.Stage }

func (u unprepared) OutputSchema(*arrow.Schema) (*arrow.Schema, error) {
	return nil, fmt.Errorf("its passes over the corpus have not run (pipeline.PrepareGlobals, or pipeline.Run given the stage itself)")
}

// GlobalLines is line dedup as one pipeline stage.
type GlobalLines struct {
	*DedupLines
	scan  *LinesScan
	ready bool // the index holds the corpus's lines
}

// NewGlobalLines returns line dedup for a pipeline.
func NewGlobalLines(textField string, p LinesParams) *GlobalLines {
	index := NewLineIndex()
	return &GlobalLines{DedupLines: NewDedupLines(textField, p, index), scan: NewLinesScan(textField, p, index)}
}

func (g *GlobalLines) Prepare(scan pipeline.Scan) error {
	err := scan(g.scan)
	g.ready = err == nil
	return err
}

// Filter is the line dedup that takes the stage's place once its index
// holds the corpus (Prepare, or a shard's seeding); before, a stage that
// fails the run.
func (g *GlobalLines) Filter() pipeline.Stage {
	if !g.ready {
		return unprepared{g.DedupLines}
	}
	return g.DedupLines
}

// GlobalMinHash is MinHash dedup as one pipeline stage.
type GlobalMinHash struct {
	*MinHashDedup
	textField string
	ready     bool // the clusters are linked
}

// NewGlobalMinHash returns MinHash dedup for a pipeline.
func NewGlobalMinHash(textField string, p MinHashParams, annotate bool) (*GlobalMinHash, error) {
	index, err := NewMinHashIndex(p)
	if err != nil {
		return nil, err
	}
	f := NewMinHashDedup(textField, index)
	f.Annotate = annotate
	return &GlobalMinHash{MinHashDedup: f, textField: textField}, nil
}

// Prepare signs every document (signatures and ids are kept in memory up
// to a budget, then in a Parquet intermediate), collects the candidates' shingles or signatures to verify
// them, links the clusters, and reads the clustered documents' ids and
// similarities back. The intermediate is removed before it returns. The
// batches the first pass decoded from a JSONL or WARC input are kept
// (pipeline.Recording) for the verify pass and the writing pass, which
// replay them rather than parse the input again.
func (g *GlobalMinHash) Prepare(scan pipeline.Scan) (err error) {
	x := g.index
	if x.spill, err = newSigSpill(x.p.SpillDir, x.p.NumPerm, minhashMemory()/16); err != nil {
		return err
	}
	defer func() {
		if rerr := x.spill.remove(); err == nil {
			err = rerr
		}
	}()
	// The first pass records the input it decodes, within minhashMemory,
	// for the verify pass and the writing pass to replay.
	x.recording = pipeline.NewRecording(minhashMemory())
	defer func() {
		if err != nil {
			x.recording.Release()
		}
	}()
	s := NewMinHashScan(g.textField, x)
	s.recording = x.recording
	if err := scan(s); err != nil {
		return err
	}
	if err := x.spill.finish(); err != nil {
		return err
	}
	pairs := x.Candidates()
	switch {
	case len(pairs) == 0:
	case x.NeedsShingles():
		err = scan(NewMinHashShingles(g.textField, x))
	default:
		err = x.loadSignatures()
	}
	if err != nil {
		return err
	}
	x.Link(pairs)
	if err := x.loadClusters(); err != nil {
		return err
	}
	g.ready = true
	return nil
}

// Filter is the MinHash filter that takes the stage's place once Prepare
// linked the clusters; before, a stage that fails the run.
func (g *GlobalMinHash) Filter() pipeline.Stage {
	if !g.ready {
		return unprepared{g.MinHashDedup}
	}
	return g.MinHashDedup
}

// Index returns the linked clusters, for reports.
func (g *GlobalMinHash) Index() *MinHashIndex { return g.index }

// Index returns the line counts, for reports.
func (g *GlobalLines) Index() *LineIndex { return g.index }
