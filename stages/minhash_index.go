package stages

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/kernels/minhash"
	"github.com/sluice-data/sluice/pipeline"
)

// MinHashIndex holds what the passes of MinHash dedup share. In memory,
// per document: its position (8 bytes), text length (4) and band hashes
// (8 per band), then after linking its cluster (8); signatures and ids are
// kept aside (sigSpill: in memory up to a budget, then in a Parquet
// intermediate) and read back only for the documents that need them:
// candidates when verifying by signature, and the members of clusters. Verifying by Jaccard also holds the shingle
// hashes (4 bytes each) of the candidates.
type MinHashIndex struct {
	p      MinHashParams
	hasher *minhash.Hasher
	spill  *sigSpill
	// recording is the input as the signing pass decoded it, for the
	// verify and writing passes to replay; nil outside Prepare's passes.
	recording *pipeline.Recording

	mu    sync.Mutex
	pos   []uint64 // by document; sorted (documents numbered in input order) by Candidates
	lens  []uint32 // text bytes, saturating
	bands []uint64

	rep      []int32            // after Link: the kept document of each document's cluster
	size     []int32            // after Link: cluster size, by kept document
	ids      map[int32]string   // after Link: ids of the documents in clusters
	sims     map[int32]float64  // after Link: signature similarity of each clustered document to the kept one
	shingles map[int32][]uint32 // verify jaccard: shingle sets of candidates, high 32 bits of each hash
	sigs     map[int32][]uint32 // verify signature: signatures of candidates
	needed   map[uint64]int32   // candidates by position
	Pairs    int                // candidate pairs
	Linked   int                // pairs at or above the threshold
}

// NewMinHashIndex checks p and returns an empty index.
func NewMinHashIndex(p MinHashParams) (*MinHashIndex, error) {
	if err := p.Params.Validate(); err != nil {
		return nil, err
	}
	if !(p.Threshold > 0 && p.Threshold <= 1) { // NaN too
		return nil, fmt.Errorf("threshold %v must be in (0, 1]", p.Threshold)
	}
	if err := p.Verify.Validate(); err != nil {
		return nil, err
	}
	if err := p.Keep.Validate(); err != nil {
		return nil, err
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
func (x *MinHashIndex) NeedsShingles() bool { return x.p.Verify == minhash.VerifyJaccard }

// doc returns the document at position pos, once Candidates sorted them.
func (x *MinHashIndex) doc(pos uint64) (int32, bool) {
	i, found := slices.BinarySearch(x.pos, pos)
	return int32(i), found
}

// SignedBatch is what the signing pass found in one batch: for each
// document with words, in row order, its position, id, text length
// (bytes, saturating), band hashes (Bands each) and signature (NumPerm
// values each). The slices are the sink's: the signing pass makes new ones
// for every batch.
type SignedBatch struct {
	Pos   []uint64
	IDs   []string
	Lens  []uint32
	Bands []uint64
	Sigs  []uint32
}

// SignatureSink receives the signing pass's batches, one call per batch
// (empty ones included), from many workers at once.
type SignatureSink interface {
	AddSigned(ctx context.Context, batch *pipeline.Batch, b SignedBatch) error
}

// MinHashScan is the first pass: signatures and band hashes, handed to a
// sink (the index, in one process; a shard's intermediate file, when the
// pass runs as a task of many).
type MinHashScan struct {
	textField string
	p         MinHashParams
	hasher    *minhash.Hasher
	sink      SignatureSink
	scratch   sync.Pool
	recording *pipeline.Recording // the pass's input is kept here, when set
}

// NewMinHashScan returns the signing pass that fills index.
func NewMinHashScan(textField string, index *MinHashIndex) *MinHashScan {
	return &MinHashScan{textField: textField, p: index.p, hasher: index.hasher, sink: index}
}

// NewMinHashSigner returns the signing pass that hands what it finds to
// sink.
func NewMinHashSigner(textField string, p MinHashParams, sink SignatureSink) (*MinHashScan, error) {
	h, err := minhash.NewHasher(p.Params)
	if err != nil {
		return nil, err
	}
	return &MinHashScan{textField: textField, p: p, hasher: h, sink: sink}, nil
}

func (s *MinHashScan) Name() string { return "dedup_minhash_scan" }

// Recording asks for the pass's input to be kept for the passes after it.
func (s *MinHashScan) Recording() *pipeline.Recording { return s.recording }

func (s *MinHashScan) Columns() []string { return []string{s.textField, s.p.IDField} }
func (s *MinHashScan) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	return in, checkTextField(in, s.textField)
}

func (s *MinHashScan) Process(ctx context.Context, _ memory.Allocator, batch *pipeline.Batch) (pipeline.Result, error) {
	rec := batch.Rec
	text, _, err := textColumn(rec, s.textField)
	if err != nil {
		return pipeline.Result{}, err
	}
	sc, _ := s.scratch.Get().(*minhash.Scratch)
	if sc == nil {
		sc = &minhash.Scratch{}
	}
	defer s.scratch.Put(sc)
	sigs := s.hasher.Signatures(sc, text, nil)
	k, b := s.p.NumPerm, s.p.Bands
	out := SignedBatch{Bands: make([]uint64, 0, text.Len()*b)}
	keptSigs := sigs[:0]
	idCol := idColumn(rec, s.p.IDField)
	for i := 0; i < text.Len(); i++ {
		sig := sigs[i*k : (i+1)*k]
		if text.IsNull(i) || sig[0] == minhash.Empty && sig[k-1] == minhash.Empty {
			continue // no words: nothing to compare, the row is kept
		}
		out.Bands = s.hasher.BandHashes(sig, out.Bands)
		keptSigs = append(keptSigs, sig...) // in place: never ahead of sig
		out.Pos = append(out.Pos, position(batch, i))
		out.Lens = append(out.Lens, uint32(min(len(text.Value(i)), 1<<32-1)))
		out.IDs = append(out.IDs, rowID(batch, idCol, i))
	}
	out.Sigs = keptSigs
	if err := s.sink.AddSigned(ctx, batch, out); err != nil {
		return pipeline.Result{}, err
	}
	rec.Retain()
	return pipeline.Result{Kept: rec}, nil
}

// AddSigned spills the batch's ids and signatures and keeps its
// positions, lengths and band hashes.
func (x *MinHashIndex) AddSigned(_ context.Context, _ *pipeline.Batch, b SignedBatch) error {
	if err := x.spill.add(b.Pos, b.IDs, b.Sigs); err != nil {
		return err
	}
	x.mu.Lock()
	x.pos = append(x.pos, b.Pos...)
	x.lens = append(x.lens, b.Lens...)
	x.bands = append(x.bands, b.Bands...)
	x.mu.Unlock()
	return nil
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
func rowID(batch *pipeline.Batch, ids *array.String, i int) string {
	if ids != nil && ids.IsValid(i) {
		return strings.Clone(ids.Value(i))
	}
	return batch.Origin(i)
}

// Candidates orders the documents by position (so numbering is the same
// whatever order batches were signed in) and finds the candidate pairs:
// documents whose hashes collide in some band. One band at a time, the
// (hash, document) entries are sorted so that colliding documents are
// neighbours.
func (x *MinHashIndex) Candidates() [][2]int32 {
	n := len(x.pos)
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(x.pos[a], x.pos[b]) })
	b := x.p.Bands
	pos, lens, bands := make([]uint64, n), make([]uint32, n), make([]uint64, n*b)
	for to, from := range order {
		pos[to], lens[to] = x.pos[from], x.lens[from]
		copy(bands[to*b:], x.bands[int(from)*b:(int(from)+1)*b])
	}
	x.pos, x.lens, x.bands = pos, lens, bands
	order = nil

	entries := make([]minhash.BucketEntry, n)
	var pairs [][2]int32
	for band := 0; band < b; band++ {
		for i := range entries {
			entries[i] = minhash.BucketEntry{Hash: bands[i*b+band], Doc: int32(i)}
		}
		pairs = minhash.BucketPairs(entries, pairs)
	}
	entries = nil
	pairs = minhash.SortPairs(pairs)
	x.Pairs = len(pairs)
	x.needed = map[uint64]int32{}
	for _, p := range pairs {
		x.needed[x.pos[p[0]]] = p[0]
		x.needed[x.pos[p[1]]] = p[1]
	}
	return pairs
}

// Need sets the documents whose shingle sets the verify pass collects:
// their positions and the numbers they go by.
func (x *MinHashIndex) Need(docs map[uint64]int32) { x.needed = docs }

// TakeShingles returns the shingle sets the verify pass collected, by
// document number, and forgets them.
func (x *MinHashIndex) TakeShingles() map[int32][]uint32 {
	x.mu.Lock()
	defer x.mu.Unlock()
	sh := x.shingles
	x.shingles = nil
	return sh
}

// loadSignatures reads the candidates' signatures back from the
// intermediate, to verify by signature.
func (x *MinHashIndex) loadSignatures() error {
	x.sigs = make(map[int32][]uint32, len(x.needed))
	return x.spill.each(func(pos uint64, _ string, sig []uint32) {
		if d, ok := x.needed[pos]; ok {
			x.sigs[d] = slices.Clone(sig)
		}
	})
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

// Replay reads the input the signing pass kept, if it did.
func (s *MinHashShingles) Replay() (*pipeline.Recording, bool) { return s.index.recording, false }

func (s *MinHashShingles) Columns() []string { return []string{s.textField} }
func (s *MinHashShingles) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	return in, checkTextField(in, s.textField)
}

func (s *MinHashShingles) Process(ctx context.Context, _ memory.Allocator, batch *pipeline.Batch) (pipeline.Result, error) {
	rec := batch.Rec
	text, _, err := textColumn(rec, s.textField)
	if err != nil {
		return pipeline.Result{}, err
	}
	x := s.index
	sc := &minhash.Scratch{}
	found := map[int32][]uint32{}
	var set []uint32
	for i := 0; i < text.Len(); i++ {
		doc, ok := x.needed[position(batch, i)]
		if !ok || text.IsNull(i) {
			continue
		}
		set = x.hasher.Shingles32(sc, valueBytes(text, i), set[:0])
		found[doc] = slices.Clone(set)
	}
	x.mu.Lock()
	if x.shingles == nil {
		x.shingles = map[int32][]uint32{}
	}
	for d, sh := range found {
		x.shingles[d] = sh
	}
	x.mu.Unlock()
	rec.Retain()
	return pipeline.Result{Kept: rec}, nil
}

// Link verifies the candidate pairs, joins the documents of linked pairs
// by union-find and picks the document each cluster keeps
// (minhash.LinkPairs).
func (x *MinHashIndex) Link(pairs [][2]int32) {
	features := x.sigs
	if x.p.Verify == minhash.VerifyJaccard {
		features = x.shingles
	}
	sim := func(a, b int32) float64 { return x.p.Verify.Similarity(features[a], features[b]) }
	x.rep, x.Linked = minhash.LinkPairs(len(x.pos), pairs, x.p.Threshold, x.p.Keep, x.lens, sim)
	x.shingles, x.sigs, x.needed = nil, nil, nil
	x.size = make([]int32, len(x.rep))
	for _, r := range x.rep {
		x.size[r]++
	}
}

// loadClusters reads back from the intermediate the ids of the documents
// in clusters and their signature similarity to their kept documents.
func (x *MinHashIndex) loadClusters() error {
	x.ids, x.sims = map[int32]string{}, map[int32]float64{}
	keptSigs := map[int32][]uint32{}
	inCluster := func(pos uint64) (int32, bool) {
		d, ok := x.doc(pos)
		return d, ok && x.size[x.rep[d]] > 1
	}
	err := x.spill.each(func(pos uint64, id string, sig []uint32) {
		if d, ok := inCluster(pos); ok {
			x.ids[d] = strings.Clone(id)
			if x.rep[d] == d {
				keptSigs[d] = slices.Clone(sig)
			}
		}
	})
	if err != nil {
		return err
	}
	return x.spill.each(func(pos uint64, _ string, sig []uint32) {
		if d, ok := inCluster(pos); ok {
			x.sims[d] = minhash.EstimateJaccard(sig, keptSigs[x.rep[d]])
		}
	})
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
		r.Largest = append(r.Largest, ClusterSnippet{Cluster: int64(i), Size: int(x.size[i]), KeptID: x.ids[int32(i)]})
	}
	sort.SliceStable(r.Largest, func(a, b int) bool { return r.Largest[a].Size > r.Largest[b].Size })
	if len(r.Largest) > 10 {
		r.Largest = r.Largest[:10]
	}
	return r
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
	for i, r := range x.rep {
		if x.size[r] < 2 {
			continue
		}
		if id := x.ids[int32(i)]; id == "" {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.StringBuilder).Append(id)
		}
		b.Field(1).(*array.Int64Builder).Append(int64(i))
		b.Field(2).(*array.Int64Builder).Append(int64(r))
		b.Field(3).(*array.Int64Builder).Append(int64(x.size[r]))
		b.Field(4).(*array.BooleanBuilder).Append(int32(i) == r)
		b.Field(5).(*array.Float64Builder).Append(x.sims[int32(i)])
	}
	return b.NewRecordBatch()
}
