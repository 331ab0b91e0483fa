package stages

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/kernels/minhash"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/pipeline/shard"
)

const (
	minhashSign       = "minhash-sign"
	minhashBucket     = "minhash-bucket"
	minhashFeatures   = "minhash-features"
	minhashVerify     = "minhash-verify"
	minhashComponents = "minhash-components"
	minhashLink       = "minhash-link"
)

// Sharding declares near dedup's phases; see the comments below for what
// each does.
func (g *GlobalMinHash) Sharding() pipeline.Sharding {
	p := g.index.Params()
	perTask := func(_, tasks int) int { return tasks }
	run := func(phase func(ms *minhashShards, i int, scan pipeline.Scan) error) func(shard.Workspace, int, pipeline.Scan) error {
		return func(w shard.Workspace, i int, scan pipeline.Scan) error {
			return phase(&minhashShards{w: w, p: p, textField: g.textField}, i, scan)
		}
	}
	return pipeline.Sharding{
		Phases: []pipeline.ShardPhase{
			{Name: minhashSign, Run: run((*minhashShards).sign)},
			{Name: minhashBucket, Tasks: func(_, tasks int) int { return min(tasks, p.Bands) }, Run: run((*minhashShards).bucket)},
			{Name: minhashFeatures, Run: run((*minhashShards).features)},
			{Name: minhashVerify, Tasks: perTask, Run: run((*minhashShards).verify)},
			{Name: minhashComponents, Tasks: func(int, int) int { return 1 }, Run: run((*minhashShards).components)},
			{Name: minhashLink, Tasks: perTask, Run: run((*minhashShards).link)},
		},
		Filter: func(w shard.Workspace, s int) (pipeline.Stage, error) {
			clusters, err := (&minhashShards{w: w, p: p, textField: g.textField}).clusters(s)
			if err != nil {
				return nil, err
			}
			f := NewMinHashClusterFilter(g.textField, p, clusters)
			f.Annotate = g.Annotate
			return f, nil
		},
		Report: func(w shard.Workspace) (any, error) {
			return (&minhashShards{w: w, p: p, textField: g.textField}).report()
		},
	}
}

// minhashShards is one task's view of near dedup's phases.
type minhashShards struct {
	w         shard.Workspace
	p         MinHashParams
	textField string
}

// MinHash dedup as array tasks. minhash-sign writes, per shard and in input
// order, each signed document's position, id, length, band hashes and
// signature: a document's number is its shard's offset (the documents
// signed by earlier shards) plus its row there, the same number one
// process gives it. Each minhash-bucket task sorts (hash, document) for
// its bands over all shards and writes the candidate pairs. Each
// minhash-features task collects what verifying needs (shingle sets, or
// signatures) for the candidates of its shard. Then minhash-verify,
// minhash-components and minhash-link (below) pick the kept documents, and
// each shard's filter reads the clustered documents of its shard.

func signedSchema(p MinHashParams) *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "pos", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "len", Type: arrow.PrimitiveTypes.Uint32},
		{Name: "bands", Type: &arrow.FixedSizeBinaryType{ByteWidth: 8 * p.Bands}},
		{Name: "sig", Type: &arrow.FixedSizeBinaryType{ByteWidth: 4 * p.NumPerm}},
	}, nil)
}

var pairSchema = arrow.NewSchema([]arrow.Field{
	{Name: "a", Type: arrow.PrimitiveTypes.Int32},
	{Name: "b", Type: arrow.PrimitiveTypes.Int32},
}, nil)

var featureSchema = arrow.NewSchema([]arrow.Field{
	{Name: "doc", Type: arrow.PrimitiveTypes.Int32},
	{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "len", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "feature", Type: arrow.BinaryTypes.Binary}, // shingle hashes or signature, uint32 little-endian
}, nil)

var clusterSchema = arrow.NewSchema([]arrow.Field{
	{Name: "doc", Type: arrow.PrimitiveTypes.Int32},
	{Name: "cluster", Type: arrow.PrimitiveTypes.Int32},
	{Name: "size", Type: arrow.PrimitiveTypes.Int32},
	{Name: "kept_id", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// file is the path of a file of task i of one of the stage's phases.
func (ms *minhashShards) file(phase string, i int, name string) string {
	return filepath.Join(ms.w.Dir(phase, i), name)
}

// signedWriter is the signing pass's sink: it encodes each batch's
// documents on the worker and appends them in input order.
type signedWriter struct {
	w      *shard.Writer
	schema *arrow.Schema
	mem    memory.Allocator
}

func (sw *signedWriter) AddSigned(ctx context.Context, batch *pipeline.Batch, sb SignedBatch) error {
	b := array.NewRecordBuilder(sw.mem, sw.schema)
	defer b.Release()
	b.Field(0).(*array.Uint64Builder).AppendValues(sb.Pos, nil)
	ids := b.Field(1).(*array.StringBuilder)
	for _, id := range sb.IDs {
		shard.AppendID(ids, id)
	}
	b.Field(2).(*array.Uint32Builder).AppendValues(sb.Lens, nil)
	nb, k := len(sb.Bands)/max(len(sb.Pos), 1), len(sb.Sigs)/max(len(sb.Pos), 1)
	bands, sigs := b.Field(3).(*array.FixedSizeBinaryBuilder), b.Field(4).(*array.FixedSizeBinaryBuilder)
	raw := make([]byte, max(8*nb, 4*k))
	for i := range sb.Pos {
		for j, h := range sb.Bands[i*nb : (i+1)*nb] {
			binary.LittleEndian.PutUint64(raw[8*j:], h)
		}
		bands.Append(raw[:8*nb])
		for j, v := range sb.Sigs[i*k : (i+1)*k] {
			binary.LittleEndian.PutUint32(raw[4*j:], v)
		}
		sigs.Append(raw[:4*k])
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	piece, err := sw.w.Encode(rec)
	if err != nil {
		return err
	}
	var addErr error
	if err := batch.InOrder(ctx, func() { addErr = sw.w.Add(piece, len(sb.Pos)) }); err != nil {
		return err
	}
	return addErr
}

func (ms *minhashShards) sign(s int, scan pipeline.Scan) error {
	schema := signedSchema(ms.p)
	w, err := shard.Create(ms.w.Mem(), ms.file(minhashSign, s, "signed.parquet"), schema)
	if err != nil {
		return err
	}
	signer, err := NewMinHashSigner(ms.textField, ms.p, &signedWriter{w: w, schema: schema, mem: ms.w.Mem()})
	if err != nil {
		w.Abort()
		return err
	}
	if err := scan(signer); err != nil {
		w.Abort()
		return err
	}
	return w.Commit()
}

// offsets returns the number of documents signed before each shard, and
// the total last.
func (ms *minhashShards) offsets() ([]int64, error) {
	off := make([]int64, ms.w.Shards()+1)
	for s := range ms.w.Shards() {
		n, err := shard.Rows(ms.w.Mem(), ms.file(minhashSign, s, "signed.parquet"))
		if err != nil {
			return nil, err
		}
		off[s+1] = off[s] + n
	}
	if off[len(off)-1] > math.MaxInt32 {
		return nil, fmt.Errorf("minhash: %d documents signed; document numbers are 31-bit, so split the corpus into runs below %d", off[len(off)-1], math.MaxInt32)
	}
	return off, nil
}

// bandRange returns the bands bucket task r of n covers.
func bandRange(bands, r, n int) (int, int) {
	return r * bands / n, (r + 1) * bands / n
}

func (ms *minhashShards) bucket(r int, _ pipeline.Scan) error {
	p := ms.p
	off, err := ms.offsets()
	if err != nil {
		return err
	}
	lo, hi := bandRange(p.Bands, r, ms.w.Tasks(minhashBucket))
	entries := make([][]minhash.BucketEntry, hi-lo)
	for band := range entries {
		entries[band] = make([]minhash.BucketEntry, 0, off[len(off)-1])
	}
	for s := range ms.w.Shards() {
		doc := int32(off[s])
		err := shard.Read(ms.w.Mem(), ms.file(minhashSign, s, "signed.parquet"), []string{"bands"}, func(rec arrow.RecordBatch) error {
			col := rec.Column(0).(*array.FixedSizeBinary)
			for i := 0; i < col.Len(); i++ {
				raw := col.Value(i)
				for band := lo; band < hi; band++ {
					entries[band-lo] = append(entries[band-lo], minhash.BucketEntry{Hash: binary.LittleEndian.Uint64(raw[8*band:]), Doc: doc})
				}
				doc++
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	var pairs [][2]int32
	for band := range entries {
		pairs = minhash.BucketPairs(entries[band], pairs)
		entries[band] = nil
	}
	return ms.writePairs(ms.file(minhashBucket, r, "pairs.parquet"), minhash.SortPairs(pairs))
}

func (ms *minhashShards) writePairs(path string, pairs [][2]int32) error {
	w, err := shard.Create(ms.w.Mem(), path, pairSchema)
	if err != nil {
		return err
	}
	for start := 0; start < len(pairs) || start == 0; start += 64 << 10 {
		b := array.NewRecordBuilder(ms.w.Mem(), pairSchema)
		for _, pr := range pairs[start:min(len(pairs), start+64<<10)] {
			b.Field(0).(*array.Int32Builder).Append(pr[0])
			b.Field(1).(*array.Int32Builder).Append(pr[1])
		}
		rec := b.NewRecordBatch()
		b.Release()
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			w.Abort()
			return err
		}
	}
	return w.Commit()
}

// eachPair calls fn with every candidate pair the bucket tasks wrote.
func (ms *minhashShards) eachPair(fn func(a, b int32)) error {
	for r := 0; r < ms.w.Tasks(minhashBucket); r++ {
		err := shard.Read(ms.w.Mem(), ms.file(minhashBucket, r, "pairs.parquet"), nil, func(rec arrow.RecordBatch) error {
			a, b := rec.Column(0).(*array.Int32), rec.Column(1).(*array.Int32)
			for i := 0; i < a.Len(); i++ {
				fn(a.Value(i), b.Value(i))
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// signedDoc is one row of a shard's signed file.
type signedDoc struct {
	pos uint64
	id  string
	len uint32
	sig []uint32
}

// eachSigned calls fn with the rows of shard s's signed file whose rank
// (document number less the shard's offset) want accepts.
func (ms *minhashShards) eachSigned(s int, withSig bool, want func(rank int64) bool, fn func(rank int64, d signedDoc)) error {
	cols := []string{"pos", "id", "len"}
	if withSig {
		cols = append(cols, "sig")
	}
	var rank int64
	return shard.Read(ms.w.Mem(), ms.file(minhashSign, s, "signed.parquet"), cols, func(rec arrow.RecordBatch) error {
		pos, ids, lens := rec.Column(0).(*array.Uint64), rec.Column(1).(*array.String), rec.Column(2).(*array.Uint32)
		for i := 0; i < pos.Len(); i, rank = i+1, rank+1 {
			if !want(rank) {
				continue
			}
			d := signedDoc{pos: pos.Value(i), id: shard.IDAt(ids, i), len: lens.Value(i)}
			if withSig {
				raw := rec.Column(3).(*array.FixedSizeBinary).Value(i)
				d.sig = make([]uint32, len(raw)/4)
				for j := range d.sig {
					d.sig[j] = binary.LittleEndian.Uint32(raw[4*j:])
				}
			}
			fn(rank, d)
		}
		return nil
	})
}

func (ms *minhashShards) features(s int, scan pipeline.Scan) error {
	p := ms.p
	off, err := ms.offsets()
	if err != nil {
		return err
	}
	lo, hi := int32(off[s]), int32(off[s+1])
	needed := map[int32]bool{}
	err = ms.eachPair(func(a, b int32) {
		for _, d := range [2]int32{a, b} {
			if d >= lo && d < hi {
				needed[d] = true
			}
		}
	})
	if err != nil {
		return err
	}
	docs := make(map[int32]signedDoc, len(needed))
	byPos := make(map[uint64]int32, len(needed))
	err = ms.eachSigned(s, p.Verify == minhash.VerifySignature, func(rank int64) bool { return needed[lo+int32(rank)] },
		func(rank int64, d signedDoc) {
			docs[lo+int32(rank)] = d
			byPos[d.pos] = lo + int32(rank)
		})
	if err != nil {
		return err
	}
	if p.Verify == minhash.VerifyJaccard && len(needed) > 0 {
		x, err := NewMinHashIndex(p)
		if err != nil {
			return err
		}
		x.Need(byPos)
		if err := scan(NewMinHashShingles(ms.textField, x)); err != nil {
			return err
		}
		for doc, sh := range x.TakeShingles() {
			d := docs[doc]
			d.sig = sh
			docs[doc] = d
		}
	}
	order := make([]int32, 0, len(docs))
	for doc := range docs {
		order = append(order, doc)
	}
	slices.Sort(order)
	b := array.NewRecordBuilder(ms.w.Mem(), featureSchema)
	defer b.Release()
	var raw []byte
	for _, doc := range order {
		d := docs[doc]
		b.Field(0).(*array.Int32Builder).Append(doc)
		shard.AppendID(b.Field(1).(*array.StringBuilder), d.id)
		b.Field(2).(*array.Uint32Builder).Append(d.len)
		raw = raw[:0]
		for _, v := range d.sig {
			raw = binary.LittleEndian.AppendUint32(raw, v)
		}
		b.Field(3).(*array.BinaryBuilder).Append(raw)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return shard.WriteOne(ms.w.Mem(), ms.file(minhashFeatures, s, "features.parquet"), featureSchema, rec)
}

// clusterMap is the clusters of one shard's documents, by position.
type clusterMap map[uint64]Membership

func (c clusterMap) Cluster(pos uint64) (Membership, bool) {
	m, ok := c[pos]
	return m, ok
}

// clusters reads the clusters of shard s's documents, for its filter.
func (ms *minhashShards) clusters(s int) (ClusterLookup, error) {
	off, err := ms.offsets()
	if err != nil {
		return nil, err
	}
	lo, hi := int32(off[s]), int32(off[s+1])
	byRank := map[int64]Membership{}
	for k := 0; k < ms.w.Tasks(minhashLink); k++ {
		err = shard.Read(ms.w.Mem(), ms.file(minhashLink, k, "clusters.parquet"), nil, func(rec arrow.RecordBatch) error {
			doc, cluster, size := rec.Column(0).(*array.Int32), rec.Column(1).(*array.Int32), rec.Column(2).(*array.Int32)
			kept := rec.Column(3).(*array.String)
			for i := 0; i < doc.Len(); i++ {
				if d := doc.Value(i); d >= lo && d < hi {
					byRank[int64(d-lo)] = Membership{Cluster: int64(cluster.Value(i)), Size: int64(size.Value(i)),
						Kept: cluster.Value(i) == d, KeptID: shard.IDAt(kept, i)}
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	clusters := make(clusterMap, len(byRank))
	if len(byRank) == 0 {
		return clusters, nil
	}
	err = ms.eachSigned(s, false, func(rank int64) bool { _, ok := byRank[rank]; return ok },
		func(rank int64, d signedDoc) { clusters[d.pos] = byRank[rank] })
	return clusters, err
}

// Linking MinHash clusters without one task holding everything.
// minhash-verify: task k takes the candidate pairs whose first document
// falls in the k-th range of document numbers, reads the features of the
// documents they name, and writes the pairs at or above the threshold.
// minhash-components: one task joins the verified pairs by union-find
// over the candidates (4 bytes each; pairs are streamed, features never
// read) and writes each clustered candidate's component. minhash-link:
// task k takes the components whose root falls to it, reads their
// members' features and picks the kept documents with
// minhash.KeepInComponent, the rule one process uses, so the clusters are
// the same.

var verifiedSchema = pairSchema

var componentSchema = arrow.NewSchema([]arrow.Field{
	{Name: "doc", Type: arrow.PrimitiveTypes.Int32},
	{Name: "root", Type: arrow.PrimitiveTypes.Int32},
}, nil)

// pairCounts are what minhash-verify counted, for the report.
type pairCounts struct {
	Pairs  int `json:"pairs"`
	Linked int `json:"linked"`
}

// feature is what verifying and keeping need of a candidate.
type feature struct {
	id   string
	len  uint32
	vals []uint32 // shingle hashes or signature
}

// eachFeature calls fn with the features of the candidates want accepts,
// from every shard's features file.
func (ms *minhashShards) eachFeature(want func(doc int32) bool, fn func(doc int32, f feature)) error {
	for s := range ms.w.Shards() {
		err := shard.Read(ms.w.Mem(), ms.file(minhashFeatures, s, "features.parquet"), nil, func(rec arrow.RecordBatch) error {
			doc, id, ln := rec.Column(0).(*array.Int32), rec.Column(1).(*array.String), rec.Column(2).(*array.Uint32)
			raw := rec.Column(3).(*array.Binary)
			for i := 0; i < doc.Len(); i++ {
				if !want(doc.Value(i)) {
					continue
				}
				b := raw.Value(i)
				vals := make([]uint32, len(b)/4)
				for j := range vals {
					vals[j] = binary.LittleEndian.Uint32(b[4*j:])
				}
				fn(doc.Value(i), feature{id: shard.IDAt(id, i), len: ln.Value(i), vals: vals})
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (ms *minhashShards) verify(k int, _ pipeline.Scan) error {
	p := ms.p
	off, err := ms.offsets()
	if err != nil {
		return err
	}
	n, tasks := off[len(off)-1], int64(ms.w.Tasks(minhashVerify))
	lo, hi := int32(n*int64(k)/tasks), int32(n*int64(k+1)/tasks)
	var pairs [][2]int32
	err = ms.eachPair(func(a, b int32) {
		if a >= lo && a < hi {
			pairs = append(pairs, [2]int32{a, b})
		}
	})
	if err != nil {
		return err
	}
	pairs = minhash.SortPairs(pairs)
	needed := map[int32]bool{}
	for _, pr := range pairs {
		needed[pr[0]], needed[pr[1]] = true, true
	}
	feats := make(map[int32][]uint32, len(needed))
	if err := ms.eachFeature(func(d int32) bool { return needed[d] }, func(d int32, f feature) { feats[d] = f.vals }); err != nil {
		return err
	}
	b := array.NewRecordBuilder(ms.w.Mem(), verifiedSchema)
	defer b.Release()
	counts := pairCounts{Pairs: len(pairs)}
	for _, pr := range pairs {
		if p.Verify.Similarity(feats[pr[0]], feats[pr[1]]) < p.Threshold {
			continue
		}
		counts.Linked++
		b.Field(0).(*array.Int32Builder).Append(pr[0])
		b.Field(1).(*array.Int32Builder).Append(pr[1])
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	if err := shard.WriteOne(ms.w.Mem(), ms.file(minhashVerify, k, "verified.parquet"), verifiedSchema, rec); err != nil {
		return err
	}
	js, _ := json.Marshal(counts)
	return dataset.WriteFile(ms.file(minhashVerify, k, "counts.json"), js)
}

func (ms *minhashShards) components(_ int, _ pipeline.Scan) error {
	var cands []int32
	if err := ms.eachFeature(func(int32) bool { return true }, func(d int32, _ feature) { cands = append(cands, d) }); err != nil {
		return err
	}
	slices.Sort(cands) // shards come in order, each sorted: already sorted
	local := func(d int32) int32 {
		i, _ := slices.BinarySearch(cands, d)
		return int32(i)
	}
	uf := minhash.NewUnionFind(len(cands))
	for k := 0; k < ms.w.Tasks(minhashVerify); k++ {
		err := shard.Read(ms.w.Mem(), ms.file(minhashVerify, k, "verified.parquet"), nil, func(rec arrow.RecordBatch) error {
			a, b := rec.Column(0).(*array.Int32), rec.Column(1).(*array.Int32)
			for i := 0; i < a.Len(); i++ {
				uf.Union(local(a.Value(i)), local(b.Value(i)))
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	size := make([]int32, len(cands))
	for i := range cands {
		size[uf.Find(int32(i))]++
	}
	w, err := shard.NewRowWriter(ms.w.Mem(), ms.file(minhashComponents, 0, "components.parquet"), componentSchema)
	if err != nil {
		return err
	}
	for i, d := range cands {
		r := uf.Find(int32(i))
		if size[r] < 2 {
			continue
		}
		w.Field(0).(*array.Int32Builder).Append(d)
		w.Field(1).(*array.Int32Builder).Append(cands[r])
		if err = w.RowDone(); err != nil {
			break
		}
	}
	return w.Finish(err)
}

func (ms *minhashShards) link(k int, _ pipeline.Scan) error {
	p := ms.p
	tasks := int32(ms.w.Tasks(minhashLink))
	// The members of this task's components, in input order.
	var docs []int32
	components := map[int32][]int32{} // root -> indexes into docs
	err := shard.Read(ms.w.Mem(), ms.file(minhashComponents, 0, "components.parquet"), nil, func(rec arrow.RecordBatch) error {
		doc, root := rec.Column(0).(*array.Int32), rec.Column(1).(*array.Int32)
		for i := 0; i < doc.Len(); i++ {
			if r := root.Value(i); r%tasks == int32(k) {
				components[r] = append(components[r], int32(len(docs)))
				docs = append(docs, doc.Value(i))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	feats := make([]feature, len(docs))
	err = ms.eachFeature(func(d int32) bool { _, ok := slices.BinarySearch(docs, d); return ok }, func(d int32, f feature) {
		i, _ := slices.BinarySearch(docs, d)
		feats[i] = f
	})
	if err != nil {
		return err
	}
	lens := make([]uint32, len(docs))
	rep := make([]int32, len(docs))
	for i := range docs {
		lens[i], rep[i] = feats[i].len, int32(i)
	}
	sim := func(a, b int32) float64 { return p.Verify.Similarity(feats[a].vals, feats[b].vals) }
	roots := make([]int32, 0, len(components))
	for r := range components {
		roots = append(roots, r)
	}
	slices.Sort(roots)
	for _, r := range roots {
		minhash.KeepInComponent(components[r], p.Threshold, p.Keep, lens, rep, sim)
	}
	size := make([]int32, len(docs))
	for _, r := range rep {
		size[r]++
	}
	report := MinHashReport{Sizes: map[string]int{}}
	b := array.NewRecordBuilder(ms.w.Mem(), clusterSchema)
	defer b.Release()
	for i, r := range rep {
		if size[r] < 2 {
			continue
		}
		b.Field(0).(*array.Int32Builder).Append(docs[i])
		b.Field(1).(*array.Int32Builder).Append(docs[r])
		b.Field(2).(*array.Int32Builder).Append(size[r])
		shard.AppendID(b.Field(3).(*array.StringBuilder), feats[r].id)
		if int32(i) == r {
			report.Clusters++
			report.InClusters += int(size[r])
			report.Sizes[strconv.Itoa(int(size[r]))]++
			report.Largest = append(report.Largest, ClusterSnippet{Cluster: int64(docs[r]), Size: int(size[r]), KeptID: feats[r].id})
		}
	}
	report.Largest = largest(report.Largest)
	rec := b.NewRecordBatch()
	defer rec.Release()
	if err := shard.WriteOne(ms.w.Mem(), ms.file(minhashLink, k, "clusters.parquet"), clusterSchema, rec); err != nil {
		return err
	}
	js, err := json.Marshal(report)
	if err != nil {
		return err
	}
	return dataset.WriteFile(ms.file(minhashLink, k, "report.json"), js)
}

// largest returns the ten largest clusters of cs (ties: the earlier
// first), as one process's report lists them.
func largest(cs []ClusterSnippet) []ClusterSnippet {
	slices.SortFunc(cs, func(a, b ClusterSnippet) int {
		if a.Size != b.Size {
			return b.Size - a.Size
		}
		return int(a.Cluster - b.Cluster)
	})
	return cs[:min(len(cs), 10)]
}

// report merges the stage's report from its link tasks and the pair
// counts of its verify tasks.
func (ms *minhashShards) report() (*MinHashReport, error) {
	off, err := ms.offsets()
	if err != nil {
		return nil, err
	}
	r := &MinHashReport{Documents: int(off[len(off)-1]), Sizes: map[string]int{}}
	for k := 0; k < ms.w.Tasks(minhashVerify); k++ {
		var c pairCounts
		if err := readJSON(ms.file(minhashVerify, k, "counts.json"), &c); err != nil {
			return nil, err
		}
		r.CandidatePairs += c.Pairs
		r.LinkedPairs += c.Linked
	}
	for k := 0; k < ms.w.Tasks(minhashLink); k++ {
		var part MinHashReport
		if err := readJSON(ms.file(minhashLink, k, "report.json"), &part); err != nil {
			return nil, err
		}
		for size, n := range part.Sizes {
			r.Sizes[size] += n
		}
		r.Clusters += part.Clusters
		r.InClusters += part.InClusters
		r.Largest = largest(append(r.Largest, part.Largest...))
	}
	return r, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
