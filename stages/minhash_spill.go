package stages

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/pqio"
)

// sigSpill is the Parquet intermediate of MinHash dedup: the signing pass
// writes each document's position, id and signature there, so that memory
// holds only what banding needs (positions, lengths, band hashes), and the
// passes that need signatures or ids read them back for the few documents
// they concern. Rows are in the order batches were signed, which may differ
// from input order; the position column says where each belongs.
type sigSpill struct {
	dir  string
	path string
	k    int
	mem  memory.Allocator

	mu   sync.Mutex
	f    *os.File
	st   *pqio.Stitcher
	rows int64
}

var spillOptions = pqio.Options{Codec: pqio.Uncompressed, NoDictionary: []string{"id", "sig"}}

func spillSchema(k int) *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "pos", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "sig", Type: &arrow.FixedSizeBinaryType{ByteWidth: 4 * k}},
	}, nil)
}

// newSigSpill creates the intermediate in a new directory under dir
// (the system's temporary directory when dir is empty).
func newSigSpill(dir string, k int) (*sigSpill, error) {
	d, err := os.MkdirTemp(dir, "sluice-minhash-")
	if err != nil {
		return nil, fmt.Errorf("minhash spill: %w", err)
	}
	return &sigSpill{dir: d, path: filepath.Join(d, "signatures.parquet"), k: k, mem: memory.NewGoAllocator()}, nil
}

// add writes one batch's documents: positions, ids and their signatures,
// k values each.
func (s *sigSpill) add(pos []uint64, ids []string, sigs []uint32) error {
	if len(pos) == 0 {
		return nil
	}
	b := array.NewRecordBuilder(s.mem, spillSchema(s.k))
	defer b.Release()
	b.Field(0).(*array.Uint64Builder).AppendValues(pos, nil)
	idb := b.Field(1).(*array.StringBuilder)
	sb := b.Field(2).(*array.FixedSizeBinaryBuilder)
	raw := make([]byte, 4*s.k)
	for i := range pos {
		if ids[i] == "" {
			idb.AppendNull()
		} else {
			idb.Append(ids[i])
		}
		for j, v := range sigs[i*s.k : (i+1)*s.k] {
			binary.LittleEndian.PutUint32(raw[4*j:], v)
		}
		sb.Append(raw)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	piece, err := pqio.EncodePiece(s.mem, rec, spillOptions, nil)
	if err != nil {
		return fmt.Errorf("minhash spill: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st == nil {
		if s.f, err = os.Create(s.path); err != nil {
			return fmt.Errorf("minhash spill: %w", err)
		}
		if s.st, err = pqio.NewStitcher(s.f, piece); err != nil {
			return fmt.Errorf("minhash spill: %w", err)
		}
	}
	s.rows += int64(len(pos))
	return s.st.Add(piece)
}

// finish writes the intermediate's footer; reads may follow.
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
	if s.rows == 0 {
		return nil
	}
	r, err := pqio.Open(s.mem, s.path, 8192)
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
		pos := rec.Column(0).(*array.Uint64)
		ids := rec.Column(1).(*array.String)
		sigs := rec.Column(2).(*array.FixedSizeBinary)
		for i := 0; i < int(rec.NumRows()); i++ {
			raw := sigs.Value(i)
			for j := range sig {
				sig[j] = binary.LittleEndian.Uint32(raw[4*j:])
			}
			id := ""
			if ids.IsValid(i) {
				id = ids.Value(i)
			}
			fn(pos.Value(i), id, sig)
		}
		rec.Release()
	}
}

// remove deletes the intermediate.
func (s *sigSpill) remove() error {
	s.finish()
	return os.RemoveAll(s.dir)
}
