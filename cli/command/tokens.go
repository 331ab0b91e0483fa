package command

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/budget"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/pqio"
	"github.com/sluice-data/sluice/kernels/tokenize"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/stages"
	"github.com/urfave/cli/v2"
)

// TokensOptions are the flags of `sluice tokens`.
type TokensOptions struct {
	ConvertOptions
	Tokenizer     string
	TokenizerFile string
	GroupBy       string
	AddColumn     bool
}

func tokensCommand(s Streams) *cli.Command {
	o := &TokensOptions{}
	flags := withOutput(append(inputFlags(&o.ConvertOptions), outputFlags(&o.ConvertOptions)...),
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Destination: &o.Output,
			Usage: "with --add-column: the dataset to write (a .parquet/.jsonl file or a directory); " +
				"otherwise: where to write the counts table (.parquet, .csv or .json)"})
	flags = append(flags,
		&cli.StringFlag{Name: "tokenizer", Value: "cl100k_base", Destination: &o.Tokenizer,
			Usage: "built-in encoding: " + strings.Join(tokenize.Names(), ", ")},
		&cli.StringFlag{Name: "tokenizer-file", Destination: &o.TokenizerFile,
			Usage: "a Hugging Face tokenizer.json (byte-level BPE: GPT-2, Llama 3, Qwen, Mistral, GPT-NeoX) instead of --tokenizer"},
		&cli.StringFlag{Name: "group-by", Destination: &o.GroupBy,
			Usage: "columns to aggregate by, comma-separated; nested members as meta.source"},
		&cli.BoolFlag{Name: "add-column", Destination: &o.AddColumn,
			Usage: "write the dataset back to -o with an n_tokens column"},
	)
	return &cli.Command{
		Name:      "tokens",
		Usage:     "count tokens with real tokenizers: totals, per-document percentiles, chars per token, by group",
		ArgsUsage: "IN...",
		Description: "Counts are those of the reference tokenizers, token for token (encode_ordinary: special\n" +
			"tokens in the text are plain text). The totals feed `sluice budget --tokens N`.",
		Flags: flags,
		Action: action(func(c *cli.Context) error {
			return runTokens(c.Context, o, c.Args().Slice(), commandLine(c), s)
		}),
	}
}

// counterFactory returns how to make a counter for the chosen tokenizer,
// and its name.
func (o *TokensOptions) counterFactory() (func() stages.TokenCounter, string, error) {
	newCounter, name, err := stages.TokenCounters(o.Tokenizer, o.TokenizerFile)
	switch {
	case err != nil && o.TokenizerFile != "":
		return nil, "", usageError{err}
	case err != nil:
		return nil, "", usagef("--tokenizer: %v", err)
	}
	return newCounter, name, nil
}

func runTokens(ctx context.Context, o *TokensOptions, args, command []string, s Streams) error {
	countsOut := ""
	if !o.AddColumn {
		countsOut, o.Output = o.Output, ""
		if countsOut != "" && !strings.HasSuffix(countsOut, ".parquet") && !strings.HasSuffix(countsOut, ".csv") && !strings.HasSuffix(countsOut, ".json") {
			return usagef("-o %s: the counts table is written as .parquet, .csv or .json (use --add-column to write the dataset)", countsOut)
		}
	} else if o.Output == "" {
		return usagef("--add-column needs -o OUT, the dataset to write")
	}
	var counts *dataset.Artifact
	claim := func(inputs []string) (err error) {
		if countsOut != "" {
			counts, err = beginArtifact(ctx, "-o", dataset.ArtifactSpec{Path: countsOut, What: "token counts",
				Inputs: inputs, Overwrite: o.Overwrite, Command: command})
		}
		return err
	}
	defer func() {
		if counts != nil {
			counts.Abort()
		}
	}()
	report, err := countTokens(ctx, o, args, command, s, claim)
	if err != nil {
		return err
	}
	if err := o.result(s.Out, report, func(w io.Writer) {
		printTokenTable(w, report)
		if o.AddColumn {
			fmt.Fprintf(w, "dataset with n_tokens: %s\n", o.Output)
		}
	}); err != nil {
		return err
	}
	if counts != nil {
		return writeTokenCounts(counts, report)
	}
	return nil
}

// countTokens runs the tokens stage over the inputs, writing the dataset
// back with n_tokens when o.AddColumn is set and nothing otherwise. claim,
// when set, is given every input path before the run, to claim the files
// the command writes besides.
func countTokens(ctx context.Context, o *TokensOptions, args, command []string, s Streams, claim func(inputs []string) error) (TokenReport, error) {
	newCounter, name, err := o.counterFactory()
	if err != nil {
		return TokenReport{}, err
	}
	var groupBy []string
	if o.GroupBy != "" {
		for _, g := range strings.Split(o.GroupBy, ",") {
			groupBy = append(groupBy, strings.TrimSpace(g))
		}
	}
	if !o.AddColumn {
		o.Output = "-" // no output: replaced by the discard target below
	}
	cfg, err := o.pipelineConfig(args)
	if err != nil {
		return TokenReport{}, err
	}
	if !o.AddColumn {
		cfg.Target = dataset.Target{Kind: dataset.Discard}
	}
	if claim != nil {
		if err := claim(inputsOf(args, cfg.Inputs)); err != nil {
			return TokenReport{}, err
		}
	}
	stage := stages.NewTokens(o.TextField, name, newCounter, groupBy, o.AddColumn)
	cfg.Stages = []pipeline.Stage{stage}
	m, err := runWithProgress(ctx, cfg, command, s, o.view(s), "counting")
	if err != nil {
		return TokenReport{}, err
	}
	groups, total := stage.Groups()
	return tokenReport(name, groupBy, groups, total, m), nil
}

// TokenRow is one line of the counts table.
type TokenRow struct {
	Group         map[string]string `json:"group,omitempty"`
	Documents     int64             `json:"documents"`
	Tokens        int64             `json:"tokens"`
	Chars         int64             `json:"chars"`
	CharsPerToken float64           `json:"chars_per_token"`
	P50           int64             `json:"tokens_per_doc_p50"`
	P90           int64             `json:"tokens_per_doc_p90"`
	P99           int64             `json:"tokens_per_doc_p99"`
	Max           int64             `json:"tokens_per_doc_max"`
	Mean          float64           `json:"tokens_per_doc_mean"`
}

// TokenReport is what `sluice tokens` prints.
type TokenReport struct {
	Tokenizer   string     `json:"tokenizer"`
	GroupBy     []string   `json:"group_by,omitempty"`
	Total       TokenRow   `json:"total"`
	Groups      []TokenRow `json:"groups,omitempty"`
	RowsIn      int64      `json:"rows_in"`
	Quarantined int64      `json:"quarantined"`
	MissingText int64      `json:"missing_text"`
	Seconds     float64    `json:"seconds"`
}

func tokenRow(groupBy []string, g *stages.TokenGroup) TokenRow {
	r := TokenRow{Documents: g.Docs, Tokens: g.Tokens, Chars: g.Chars, P50: g.Hist.Quantile(0.5),
		P90: g.Hist.Quantile(0.9), P99: g.Hist.Quantile(0.99), Max: g.Hist.Max(), Mean: g.Hist.Mean()}
	if g.Tokens > 0 {
		r.CharsPerToken = float64(g.Chars) / float64(g.Tokens)
	}
	if len(g.Key) > 0 {
		r.Group = map[string]string{}
		for i, k := range groupBy {
			r.Group[k] = g.Key[i]
		}
	}
	return r
}

func tokenReport(name string, groupBy []string, groups []*stages.TokenGroup, total *stages.TokenGroup, m *dataset.Manifest) TokenReport {
	rep := TokenReport{Tokenizer: name, GroupBy: groupBy, Total: tokenRow(nil, total),
		RowsIn: m.Counts.RowsIn, Quarantined: m.Counts.Quarantined, MissingText: m.Counts.MissingText, Seconds: m.WallSecs}
	if len(groupBy) > 0 {
		for _, g := range groups {
			rep.Groups = append(rep.Groups, tokenRow(groupBy, g))
		}
	}
	return rep
}

func printTokenTable(w io.Writer, r TokenReport) {
	fmt.Fprintf(w, "tokenizer %s: %s tokens in %d documents (%d rows read, %d quarantined, %d without text), %.2fs\n\n",
		r.Tokenizer, budget.Count(float64(r.Total.Tokens)), r.Total.Documents, r.RowsIn, r.Quarantined, r.MissingText, r.Seconds)
	header := append(append([]string(nil), r.GroupBy...), "documents", "tokens", "p50", "p90", "p99", "max", "chars/token")
	rows := [][]string{header}
	line := func(keys []string, t TokenRow) {
		rows = append(rows, append(keys, strconv.FormatInt(t.Documents, 10), strconv.FormatInt(t.Tokens, 10),
			strconv.FormatInt(t.P50, 10), strconv.FormatInt(t.P90, 10), strconv.FormatInt(t.P99, 10),
			strconv.FormatInt(t.Max, 10), strconv.FormatFloat(t.CharsPerToken, 'f', 2, 64)))
	}
	for _, g := range r.Groups {
		keys := make([]string, len(r.GroupBy))
		for i, k := range r.GroupBy {
			keys[i] = g.Group[k]
		}
		line(keys, g)
	}
	totalKeys := make([]string, len(r.GroupBy))
	if len(totalKeys) > 0 {
		totalKeys[0] = "(total)"
	}
	line(totalKeys, r.Total)
	(&table{right: alignRight(len(r.GroupBy), len(header))}).print(w, rows)
}

// writeTokenCounts writes the counts table, one row per group and a last
// row for the total, as JSON, CSV or Parquet.
func writeTokenCounts(file *dataset.Artifact, r TokenReport) error {
	path := file.Path()
	rows := append(append([]TokenRow(nil), r.Groups...), r.Total)
	var data []byte
	switch {
	case strings.HasSuffix(path, ".json"):
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		data = append(b, '\n')
	case strings.HasSuffix(path, ".csv"):
		var sb strings.Builder
		cw := csv.NewWriter(&sb)
		cw.Write(append(append([]string(nil), r.GroupBy...), "documents", "tokens", "chars", "chars_per_token", "p50", "p90", "p99", "max"))
		for i, row := range rows {
			keys := make([]string, len(r.GroupBy))
			for j, k := range r.GroupBy {
				keys[j] = row.Group[k]
				if i == len(rows)-1 && j == 0 {
					keys[j] = "(total)"
				}
			}
			cw.Write(append(keys, strconv.FormatInt(row.Documents, 10), strconv.FormatInt(row.Tokens, 10),
				strconv.FormatInt(row.Chars, 10), strconv.FormatFloat(row.CharsPerToken, 'f', 4, 64),
				strconv.FormatInt(row.P50, 10), strconv.FormatInt(row.P90, 10), strconv.FormatInt(row.P99, 10), strconv.FormatInt(row.Max, 10)))
		}
		cw.Flush()
		data = []byte(sb.String())
	default:
		b, err := tokenCountsParquet(r.GroupBy, rows)
		if err != nil {
			return err
		}
		data, file.Rows = b, int64(len(rows))
	}
	return file.Commit(data)
}

func tokenCountsParquet(groupBy []string, rows []TokenRow) ([]byte, error) {
	mem := memory.NewGoAllocator()
	var fields []arrow.Field
	for _, g := range groupBy {
		fields = append(fields, arrow.Field{Name: g, Type: arrow.BinaryTypes.String, Nullable: true})
	}
	for _, n := range []string{"documents", "tokens", "chars", "p50", "p90", "p99", "max"} {
		fields = append(fields, arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Int64})
	}
	fields = append(fields, arrow.Field{Name: "chars_per_token", Type: arrow.PrimitiveTypes.Float64})
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer b.Release()
	for i, row := range rows {
		for j, g := range groupBy {
			if i == len(rows)-1 {
				b.Field(j).AppendNull() // the total
			} else {
				b.Field(j).(*array.StringBuilder).Append(row.Group[g])
			}
		}
		k := len(groupBy)
		for j, v := range []int64{row.Documents, row.Tokens, row.Chars, row.P50, row.P90, row.P99, row.Max} {
			b.Field(k + j).(*array.Int64Builder).Append(v)
		}
		b.Field(k + 7).(*array.Float64Builder).Append(row.CharsPerToken)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return pqio.EncodePiece(mem, rec, pqio.Options{}, nil)
}
