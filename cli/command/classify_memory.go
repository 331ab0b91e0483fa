package command

import (
	"bufio"
	"bytes"
	"os"
	"strconv"

	"github.com/sluice-data/sluice/internal/limit"
	"github.com/sluice-data/sluice/kernels/fasttext"
)

// checkTrainMemory refuses, before any data is read, fastText arguments
// whose weight matrices cannot fit in this machine's memory: the input
// matrix alone holds dim float32 values for each hash bucket (and each
// word, which only the data tells).
func checkTrainMemory(a fasttext.TrainArgs) error {
	total := physicalMemory()
	if total <= 0 {
		return nil // unknown here: the range of --dim still holds
	}
	buckets := int64(a.Bucket)
	if a.WordNgrams <= 1 && a.MaxN == 0 {
		buckets = 0 // fastText keeps no buckets without n-grams
	}
	need := float64(buckets+1) * float64(a.Dim) * 4
	if need <= float64(total) {
		return nil
	}
	return &limit.Error{Name: "--dim " + strconv.Itoa(a.Dim) + " with --bucket " + strconv.Itoa(int(buckets)),
		Value: "a weight matrix of " + humanBytes(int64(need)),
		Want:  "at most the " + humanBytes(total) + " of memory this machine has: lower --dim or --bucket"}
}

// physicalMemory is the machine's memory in bytes, or 0 where it is not
// known (MemTotal of /proc/meminfo on Linux).
func physicalMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	s := bufio.NewScanner(bytes.NewReader(b))
	for s.Scan() {
		f := bytes.Fields(s.Bytes())
		if len(f) >= 2 && string(f[0]) == "MemTotal:" {
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
