"""MinHash near-dedup with datasketch, the peer of `sluice dedup minhash`.

Each document's text is lowercased and split on white space; its shingles are
the runs of NGRAM words (one shingle of all its words when it has fewer), fed
to datasketch.MinHash (NUM_PERM permutations) with update_batch, its fastest
path. Documents go through a MinHashLSH index at THRESHOLD in input order: a
document whose candidates include one of estimated Jaccard >= THRESHOLD is
removed as a duplicate of the first such (in input order); the others are
inserted. The removed rows are written to REMOVED.jsonl as
{"id": ..., "_dup_of": ...}, which bench/dedup/prcheck scores like sluice's
removed/.

usage: python3 datasketch_minhash.py IN.jsonl REMOVED.jsonl [NUM_PERM 128] [THRESHOLD 0.8] [NGRAM 5]

Prints one JSON line: documents, removed, CPU seconds of the process.
"""

import json
import sys
import time

from datasketch import MinHash, MinHashLSH


def shingles(text, n):
    words = text.lower().split()
    if not words:
        return []
    if len(words) < n:
        return [" ".join(words).encode()]
    return [" ".join(words[i : i + n]).encode() for i in range(len(words) - n + 1)]


def main():
    if len(sys.argv) < 3:
        print("usage: python3 datasketch_minhash.py IN.jsonl REMOVED.jsonl [NUM_PERM] [THRESHOLD] [NGRAM]", file=sys.stderr)
        sys.exit(2)
    src, removed_path = sys.argv[1], sys.argv[2]
    num_perm = int(sys.argv[3]) if len(sys.argv) > 3 else 128
    threshold = float(sys.argv[4]) if len(sys.argv) > 4 else 0.8
    ngram = int(sys.argv[5]) if len(sys.argv) > 5 else 5
    start = time.process_time()
    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    kept = {}  # id -> (input order, MinHash)
    docs = removed = 0
    with open(src, encoding="utf-8") as f, open(removed_path, "w", encoding="utf-8") as out:
        for line in f:
            if not line.strip():
                continue
            row = json.loads(line)
            docs += 1
            sh = shingles(row.get("text") or "", ngram)
            if not sh:
                continue  # no words: nothing to compare, kept (as sluice does)
            m = MinHash(num_perm=num_perm)
            m.update_batch(sh)
            doc_id = row.get("id", str(docs))
            best = None
            for cand in lsh.query(m):
                order, cm = kept[cand]
                if (best is None or order < best[0]) and m.jaccard(cm) >= threshold:
                    best = (order, cand)
            if best is not None:
                removed += 1
                out.write(json.dumps({"id": doc_id, "_dup_of": best[1]}) + "\n")
                continue
            lsh.insert(doc_id, m)
            kept[doc_id] = (docs, m)
    cpu = time.process_time() - start
    print(json.dumps({"tool": "datasketch", "documents": docs, "removed": removed, "cpu_seconds": round(cpu, 3),
                      "docs_per_cpu_second": round(docs / cpu) if cpu > 0 else None}))


if __name__ == "__main__":
    main()
