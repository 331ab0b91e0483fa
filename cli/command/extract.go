package command

import (
	"context"
	"io"

	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/pipeline/pipefile"
	"github.com/sluice-data/sluice/stages"
	"github.com/urfave/cli/v2"
	"go.yaml.in/yaml/v3"
)

// ExtractOptions are the flags of `sluice extract`.
type ExtractOptions struct {
	ConvertOptions
	Mode            string
	KeepHTML        bool
	BlockDomains    string
	BlockSubstrings string
}

func extractCommand(s Streams) *cli.Command {
	o := &ExtractOptions{}
	flags := append(inputFlags(&o.ConvertOptions), outputFlags(&o.ConvertOptions)...)
	flags = append(flags,
		&cli.StringFlag{Name: "mode", Value: "plain", Destination: &o.Mode,
			Usage: "plain: all visible text, a line per block; main: the main content only (no navigation, footers, cookie banners, link lists)"},
		&cli.BoolFlag{Name: "keep-html", Destination: &o.KeepHTML,
			Usage: "keep each page, decoded to UTF-8, in an html column"})
	flags = append(flags, urlFilterFlags(&o.BlockDomains, &o.BlockSubstrings)...)
	return &cli.Command{
		Name:      "extract",
		Usage:     "turn WARC response records (HTML pages) into text rows: encoding detection, plain or main-content extraction",
		ArgsUsage: "IN.warc.gz... -o OUT",
		Description: "IN are WARC or WET files (.warc, .warc.gz with a gzip member per record or one gzip stream,\n" +
			".warc.wet.gz), globs or directories. Each page is decoded to UTF-8 (charset from the HTTP header,\n" +
			"then the <meta> tag, then detection) and its text extracted into the text column, with title,\n" +
			"html_lang and charset; the payload column is dropped. WET conversion records keep their text.\n" +
			"Pages with no text go to removed/ with _reason empty_extraction, payloads that are not pages\n" +
			"(images, PDFs) with not_html; records that cannot be read go to the quarantine with file and byte\n" +
			"offset. --block-domains and --block-url-substrings drop rows by URL first (url_filter stage).",
		Flags: flags,
		Action: action(func(c *cli.Context) error {
			return runExtract(c.Context, o, c.Args().Slice(), commandLine(c), s)
		}),
	}
}

// urlFilterFlags are the block-list flags of `sluice extract` and `sluice
// clean`.
func urlFilterFlags(domains, substrings *string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "block-domains", Destination: domains,
			Usage: "drop rows whose url is on a domain (or a subdomain of one) listed in this file, one a line, # comments"},
		&cli.StringFlag{Name: "block-url-substrings", Destination: substrings,
			Usage: "drop rows whose url contains a string listed in this file, one a line, # comments"},
	}
}

// urlFilterSpec is the url_filter stage the block-list flags ask for; ok is
// false when they ask for none.
func urlFilterSpec(domains, substrings string) (spec pipefile.Spec, ok bool) {
	if domains == "" && substrings == "" {
		return spec, false
	}
	var n yaml.Node
	n.Encode(map[string]string{"domains_file": domains, "substrings_file": substrings})
	return pipefile.Spec{Name: "url_filter", Params: &n, File: "--block-domains", Where: "--block-domains/--block-url-substrings"}, true
}

// stages builds the stages of an extraction: the URL filter, if asked
// for, then extract.
func (o *ExtractOptions) stages() ([]pipeline.Stage, error) {
	common := pipefile.Common{TextField: o.TextField}
	var built []pipeline.Stage
	if spec, ok := urlFilterSpec(o.BlockDomains, o.BlockSubstrings); ok {
		st, err := pipefile.Build(spec, common)
		if err != nil {
			return nil, usageError{err}
		}
		built = append(built, st)
	}
	st, err := stages.NewExtract(o.TextField, stages.ExtractParams{Mode: o.Mode, KeepHTML: o.KeepHTML}, false)
	if err != nil {
		return nil, usagef("--mode: %v", err)
	}
	return append(built, st), nil
}

func runExtract(ctx context.Context, o *ExtractOptions, args, command []string, s Streams) error {
	built, err := o.stages()
	if err != nil {
		return err
	}
	cfg, err := o.pipelineConfig(args)
	if err != nil {
		return err
	}
	cfg.Stages = built
	m, err := runWithProgress(ctx, cfg, command, s, o.view(s), "extracting")
	if m != nil {
		if perr := o.result(s.Out, newSummary(cfg.Target, m), func(w io.Writer) {
			printSummary(w, cfg.Target, m)
			printStageCounts(w, m)
		}); err == nil {
			err = perr
		}
	}
	return err
}
