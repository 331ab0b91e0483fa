package scaleout

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/kernels/minhash"
	"github.com/sluice-data/sluice/stages"
)

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
func (t *task) eachFeature(g int, want func(doc int32) bool, fn func(doc int32, f feature)) error {
	for s := range t.plan.Shards {
		err := readParquet(t.mem, t.phaseFile(MinHashFeatures, g, s, "features.parquet"), nil, func(rec arrow.RecordBatch) error {
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
				fn(doc.Value(i), feature{id: idAt(id, i), len: ln.Value(i), vals: vals})
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (t *task) minhashVerify() error {
	k, g := t.index, t.phase.Stage
	p, off, err := t.minhashSetup(g)
	if err != nil {
		return err
	}
	n, tasks := off[len(off)-1], int64(t.phase.Tasks)
	lo, hi := int32(n*int64(k)/tasks), int32(n*int64(k+1)/tasks)
	var pairs [][2]int32
	err = t.eachPair(g, func(a, b int32) {
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
	if err := t.eachFeature(g, func(d int32) bool { return needed[d] }, func(d int32, f feature) { feats[d] = f.vals }); err != nil {
		return err
	}
	b := array.NewRecordBuilder(t.mem, verifiedSchema)
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
	if err := writeOne(t, t.phaseFile(MinHashVerify, g, k, "verified.parquet"), verifiedSchema, rec); err != nil {
		return err
	}
	js, _ := json.Marshal(counts)
	return dataset.WriteFile(t.phaseFile(MinHashVerify, g, k, "counts.json"), js)
}

func (t *task) minhashComponents() error {
	g := t.phase.Stage
	var cands []int32
	if err := t.eachFeature(g, func(int32) bool { return true }, func(d int32, _ feature) { cands = append(cands, d) }); err != nil {
		return err
	}
	slices.Sort(cands) // shards come in order, each sorted: already sorted
	local := func(d int32) int32 {
		i, _ := slices.BinarySearch(cands, d)
		return int32(i)
	}
	uf := minhash.NewUnionFind(len(cands))
	for k := 0; k < t.plan.phaseOf(MinHashVerify, g).Tasks; k++ {
		err := readParquet(t.mem, t.phaseFile(MinHashVerify, g, k, "verified.parquet"), nil, func(rec arrow.RecordBatch) error {
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
	w, err := t.newRowWriter(t.phaseFile(MinHashComponents, g, 0, "components.parquet"), componentSchema)
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

func (t *task) minhashLink() error {
	k, g := t.index, t.phase.Stage
	p, err := t.minhashParams(g)
	if err != nil {
		return err
	}
	tasks := int32(t.phase.Tasks)
	// The members of this task's components, in input order.
	var docs []int32
	components := map[int32][]int32{} // root -> indexes into docs
	err = readParquet(t.mem, t.phaseFile(MinHashComponents, g, 0, "components.parquet"), nil, func(rec arrow.RecordBatch) error {
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
	err = t.eachFeature(g, func(d int32) bool { _, ok := slices.BinarySearch(docs, d); return ok }, func(d int32, f feature) {
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
	report := stages.MinHashReport{Sizes: map[string]int{}}
	b := array.NewRecordBuilder(t.mem, clusterSchema)
	defer b.Release()
	for i, r := range rep {
		if size[r] < 2 {
			continue
		}
		b.Field(0).(*array.Int32Builder).Append(docs[i])
		b.Field(1).(*array.Int32Builder).Append(docs[r])
		b.Field(2).(*array.Int32Builder).Append(size[r])
		appendID(b.Field(3).(*array.StringBuilder), feats[r].id)
		if int32(i) == r {
			report.Clusters++
			report.InClusters += int(size[r])
			report.Sizes[strconv.Itoa(int(size[r]))]++
			report.Largest = append(report.Largest, stages.ClusterSnippet{Cluster: int64(docs[r]), Size: int(size[r]), KeptID: feats[r].id})
		}
	}
	report.Largest = largest(report.Largest)
	rec := b.NewRecordBatch()
	defer rec.Release()
	if err := writeOne(t, t.phaseFile(MinHashLink, g, k, "clusters.parquet"), clusterSchema, rec); err != nil {
		return err
	}
	js, err := json.Marshal(report)
	if err != nil {
		return err
	}
	return dataset.WriteFile(t.phaseFile(MinHashLink, g, k, "report.json"), js)
}

// largest returns the ten largest clusters of cs (ties: the earlier
// first), as one process's report lists them.
func largest(cs []stages.ClusterSnippet) []stages.ClusterSnippet {
	slices.SortFunc(cs, func(a, b stages.ClusterSnippet) int {
		if a.Size != b.Size {
			return b.Size - a.Size
		}
		return int(a.Cluster - b.Cluster)
	})
	return cs[:min(len(cs), 10)]
}

// readReport merges the report of MinHash stage g from its link tasks and
// the pair counts of its verify tasks.
func (t *task) readReport(g int) (*stages.MinHashReport, error) {
	off, err := t.offsets(g)
	if err != nil {
		return nil, err
	}
	r := &stages.MinHashReport{Documents: int(off[len(off)-1]), Sizes: map[string]int{}}
	for k := 0; k < t.plan.phaseOf(MinHashVerify, g).Tasks; k++ {
		var c pairCounts
		if err := readJSON(t.phaseFile(MinHashVerify, g, k, "counts.json"), &c); err != nil {
			return nil, err
		}
		r.CandidatePairs += c.Pairs
		r.LinkedPairs += c.Linked
	}
	for k := 0; k < t.plan.phaseOf(MinHashLink, g).Tasks; k++ {
		var part stages.MinHashReport
		if err := readJSON(t.phaseFile(MinHashLink, g, k, "report.json"), &part); err != nil {
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
