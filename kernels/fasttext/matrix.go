package fasttext

import "fmt"

// ksub is the number of centroids of every product-quantizer subspace.
const ksub = 256

// matrix is fastText's DenseMatrix or QuantMatrix: rows of cols floats,
// either stored as is or as product-quantizer codes.
type matrix struct {
	rows, cols int64
	dense      []float32 // rows*cols values, when not quantized
	quant      *quantMatrix
}

// quantMatrix is a product-quantized matrix: row i is the concatenation of
// the centroids its nsubq codes name, times the row's quantized norm when
// the norms are quantized separately.
type quantMatrix struct {
	// decoded holds every row decoded, when the matrix is small enough
	// (decodeLimit): adding a row is then a plain vector add, with the
	// same float32 products as decoding it on the fly.
	decoded   []float32
	codes     []uint8 // nsubq codes per row
	pq        productQuantizer
	qnorm     bool
	normCodes []uint8 // one per row, when qnorm
	npq       productQuantizer
}

// productQuantizer splits a dim-vector into nsubq subvectors of dsub
// values (the last one of lastdsub) with 256 centroids each.
type productQuantizer struct {
	dim, nsubq, dsub, lastdsub int32
	centroids                  []float32
}

func readDense(r *reader) matrix {
	m := matrix{rows: r.int64(), cols: r.int64()}
	if r.err != nil {
		return m
	}
	if m.rows < 0 || m.cols < 0 || (m.cols > 0 && m.rows > (1<<62)/m.cols) {
		r.fail("matrix of %d x %d", m.rows, m.cols)
		return m
	}
	m.dense = r.floats(m.rows * m.cols)
	return m
}

func readQuant(r *reader) matrix {
	q := &quantMatrix{qnorm: r.bool()}
	m := matrix{rows: r.int64(), cols: r.int64(), quant: q}
	codesize := r.int32()
	if r.err != nil {
		return m
	}
	if m.rows < 0 || m.cols <= 0 || codesize < 0 {
		r.fail("quantized matrix of %d x %d with %d codes", m.rows, m.cols, codesize)
		return m
	}
	q.codes = r.bytes(int64(codesize))
	q.pq = readPQ(r)
	if r.err != nil {
		return m
	}
	if int64(q.pq.dim) != m.cols {
		r.fail("product quantizer of dimension %d for a matrix of %d columns", q.pq.dim, m.cols)
	}
	if int64(codesize) != m.rows*int64(q.pq.nsubq) {
		r.fail("%d codes for %d rows of %d subquantizers", codesize, m.rows, q.pq.nsubq)
	}
	if q.qnorm {
		q.normCodes = r.bytes(m.rows)
		q.npq = readPQ(r)
		if r.err == nil && (q.npq.dim != 1 || q.npq.nsubq != 1 || q.npq.lastdsub != 1) {
			r.fail("norm quantizer of dimension %d, %d subquantizers", q.npq.dim, q.npq.nsubq)
		}
	}
	return m
}

func readPQ(r *reader) productQuantizer {
	p := productQuantizer{dim: r.int32(), nsubq: r.int32(), dsub: r.int32(), lastdsub: r.int32()}
	if r.err != nil {
		return p
	}
	if p.dim <= 0 || p.nsubq <= 0 || p.dsub <= 0 || p.lastdsub <= 0 || p.lastdsub > p.dsub ||
		int64(p.dsub)*int64(p.nsubq-1)+int64(p.lastdsub) != int64(p.dim) {
		r.fail("product quantizer with dim %d, %d subquantizers of %d (last %d)", p.dim, p.nsubq, p.dsub, p.lastdsub)
		return p
	}
	p.centroids = r.floats(int64(p.dim) * ksub)
	return p
}

func (m *matrix) String() string {
	if m.quant != nil {
		return fmt.Sprintf("quantized %d x %d (%d subquantizers, norms quantized: %v)", m.rows, m.cols, m.quant.pq.nsubq, m.quant.qnorm)
	}
	return fmt.Sprintf("dense %d x %d", m.rows, m.cols)
}

// centroid returns centroid i of subspace m (fastText's get_centroids).
func (p *productQuantizer) centroid(m int32, i uint8) []float32 {
	if m == p.nsubq-1 {
		off := int(m)*ksub*int(p.dsub) + int(i)*int(p.lastdsub)
		return p.centroids[off : off+int(p.lastdsub)]
	}
	off := (int(m)*ksub + int(i)) * int(p.dsub)
	return p.centroids[off : off+int(p.dsub)]
}

func (q *quantMatrix) norm(i int64) float32 {
	if !q.qnorm {
		return 1
	}
	return q.npq.centroids[q.normCodes[i]]
}

// decodeLimit is the largest quantized matrix, in floats, that is decoded
// when loaded (lid.176.ftz's input matrix is 800,000).
const decodeLimit = 16 << 20

// decode fills q.decoded with every row.
func (m *matrix) decode() {
	q := m.quant
	if q == nil || m.rows*m.cols > decodeLimit {
		return
	}
	d := make([]float32, m.rows*m.cols)
	for i := range m.rows {
		m.addQuantRow(d[i*m.cols:(i+1)*m.cols], i)
	}
	q.decoded = d
}

// addRow adds row i to x (fastText's addRowToVector).
func (m *matrix) addRow(x []float32, i int64) {
	if q := m.quant; q != nil && q.decoded == nil {
		m.addQuantRow(x, i)
		return
	}
	var row []float32
	if m.quant != nil {
		row = m.quant.decoded[i*m.cols : (i+1)*m.cols]
	} else {
		row = m.dense[i*m.cols : (i+1)*m.cols]
	}
	x = x[:len(row)]
	for j, v := range row {
		x[j] += v
	}
}

// addQuantRow adds alpha times the centroids of row i to x, each product
// rounded to float32 before the sum (as fastText's addcode computes it,
// and as the decoded rows store it).
func (m *matrix) addQuantRow(x []float32, i int64) {
	q := m.quant
	alpha := q.norm(i)
	p := &q.pq
	nsubq, dsub := int(p.nsubq), int(p.dsub)
	code := q.codes[int(i)*nsubq : int(i)*nsubq+nsubq]
	if dsub == 2 && p.lastdsub == 2 && len(x) >= 2*nsubq {
		// The layout `fasttext quantize` uses by default.
		c := p.centroids
		for sub, k := range code {
			off := (sub*ksub + int(k)) * 2
			x[2*sub] += float32(alpha * c[off])
			x[2*sub+1] += float32(alpha * c[off+1])
		}
		return
	}
	for sub := range nsubq {
		c := p.centroid(int32(sub), code[sub])
		xs := x[sub*dsub : sub*dsub+len(c)]
		for n := range c {
			xs[n] += float32(alpha * c[n])
		}
	}
}

// dotRow returns the dot product of row i and x (fastText's dotRow).
func (m *matrix) dotRow(x []float32, i int64) float32 {
	if q := m.quant; q != nil {
		alpha := q.norm(i)
		p := &q.pq
		nsubq, dsub := int(p.nsubq), int(p.dsub)
		code := q.codes[int(i)*nsubq : int(i)*nsubq+nsubq]
		var res float32
		for sub := range nsubq {
			c := p.centroid(int32(sub), code[sub])
			xs := x[sub*dsub : sub*dsub+len(c)]
			for n := range c {
				res += float32(xs[n] * c[n])
			}
		}
		return res * alpha
	}
	row := m.dense[i*m.cols : (i+1)*m.cols]
	x = x[:len(row)]
	var d float32
	for j, v := range row {
		d += float32(v * x[j])
	}
	return d
}
