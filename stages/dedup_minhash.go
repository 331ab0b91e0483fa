package stages

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

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
	Threshold      float64 `yaml:"threshold" json:"threshold"` // pairs at or above this similarity link
	// Verify is how a candidate pair is checked: "jaccard" computes the
	// true n-gram Jaccard similarity (a third pass reads the candidates'
	// texts), "signature" estimates it from the full signatures.
	Verify  string `yaml:"verify" json:"verify"`
	Keep    string `yaml:"keep" json:"keep"` // first or longest
	IDField string `yaml:"id_field" json:"id_field"`
}

// MinHashIndex holds what the passes of MinHash dedup share: per document
// its position, id, length, signature and band hashes (fixed-width, in
// flat arrays), then the clusters. Memory per document: 4 bytes per
// permutation, 8 per band, 16 and the id.
type MinHashIndex struct {
	p      MinHashParams
	hasher *minhash.Hasher

	mu    sync.Mutex
	pos   []uint64
	ids   []string
	lens  []int64
	sigs  []uint32
	bands []uint64

	byPos    map[uint64]int32 // after Link: document by position
	rep      []int32          // after Link: the kept document of each document's cluster
	size     []int32          // after Link: cluster size, by kept document
	shingles map[int32][]uint64
	needed   map[uint64]int32 // documents whose shingles the verify pass collects
	Pairs    int              // candidate pairs
	Linked   int              // pairs at or above the threshold
}

// NewMinHashIndex checks p and returns an empty index.
func NewMinHashIndex(p MinHashParams) (*MinHashIndex, error) {
	if err := p.Params.Validate(); err != nil {
		return nil, err
	}
	if p.Threshold <= 0 || p.Threshold > 1 {
		return nil, fmt.Errorf("threshold %v must be in (0, 1]", p.Threshold)
	}
	switch p.Verify {
	case "jaccard", "signature":
	default:
		return nil, fmt.Errorf("verify must be jaccard or signature, not %q", p.Verify)
	}
	switch p.Keep {
	case "first", "longest":
	default:
		return nil, fmt.Errorf("keep must be first or longest, not %q", p.Keep)
	}
	h, err := minhash.NewHasher(p.Params)
	if err != nil {
		return nil, err
	}
	return &MinHashIndex{p: p, hasher: h}, nil
}

// Docs returns the number of documents signed.
func (x *MinHashIndex) Docs() int { return len(x.pos) }

// NeedsShingles reports whether the verify pass must run before Link.
func (x *MinHashIndex) NeedsShingles() bool { return x.p.Verify == "jaccard" }

// MinHashScan is the first pass: signatures and band hashes.
type MinHashScan struct {
	textField string
	index     *MinHashIndex
	scratch   sync.Pool
}

// NewMinHashScan returns the signing pass.
func NewMinHashScan(textField string, index *MinHashIndex) *MinHashScan {
	return &MinHashScan{textField: textField, index: index}
}

func (s *MinHashScan) Name() string { return "dedup_minhash_scan" }
func (s *MinHashScan) Close() error { return nil }
func (s *MinHashScan) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	return in, checkTextField(in, s.textField)
}

func (s *MinHashScan) Process(ctx context.Context, _ memory.Allocator, rec arrow.RecordBatch) (pipeline.Result, error) {
	text, _, err := textColumn(rec, s.textField)
	if err != nil {
		return pipeline.Result{}, err
	}
	x := s.index
	sc, _ := s.scratch.Get().(*minhash.Scratch)
	if sc == nil {
		sc = &minhash.Scratch{}
	}
	defer s.scratch.Put(sc)
	sigs := x.hasher.Signatures(sc, text, nil)
	k, b := x.p.NumPerm, x.p.Bands
	bands := make([]uint64, 0, text.Len()*b)
	var pos []uint64
	var ids []string
	var lens []int64
	var keptSigs []uint32
	idCol := idColumn(rec, x.p.IDField)
	for i := 0; i < text.Len(); i++ {
		sig := sigs[i*k : (i+1)*k]
		if text.IsNull(i) || sig[0] == minhash.Empty && sig[k-1] == minhash.Empty {
			continue // no words: nothing to compare, the row is kept
		}
		bands = x.hasher.BandHashes(sig, bands)
		keptSigs = append(keptSigs, sig...)
		pos = append(pos, position(ctx, i))
		lens = append(lens, int64(len(text.Value(i))))
		ids = append(ids, rowID(ctx, idCol, i))
	}
	x.mu.Lock()
	x.pos = append(x.pos, pos...)
	x.ids = append(x.ids, ids...)
	x.lens = append(x.lens, lens...)
	x.sigs = append(x.sigs, keptSigs...)
	x.bands = append(x.bands, bands...)
	x.mu.Unlock()
	rec.Retain()
	return pipeline.Result{Kept: rec}, nil
}

func idColumn(rec arrow.RecordBatch, field string) *array.String {
	if idx := rec.Schema().FieldIndices(field); len(idx) > 0 {
		ids, _ := rec.Column(idx[0]).(*array.String)
		return ids
	}
	return nil
}

// rowID returns a copy of row i's id (the index outlives the batch, whose
// memory an uncopied id would pin), or "<file>:<line>" when the row has no
// id.
func rowID(ctx context.Context, ids *array.String, i int) string {
	if ids != nil && ids.IsValid(i) {
		return strings.Clone(ids.Value(i))
	}
	return pipeline.RowOrigin(ctx, i)
}

// Candidates orders the documents by position (so numbering is the same
// whatever order batches were signed in) and finds the candidate pairs:
// documents whose hashes collide in some band.
func (x *MinHashIndex) Candidates() [][2]int32 {
	n := len(x.pos)
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	sort.Slice(order, func(a, b int) bool { return x.pos[order[a]] < x.pos[order[b]] })
	k, b := x.p.NumPerm, x.p.Bands
	pos, ids, lens := make([]uint64, n), make([]string, n), make([]int64, n)
	sigs, bands := make([]uint32, n*k), make([]uint64, n*b)
	for to, from := range order {
		pos[to], ids[to], lens[to] = x.pos[from], x.ids[from], x.lens[from]
		copy(sigs[to*k:], x.sigs[int(from)*k:(int(from)+1)*k])
		copy(bands[to*b:], x.bands[int(from)*b:(int(from)+1)*b])
	}
	x.pos, x.ids, x.lens, x.sigs, x.bands = pos, ids, lens, sigs, bands
	x.byPos = make(map[uint64]int32, n)
	for i, p := range pos {
		x.byPos[p] = int32(i)
	}

	seen := map[uint64]struct{}{}
	var pairs [][2]int32
	add := func(a, b int32) {
		key := uint64(a)<<32 | uint64(b)
		if _, ok := seen[key]; !ok {
			seen[key] = struct{}{}
			pairs = append(pairs, [2]int32{a, b})
		}
	}
	for band := 0; band < b; band++ {
		buckets := map[uint64][]int32{}
		for i := 0; i < n; i++ {
			h := bands[i*b+band]
			buckets[h] = append(buckets[h], int32(i))
		}
		for _, docs := range buckets {
			// Each document links to the first of its bucket and to the one
			// before it: union-find joins the bucket without k² pairs.
			for j := 1; j < len(docs); j++ {
				add(docs[0], docs[j])
				if j > 1 {
					add(docs[j-1], docs[j])
				}
			}
		}
	}
	sort.Slice(pairs, func(a, b int) bool {
		if pairs[a][0] != pairs[b][0] {
			return pairs[a][0] < pairs[b][0]
		}
		return pairs[a][1] < pairs[b][1]
	})
	x.Pairs = len(pairs)
	if x.NeedsShingles() {
		x.needed = map[uint64]int32{}
		for _, p := range pairs {
			x.needed[x.pos[p[0]]] = p[0]
			x.needed[x.pos[p[1]]] = p[1]
		}
		x.shingles = map[int32][]uint64{}
	}
	return pairs
}

// MinHashShingles is the verify pass: it collects the shingle sets of the
// documents in candidate pairs.
type MinHashShingles struct {
	textField string
	index     *MinHashIndex
}

// NewMinHashShingles returns the verify pass.
func NewMinHashShingles(textField string, index *MinHashIndex) *MinHashShingles {
	return &MinHashShingles{textField: textField, index: index}
}

func (s *MinHashShingles) Name() string { return "dedup_minhash_verify" }
func (s *MinHashShingles) Close() error { return nil }
func (s *MinHashShingles) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	return in, checkTextField(in, s.textField)
}

func (s *MinHashShingles) Process(ctx context.Context, _ memory.Allocator, rec arrow.RecordBatch) (pipeline.Result, error) {
	text, _, err := textColumn(rec, s.textField)
	if err != nil {
		return pipeline.Result{}, err
	}
	x := s.index
	sc := &minhash.Scratch{}
	found := map[int32][]uint64{}
	for i := 0; i < text.Len(); i++ {
		doc, ok := x.needed[position(ctx, i)]
		if !ok || text.IsNull(i) {
			continue
		}
		found[doc] = x.hasher.Shingles(sc, valueBytes(text, i), nil)
	}
	x.mu.Lock()
	for d, sh := range found {
		x.shingles[d] = sh
	}
	x.mu.Unlock()
	rec.Retain()
	return pipeline.Result{Kept: rec}, nil
}

// Link verifies the candidate pairs, joins the documents of linked pairs
// by union-find and picks the document each cluster keeps.
func (x *MinHashIndex) Link(pairs [][2]int32) {
	n := len(x.pos)
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	var find func(int32) int32
	find = func(a int32) int32 {
		for parent[a] != a {
			parent[a] = parent[parent[a]]
			a = parent[a]
		}
		return a
	}
	k := x.p.NumPerm
	for _, p := range pairs {
		var sim float64
		if x.p.Verify == "jaccard" {
			sim = minhash.Jaccard(x.shingles[p[0]], x.shingles[p[1]])
		} else {
			sim = minhash.EstimateJaccard(x.sigs[int(p[0])*k:(int(p[0])+1)*k], x.sigs[int(p[1])*k:(int(p[1])+1)*k])
		}
		if sim < x.p.Threshold {
			continue
		}
		x.Linked++
		ra, rb := find(p[0]), find(p[1])
		if ra != rb {
			if rb < ra {
				ra, rb = rb, ra
			}
			parent[rb] = ra
		}
	}
	x.shingles = nil
	// The kept document: the first of its cluster, or the longest (ties:
	// the first).
	best := make([]int32, n)
	for i := range best {
		best[i] = -1
	}
	x.size = make([]int32, n)
	for i := 0; i < n; i++ {
		r := find(int32(i))
		x.size[r]++
		if b := best[r]; b < 0 || (x.p.Keep == "longest" && x.lens[i] > x.lens[b]) {
			best[r] = int32(i)
		}
	}
	x.rep = make([]int32, n)
	for i := 0; i < n; i++ {
		x.rep[i] = best[find(int32(i))]
	}
	sizeByKept := make([]int32, n)
	for i := 0; i < n; i++ {
		sizeByKept[x.rep[i]] = x.size[find(int32(i))]
	}
	x.size = sizeByKept
}

// MinHashReport is what MinHash dedup found, for stdout and the manifest.
type MinHashReport struct {
	Documents      int `json:"documents_signed"`
	CandidatePairs int `json:"candidate_pairs"`
	LinkedPairs    int `json:"linked_pairs"` // candidates at or above the threshold
	Clusters       int `json:"clusters"`     // of two or more documents
	InClusters     int `json:"documents_in_clusters"`
	// Sizes counts clusters by size: Sizes["3"] clusters of three.
	Sizes   map[string]int   `json:"cluster_sizes"`
	Largest []ClusterSnippet `json:"largest_clusters"`
}

// ClusterSnippet names one cluster: its number (the kept document's number
// in input order, as in _cluster), its size and the kept document's id.
type ClusterSnippet struct {
	Cluster int64  `json:"cluster"`
	Size    int    `json:"size"`
	KeptID  string `json:"kept_id"`
}

// Report summarizes the linked clusters, with the ten largest (ties: the
// earlier first).
func (x *MinHashIndex) Report() MinHashReport {
	r := MinHashReport{Documents: len(x.pos), CandidatePairs: x.Pairs, LinkedPairs: x.Linked, Sizes: map[string]int{}}
	for i, kept := range x.rep {
		if int32(i) != kept || x.size[i] < 2 {
			continue
		}
		r.Clusters++
		r.InClusters += int(x.size[i])
		r.Sizes[strconv.Itoa(int(x.size[i]))]++
		r.Largest = append(r.Largest, ClusterSnippet{Cluster: int64(i), Size: int(x.size[i]), KeptID: x.ids[i]})
	}
	sort.SliceStable(r.Largest, func(a, b int) bool { return r.Largest[a].Size > r.Largest[b].Size })
	if len(r.Largest) > 10 {
		r.Largest = r.Largest[:10]
	}
	return r
}

// MinHashDedup is the last pass: documents that are not their cluster's
// kept document go to removed/ with _reason near_dup, _dup_of (the kept
// document's id) and _cluster (the kept document's number in input order).
type MinHashDedup struct {
	textField string
	index     *MinHashIndex
	// Annotate keeps every row and adds minhash_cluster (the kept
	// document's number; null for a document in no cluster) and
	// minhash_cluster_size instead of removing duplicates.
	Annotate bool
}

// NewMinHashDedup returns the filtering pass over a linked index.
func NewMinHashDedup(textField string, index *MinHashIndex) *MinHashDedup {
	return &MinHashDedup{textField: textField, index: index}
}

var minhashAnnotations = []arrow.Field{
	{Name: "minhash_cluster", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "minhash_cluster_size", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}

func (d *MinHashDedup) Name() string { return "dedup_minhash" }
func (d *MinHashDedup) Report() any  { return d.index.Report() }
func (d *MinHashDedup) Config() any  { return d.index.p }
func (d *MinHashDedup) Close() error { return nil }
func (d *MinHashDedup) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	if d.Annotate {
		return columnar.SetSchemaFields(in, minhashAnnotations), checkTextField(in, d.textField)
	}
	return in, checkTextField(in, d.textField)
}

var clusterField = arrow.Field{Name: "_cluster", Type: arrow.PrimitiveTypes.Int64, Nullable: true}

func (d *MinHashDedup) RemovedFields() []arrow.Field { return []arrow.Field{dupOfField, clusterField} }

func (d *MinHashDedup) Process(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch) (pipeline.Result, error) {
	x := d.index
	if d.Annotate {
		cluster, size := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
		defer cluster.Release()
		defer size.Release()
		for i := 0; i < int(rec.NumRows()); i++ {
			doc, ok := x.byPos[position(ctx, i)]
			if !ok || x.size[x.rep[doc]] < 2 {
				cluster.AppendNull()
				size.AppendNull()
				continue
			}
			cluster.Append(int64(x.rep[doc]))
			size.Append(int64(x.size[x.rep[doc]]))
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
		doc, ok := x.byPos[position(ctx, i)]
		keep[i] = !ok || x.rep[doc] == doc
		if !keep[i] {
			dupOf = append(dupOf, x.ids[x.rep[doc]])
			cb.Append(int64(x.rep[doc]))
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

// ClusterTable returns one row per document in a cluster of two or more,
// in input order: id, doc (its number in input order), cluster (the kept
// document's number), cluster_size, kept, and similarity, the signature
// estimate of its Jaccard similarity to the kept document. The caller
// releases it.
func (x *MinHashIndex) ClusterTable(mem memory.Allocator) arrow.RecordBatch {
	s := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "doc", Type: arrow.PrimitiveTypes.Int64},
		{Name: "cluster", Type: arrow.PrimitiveTypes.Int64},
		{Name: "cluster_size", Type: arrow.PrimitiveTypes.Int64},
		{Name: "kept", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "similarity", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	b := array.NewRecordBuilder(mem, s)
	defer b.Release()
	k := x.p.NumPerm
	for i, r := range x.rep {
		if x.size[r] < 2 {
			continue
		}
		if x.ids[i] == "" {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.StringBuilder).Append(x.ids[i])
		}
		b.Field(1).(*array.Int64Builder).Append(int64(i))
		b.Field(2).(*array.Int64Builder).Append(int64(r))
		b.Field(3).(*array.Int64Builder).Append(int64(x.size[r]))
		b.Field(4).(*array.BooleanBuilder).Append(int32(i) == r)
		b.Field(5).(*array.Float64Builder).Append(minhash.EstimateJaccard(x.sigs[i*k:(i+1)*k], x.sigs[int(r)*k:(int(r)+1)*k]))
	}
	return b.NewRecordBatch()
}
