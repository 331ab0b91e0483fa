package diff

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/pqio"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/pipeline/shard"
	"github.com/sluice-data/sluice/provenance"
	"github.com/zeebo/xxh3"
)

// The values of the _diff column of --rows-out.
const (
	OnlyA   = "only_a"
	OnlyB   = "only_b"
	Changed = "changed"
)

// DiffColumn is the column that tells, in the rows written to RowsOut,
// how each row differs.
const DiffColumn = "_diff"

// DefaultPartitionRows is the default Options.PartitionRows.
const DefaultPartitionRows = 1 << 19

// Rows is what the row comparison found.
type Rows struct {
	// Key is how rows were matched: "id" (the IDField column) or
	// "content" (a hash of the text).
	Key      string   `json:"key"`
	RowsA    int64    `json:"rows_a"`
	RowsB    int64    `json:"rows_b"`
	Same     int64    `json:"same"`
	OnlyA    int64    `json:"only_a"`
	OnlyB    int64    `json:"only_b"`
	Changed  int64    `json:"changed"`
	Examples Examples `json:"examples"`
	// NotCompared tells what the versions' columns do not let the rows
	// comparison compare: texts, when a version has no text column, or
	// the rows themselves (only counted then), when they can be matched
	// neither by id nor by text.
	NotCompared string `json:"not_compared,omitempty"`
	// RowsOut are the Parquet files written (Options.RowsOut).
	RowsOut []string `json:"rows_out,omitempty"`
	// Partitions is the number of spill partitions the keys were split
	// into.
	Partitions int `json:"partitions"`
}

// Examples are the first rows of each kind, in the order of the version
// that holds them (changed rows in B's order).
type Examples struct {
	OnlyA   []Example        `json:"only_a"`
	OnlyB   []Example        `json:"only_b"`
	Changed []ChangedExample `json:"changed"`
}

// Example is a row only one version has. Row counts the version's data
// rows from 1, in file order.
type Example struct {
	ID   string `json:"id"`
	Row  int64  `json:"row"`
	Text string `json:"text"`
}

// ChangedExample is a row whose text changed: A's and B's text around the
// first difference.
type ChangedExample struct {
	ID    string `json:"id"`
	RowA  int64  `json:"row_a"`
	RowB  int64  `json:"row_b"`
	TextA string `json:"text_a"`
	TextB string `json:"text_b"`
}

// The spill files: one row per data row of either version.
var spillSchema = arrow.NewSchema([]arrow.Field{
	{Name: "key", Type: arrow.BinaryTypes.Binary},
	{Name: "side", Type: arrow.PrimitiveTypes.Uint8},
	{Name: "row", Type: arrow.PrimitiveTypes.Int64},
	{Name: "hi", Type: arrow.PrimitiveTypes.Uint64},
	{Name: "lo", Type: arrow.PrimitiveTypes.Uint64},
}, nil)

// rowDiff is one row comparison under way.
type rowDiff struct {
	opts  Options
	mem   memory.Allocator
	byID  bool
	parts int
	dir   string
	files [2][]string
	marks [2]marks
	rows  *Rows
	pairs []pair // the first changed pairs, by B's row
	nEx   int
	texts map[[2]int64]string // side, row -> text, of the changed examples
	idsOf map[int64]string    // B row -> id, of the changed examples
	// noText is set when a version has no text column: rows matched by
	// id are then the same whatever their texts.
	noText bool
	out    *dataset.Output // where RowsOut is staged
}

// columns tells which of the compared columns a version has.
type columns struct{ id, text bool }

// marks tell, per row of a version, whether it is only there or changed.
type marks struct{ only, changed []uint64 }

func (m *marks) grow(n int64) {
	words := int((n + 63) / 64)
	m.only = make([]uint64, words)
	m.changed = make([]uint64, words)
}

func set(bits []uint64, i int64)        { bits[i/64] |= 1 << (i % 64) }
func isSet(bits []uint64, i int64) bool { return bits[i/64]&(1<<(i%64)) != 0 }

type pair struct{ a, b int64 }

// compareRows compares the rows of a and b; out, when not nil, is where
// the rows that differ are written (Options.RowsOut), committed once
// whole.
func compareRows(ctx context.Context, a, b Version, opts Options, out *dataset.Output) (*Rows, error) {
	if opts.IDField == "" {
		opts.IDField = "id"
	}
	if opts.TextField == "" {
		opts.TextField = pipeline.DefaultTextField
	}
	if opts.PartitionRows <= 0 {
		opts.PartitionRows = DefaultPartitionRows
	}
	d := &rowDiff{opts: opts, mem: opts.Mem, out: out, nEx: max(opts.Examples, 0), texts: map[[2]int64]string{}, idsOf: map[int64]string{},
		rows: &Rows{Examples: Examples{OnlyA: []Example{}, OnlyB: []Example{}, Changed: []ChangedExample{}}}}
	if d.mem == nil {
		d.mem = memory.DefaultAllocator
	}
	for i, v := range []Version{a, b} {
		d.files[i] = provenance.Files(v.M, v.Root, false)
		for _, f := range d.files[i] {
			if _, err := os.Stat(f); err != nil {
				return nil, fmt.Errorf("%s: a data file of %s: %w (give --no-rows to compare the manifests alone)", f, v.Path, err)
			}
		}
	}
	var cols [2]columns
	for i := range cols {
		var err error
		if cols[i], err = d.columnsOf(d.files[i]); err != nil {
			return nil, err
		}
	}
	d.byID = cols[0].id && cols[1].id && !opts.ByContent
	d.noText = !cols[0].text || !cols[1].text
	d.rows.Key = "content"
	if d.byID {
		d.rows.Key = "id"
	}
	d.rows.NotCompared = d.notCompared(cols)
	if d.noText && !d.byID {
		d.rows.Key = "none"
		return d.rows, d.count(ctx)
	}
	total := a.M.Counts.RowsOut + b.M.Counts.RowsOut
	d.parts = int(max(1, (total+int64(opts.PartitionRows)-1)/int64(opts.PartitionRows)))
	d.rows.Partitions = d.parts
	var err error
	if d.dir, err = os.MkdirTemp(opts.TempDir, "sluice-diff-"); err != nil {
		return nil, err
	}
	defer os.RemoveAll(d.dir)
	if err := d.spill(ctx); err != nil {
		return nil, err
	}
	for p := 0; p < d.parts; p++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := d.match(p); err != nil {
			return nil, err
		}
	}
	if err := d.collect(ctx); err != nil {
		return nil, err
	}
	if d.out != nil {
		// The manifest lists a.parquet and b.parquet, so that the folder is
		// known as sluice's (and never mistaken for a user's).
		m := &dataset.Manifest{Tool: "sluice", Command: []string{"sluice", "diff"},
			Options: map[string]any{"rows_out": true, "text_field": d.opts.TextField, "id_field": d.opts.IDField}}
		if err := d.out.Commit(m); err != nil {
			return nil, err
		}
	}
	return d.rows, nil
}

// columnsOf tells which of the id and text columns the data files have.
func (d *rowDiff) columnsOf(files []string) (columns, error) {
	id, err := hasColumn(files, d.opts.IDField)
	if err != nil {
		return columns{}, err
	}
	text, err := hasColumn(files, d.opts.TextField)
	return columns{id: id, text: text}, err
}

// notCompared says what the columns of the versions do not let the
// comparison compare, "" when nothing.
func (d *rowDiff) notCompared(cols [2]columns) string {
	noText := sidesWithout(cols, func(c columns) bool { return !c.text })
	if noText == "" {
		return ""
	}
	if d.byID {
		return fmt.Sprintf("%s no text column (%s): rows are matched by id (%s), their texts are not compared", noText, d.opts.TextField, d.opts.IDField)
	}
	why := "--by-content matches rows by their text"
	if !d.opts.ByContent {
		why = fmt.Sprintf("%s no id column (%s) to match rows by", sidesWithout(cols, func(c columns) bool { return !c.id }), d.opts.IDField)
	}
	note := fmt.Sprintf("%s no text column (%s) and %s: the rows cannot be matched, only counted", noText, d.opts.TextField, why)
	if d.opts.RowsOut != "" {
		note += "; --rows-out writes nothing"
	}
	return note
}

// sidesWithout names the versions whose columns lack what lacks tells:
// "A has", "B has", "A and B have", or "".
func sidesWithout(cols [2]columns, lacks func(columns) bool) string {
	switch a, b := lacks(cols[0]), lacks(cols[1]); {
	case a && b:
		return "A and B have"
	case a:
		return "A has"
	case b:
		return "B has"
	}
	return ""
}

// count counts the data rows of both versions, for a comparison that
// cannot match them.
func (d *rowDiff) count(ctx context.Context) error {
	for side, n := range []*int64{&d.rows.RowsA, &d.rows.RowsB} {
		err := provenance.ReadRows(ctx, d.mem, d.files[side], []string{d.opts.IDField, d.opts.TextField}, func(b *pipeline.Batch) error {
			*n += b.Rec.NumRows()
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// beginRowsOut begins the output of Options.RowsOut, a dataset output
// of its own: refused when it is, holds or lies in a or b, staged until
// both files are whole.
func beginRowsOut(ctx context.Context, a, b Version, dir string) (*dataset.Output, error) {
	t := dataset.Target{Path: filepath.Clean(dir), Kind: dataset.Directory}
	var sources input.Set
	for _, v := range []Version{a, b} {
		s := provenance.Sources(v.M, v.Manifest, v.Root, false)
		sources.Files = append(sources.Files, s.Files...)
		sources.Dirs = append(sources.Dirs, s.Dirs...)
	}
	if err := t.Check(sources); err != nil {
		return nil, fmt.Errorf("--rows-out: %w", err)
	}
	out, err := dataset.Begin(ctx, t, false)
	if err != nil {
		return nil, fmt.Errorf("--rows-out: %w", err)
	}
	return out, nil
}

func (d *rowDiff) partPath(p int) string {
	return filepath.Join(d.dir, fmt.Sprintf("part-%05d.parquet", p))
}

// keyOf returns the key a row is matched by: "i" and its id, or "c" and
// the hash of its text (rows without an id are matched by their text).
func (d *rowDiff) keyOf(buf []byte, ids arrow.Array, i int, h xxh3.Uint128) []byte {
	buf = buf[:0]
	if d.byID && ids != nil && !ids.IsNull(i) {
		return append(append(buf, 'i'), ids.ValueStr(i)...)
	}
	hb := h.Bytes()
	return append(append(buf, 'c'), hb[:]...)
}

// spill writes every data row of both versions to the partition of its
// key: its side, row number, key and text hash.
func (d *rowDiff) spill(ctx context.Context) error {
	writers := make([]*shard.RowWriter, d.parts)
	for p := range writers {
		w, err := shard.NewRowWriter(d.mem, d.partPath(p), spillSchema)
		if err != nil {
			for _, w := range writers[:p] {
				w.Finish(errors.New("stopped"))
			}
			return err
		}
		writers[p] = w
	}
	var werr error
	for side := 0; side < 2 && werr == nil; side++ {
		var row int64
		var key []byte
		werr = provenance.ReadRows(ctx, d.mem, d.files[side], []string{d.opts.IDField, d.opts.TextField}, func(b *pipeline.Batch) error {
			rec := b.Rec
			ids, texts := columnar.Column(rec, d.opts.IDField), columnar.Column(rec, d.opts.TextField)
			if d.noText {
				texts = nil // every text hashes the same
			}
			for i := 0; i < int(rec.NumRows()); i++ {
				h := textHash(texts, i)
				key = d.keyOf(key, ids, i, h)
				w := writers[int(xxh3.Hash(key)%uint64(d.parts))]
				w.Field(0).(*array.BinaryBuilder).Append(key)
				w.Field(1).(*array.Uint8Builder).Append(uint8(side))
				w.Field(2).(*array.Int64Builder).Append(row)
				w.Field(3).(*array.Uint64Builder).Append(h.Hi)
				w.Field(4).(*array.Uint64Builder).Append(h.Lo)
				if err := w.RowDone(); err != nil {
					return err
				}
				row++
			}
			return nil
		})
		d.marks[side].grow(row)
		if side == 0 {
			d.rows.RowsA = row
		} else {
			d.rows.RowsB = row
		}
	}
	for _, w := range writers {
		if err := w.Finish(werr); err != nil && werr == nil {
			werr = err
		}
	}
	return werr
}

// entry is one spilled row, loaded.
type entry struct {
	key  string
	side uint8
	row  int64
	h    xxh3.Uint128
}

// match loads partition p, sorts it by key and matches the rows of each
// key: equal texts first, then (by id) the rest in row order as changed;
// what is left is only in one version.
func (d *rowDiff) match(p int) error {
	var es []entry
	err := shard.Read(d.mem, d.partPath(p), nil, func(rec arrow.RecordBatch) error {
		keys := rec.Column(0).(*array.Binary)
		sides := rec.Column(1).(*array.Uint8)
		rows := rec.Column(2).(*array.Int64)
		his, los := rec.Column(3).(*array.Uint64), rec.Column(4).(*array.Uint64)
		for i := 0; i < int(rec.NumRows()); i++ {
			es = append(es, entry{key: string(keys.Value(i)), side: sides.Value(i), row: rows.Value(i),
				h: xxh3.Uint128{Hi: his.Value(i), Lo: los.Value(i)}})
		}
		return nil
	})
	if err != nil {
		return err
	}
	os.Remove(d.partPath(p))
	sort.Slice(es, func(i, j int) bool {
		x, y := &es[i], &es[j]
		if x.key != y.key {
			return x.key < y.key
		}
		if x.side != y.side {
			return x.side < y.side
		}
		if x.h != y.h {
			return x.h.Hi < y.h.Hi || (x.h.Hi == y.h.Hi && x.h.Lo < y.h.Lo)
		}
		return x.row < y.row
	})
	for lo := 0; lo < len(es); {
		hi := lo + 1
		for hi < len(es) && es[hi].key == es[lo].key {
			hi++
		}
		d.group(es[lo:hi])
		lo = hi
	}
	return nil
}

// group matches the rows of one key, sorted by side, text hash and row.
func (d *rowDiff) group(g []entry) {
	k := 0
	for k < len(g) && g[k].side == 0 {
		k++
	}
	as, bs := g[:k], g[k:]
	var leftA, leftB []int64
	i, j := 0, 0
	for i < len(as) || j < len(bs) {
		switch {
		case j == len(bs) || (i < len(as) && less(as[i].h, bs[j].h)):
			leftA = append(leftA, as[i].row)
			i++
		case i == len(as) || less(bs[j].h, as[i].h):
			leftB = append(leftB, bs[j].row)
			j++
		default: // the same text
			d.rows.Same++
			i++
			j++
		}
	}
	sort.Slice(leftA, func(x, y int) bool { return leftA[x] < leftA[y] })
	sort.Slice(leftB, func(x, y int) bool { return leftB[x] < leftB[y] })
	n := 0
	if g[0].key[0] == 'i' { // by id: what is left on both sides changed
		n = min(len(leftA), len(leftB))
	}
	for x := 0; x < n; x++ {
		set(d.marks[0].changed, leftA[x])
		set(d.marks[1].changed, leftB[x])
		d.rows.Changed++
		d.notePair(pair{leftA[x], leftB[x]})
	}
	for _, r := range leftA[n:] {
		set(d.marks[0].only, r)
		d.rows.OnlyA++
	}
	for _, r := range leftB[n:] {
		set(d.marks[1].only, r)
		d.rows.OnlyB++
	}
}

func less(x, y xxh3.Uint128) bool { return x.Hi < y.Hi || (x.Hi == y.Hi && x.Lo < y.Lo) }

// notePair keeps the changed pairs with the smallest rows of B, the
// examples.
func (d *rowDiff) notePair(p pair) {
	at := sort.Search(len(d.pairs), func(i int) bool { return d.pairs[i].b > p.b })
	if at >= d.nEx {
		return
	}
	d.pairs = append(d.pairs, pair{})
	copy(d.pairs[at+1:], d.pairs[at:])
	d.pairs[at] = p
	if len(d.pairs) > d.nEx {
		d.pairs = d.pairs[:d.nEx]
	}
}

// collect reads both versions again for the example texts and, with
// RowsOut, writes the rows that differ.
func (d *rowDiff) collect(ctx context.Context) error {
	want := map[[2]int64]bool{}
	for _, p := range d.pairs {
		want[[2]int64{0, p.a}] = true
		want[[2]int64{1, p.b}] = true
	}
	counts := [2]int64{d.rows.OnlyA + d.rows.Changed, d.rows.OnlyB + d.rows.Changed}
	for side := 0; side < 2; side++ {
		if counts[side] == 0 && d.out == nil {
			continue
		}
		if err := d.collectSide(ctx, side, want); err != nil {
			return err
		}
	}
	for _, p := range d.pairs {
		ta, tb := around(d.texts[[2]int64{0, p.a}], d.texts[[2]int64{1, p.b}], 100)
		d.rows.Examples.Changed = append(d.rows.Examples.Changed,
			ChangedExample{ID: d.idsOf[p.b], RowA: p.a + 1, RowB: p.b + 1, TextA: ta, TextB: tb})
	}
	return nil
}

var errEnough = errors.New("enough examples")

func (d *rowDiff) collectSide(ctx context.Context, side int, want map[[2]int64]bool) error {
	m := &d.marks[side]
	only := &d.rows.Examples.OnlyA
	nOnly := d.rows.OnlyA
	if side == 1 {
		only, nOnly = &d.rows.Examples.OnlyB, d.rows.OnlyB
	}
	pending := 0
	for k := range want {
		if k[0] == int64(side) {
			pending++
		}
	}
	var cols []string // every column when the rows are written
	if d.out == nil {
		cols = []string{d.opts.IDField, d.opts.TextField}
	}
	var w *dataset.Writer
	var row int64
	spilled := []int64{d.rows.RowsA, d.rows.RowsB}[side]
	err := provenance.ReadRows(ctx, d.mem, d.files[side], cols, func(b *pipeline.Batch) error {
		rec := b.Rec
		ids, texts := columnar.Column(rec, d.opts.IDField), columnar.Column(rec, d.opts.TextField)
		n := int(rec.NumRows())
		if row+int64(n) > spilled {
			return fmt.Errorf("%s: holds more than the %d rows read before: it changed while compared", b.Origin(0), spilled)
		}
		var keep []bool
		var kinds []string
		if d.out != nil {
			keep = make([]bool, n)
		}
		for i := 0; i < n; i++ {
			r := row + int64(i)
			isOnly, isChanged := isSet(m.only, r), isSet(m.changed, r)
			if !isOnly && !isChanged {
				continue
			}
			if keep != nil {
				keep[i] = true
				kinds = append(kinds, map[bool]string{true: OnlyA, false: OnlyB}[side == 0])
				if isChanged {
					kinds[len(kinds)-1] = Changed
				}
			}
			id := columnar.ValueString(ids, i)
			if id == "" {
				id = b.Origin(i)
			}
			if isOnly && int64(len(*only)) < min(nOnly, int64(d.nEx)) {
				*only = append(*only, Example{ID: id, Row: r + 1, Text: snippet(columnar.ValueString(texts, i), 100)})
			}
			if want[[2]int64{int64(side), r}] {
				d.texts[[2]int64{int64(side), r}] = columnar.ValueString(texts, i)
				if side == 1 {
					d.idsOf[r] = id
				}
				pending--
			}
		}
		row += int64(n)
		if keep != nil {
			if w == nil {
				out := dataset.Target{Path: filepath.Join(d.out.Target().Path, rowsOutName(side)), Kind: dataset.ParquetFile}
				s := columnar.SetSchemaFields(rec.Schema(), []arrow.Field{{Name: DiffColumn, Type: arrow.BinaryTypes.String}})
				var err error
				if w, err = dataset.NewWriter(d.mem, out, s, dataset.Options{Parquet: pqio.Options{Codec: pqio.Zstd, Level: 1}}); err != nil {
					return err
				}
			}
			if len(kinds) == 0 {
				return nil
			}
			return d.write(ctx, w, rec, keep, kinds)
		}
		if pending == 0 && int64(len(*only)) >= min(nOnly, int64(d.nEx)) {
			return errEnough
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		if w != nil {
			w.Abort()
		}
		return err
	}
	if w != nil {
		files, err := w.Close()
		if err != nil {
			return err
		}
		for _, f := range files {
			d.rows.RowsOut = append(d.rows.RowsOut, filepath.Join(d.opts.RowsOut, filepath.Base(f.Path)))
		}
	}
	return nil
}

// rowsOutName is the name of the file of RowsOut that holds a side's rows.
func rowsOutName(side int) string { return []string{"a.parquet", "b.parquet"}[side] }

// write appends the rows keep marks, with their _diff, to w.
func (d *rowDiff) write(ctx context.Context, w *dataset.Writer, rec arrow.RecordBatch, keep []bool, kinds []string) error {
	picked, err := columnar.Filter(ctx, d.mem, rec, keep, true)
	if err != nil {
		return err
	}
	defer picked.Release()
	col := columnar.Strings(d.mem, kinds, false)
	defer col.Release()
	withDiff := columnar.SetColumns(picked, []arrow.Field{{Name: DiffColumn, Type: arrow.BinaryTypes.String}}, []arrow.Array{col})
	defer withDiff.Release()
	piece, err := w.Encode(d.mem, withDiff)
	if err != nil {
		return err
	}
	return w.Write(piece)
}

// hasColumn reports whether the data files have a top-level column named
// name: a Parquet file's schema, or the first row of a JSONL file.
func hasColumn(files []string, name string) (bool, error) {
	if len(files) == 0 {
		return false, nil
	}
	f := files[0]
	if strings.HasSuffix(f, ".parquet") {
		s, err := provenance.ParquetSchema(f)
		if err != nil {
			return false, err
		}
		return s.HasField(name), nil
	}
	found := false
	err := provenance.ReadRows(context.Background(), nil, files[:1], nil, func(b *pipeline.Batch) error {
		found = b.Rec.Schema().HasField(name)
		return errEnough
	})
	if err != nil && !errors.Is(err, errEnough) {
		return false, err
	}
	return found, nil
}

// textHash returns the hash of row i's text; a null text hashes to zero.
func textHash(col arrow.Array, i int) xxh3.Uint128 {
	if col == nil || col.IsNull(i) {
		return xxh3.Uint128{}
	}
	if s, ok := col.(*array.String); ok {
		return xxh3.HashString128(s.Value(i))
	}
	return xxh3.HashString128(col.ValueStr(i))
}

// snippet returns the first n characters of s on one line.
func snippet(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// around returns up to n characters of a and b from a little before the
// first place they differ, on one line each.
func around(a, b string, n int) (string, string) {
	a, b = strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " ")
	ra, rb := []rune(a), []rune(b)
	k := 0
	for k < len(ra) && k < len(rb) && ra[k] == rb[k] {
		k++
	}
	start := max(0, k-n/4)
	cut := func(r []rune) string {
		if start >= len(r) {
			return ""
		}
		s := string(r[start:min(len(r), start+n)])
		if start > 0 {
			s = "…" + s
		}
		if start+n < len(r) {
			s += "…"
		}
		return s
	}
	return cut(ra), cut(rb)
}
