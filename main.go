// Command sluice turns raw text corpora into clean, deduplicated,
// token-counted training datasets: JSONL in, Arrow record batches through
// vectorized kernels, Parquet out.
package main

import (
	"os"

	"github.com/sluice-data/sluice/cli/command"
)

func main() {
	os.Exit(command.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
