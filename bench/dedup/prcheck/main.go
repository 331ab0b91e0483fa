// Command prcheck scores near-duplicate removal against the true clusters
// that bench/gen (or gen_corpus.py) writes (FILE.dups.jsonl): recall over
// the true pairs at or above a similarity, precision over the pairs sluice
// put in one cluster (a pair counts as right when its true similarity is at
// least the dedup threshold), and precision over the removals: each removed
// row against the row kept in its place.
//
// REMOVED is sluice's removed/ (Parquet, with id and _dup_of) or a peer's
// removals as JSONL, {"id": ..., "_dup_of": ...} a line.
//
// usage: go run ./bench/dedup/prcheck TRUTH.dups.jsonl REMOVED.parquet|REMOVED.jsonl [RECALL_MIN] [THRESHOLD]
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/pqio"
)

type truthCluster struct {
	Pairs [][]any `json:"pairs"`
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: prcheck TRUTH.dups.jsonl REMOVED.parquet [RECALL_MIN 0.85] [THRESHOLD 0.8]")
		os.Exit(2)
	}
	recallMin, threshold := 0.85, 0.8
	if len(os.Args) > 3 {
		recallMin, _ = strconv.ParseFloat(os.Args[3], 64)
	}
	if len(os.Args) > 4 {
		threshold, _ = strconv.ParseFloat(os.Args[4], 64)
	}
	truth := map[[2]string]float64{}
	f, err := os.Open(os.Args[1])
	check(err)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var c truthCluster
		check(json.Unmarshal(sc.Bytes(), &c))
		for _, p := range c.Pairs {
			truth[key(p[0].(string), p[1].(string))] = p[2].(float64)
		}
	}
	check(sc.Err())

	// Clusters from removed/: each removed row names the kept row.
	members := map[string][]string{}
	if strings.HasSuffix(os.Args[2], ".jsonl") {
		// A peer's removals: {"id": ..., "_dup_of": ...} a line.
		f, err := os.Open(os.Args[2])
		check(err)
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var r struct {
				ID    string `json:"id"`
				DupOf string `json:"_dup_of"`
			}
			check(json.Unmarshal(sc.Bytes(), &r))
			members[r.DupOf] = append(members[r.DupOf], r.ID)
		}
		check(sc.Err())
		f.Close()
	} else {
		r, err := pqio.Open(memory.DefaultAllocator, os.Args[2], 65536)
		check(err)
		for {
			rec, err := r.Next(context.Background())
			check(err)
			if rec == nil {
				break
			}
			ids := rec.Column(rec.Schema().FieldIndices("id")[0]).(*array.String)
			dup := rec.Column(rec.Schema().FieldIndices("_dup_of")[0]).(*array.String)
			for i := 0; i < int(rec.NumRows()); i++ {
				members[dup.Value(i)] = append(members[dup.Value(i)], ids.Value(i))
			}
			rec.Release()
		}
	}
	cluster := map[string]string{}
	predicted := map[[2]string]bool{}
	for kept, removed := range members {
		all := append([]string{kept}, removed...)
		for _, id := range all {
			cluster[id] = kept
		}
		for i := range all {
			for j := i + 1; j < len(all); j++ {
				predicted[key(all[i], all[j])] = true
			}
		}
	}
	var wanted, found int
	for p, j := range truth {
		if j >= recallMin {
			wanted++
			if c, ok := cluster[p[0]]; ok && cluster[p[1]] == c {
				found++
			}
		}
	}
	var right int
	for p := range predicted {
		if truth[p] >= threshold {
			right++
		}
	}
	fmt.Printf("true pairs with Jaccard >= %.2f: %d, found %d: recall %.4f\n", recallMin, wanted, found, ratio(found, wanted))
	fmt.Printf("predicted pairs: %d, with true Jaccard >= %.2f: %d: precision %.4f\n", len(predicted), threshold, right, ratio(right, len(predicted)))
	// A removal is right when the removed row is a near duplicate of the
	// row kept in its place (_dup_of), the pair that justifies it.
	var removals, justified int
	for kept, removed := range members {
		for _, id := range removed {
			removals++
			if truth[key(kept, id)] >= threshold {
				justified++
			}
		}
	}
	fmt.Printf("removals: %d, with true Jaccard to the kept row >= %.2f: %d: removal precision %.4f\n", removals, threshold, justified, ratio(justified, removals))
}

func key(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "prcheck:", err)
		os.Exit(1)
	}
}
