package scaleout

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/kernels/minhash"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/stages"
)

// MinHash dedup as phases. minhash-sign writes, per shard and in input
// order, each signed document's position, id, length, band hashes and
// signature: a document's number is its shard's offset (the documents
// signed by earlier shards) plus its row there, the same number one
// process gives it. Each minhash-bucket task sorts (hash, document) for
// its bands over all shards and writes the candidate pairs. Each
// minhash-features task collects what verifying needs (shingle sets, or
// signatures) for the candidates of its shard. The rest is link.go:
// verify, components, and link (the kept documents); a later phase reads
// the clustered documents of its shard as the filter's clusters.

func signedSchema(p stages.MinHashParams) *arrow.Schema {
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

func (t *task) phaseFile(k Kind, stage, i int, name string) string {
	return filepath.Join(t.plan.workDir(t.plan.phaseOf(k, stage), i), name)
}

func (t *task) minhashParams(g int) (stages.MinHashParams, error) {
	st, err := t.build(g)
	if err != nil {
		return stages.MinHashParams{}, err
	}
	defer st.Close()
	return st.(*stages.GlobalMinHash).Index().Params(), nil
}

// signedWriter is the signing pass's sink: it encodes each batch's
// documents on the worker and appends them in input order.
type signedWriter struct {
	w      *pqWriter
	schema *arrow.Schema
	mem    memory.Allocator
}

func (sw *signedWriter) AddSigned(ctx context.Context, sb stages.SignedBatch) error {
	b := array.NewRecordBuilder(sw.mem, sw.schema)
	defer b.Release()
	b.Field(0).(*array.Uint64Builder).AppendValues(sb.Pos, nil)
	ids := b.Field(1).(*array.StringBuilder)
	for _, id := range sb.IDs {
		appendID(ids, id)
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
	if err := pipeline.InOrder(ctx, func() { addErr = sw.w.Add(piece, len(sb.Pos)) }); err != nil {
		return err
	}
	return addErr
}

func (t *task) minhashSign() error {
	s, g := t.index, t.phase.Stage
	p, err := t.minhashParams(g)
	if err != nil {
		return err
	}
	sts, err := t.shardStages(s, g)
	if err != nil {
		return err
	}
	schema := signedSchema(p)
	w, err := createParquet(t.mem, t.phaseFile(MinHashSign, g, s, "signed.parquet"), schema)
	if err != nil {
		return err
	}
	signer, err := stages.NewMinHashSigner(t.file.TextField, p, &signedWriter{w: w, schema: schema, mem: t.mem})
	if err != nil {
		w.Abort()
		return err
	}
	if _, err := t.pass(s, append(sts, signer), discard); err != nil {
		w.Abort()
		return err
	}
	return w.Commit()
}

// offsets returns the number of documents signed before each shard, and
// the total last.
// minhashSetup returns the parameters of MinHash stage g and its
// documents' offsets by shard.
func (t *task) minhashSetup(g int) (stages.MinHashParams, []int64, error) {
	p, err := t.minhashParams(g)
	if err != nil {
		return p, nil, err
	}
	off, err := t.offsets(g)
	return p, off, err
}

func (t *task) offsets(g int) ([]int64, error) {
	off := make([]int64, len(t.plan.Shards)+1)
	for s := range t.plan.Shards {
		n, err := parquetRows(t.mem, t.phaseFile(MinHashSign, g, s, "signed.parquet"))
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

func (t *task) minhashBucket() error {
	r, g := t.index, t.phase.Stage
	p, off, err := t.minhashSetup(g)
	if err != nil {
		return err
	}
	lo, hi := bandRange(p.Bands, r, t.phase.Tasks)
	entries := make([][]minhash.BucketEntry, hi-lo)
	for band := range entries {
		entries[band] = make([]minhash.BucketEntry, 0, off[len(off)-1])
	}
	for s := range t.plan.Shards {
		doc := int32(off[s])
		err := readParquet(t.mem, t.phaseFile(MinHashSign, g, s, "signed.parquet"), []string{"bands"}, func(rec arrow.RecordBatch) error {
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
	return t.writePairs(t.phaseFile(MinHashBucket, g, r, "pairs.parquet"), minhash.SortPairs(pairs))
}

func (t *task) writePairs(path string, pairs [][2]int32) error {
	w, err := createParquet(t.mem, path, pairSchema)
	if err != nil {
		return err
	}
	for start := 0; start < len(pairs) || start == 0; start += 64 << 10 {
		b := array.NewRecordBuilder(t.mem, pairSchema)
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
func (t *task) eachPair(g int, fn func(a, b int32)) error {
	for r := 0; r < t.plan.phaseOf(MinHashBucket, g).Tasks; r++ {
		err := readParquet(t.mem, t.phaseFile(MinHashBucket, g, r, "pairs.parquet"), nil, func(rec arrow.RecordBatch) error {
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
func (t *task) eachSigned(g, s int, withSig bool, want func(rank int64) bool, fn func(rank int64, d signedDoc)) error {
	cols := []string{"pos", "id", "len"}
	if withSig {
		cols = append(cols, "sig")
	}
	var rank int64
	return readParquet(t.mem, t.phaseFile(MinHashSign, g, s, "signed.parquet"), cols, func(rec arrow.RecordBatch) error {
		pos, ids, lens := rec.Column(0).(*array.Uint64), rec.Column(1).(*array.String), rec.Column(2).(*array.Uint32)
		for i := 0; i < pos.Len(); i, rank = i+1, rank+1 {
			if !want(rank) {
				continue
			}
			d := signedDoc{pos: pos.Value(i), id: idAt(ids, i), len: lens.Value(i)}
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

func (t *task) minhashFeatures() error {
	s, g := t.index, t.phase.Stage
	p, off, err := t.minhashSetup(g)
	if err != nil {
		return err
	}
	lo, hi := int32(off[s]), int32(off[s+1])
	needed := map[int32]bool{}
	err = t.eachPair(g, func(a, b int32) {
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
	err = t.eachSigned(g, s, p.Verify == "signature", func(rank int64) bool { return needed[lo+int32(rank)] },
		func(rank int64, d signedDoc) {
			docs[lo+int32(rank)] = d
			byPos[d.pos] = lo + int32(rank)
		})
	if err != nil {
		return err
	}
	if p.Verify == "jaccard" && len(needed) > 0 {
		x, err := stages.NewMinHashIndex(p)
		if err != nil {
			return err
		}
		x.Need(byPos)
		sts, err := t.shardStages(s, g)
		if err != nil {
			return err
		}
		if _, err := t.pass(s, append(sts, stages.NewMinHashShingles(t.file.TextField, x)), discard); err != nil {
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
	b := array.NewRecordBuilder(t.mem, featureSchema)
	defer b.Release()
	var raw []byte
	for _, doc := range order {
		d := docs[doc]
		b.Field(0).(*array.Int32Builder).Append(doc)
		appendID(b.Field(1).(*array.StringBuilder), d.id)
		b.Field(2).(*array.Uint32Builder).Append(d.len)
		raw = raw[:0]
		for _, v := range d.sig {
			raw = binary.LittleEndian.AppendUint32(raw, v)
		}
		b.Field(3).(*array.BinaryBuilder).Append(raw)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return writeOne(t, t.phaseFile(MinHashFeatures, g, s, "features.parquet"), featureSchema, rec)
}

// clusterMap is the clusters of one shard's documents, by position.
type clusterMap map[uint64]stages.Membership

func (c clusterMap) Cluster(pos uint64) (stages.Membership, bool) {
	m, ok := c[pos]
	return m, ok
}

// shardClusters reads the clusters of shard s's documents for the
// filter of MinHash stage g.
func (t *task) shardClusters(s, g int, p stages.MinHashParams) (stages.ClusterLookup, error) {
	off, err := t.offsets(g)
	if err != nil {
		return nil, err
	}
	lo, hi := int32(off[s]), int32(off[s+1])
	byRank := map[int64]stages.Membership{}
	for k := 0; k < t.plan.phaseOf(MinHashLink, g).Tasks; k++ {
		err = readParquet(t.mem, t.phaseFile(MinHashLink, g, k, "clusters.parquet"), nil, func(rec arrow.RecordBatch) error {
			doc, cluster, size := rec.Column(0).(*array.Int32), rec.Column(1).(*array.Int32), rec.Column(2).(*array.Int32)
			kept := rec.Column(3).(*array.String)
			for i := 0; i < doc.Len(); i++ {
				if d := doc.Value(i); d >= lo && d < hi {
					byRank[int64(d-lo)] = stages.Membership{Cluster: int64(cluster.Value(i)), Size: int64(size.Value(i)),
						Kept: cluster.Value(i) == d, KeptID: idAt(kept, i)}
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
	err = t.eachSigned(g, s, false, func(rank int64) bool { _, ok := byRank[rank]; return ok },
		func(rank int64, d signedDoc) { clusters[d.pos] = byRank[rank] })
	return clusters, err
}
