package pii

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// prose is about 3 KB of English with an e-mail address, a phone number
// and an IP address in it.
const prose = `The history of the lighthouse on the northern cape goes back to 1868, when the harbour board decided that the growing traffic of timber ships needed a fixed light. The first tower was built of local granite and stood twenty-two metres tall; its lamp burned colza oil and could be seen, on a clear night, from almost fourteen nautical miles away. For most of its working life the station was run by a principal keeper and two assistants, who lived with their families in the low cottages behind the tower and kept a daily log of the weather, the passing ships and the state of the light.

Life at the station was quiet but never idle. The keepers trimmed wicks, polished the brass and the great glass lens, painted the iron gallery against the salt air, and kept the fog signal ready for the autumn storms. Supplies came by boat once a fortnight when the sea allowed it, and in hard winters the families sometimes went for six weeks without fresh bread. Children walked four kilometres along the cliff path to the village school, and a visiting teacher came out in the summer months to give lessons in the keepers' sitting room.

The light was electrified in 1954 and automated in 1991, after which the last keeper moved to the mainland. The cottages stood empty for years until a local trust bought them, repaired the roofs and opened a small museum. Visitors can now climb the one hundred and twelve steps to the lantern room, see the original lens, and read extracts from the old logs, which record everything from shipwrecks to the birth of a keeper's daughter during a January gale.

If you would like to arrange a group visit, write to the trust's volunteer coordinator at visits@northcape-light.org or call the booking line on (283) 182-3829 between ten and four on weekdays. Please note that the tower is closed in high winds, and that children under eight must be accompanied on the stairs at all times. The museum's online catalogue, hosted on a small server at 203.0.113.42, lists the objects on display and the archive material that can be consulted by appointment.

The trust relies on donations and on the work of volunteers, who guide tours, look after the garden, and help with the yearly repainting of the tower. Anyone interested in joining is welcome to come to the open evening held on the first Friday of every month in the old engine house. There is no need to book; tea and biscuits are provided, and the current volunteers are always happy to talk about the station, its history and the many people who kept the light burning through storms, wars and long, dark winters.

Over the years the station has also become a place for naturalists. Seabirds nest on the ledges below the gallery, seals haul out on the rocks at low tide, and in late summer porpoises can often be seen feeding in the tide race off the point.
`

// digitHeavy is log-like text full of numbers, dates, times, versions,
// prices and a few addresses.
var digitHeavy = func() string {
	var b strings.Builder
	for i := 0; b.Len() < 3000; i++ {
		fmt.Fprintf(&b, "2021-03-%02d 12:%02d:%02d.%03d INFO build 10.0.%d v1.%d.%d order %d total $%d,%03d.%02d qty %d ratio %d.%d%%\n",
			1+i%28, i%60, (i*7)%60, (i*37)%1000, 19041+i, i%10, i%7, 1614556800+i*97, i%9+1, (i*311)%1000, i%100, i%50, i%9, i%10)
		if i%8 == 3 {
			fmt.Fprintf(&b, "2021-03-%02d 12:00:00.000 WARN client 10.1.%d.%d called 283-182-%04d\n", 1+i%28, i%256, (i*3)%256, 1000+i)
		}
	}
	return b.String()
}()

var benchTexts = []struct{ name, text string }{
	{"prose", prose},
	{"digits", digitHeavy},
}

func BenchmarkAppendMasked(b *testing.B) {
	m := mustMasker(b, Options{})
	for _, tc := range benchTexts {
		b.Run(tc.name, func(b *testing.B) {
			src := []byte(tc.text)
			dst := make([]byte, 0, 2*len(src))
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				dst, _ = m.AppendMasked(dst[:0], src)
			}
		})
	}
}

// BenchmarkRegexp is the same job with Go's regexp package, with patterns
// close to (simpler than) the rules of this package, for comparison.
func BenchmarkRegexp(b *testing.B) {
	res := []*regexp.Regexp{
		regexp.MustCompile(`\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b`),
		regexp.MustCompile(`(?:\+1[ .-]?)?(?:\(\d{3}\)[ .-]?|\b\d{3}[.-])\d{3}[ .-]\d{4}\b|\b\d{10}\b|\+[2-9]\d{0,3}(?:[ -]\d{1,8}){1,6}\b`),
		regexp.MustCompile(`\b(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\b|(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}|(?:[0-9A-Fa-f]{1,4}:){1,7}:|::(?:[0-9A-Fa-f]{1,4}:){0,6}[0-9A-Fa-f]{1,4}`),
	}
	repl := [][]byte{[]byte(DefaultReplacement[Email]), []byte(DefaultReplacement[Phone]), []byte(DefaultReplacement[IP])}
	for _, tc := range benchTexts {
		b.Run(tc.name, func(b *testing.B) {
			src := []byte(tc.text)
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				out := src
				for i, re := range res {
					out = re.ReplaceAllLiteral(out, repl[i])
				}
			}
		})
	}
}

func BenchmarkColumn(b *testing.B) {
	m := mustMasker(b, Options{})
	for _, tc := range benchTexts {
		b.Run(tc.name, func(b *testing.B) {
			mem := memory.NewGoAllocator()
			sb := array.NewStringBuilder(mem)
			for range 1000 {
				sb.Append(tc.text)
			}
			arr := sb.NewStringArray()
			sb.Release()
			defer arr.Release()
			b.SetBytes(int64(len(arr.ValueBytes())))
			b.ReportAllocs()
			for b.Loop() {
				out, counts := m.Column(mem, arr)
				out.Release()
				for _, c := range counts {
					c.Release()
				}
			}
		})
	}
}
