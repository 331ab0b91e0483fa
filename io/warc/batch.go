package warc

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// RecordTypes are the WARC-Type values a run may choose.
var RecordTypes = []string{"response", "conversion", "resource", "request", "metadata", "revisit", "warcinfo"}

// DefaultTypes are the record types read unless told otherwise: HTTP
// responses (WARC files) and text conversions (WET files).
var DefaultTypes = []string{"response", "conversion"}

// ParseTypes parses a comma-separated list of record types.
func ParseTypes(s string) ([]string, error) {
	var types []string
	for _, t := range strings.Split(s, ",") {
		t = strings.ToLower(strings.TrimSpace(t))
		if t == "" {
			continue
		}
		if !slices.Contains(RecordTypes, t) {
			return nil, fmt.Errorf("unknown WARC record type %q (want any of %s)", t, strings.Join(RecordTypes, ","))
		}
		if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	if len(types) == 0 {
		return nil, errors.New("no WARC record type chosen")
	}
	return types, nil
}

// The columns of WARC batches.
const (
	ColURL      = "url"
	ColType     = "warc_type"
	ColDate     = "warc_date"
	ColRecordID = "warc_record_id"
	ColCType    = "content_type"
	ColStatus   = "http_status"
	ColPayload  = "payload"
	ColText     = "text"
	ColLanguage = "warc_language"
)

// Schema returns the schema of batches holding records of the given types:
// payload is there unless only conversion records are read, text only when
// they are.
func Schema(types []string) *arrow.Schema {
	str := arrow.BinaryTypes.String
	fields := []arrow.Field{
		{Name: ColURL, Type: str, Nullable: true},
		{Name: ColType, Type: str, Nullable: true},
		{Name: ColDate, Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: ColRecordID, Type: str, Nullable: true},
		{Name: ColCType, Type: str, Nullable: true},
		{Name: ColStatus, Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}
	if slices.ContainsFunc(types, func(t string) bool { return t != "conversion" }) {
		fields = append(fields, arrow.Field{Name: ColPayload, Type: arrow.BinaryTypes.Binary, Nullable: true})
	}
	if slices.Contains(types, "conversion") {
		fields = append(fields, arrow.Field{Name: ColText, Type: str, Nullable: true})
	}
	fields = append(fields, arrow.Field{Name: ColLanguage, Type: str, Nullable: true})
	return arrow.NewSchema(fields, nil)
}

// BatchOptions size and select the rows of a BatchReader.
type BatchOptions struct {
	Types          []string // record types that become rows; DefaultTypes when empty
	Rows           int      // most rows (and bad records) in a batch
	Bytes          int      // a batch ends once its blocks (and bad records' raw bytes) reach this size
	MaxRecordBytes int64    // limit for bodies after undoing HTTP encodings
}

// BatchReader turns the records of a Reader into record batches.
type BatchReader struct {
	r       *Reader
	opts    BatchOptions
	schema  *arrow.Schema
	b       *array.RecordBuilder
	payload int // column index, or -1
	text    int
	skipped int64
	rows    int64
	nums    []int64 // record numbers of the last batch's rows
	offs    []int64 // their offsets (Record.Offset)
	done    bool
}

// NewBatchReader returns a reader of r's records as batches allocated from
// mem.
func NewBatchReader(mem memory.Allocator, r *Reader, opts BatchOptions) *BatchReader {
	if len(opts.Types) == 0 {
		opts.Types = DefaultTypes
	}
	if opts.Rows <= 0 {
		opts.Rows = 4096
	}
	if opts.Bytes <= 0 {
		opts.Bytes = 16 << 20
	}
	if opts.MaxRecordBytes <= 0 {
		opts.MaxRecordBytes = DefaultMaxRecordBytes
	}
	s := Schema(opts.Types)
	br := &BatchReader{r: r, opts: opts, schema: s, b: array.NewRecordBuilder(mem, s), payload: -1, text: -1}
	if idx := s.FieldIndices(ColPayload); len(idx) > 0 {
		br.payload = idx[0]
	}
	if idx := s.FieldIndices(ColText); len(idx) > 0 {
		br.text = idx[0]
	}
	return br
}

// Schema returns the batches' schema.
func (br *BatchReader) Schema() *arrow.Schema { return br.schema }

// Skipped returns how many well-formed records were not of a chosen type.
func (br *BatchReader) Skipped() int64 { return br.skipped }

// Rows returns how many rows the batches returned so far hold.
func (br *BatchReader) Rows() int64 { return br.rows }

// RecordNumbers returns the record number (Record.Number) of each row of
// the batch Next returned last.
func (br *BatchReader) RecordNumbers() []int64 { return br.nums }

// RecordOffsets returns the offset in the file (Record.Offset) of each row
// of the batch Next returned last.
func (br *BatchReader) RecordOffsets() []int64 { return br.offs }

// Release frees the builder.
func (br *BatchReader) Release() { br.b.Release() }

// Next returns the next batch and the records that could not be read
// since the last one, among them responses whose HTTP body cannot be
// given (see HTTPResponse.Err). Bad records count towards the batch's limits, so
// that a damaged file does not pile them up: a stretch of bad records
// comes as a nil batch with the records. At the end of the file it
// returns a nil batch (the bad records of the last stretch may come with
// it) and then io.EOF.
func (br *BatchReader) Next() (arrow.RecordBatch, []*RecordError, error) {
	if br.done {
		return nil, nil, io.EOF
	}
	var bad []*RecordError
	n, size := 0, 0
	br.nums, br.offs = br.nums[:0], br.offs[:0]
	for n+len(bad) < br.opts.Rows && size < br.opts.Bytes {
		rec, err := br.r.Next()
		var re *RecordError
		switch {
		case errors.As(err, &re):
			bad = append(bad, re)
			size += len(re.Raw)
			continue
		case err == io.EOF:
			br.done = true
		case err != nil:
			return nil, bad, err
		}
		if br.done {
			break
		}
		typ := strings.ToLower(rec.Get("WARC-Type"))
		if !slices.Contains(br.opts.Types, typ) {
			br.skipped++
			continue
		}
		var resp *HTTPResponse
		if typ == "response" && strings.HasPrefix(strings.ToLower(rec.Get("Content-Type")), "application/http") {
			p := ParseHTTPResponse(rec.Block, br.opts.MaxRecordBytes)
			if p.Err != nil {
				re := rec.errorf(p.Err)
				bad = append(bad, re)
				size += len(re.Raw)
				continue
			}
			resp = &p
		}
		if n == 0 && br.payload >= 0 {
			// The batch ends once its blocks reach opts.Bytes: reserve that
			// much at once rather than grow (copy and zero) the buffer by
			// doubling.
			br.b.Field(br.payload).(*array.BinaryBuilder).ReserveData(br.opts.Bytes + min(len(rec.Block), br.opts.Bytes))
		}
		br.append(typ, rec, resp)
		br.nums = append(br.nums, rec.Number)
		br.offs = append(br.offs, rec.Offset)
		n++
		size += len(rec.Block)
	}
	if n == 0 {
		if br.done && len(bad) == 0 {
			return nil, nil, io.EOF
		}
		return nil, bad, nil
	}
	br.rows += int64(n)
	return br.b.NewRecordBatch(), bad, nil
}

// append adds rec as a row; resp is its parsed HTTP response, or nil for a
// record that is not one.
func (br *BatchReader) append(typ string, rec *Record, resp *HTTPResponse) {
	b := br.b
	appendString(b.Field(0), rec.Get("WARC-Target-URI"))
	appendString(b.Field(1), typ)
	ts := b.Field(2).(*array.TimestampBuilder)
	if t, err := time.Parse(time.RFC3339Nano, rec.Get("WARC-Date")); err == nil {
		ts.Append(arrow.Timestamp(t.UnixMicro()))
	} else {
		ts.AppendNull()
	}
	appendString(b.Field(3), rec.Get("WARC-Record-ID"))
	status := b.Field(5).(*array.Int32Builder)
	block, ctype := rec.Block, rec.Get("Content-Type")
	if resp != nil {
		block, ctype = resp.Body, resp.ContentType
		if resp.Status > 0 {
			status.Append(int32(resp.Status))
		} else {
			status.AppendNull()
		}
	} else {
		status.AppendNull()
	}
	appendString(b.Field(4), ctype)
	if br.payload >= 0 {
		pb := b.Field(br.payload).(*array.BinaryBuilder)
		if typ == "conversion" {
			pb.AppendNull()
		} else {
			pb.Append(block)
		}
	}
	if br.text >= 0 {
		tb := b.Field(br.text).(*array.StringBuilder)
		if typ == "conversion" {
			if utf8.Valid(block) {
				tb.BinaryBuilder.Append(block)
			} else {
				tb.Append(strings.ToValidUTF8(string(block), "\uFFFD"))
			}
		} else {
			tb.AppendNull()
		}
	}
	appendString(b.Field(b.Schema().NumFields()-1), rec.Get("WARC-Identified-Content-Language"))
}

// appendString appends v, or a null for "".
func appendString(b array.Builder, v string) {
	sb := b.(*array.StringBuilder)
	if v == "" {
		sb.AppendNull()
	} else {
		sb.Append(v)
	}
}
