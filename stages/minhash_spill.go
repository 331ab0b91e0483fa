package stages

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/pqio"
)

// sigSpill holds each signed document's position, id and signature for
// the passes that need signatures or ids, which read them back for the few
// documents they concern, so that the index holds only what banding needs
// (positions, lengths, band hashes). They stay in memory up to a budget;
// past it, everything goes to a Parquet intermediate. Documents are in the
// order batches were signed, which may differ from input order; the
// positions say where each belongs.
//
// A row of the intermediate holds a run of documents, not one: their
// positions (8 bytes each), ids and signatures (4 bytes a value), each
// packed into one binary value, little-endian. Written and read as a
// handful of large values, it costs much less than a row a document, where
// Parquet's per-value work was most of the cost of dedup.
type sigSpill struct {
	dir    string
	path   string
	k      int
	mem    memory.Allocator
	budget int64 // bytes held in memory at most

	mu        sync.Mutex
	held      []sigRun // before the intermediate is started
	heldBytes int64
	f         *os.File
	st        *pqio.Stitcher
	spilled   bool  // the documents are in the intermediate
	rows      int64 // documents added
}

// sigRun is one batch's documents.
type sigRun struct {
	pos  []uint64
	ids  []string
	sigs []uint32
}

var spillOptions = pqio.Options{Codec: pqio.Uncompressed, NoDictionary: []string{"pos", "id", "sig"}}

// spillSchema: each row is a run of documents. pos holds their positions,
// sig their signatures, id their ids, each as a uvarint of its length plus
// one (zero: no id) followed by its bytes.
var spillSchema = arrow.NewSchema([]arrow.Field{
	{Name: "pos", Type: arrow.BinaryTypes.Binary},
	{Name: "id", Type: arrow.BinaryTypes.Binary},
	{Name: "sig", Type: arrow.BinaryTypes.Binary},
}, nil)

// spillRunBytes bounds the signature bytes of a row, so that a value stays
// far below the largest page a Parquet reader accepts whatever NumPerm.
const spillRunBytes = 1 << 20

// newSigSpill returns a spill that holds up to budget bytes in memory and
// then writes its intermediate in a new directory under dir (the system's
// temporary directory when dir is empty).
func newSigSpill(dir string, k int, budget int64) (*sigSpill, error) {
	d, err := os.MkdirTemp(dir, "sluice-minhash-")
	if err != nil {
		return nil, fmt.Errorf("minhash spill: %w", err)
	}
	return &sigSpill{dir: d, path: filepath.Join(d, "signatures.parquet"), k: k, mem: memory.NewGoAllocator(), budget: budget}, nil
}

// add keeps one batch's documents: positions, ids and their signatures,
// k values each. The slices become the spill's.
func (s *sigSpill) add(pos []uint64, ids []string, sigs []uint32) error {
	if len(pos) == 0 {
		return nil
	}
	run := sigRun{pos: pos, ids: ids, sigs: slices.Clip(sigs[:len(pos)*s.k])}
	size := int64(8*len(pos) + 4*len(run.sigs))
	for _, id := range ids {
		size += int64(len(id)) + 16
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows += int64(len(pos))
	if !s.spilled && s.heldBytes+size <= s.budget {
		s.held = append(s.held, run)
		s.heldBytes += size
		return nil
	}
	for _, r := range s.held {
		if err := s.write(r); err != nil {
			return err
		}
	}
	s.held, s.heldBytes = nil, 0
	return s.write(run)
}

// write appends a run to the intermediate, which it starts if need be.
func (s *sigSpill) write(r sigRun) error {
	rec := s.encode(r)
	defer rec.Release()
	piece, err := pqio.EncodePiece(s.mem, rec, spillOptions, nil)
	if err != nil {
		return fmt.Errorf("minhash spill: %w", err)
	}
	if s.st == nil {
		if s.f, err = os.Create(s.path); err != nil {
			return fmt.Errorf("minhash spill: %w", err)
		}
		if s.st, err = pqio.NewStitcher(s.f, piece); err != nil {
			return fmt.Errorf("minhash spill: %w", err)
		}
		s.spilled = true
	}
	return s.st.Add(piece)
}

// encode lays out a run as rows of the intermediate.
func (s *sigSpill) encode(r sigRun) arrow.RecordBatch {
	pos, ids, sigs := r.pos, r.ids, r.sigs
	run := max(1, spillRunBytes/(4*s.k))
	rows := (len(pos) + run - 1) / run
	var posData, idData, sigData []byte
	posEnds, idEnds, sigEnds := make([]int32, 1, rows+1), make([]int32, 1, rows+1), make([]int32, 1, rows+1)
	posData = make([]byte, 0, 8*len(pos))
	sigData = make([]byte, 0, 4*len(sigs))
	for lo := 0; lo < len(pos); lo += run {
		hi := min(lo+run, len(pos))
		for i := lo; i < hi; i++ {
			posData = binary.LittleEndian.AppendUint64(posData, pos[i])
			if ids[i] == "" {
				idData = binary.AppendUvarint(idData, 0)
			} else {
				idData = binary.AppendUvarint(idData, uint64(len(ids[i]))+1)
				idData = append(idData, ids[i]...)
			}
		}
		for _, v := range sigs[lo*s.k : hi*s.k] {
			sigData = binary.LittleEndian.AppendUint32(sigData, v)
		}
		posEnds = append(posEnds, int32(len(posData)))
		idEnds = append(idEnds, int32(len(idData)))
		sigEnds = append(sigEnds, int32(len(sigData)))
	}
	cols := []arrow.Array{binaryArray(posEnds, posData), binaryArray(idEnds, idData), binaryArray(sigEnds, sigData)}
	rec := array.NewRecordBatch(spillSchema, cols, int64(rows))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// binaryArray is the binary array of the values data[ends[i]:ends[i+1]],
// without copying them.
func binaryArray(ends []int32, data []byte) arrow.Array {
	d := array.NewData(arrow.BinaryTypes.Binary, len(ends)-1,
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(ends)), memory.NewBufferBytes(data)}, nil, 0, 0)
	defer d.Release()
	return array.MakeFromData(d)
}

// finish writes the intermediate's footer, if there is one; reads may
// follow.
func (s *sigSpill) finish() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st == nil {
		return nil
	}
	err := s.st.Close()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	s.st = nil
	return err
}

// each calls fn for every document in the intermediate, in the order they
// were written. The id and signature are valid during the call only.
func (s *sigSpill) each(fn func(pos uint64, id string, sig []uint32)) error {
	if !s.spilled {
		for _, r := range s.held {
			for i, p := range r.pos {
				fn(p, r.ids[i], r.sigs[i*s.k:(i+1)*s.k])
			}
		}
		return nil
	}
	r, err := pqio.Open(s.mem, s.path, 1)
	if err != nil {
		return err
	}
	defer r.Close()
	sig := make([]uint32, s.k)
	for {
		rec, err := r.Next(context.Background())
		if err != nil {
			return err
		}
		if rec == nil {
			return nil
		}
		err = s.eachOf(rec, sig, fn)
		rec.Release()
		if err != nil {
			return err
		}
	}
}

// eachOf calls fn for every document of the rows of rec.
func (s *sigSpill) eachOf(rec arrow.RecordBatch, sig []uint32, fn func(pos uint64, id string, sig []uint32)) error {
	posCol := rec.Column(0).(*array.Binary)
	idCol := rec.Column(1).(*array.Binary)
	sigCol := rec.Column(2).(*array.Binary)
	for row := 0; row < int(rec.NumRows()); row++ {
		pos, ids, sigs := posCol.Value(row), idCol.Value(row), sigCol.Value(row)
		if len(pos)%8 != 0 || len(sigs) != len(pos)/8*4*s.k {
			return fmt.Errorf("minhash spill %s: row %d holds %d bytes of positions and %d of signatures", s.path, row, len(pos), len(sigs))
		}
		for ; len(pos) > 0; pos, sigs = pos[8:], sigs[4*s.k:] {
			n, w := binary.Uvarint(ids)
			if w <= 0 || n > uint64(len(ids)-w)+1 {
				return fmt.Errorf("minhash spill %s: row %d: bad id", s.path, row)
			}
			id := ""
			if n > 1 { // valid during the call only, as each says
				id = unsafe.String(&ids[w], int(n-1))
			}
			ids = ids[w+int(max(n, 1)-1):]
			for j := range sig {
				sig[j] = binary.LittleEndian.Uint32(sigs[4*j:])
			}
			fn(binary.LittleEndian.Uint64(pos), id, sig)
		}
	}
	return nil
}

// remove deletes the intermediate.
func (s *sigSpill) remove() error {
	s.finish()
	return os.RemoveAll(s.dir)
}
