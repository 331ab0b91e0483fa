package stages

import (
	"context"
	"runtime/debug"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/kernels/minhash"
	"github.com/sluice-data/sluice/pipeline"
)

// MinHashParams are the parameters of near-duplicate removal.
type MinHashParams struct {
	minhash.Params `yaml:",inline"`
	Threshold      float64 `yaml:"threshold" json:"threshold" limit:"[0,1]"` // pairs at or above this similarity link
	// Verify is how a candidate pair is checked: "jaccard" computes the
	// true n-gram Jaccard similarity (a third pass reads the candidates'
	// texts), "signature" estimates it from the full signatures.
	Verify  minhash.Verify `yaml:"verify" json:"verify"`
	Keep    minhash.Keep   `yaml:"keep" json:"keep"` // first or longest
	IDField string         `yaml:"id_field" json:"id_field"`
	// SpillDir is where the signatures' Parquet intermediate goes (the
	// system's temporary directory when empty), when they do not fit the
	// memory they may take; it is removed when the clusters are linked.
	SpillDir string `yaml:"spill_dir" json:"spill_dir,omitempty"`
}

// DefaultMinHashParams returns the defaults of MinHash dedup, for the
// dedup_minhash stage of pipeline files, `sluice dedup minhash` and the
// demo: 128 permutations in 16 bands over word 5-grams with seed 1, pairs
// linked at a verified Jaccard similarity of 0.8, the first document of a
// cluster kept, ids from the id field.
func DefaultMinHashParams() MinHashParams {
	p := MinHashParams{
		Params:    minhash.DefaultParams(),
		Threshold: 0.8,
		Verify:    minhash.VerifyJaccard,
		Keep:      minhash.KeepFirst,
		IDField:   "id",
	}
	p.Seed = 1
	return p
}

// MinHashDedup is the last pass: documents that are not their cluster's
// kept document go to removed/ with _reason near_dup, _dup_of (the kept
// document's id) and _cluster (the kept document's number in input order).
type MinHashDedup struct {
	textField string
	p         MinHashParams
	index     *MinHashIndex // nil when the clusters come from elsewhere
	clusters  ClusterLookup
	// Annotate keeps every row and adds minhash_cluster (the kept
	// document's number; null for a document in no cluster) and
	// minhash_cluster_size instead of removing duplicates.
	Annotate bool
}

// NewMinHashDedup returns the filtering pass over a linked index.
func NewMinHashDedup(textField string, index *MinHashIndex) *MinHashDedup {
	return &MinHashDedup{textField: textField, p: index.p, index: index, clusters: index}
}

// Membership is a document's place in the clusters: the cluster (the
// kept document's number in input order), its size, whether the document
// is the one kept, and the kept document's id.
type Membership struct {
	Cluster int64
	Size    int64
	Kept    bool
	KeptID  string
}

// ClusterLookup finds the cluster of the document at a position
// (pipeline.Batch.Seq << 32 | row); ok is false for a document that was not
// signed (no words), which is kept.
type ClusterLookup interface {
	Cluster(pos uint64) (m Membership, ok bool)
}

// NewMinHashClusterFilter returns the filtering pass over clusters linked
// elsewhere (by the tasks of a sharded run). It reports nothing: the
// clusters' report belongs to whoever linked them.
func NewMinHashClusterFilter(textField string, p MinHashParams, clusters ClusterLookup) *MinHashDedup {
	return &MinHashDedup{textField: textField, p: p, clusters: clusters}
}

// Cluster implements ClusterLookup once the index is linked.
func (x *MinHashIndex) Cluster(pos uint64) (Membership, bool) {
	doc, ok := x.doc(pos)
	if !ok {
		return Membership{}, false
	}
	r := x.rep[doc]
	return Membership{Cluster: int64(r), Size: int64(x.size[r]), Kept: r == doc, KeptID: x.ids[r]}, true
}

// Params returns the parameters the index was made with.
func (x *MinHashIndex) Params() MinHashParams { return x.p }

var minhashAnnotations = []arrow.Field{
	{Name: "minhash_cluster", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "minhash_cluster_size", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}

func (d *MinHashDedup) Name() string { return "dedup_minhash" }
func (d *MinHashDedup) Config() any  { return d.p }

// Replay gives the writing pass the input the signing pass decoded; it is
// the last pass to replay it.
func (d *MinHashDedup) Replay() (*pipeline.Recording, bool) {
	if d.index == nil {
		return nil, false
	}
	return d.index.recording, true
}

func (d *MinHashDedup) Report() any {
	if d.index == nil {
		return nil
	}
	return d.index.Report()
}
func (d *MinHashDedup) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	if d.Annotate {
		return columnar.SetSchemaFields(in, minhashAnnotations), checkTextField(in, d.textField)
	}
	return in, checkTextField(in, d.textField)
}

var clusterField = arrow.Field{Name: "_cluster", Type: arrow.PrimitiveTypes.Int64, Nullable: true}

func (d *MinHashDedup) RemovedFields() []arrow.Field { return []arrow.Field{dupOfField, clusterField} }

func (d *MinHashDedup) Process(ctx context.Context, mem memory.Allocator, batch *pipeline.Batch) (pipeline.Result, error) {
	rec := batch.Rec
	if d.Annotate {
		cluster, size := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
		defer cluster.Release()
		defer size.Release()
		for i := 0; i < int(rec.NumRows()); i++ {
			m, ok := d.clusters.Cluster(position(batch, i))
			if !ok || m.Size < 2 {
				cluster.AppendNull()
				size.AppendNull()
				continue
			}
			cluster.Append(m.Cluster)
			size.Append(m.Size)
		}
		c, n := cluster.NewInt64Array(), size.NewInt64Array()
		defer c.Release()
		defer n.Release()
		return pipeline.Result{Kept: columnar.SetColumns(rec, minhashAnnotations, []arrow.Array{c, n})}, nil
	}
	keep := make([]bool, rec.NumRows())
	var dupOf []string
	cb := array.NewInt64Builder(mem)
	defer cb.Release()
	for i := range keep {
		m, ok := d.clusters.Cluster(position(batch, i))
		keep[i] = !ok || m.Kept
		if !keep[i] {
			dupOf = append(dupOf, m.KeptID)
			cb.Append(m.Cluster)
		}
	}
	kept, removed, err := columnar.Split(ctx, mem, rec, keep)
	if err != nil {
		return pipeline.Result{}, err
	}
	reasons := make([]string, len(dupOf))
	for i := range reasons {
		reasons[i] = "near_dup"
	}
	if len(dupOf) > 0 {
		dupCol := columnar.Strings(mem, dupOf, true)
		defer dupCol.Release()
		clusterCol := cb.NewInt64Array()
		defer clusterCol.Release()
		with := columnar.SetColumns(removed, []arrow.Field{dupOfField, clusterField}, []arrow.Array{dupCol, clusterCol})
		removed.Release()
		removed = with
	}
	return pipeline.Result{Kept: kept, Removed: removed, Reasons: reasons, Keep: keep}, nil
}

// minhashMemory is how many bytes of decoded batches the signing pass
// keeps for the passes after it (a sixteenth of it for the signatures and
// ids, before they go to the intermediate): 1 GiB, or a quarter of the Go
// memory limit (GOMEMLIMIT) when that is lower. A larger input is read
// again by each pass.
var minhashMemory = func() int64 {
	limit := int64(1 << 30)
	if m := debug.SetMemoryLimit(-1); m/4 < limit {
		limit = m / 4
	}
	return limit
}
