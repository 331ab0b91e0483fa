package pipeline

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/sluice-data/sluice/io/jsonl"
	"github.com/sluice-data/sluice/schema"
)

// jsonlSource reads JSONL inputs as chunks, replaying the chunks that
// schema inference read first.
type jsonlSource struct {
	cfg      Config
	typ      *schema.Type
	s        *arrow.Schema
	opts     jsonl.DecodeOptions
	reader   *jsonl.ChunkReader
	buffered []*jsonl.Chunk
	decs     []*jsonl.Decoder
}

func openJSONLSource(ctx context.Context, cfg Config) (*jsonlSource, error) {
	copts := jsonl.ChunkOptions{Rows: cfg.BatchRows, Bytes: cfg.BatchBytes, MaxLineBytes: cfg.MaxLineBytes}
	src := &jsonlSource{cfg: cfg, reader: jsonl.NewChunkReader(cfg.Inputs, copts)}
	typ, withExtra := cfg.Schema, !cfg.Strict
	if typ == nil {
		var inf *jsonl.Inference
		var err error
		complete := true
		if rows, limited := inferRows(cfg); rows == InferAll {
			inf, err = inferAll(ctx, cfg, copts)
		} else {
			inf, src.buffered, complete, err = inferPrefix(src.reader, cfg, rows)
			complete = complete || limited
		}
		if err != nil {
			return nil, err
		}
		typ = schema.Finalize(inf.Type())
		// A schema inferred from every row has a column for every member,
		// except the second of two members with the same name.
		withExtra = withExtra && (!complete || inf.Duplicates())
	}
	typ = schema.Finalize(typ)
	if len(typ.Fields) == 0 && !withExtra {
		// Nothing to learn a schema from (empty input): keep the text column.
		typ = &schema.Type{Kind: schema.Struct, Fields: []schema.Field{{Name: cfg.TextField, Type: schema.Scalar(schema.String)}}}
	}
	src.typ = typ
	src.opts = jsonl.DecodeOptions{Schema: typ, WithExtra: withExtra, Strict: cfg.Strict,
		RepairUTF8: cfg.RepairUTF8, MaxDepth: cfg.MaxDepth, TextField: cfg.TextField}
	src.s = typ.ArrowSchema(withExtra && !cfg.Strict)
	src.decs = make([]*jsonl.Decoder, cfg.Workers)
	for i := range src.decs {
		src.decs[i] = jsonl.NewDecoder(cfg.Mem, src.opts)
	}
	if cfg.Progress != nil {
		var total int64
		for _, f := range cfg.Inputs {
			total += f.Size
		}
		src.reader.Progress = func(done int64) { cfg.Progress(done, total) }
	}
	return src, nil
}

// inferRows is how many lines the schema is inferred from (InferAll for
// all): cfg.InferRows, but no more than the run reads (Config.Limit), in
// which case limited is true: those lines are the whole input read.
func inferRows(cfg Config) (rows int, limited bool) {
	if cfg.Limit > 0 && (cfg.InferRows == InferAll || int64(cfg.InferRows) >= cfg.Limit) {
		return int(cfg.Limit), true
	}
	return cfg.InferRows, false
}

// inferPrefix reads chunks until it has seen rows lines and infers the
// schema from them. complete reports that the chunks hold the whole input.
func inferPrefix(r *jsonl.ChunkReader, cfg Config, rows int) (*jsonl.Inference, []*jsonl.Chunk, bool, error) {
	inf := jsonl.NewInference(cfg.MaxDepth)
	var chunks []*jsonl.Chunk
	seen := 0
	for seen < rows {
		c, err := r.Next()
		if err == io.EOF {
			return inf, chunks, true, nil
		}
		if err != nil {
			return nil, nil, false, err
		}
		chunks = append(chunks, c)
		n := min(c.Len(), rows-seen)
		inf.ObserveLines(c, n)
		seen += n
	}
	return inf, chunks, false, nil
}

// inferAll reads every input once to infer the schema.
func inferAll(ctx context.Context, cfg Config, copts jsonl.ChunkOptions) (*jsonl.Inference, error) {
	r := jsonl.NewChunkReader(cfg.Inputs, copts)
	inf := jsonl.NewInference(cfg.MaxDepth)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := r.Next()
		if err == io.EOF {
			return inf, nil
		}
		if err != nil {
			return nil, err
		}
		inf.ObserveChunk(c)
	}
}

func (s *jsonlSource) schema() *arrow.Schema   { return s.s }
func (s *jsonlSource) schemaText() string      { return s.typ.String() }
func (s *jsonlSource) stats() []jsonl.FileStat { return s.reader.Stats() }

// stop stops the reading in the file it is in (stopper).
func (s *jsonlSource) stop() { s.reader.Stop() }

func (s *jsonlSource) close() {
	for _, d := range s.decs {
		d.Release()
	}
}

func (s *jsonlSource) next(context.Context) (unit, bool, error) {
	if len(s.buffered) > 0 {
		c := s.buffered[0]
		s.buffered[0] = nil
		s.buffered = s.buffered[1:]
		return unit{chunk: c, pqFile: -1}, false, nil
	}
	c, err := s.reader.Next()
	if err == io.EOF {
		return unit{}, true, nil
	}
	if err != nil {
		return unit{}, false, err
	}
	return unit{chunk: c, pqFile: -1}, false, nil
}

// load decodes a chunk of lines on worker w with the worker's decoder.
func (s *jsonlSource) load(_ context.Context, w int, u unit) (loaded, error) {
	r := s.decs[w].Decode(u.chunk)
	l := loaded{batch: r.Batch, bad: r.Bad, repaired: r.Repaired, rowsIn: int64(u.chunk.Len()),
		origins: jsonlOrigins(s.cfg.Inputs, u.chunk, r.Bad)}
	u.chunk.Release()
	return l, nil
}
