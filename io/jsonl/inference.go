package jsonl

import "github.com/sluice-data/sluice/schema"

// Inference accumulates the schema of the lines it observes: the one way
// sluice infers a schema from JSONL, used by conversions and by inspect.
type Inference struct {
	doc  Doc
	typ  *schema.Type
	dupe bool
}

// NewInference starts an inference that reads lines nested at most
// maxDepth deep (DefaultMaxDepth when 0).
func NewInference(maxDepth int) *Inference {
	inf := &Inference{typ: &schema.Type{Kind: schema.Struct}}
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	inf.doc.MaxDepth = maxDepth
	return inf
}

// ObserveChunk observes every readable line of c.
func (inf *Inference) ObserveChunk(c *Chunk) {
	inf.ObserveLines(c, c.Len())
}

// ObserveLines observes the first n lines of c. Lines the reader flagged,
// lines that are not JSON and lines that are not objects are skipped: the
// decoder quarantines them.
func (inf *Inference) ObserveLines(c *Chunk, n int) {
	for i := 0; i < n; i++ {
		if c.Refs[i].Err != nil {
			continue
		}
		root, err := inf.doc.Parse(c.Line(i))
		if err != nil || inf.doc.Node(root).Kind != KindObject {
			continue
		}
		inf.typ = schema.Merge(inf.typ, inf.doc.Infer(root))
		if !inf.dupe && inf.doc.HasDuplicateKeys(root) {
			inf.dupe = true
		}
	}
}

// Type returns the schema inferred so far.
func (inf *Inference) Type() *schema.Type { return inf.typ }

// Duplicates reports whether some line named a member twice, so that the
// second needs the _extra column even under a schema inferred from every
// line.
func (inf *Inference) Duplicates() bool { return inf.dupe }
