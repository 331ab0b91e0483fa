package command

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/kernels/fasttext"
)

// ClassifyTrainOptions are the flags of `sluice classify train`.
type ClassifyTrainOptions struct {
	Output        string
	TextField     string
	LabelField    string
	LabelFrom     string
	Positive      cli.StringSlice
	Negative      cli.StringSlice
	PositiveLabel string
	NegativeLabel string
	Valid         cli.StringSlice
	Split         float64
	Balance       bool
	SaveText      string
	Overwrite     bool
	JSON          bool
	Quiet         bool

	Args fasttext.TrainArgs
	Loss string
}

// trainFlags are fastText's training arguments under their fastText
// names, with fastText's defaults for `fasttext supervised`.
func trainFlags(a *fasttext.TrainArgs, loss *string) []cli.Flag {
	d := fasttext.DefaultTrainArgs()
	cat := "fastText"
	return []cli.Flag{
		&cli.IntFlag{Name: "dim", Value: d.Dim, Destination: &a.Dim, Category: cat, Usage: "size of the word vectors (-dim)"},
		&cli.IntFlag{Name: "epoch", Value: d.Epoch, Destination: &a.Epoch, Category: cat, Usage: "passes over the training data (-epoch)"},
		&cli.Float64Flag{Name: "lr", Value: d.LR, Destination: &a.LR, Category: cat, Usage: "learning rate at the start, decaying linearly to 0 (-lr)"},
		&cli.IntFlag{Name: "lr-update-rate", Value: d.LRUpdateRate, Destination: &a.LRUpdateRate, Category: cat, Usage: "tokens between updates of the learning rate (-lrUpdateRate)"},
		&cli.IntFlag{Name: "word-ngrams", Value: d.WordNgrams, Destination: &a.WordNgrams, Category: cat, Usage: "word n-grams up to this length (-wordNgrams)"},
		&cli.IntFlag{Name: "minn", Value: d.MinN, Destination: &a.MinN, Category: cat, Usage: "shortest character n-gram (-minn)"},
		&cli.IntFlag{Name: "maxn", Value: d.MaxN, Destination: &a.MaxN, Category: cat, Usage: "longest character n-gram; 0: none (-maxn)"},
		&cli.IntFlag{Name: "bucket", Value: d.Bucket, Destination: &a.Bucket, Category: cat, Usage: "hash buckets of word and character n-grams; 0 when there are neither (-bucket)"},
		&cli.StringFlag{Name: "loss", Value: "softmax", Destination: loss, Category: cat, Usage: "softmax, hs (hierarchical softmax), ns (negative sampling) or ova (one-vs-all, for several labels per example) (-loss)"},
		&cli.IntFlag{Name: "neg", Value: d.Neg, Destination: &a.Neg, Category: cat, Usage: "negatives sampled per example with --loss ns (-neg)"},
		&cli.IntFlag{Name: "min-count", Value: d.MinCount, Destination: &a.MinCount, Category: cat, Usage: "words seen fewer times are left out of the vocabulary (-minCount)"},
		&cli.IntFlag{Name: "min-count-label", Value: d.MinCountLabel, Destination: &a.MinCountLabel, Category: cat, Usage: "labels seen fewer times are left out (-minCountLabel)"},
		&cli.IntFlag{Name: "thread", Value: d.Thread, Destination: &a.Thread, Category: cat, Usage: "training threads, updating the weights without locks as fastText's do; 1 gives the same model every time (-thread)"},
		&cli.IntFlag{Name: "seed", Value: 1, Destination: &a.Seed, Category: cat, Usage: "seed of the initial weights and the sampling; fastText's -seed 0 and 1 train the same model with one thread"},
	}
}

func classifyTrainCommand(s Streams) *cli.Command {
	o := &ClassifyTrainOptions{Args: fasttext.DefaultTrainArgs()}
	return &cli.Command{
		Name:      "train",
		Usage:     "train a fastText classifier on labelled datasets, writing a .bin model fastText and sluice load",
		ArgsUsage: "DATA... -o MODEL.bin (--label-field FIELD | --label-from COLUMN | --positive P... --negative N...)",
		Description: "fastText's supervised training in Go: the same dictionary, hashing, losses, learning-rate schedule and\n" +
			"file format, so `fasttext predict` loads the model and `--classify NAME=MODEL.bin` applies it. With\n" +
			"--thread 1 the model is the one `fasttext supervised -thread 1` trains on the same examples, byte for\n" +
			"byte. Each row is one example: its text (--text-field) read as at prediction time (white space\n" +
			"separates tokens, newlines too), and its labels from --label-field (a string or a list of strings),\n" +
			"--label-from (any scalar column, e.g. source), or the file it came from (--positive/--negative).\n" +
			"--split holds out a share of the examples by a hash of their text and reports P@1 on them;\n" +
			"--valid reports it on other files after every epoch; --balance samples every label down to the rarest one's count.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Destination: &o.Output, Usage: "the model file to write (.bin)"},
			&cli.StringFlag{Name: "text-field", Value: "text", Destination: &o.TextField, Usage: "the field (dotted path) holding each row's text"},
			&cli.StringFlag{Name: "label-field", Destination: &o.LabelField, Usage: "the field holding each row's label, or a list of labels"},
			&cli.StringFlag{Name: "label-from", Destination: &o.LabelFrom, Usage: "learn any column: its value (string, integer or boolean) is the label"},
			&cli.StringSliceFlag{Name: "positive", Destination: &o.Positive, Usage: "datasets whose every row is labelled --positive-label"},
			&cli.StringSliceFlag{Name: "negative", Destination: &o.Negative, Usage: "datasets whose every row is labelled --negative-label"},
			&cli.StringFlag{Name: "positive-label", Value: "hq", Destination: &o.PositiveLabel, Usage: "the label of --positive rows"},
			&cli.StringFlag{Name: "negative-label", Value: "cc", Destination: &o.NegativeLabel, Usage: "the label of --negative rows"},
			&cli.StringSliceFlag{Name: "valid", Destination: &o.Valid, Usage: "labelled datasets (same fields as the training data) to report P@1 and R@1 on after every epoch"},
			&cli.Float64Flag{Name: "split", Value: 1, Destination: &o.Split, Usage: "share of the examples to train on, e.g. 0.9; the rest, chosen by a hash of the text, is held out and tested"},
			&cli.BoolFlag{Name: "balance", Destination: &o.Balance, Usage: "train on as many examples of each label as the rarest label has (those with the lowest text hashes)"},
			&cli.StringFlag{Name: "save-text", Destination: &o.SaveText, Usage: "also write the training examples as a fastText training file (__label__ lines), the input of fasttext supervised"},
			&cli.BoolFlag{Name: "overwrite", Destination: &o.Overwrite, Usage: "replace the model (and --save-text file) an earlier run wrote"},
			&cli.BoolFlag{Name: "json", Destination: &o.JSON,
				Usage: "print the result as one JSON object on standard output instead of text (fields in the README)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Destination: &o.Quiet,
				Usage: "print nothing but errors (and the JSON object with --json): no summary, no progress"},
		}, trainFlags(&o.Args, &o.Loss)...),
		Action: action(func(c *cli.Context) error {
			if c.IsSet("lr") {
				o.Args.LR = fasttext.RoundLR(o.Args.LR)
			}
			return runClassifyTrain(c.Context, o, c.Args().Slice(), commandLine(c), s)
		}),
	}
}

// trainReport is what `sluice classify train` prints (--json).
type trainReport struct {
	Model       string        `json:"model"`
	Bytes       int64         `json:"bytes"`
	Examples    int           `json:"examples"`
	HeldOut     int           `json:"held_out"`
	Dropped     int           `json:"dropped_by_balance"`
	Labels      []labelCount  `json:"labels"`
	Tokens      int64         `json:"tokens"`
	Words       int           `json:"words"`
	Seconds     float64       `json:"seconds"`
	WordsPerSec float64       `json:"words_per_sec_per_thread"`
	Loss        float64       `json:"loss"`
	Args        trainArgsJSON `json:"args"`
	HeldOutTest *testSummary  `json:"held_out_test,omitempty"`
	ValidTest   *testSummary  `json:"valid_test,omitempty"`
	ValidEpochs []testSummary `json:"valid_epochs,omitempty"` // after each epoch
}

type labelCount struct {
	Label    string `json:"label"`
	Examples int64  `json:"examples"`
}

type trainArgsJSON struct {
	Dim           int     `json:"dim"`
	Epoch         int     `json:"epoch"`
	LR            float64 `json:"lr"`
	LRUpdateRate  int     `json:"lr_update_rate"`
	WordNgrams    int     `json:"word_ngrams"`
	MinN          int     `json:"minn"`
	MaxN          int     `json:"maxn"`
	Bucket        int     `json:"bucket"`
	Loss          string  `json:"loss"`
	Neg           int     `json:"neg"`
	MinCount      int     `json:"min_count"`
	MinCountLabel int     `json:"min_count_label"`
	Thread        int     `json:"thread"`
	Seed          int     `json:"seed"`
}

type testSummary struct {
	Epoch     int     `json:"epoch"`
	Examples  int64   `json:"examples"`
	Precision float64 `json:"precision_at_1"`
	Recall    float64 `json:"recall_at_1"`
}

func (o *ClassifyTrainOptions) sources(args []string) (map[string]labelSource, [][]string, error) {
	modes := 0
	for _, set := range []bool{o.LabelField != "", o.LabelFrom != "", len(o.Positive.Value())+len(o.Negative.Value()) > 0} {
		if set {
			modes++
		}
	}
	if modes != 1 {
		return nil, nil, usagef("say where the labels are: one of --label-field FIELD, --label-from COLUMN, or --positive FILE... with --negative FILE...")
	}
	base := labelSource{textField: o.TextField}
	switch {
	case o.LabelField != "":
		base.labelField = o.LabelField
	case o.LabelFrom != "":
		base.labelField, base.anyScalar = o.LabelFrom, true
	default:
		if len(o.Positive.Value()) == 0 || len(o.Negative.Value()) == 0 {
			return nil, nil, usagef("--positive and --negative go together: a classifier needs both classes")
		}
		if len(args) > 0 {
			return nil, nil, usagef("with --positive and --negative, give no other DATA (%s)", strings.Join(args, " "))
		}
		for _, l := range []string{o.PositiveLabel, o.NegativeLabel} {
			if err := fasttext.CheckLabel(l); err != nil {
				return nil, nil, usageError{err}
			}
		}
		if o.PositiveLabel == o.NegativeLabel {
			return nil, nil, usagef("--positive-label and --negative-label are both %q", o.PositiveLabel)
		}
		pos, neg := base, base
		pos.fixed, neg.fixed = o.PositiveLabel, o.NegativeLabel
		return map[string]labelSource{"positive": pos, "negative": neg}, [][]string{o.Positive.Value(), o.Negative.Value()}, nil
	}
	if len(args) == 0 {
		return nil, nil, usagef("no training data: give DATA... (JSONL or Parquet datasets)")
	}
	return map[string]labelSource{"data": base}, [][]string{args}, nil
}

func runClassifyTrain(ctx context.Context, o *ClassifyTrainOptions, args, command []string, s Streams) error {
	srcs, groups, err := o.sources(args)
	if err != nil {
		return err
	}
	if o.Output == "" {
		return usagef("no model file: give -o MODEL.bin")
	}
	if !(o.Split > 0 && o.Split <= 1) {
		return usagef("--split %g: the share to train on is in (0, 1]", o.Split)
	}
	loss, err := fasttext.ParseLoss(o.Loss)
	if err != nil {
		return usagef("--loss: %v", err)
	}
	o.Args.Loss = loss
	if o.Args.Seed < math.MinInt32 || o.Args.Seed > math.MaxInt32 {
		return usagef("--seed %d: must fit in 32 bits, as fastText's", o.Args.Seed)
	}
	if err := checkTrainMemory(o.Args); err != nil {
		return usageError{err}
	}
	modelFile, textFile, err := o.claimOutputs(ctx, groups, command)
	if err != nil {
		return err
	}
	defer modelFile.Abort()
	if textFile != nil {
		defer textFile.Abort()
	}

	// The examples go straight into the corpus as they are read (only the
	// held-out ones are kept as text); --balance reads the data twice.
	names := []string{"data"}
	if len(groups) == 2 {
		names = []string{"positive", "negative"}
	}
	each := func(fn func(labelled) error) error {
		for i, g := range groups {
			files, err := input.Expand(g)
			if err != nil {
				return usageError{err}
			}
			err = readLabelled(ctx, files, srcs[names[i]], func(ex labelled) error {
				if err := checkLabels(ex); err != nil {
					return err
				}
				return fn(ex)
			})
			if errors.Is(err, errNoLabelField) {
				return usageError{err}
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	training := func(ex labelled) bool { return o.Split >= 1 || inSplit(ex.text, o.Split) }
	var keep func(labelled) bool
	if o.Balance {
		for _, g := range groups {
			files, err := input.Expand(g)
			if err != nil {
				return usageError{err}
			}
			if err := input.RefuseStreams(files, "--balance"); err != nil {
				return usageError{err}
			}
		}
		hashes := map[string][]uint64{}
		err := each(func(ex labelled) error {
			if training(ex) {
				hashes[ex.labels[0]] = append(hashes[ex.labels[0]], xxhash.Sum64(ex.text))
			}
			return nil
		})
		if err != nil {
			return err
		}
		keep = balanced(hashes)
	}
	var held []labelled
	c := fasttext.NewCorpus()
	n := map[string]int64{}
	var order []string
	dropped, examples := 0, 0
	err = each(func(ex labelled) error {
		if !training(ex) {
			held = append(held, ex)
			return nil
		}
		if keep != nil && !keep(ex) {
			dropped++
			return nil
		}
		if err := c.Add(ex.labels, ex.text); err != nil {
			return fmt.Errorf("%s: %w", ex.where, err)
		}
		examples++
		for _, l := range ex.labels {
			if n[l] == 0 {
				order = append(order, l)
			}
			n[l]++
		}
		return nil
	})
	if err != nil {
		return err
	}
	if examples == 0 {
		return usagef("no training examples in %s", strings.Join(slices.Concat(groups...), " "))
	}
	counts := make([]labelCount, len(order))
	for i, l := range order {
		counts[i] = labelCount{Label: l, Examples: n[l]}
	}
	sort.SliceStable(counts, func(i, j int) bool { return counts[i].Examples > counts[j].Examples })
	for _, ex := range held {
		for _, l := range ex.labels {
			if n[l] == 0 {
				return usagef("label %q has no training example left after --split %g (it is only in %s): an empty class", l, o.Split, ex.where)
			}
		}
	}
	if len(counts) < 2 {
		return usagef("one label only (%s) in the training examples: a classifier needs at least two", counts[0].Label)
	}
	if textFile != nil {
		if err := textFile.CommitFunc(c.WriteFastText); err != nil {
			return err
		}
	}
	var valid []labelled
	if v := o.Valid.Value(); len(v) > 0 {
		if len(groups) == 2 {
			return usagef("--valid needs --label-field or --label-from: --positive/--negative files carry their labels by name")
		}
		files, err := input.Expand(v)
		if err != nil {
			return usageError{err}
		}
		err = readLabelled(ctx, files, srcs[names[0]], func(ex labelled) error {
			valid = append(valid, ex)
			return nil
		})
		if errors.Is(err, errNoLabelField) {
			return usageError{err}
		}
		if err != nil {
			return err
		}
	}
	var validEpochs []testSummary
	var onEpoch func(int, *fasttext.Model)
	if len(valid) > 0 {
		onEpoch = func(n int, m *fasttext.Model) {
			meter := fasttext.NewMeter(m.NumLabels())
			evaluate(m, valid, 1, 0, meter)
			sum := testSummary{Epoch: n, Examples: meter.Examples, Precision: meter.Precision(), Recall: meter.Recall()}
			validEpochs = append(validEpochs, sum)
			if !o.Quiet && !o.JSON {
				fmt.Fprintf(s.Err, "epoch %d/%d: valid P@1 %.4f, R@1 %.4f (%d examples)\n", n, o.Args.Epoch, sum.Precision, sum.Recall, sum.Examples)
			}
		}
	}
	var progress func(fasttext.Progress)
	if f, ok := s.Err.(*os.File); ok && !o.Quiet && !o.JSON && term.IsTerminal(int(f.Fd())) {
		progress = func(p fasttext.Progress) {
			fmt.Fprintf(s.Err, "\rProgress: %5.1f%% words/sec/thread: %8.0f lr: %9.6f avg.loss: %9.6f", 100*p.Fraction, p.WordsPerSec, p.LR, p.Loss)
		}
	}
	m, err := fasttext.TrainEpochs(ctx, c, o.Args, progress, onEpoch)
	if progress != nil {
		fmt.Fprintln(s.Err)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return usageError{err}
	}
	if err := modelFile.CommitFunc(func(w io.Writer) error {
		_, err := m.WriteTo(w)
		return err
	}); err != nil {
		return err
	}
	st := m.Stats()
	a := m.Args() // as trained: no buckets without n-grams
	rep := trainReport{
		Model: o.Output, Examples: examples, HeldOut: len(held), Dropped: dropped, Labels: counts,
		Tokens: st.Tokens, Words: st.Words, Seconds: st.Elapsed.Seconds(), WordsPerSec: st.WordsPerSec, Loss: st.Loss,
		Args: trainArgsJSON{Dim: a.Dim, Epoch: a.Epoch, WordNgrams: a.WordNgrams, MinN: a.MinN, MaxN: a.MaxN, Bucket: a.Bucket,
			MinCount: a.MinCount, MinCountLabel: a.MinCountLabel, Neg: a.Neg, Thread: a.Thread, Seed: a.Seed, LRUpdateRate: a.LRUpdateRate,
			LR: a.LR, Loss: a.Loss.String()},
	}
	if fi, err := os.Stat(o.Output); err == nil {
		rep.Bytes = fi.Size()
	}
	if len(held) > 0 || len(valid) > 0 {
		model, err := m.Model()
		if err != nil {
			return err
		}
		if len(held) > 0 {
			meter := fasttext.NewMeter(model.NumLabels())
			evaluate(model, held, 1, 0, meter)
			rep.HeldOutTest = &testSummary{Epoch: o.Args.Epoch, Examples: meter.Examples, Precision: meter.Precision(), Recall: meter.Recall()}
		}
		if len(valid) > 0 {
			meter := fasttext.NewMeter(model.NumLabels())
			evaluate(model, valid, 1, 0, meter)
			rep.ValidTest = &testSummary{Epoch: o.Args.Epoch, Examples: meter.Examples, Precision: meter.Precision(), Recall: meter.Recall()}
			rep.ValidEpochs = append(validEpochs, *rep.ValidTest)
		}
	}
	if o.JSON {
		enc := json.NewEncoder(s.Out)
		return enc.Encode(rep)
	}
	if o.Quiet {
		return nil
	}
	printTrainReport(s.Out, rep, o.Split)
	return nil
}

func printTrainReport(w io.Writer, r trainReport, split float64) {
	fmt.Fprintf(w, "%d examples", r.Examples)
	if r.HeldOut > 0 {
		fmt.Fprintf(w, " (%d held out by --split %g)", r.HeldOut, split)
	}
	if r.Dropped > 0 {
		fmt.Fprintf(w, " (%d left out by --balance)", r.Dropped)
	}
	fmt.Fprintf(w, ", %d tokens, %d words, %d labels:", r.Tokens, r.Words, len(r.Labels))
	for _, l := range r.Labels {
		fmt.Fprintf(w, " %s=%d", l.Label, l.Examples)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "trained in %s: %.0f words/sec/thread, loss %.6f (%s, dim %d, epoch %d, lr %g, word-ngrams %d, thread %d)\n",
		time.Duration(r.Seconds*float64(time.Second)).Round(time.Millisecond), r.WordsPerSec, r.Loss, r.Args.Loss, r.Args.Dim, r.Args.Epoch, r.Args.LR, r.Args.WordNgrams, r.Args.Thread)
	fmt.Fprintf(w, "model: %s (%d bytes)\n", r.Model, r.Bytes)
	if t := r.HeldOutTest; t != nil {
		fmt.Fprintf(w, "held out: %d examples, P@1 %.4f, R@1 %.4f\n", t.Examples, t.Precision, t.Recall)
	}
	if t := r.ValidTest; t != nil {
		fmt.Fprintf(w, "valid: %d examples, P@1 %.4f, R@1 %.4f\n", t.Examples, t.Precision, t.Recall)
	}
}

// inSplit reports whether an example belongs to the training share: the
// split depends on the text alone, so the same text is on the same side
// in every run and every copy of it.
func inSplit(text []byte, share float64) bool {
	return float64(xxhash.Sum64(text)>>11)/(1<<53) < share
}

// balanced returns the filter that keeps, of every label, as many
// examples as the rarest label has: those whose text hashes lowest (ties
// in input order). An example counts under its first label; hashes are
// the training examples' text hashes by label.
func balanced(hashes map[string][]uint64) func(labelled) bool {
	least := -1
	for _, h := range hashes {
		if least < 0 || len(h) < least {
			least = len(h)
		}
	}
	type cut struct {
		below uint64 // keep hashes below this
		ties  int    // and this many equal to it
	}
	cuts := map[string]*cut{}
	for l, h := range hashes {
		slices.Sort(h)
		k := &cut{below: h[least-1]}
		for _, v := range h[:least] {
			if v == k.below {
				k.ties++
			}
		}
		cuts[l] = k
	}
	return func(ex labelled) bool {
		k := cuts[ex.labels[0]]
		switch h := xxhash.Sum64(ex.text); {
		case h < k.below:
			return true
		case h == k.below && k.ties > 0:
			k.ties--
			return true
		}
		return false
	}
}

// claimOutputs claims the model file and the --save-text file, before
// any work: neither may be an input nor the other, nor replace a file
// sluice did not write (see dataset.Artifact).
func (o *ClassifyTrainOptions) claimOutputs(ctx context.Context, groups [][]string, command []string) (model, text *dataset.Artifact, err error) {
	var inputs []string
	for _, g := range append(groups, o.Valid.Value()) {
		files, _ := input.Expand(g) // what cannot be expanded is reported when read
		inputs = append(inputs, inputsOf(g, files)...)
	}
	spec := dataset.ArtifactSpec{Path: o.Output, What: "fastText model", Inputs: inputs, Overwrite: o.Overwrite, Command: command}
	if o.SaveText != "" {
		spec.Outputs = []string{o.SaveText}
	}
	if model, err = beginArtifact(ctx, "-o", spec); err != nil || o.SaveText == "" {
		return model, nil, err
	}
	spec.Path, spec.What, spec.Outputs = o.SaveText, "fastText training file", []string{o.Output}
	if text, err = beginArtifact(ctx, "--save-text", spec); err != nil {
		model.Abort()
		return nil, nil, err
	}
	return model, text, nil
}

// evaluate predicts every example with k and threshold and counts the
// results in meter; labels the model does not know are left out of an
// example's labels, and an example left with none is skipped, as
// `fasttext test` does.
func evaluate(m *fasttext.Model, exs []labelled, k int, threshold float32, meter *fasttext.Meter) {
	p := m.NewPredictor()
	var preds []fasttext.Prediction
	var gold []int
	for _, ex := range exs {
		gold = gold[:0]
		for _, l := range ex.labels {
			if i := m.LabelIndex(l); i >= 0 {
				gold = append(gold, i)
			}
		}
		if len(gold) == 0 {
			continue
		}
		preds = p.Predict(ex.text, k, threshold, preds)
		meter.Add(gold, preds)
	}
}

func testFiles(ctx context.Context, m *fasttext.Model, paths []string, src labelSource, k int, threshold float32) (*fasttext.Meter, error) {
	files, err := input.Expand(paths)
	if err != nil {
		return nil, usageError{err}
	}
	meter := fasttext.NewMeter(m.NumLabels())
	p := m.NewPredictor()
	var preds []fasttext.Prediction
	var gold []int
	err = readLabelled(ctx, files, src, func(ex labelled) error {
		gold = gold[:0]
		for _, l := range ex.labels {
			if i := m.LabelIndex(l); i >= 0 {
				gold = append(gold, i)
			}
		}
		if len(gold) > 0 {
			preds = p.Predict(ex.text, k, threshold, preds)
			meter.Add(gold, preds)
		}
		return nil
	})
	if errors.Is(err, errNoLabelField) {
		return nil, usageError{err}
	}
	return meter, err
}

// ClassifyTestOptions are the flags of `sluice classify test`.
type ClassifyTestOptions struct {
	TextField  string
	LabelField string
	LabelFrom  string
	K          int
	Threshold  float64
	JSON       bool
}

func classifyTestCommand(s Streams) *cli.Command {
	o := &ClassifyTestOptions{}
	return &cli.Command{
		Name:      "test",
		Usage:     "precision and recall at k of a fastText classifier on labelled datasets, per label, with a confusion table",
		ArgsUsage: "MODEL DATA... [--k 1] [--label-field label]",
		Description: "What `fasttext test` and `fasttext test-label` report, on JSONL or Parquet rows: N (examples with a\n" +
			"label the model knows), P@k (the share of predictions that were right) and R@k (the share of labels\n" +
			"found); per label precision, recall, F1 and counts; and a confusion table of each example's first\n" +
			"label against its top prediction. Texts are read as at prediction time.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "text-field", Value: "text", Destination: &o.TextField, Usage: "the field (dotted path) holding each row's text"},
			&cli.StringFlag{Name: "label-field", Value: "label", Destination: &o.LabelField, Usage: "the field holding each row's label, or a list of labels"},
			&cli.StringFlag{Name: "label-from", Destination: &o.LabelFrom, Usage: "the column whose value (string, integer or boolean) is the label"},
			&cli.IntFlag{Name: "k", Value: 1, Destination: &o.K, Usage: "predictions per example"},
			&cli.Float64Flag{Name: "threshold", Destination: &o.Threshold, Usage: "predictions below this probability are not made"},
			&cli.BoolFlag{Name: "json", Destination: &o.JSON,
				Usage: "print the result as one JSON object on standard output instead of text (fields in the README)"},
		},
		Action: action(func(c *cli.Context) error {
			return runClassifyTest(c.Context, o, c.Args().Slice(), s)
		}),
	}
}

// testReport is what `sluice classify test` prints (--json).
type testReport struct {
	Model     string        `json:"model"`
	K         int           `json:"k"`
	Examples  int64         `json:"examples"`
	Precision float64       `json:"precision"`
	Recall    float64       `json:"recall"`
	Labels    []labelReport `json:"labels"`
	// Confusion[i][j]: examples whose first label is Labels[i] and whose
	// top prediction is Labels[j]; the last column counts no prediction.
	Confusion [][]int64 `json:"confusion"`
}

type labelReport struct {
	Label     string  `json:"label"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	Gold      int64   `json:"gold"`
	Predicted int64   `json:"predicted"`
	Correct   int64   `json:"correct"`
}

func runClassifyTest(ctx context.Context, o *ClassifyTestOptions, args []string, s Streams) error {
	if len(args) < 2 {
		return usagef("give the model and the labelled data: sluice classify test MODEL DATA...")
	}
	if o.K < 1 {
		return usagef("--k %d: predictions per example start at 1", o.K)
	}
	m, err := fasttext.LoadFile(args[0])
	if err != nil {
		return usageError{err}
	}
	src := labelSource{textField: o.TextField, labelField: o.LabelField}
	if o.LabelFrom != "" {
		src.labelField, src.anyScalar = o.LabelFrom, true
	}
	meter, err := testFiles(ctx, m, args[1:], src, o.K, float32(o.Threshold))
	if err != nil {
		return err
	}
	rep := testReport{Model: args[0], K: o.K, Examples: meter.Examples, Precision: meter.Precision(), Recall: meter.Recall()}
	n := m.NumLabels()
	for i := range n {
		c := meter.Label(i)
		rep.Labels = append(rep.Labels, labelReport{Label: strings.TrimPrefix(m.Label(i), "__label__"),
			Precision: c.Precision(), Recall: c.Recall(), F1: c.F1(), Gold: c.Gold, Predicted: c.Predicted, Correct: c.Correct})
		row := make([]int64, n+1)
		for j := range row {
			row[j] = meter.Confusion(i, j)
		}
		rep.Confusion = append(rep.Confusion, row)
	}
	if o.JSON {
		return json.NewEncoder(s.Out).Encode(rep)
	}
	printTestReport(s.Out, rep)
	return nil
}

func printTestReport(w io.Writer, r testReport) {
	fmt.Fprintf(w, "N\t%d\nP@%d\t%.3f\nR@%d\t%.3f\n\n", r.Examples, r.K, r.Precision, r.K, r.Recall)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "label\tprecision\trecall\tf1\tgold\tpredicted\tcorrect\t")
	for _, l := range r.Labels {
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%d\t%d\t%d\t\n", l.Label, l.Precision, l.Recall, l.F1, l.Gold, l.Predicted, l.Correct)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nconfusion (rows: first label; columns: top prediction)")
	tw = tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "\t")
	for _, l := range r.Labels {
		fmt.Fprintf(tw, "%s\t", l.Label)
	}
	fmt.Fprintln(tw, "none\t")
	for i, row := range r.Confusion {
		fmt.Fprintf(tw, "%s\t", r.Labels[i].Label)
		for _, v := range row {
			fmt.Fprintf(tw, "%d\t", v)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}
