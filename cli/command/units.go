package command

import (
	"fmt"

	"github.com/sluice-data/sluice/internal/limit"
)

// parseSize reads the byte size of flag name, such as 16MiB, 1.5GB, 4096
// or 64k, within r.
func parseSize(name, s string, r limit.Range) (int, error) {
	n, err := r.Size(name, s)
	return int(n), err
}

// humanBytes renders n bytes for people.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
